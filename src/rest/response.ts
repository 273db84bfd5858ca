/**
 * Response decoding: success bodies, the mapping of a failed response to an
 * {@link ApiError} subclass, rate-limit headers, and the readable summary of
 * an error body of any shape.
 *
 * @module
 */

import {
  ApiError,
  AuthenticationError,
  NotFoundError,
  PermissionError,
  RateLimitError,
  ServerError,
  UnexpectedResponseError,
  type ApiErrorInit,
} from '../errors/index.js';
import { redactHeaders, redactValue } from '../core/redact.js';
import type { RateLimitHeaders } from './rate-limit-store.js';
import { parseRetryAfter } from './retry-after.js';
import type { TransportResponse } from './transport.js';

/** The error class of each status that has one of its own; 429 and 5xx are handled beside it. */
const ERROR_BY_STATUS: Readonly<Record<number, new (init: ApiErrorInit) => ApiError>> = {
  401: AuthenticationError,
  403: PermissionError,
  404: NotFoundError,
};

/** What the caller knows of the request that failed. */
type FailedRequest = Omit<ApiErrorInit, 'status' | 'body' | 'headers' | 'summary' | 'code'>;

/** Reads a failed response's body and maps it to its typed error, with every known secret scrubbed. */
export async function toApiError(response: TransportResponse, request: FailedRequest, secrets: readonly string[]): Promise<ApiError> {
  let raw: unknown;
  try {
    raw = await response.text();
  } catch {
    raw = undefined;
  }
  if (typeof raw === 'string') {
    const text = raw;
    raw = text === '' ? undefined : text;
    const type = response.headers['content-type'];
    if (text !== '' && (typeof type !== 'string' || type.includes('json'))) {
      try {
        raw = JSON.parse(text);
      } catch {
        // Not JSON: keep the text.
      }
    }
  }
  const body = redactValue(raw, secrets);
  const init: ApiErrorInit = {
    ...request,
    status: response.status,
    body,
    headers: redactHeaders(response.headers, secrets),
    summary: summarizeBody(body),
    code: extractCode(body),
  };
  if (response.status === 429) return new RateLimitError({ ...init, retryAfterMs: retryAfterOf(response, raw), global: isGlobalLimit(response, raw) });
  const ErrorClass = ERROR_BY_STATUS[response.status] ?? (response.status >= 500 ? ServerError : ApiError);
  return new ErrorClass(init);
}

/** Parses a 2xx body: JSON when it says so (or says nothing and parses), text otherwise, `undefined` when empty. */
export function parseSuccessBody(text: string, response: TransportResponse, operation: string): unknown {
  if (text === '') return undefined;
  const type = response.headers['content-type'];
  if (typeof type === 'string' && !type.includes('json')) return text;
  try {
    return JSON.parse(text);
  } catch {
    // The parser's message quotes the body, which may echo a secret: it is not kept as the cause.
    if (typeof type === 'string') throw new UnexpectedResponseError(operation, response.status, 'the body is not valid JSON');
    return text;
  }
}

/** Whether a response carries any rate-limit header worth learning from. */
export function hasRateLimitHeaders(response: TransportResponse): boolean {
  const headers = response.headers;
  return headers['x-ratelimit-limit'] !== undefined || headers['x-ratelimit-remaining'] !== undefined || headers['x-ratelimit-bucket'] !== undefined;
}

/** Reads the `X-RateLimit-*` headers. */
export function readRateLimitHeaders(response: TransportResponse): RateLimitHeaders {
  const resetAfter = numberHeader(response, 'x-ratelimit-reset-after');
  const resetAt = numberHeader(response, 'x-ratelimit-reset');
  return {
    limit: numberHeader(response, 'x-ratelimit-limit'),
    remaining: numberHeader(response, 'x-ratelimit-remaining'),
    resetAfterMs: resetAfter === undefined ? undefined : Math.ceil(resetAfter * 1000),
    bucket: header(response, 'x-ratelimit-bucket'),
    resetAtMs: resetAt === undefined ? undefined : Math.round(resetAt * 1000),
  };
}

function header(response: TransportResponse, name: string): string | undefined {
  const value = response.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function numberHeader(response: TransportResponse, name: string): number | undefined {
  const value = header(response, name);
  if (value === undefined) return undefined;
  const parsed = Number(value);
  return Number.isFinite(parsed) && parsed >= 0 ? parsed : undefined;
}

/** No server value of a wait is taken past a day (the pause itself is cut further, to `maxRateLimitPauseMs`). */
const MAX_REPORTED_WAIT_MS = 24 * 60 * 60 * 1000;

function retryAfterOf(response: TransportResponse, body: unknown): number | undefined {
  const wait = rawRetryAfter(response, body);
  return wait === undefined ? undefined : Math.min(wait, MAX_REPORTED_WAIT_MS);
}

function rawRetryAfter(response: TransportResponse, body: unknown): number | undefined {
  const fromHeader = parseRetryAfter(header(response, 'retry-after'));
  if (fromHeader !== undefined) return fromHeader;
  const resetAfter = parseRetryAfter(header(response, 'x-ratelimit-reset-after'));
  if (resetAfter !== undefined) return resetAfter;
  if (typeof body === 'object' && body !== null) {
    const value = (body as Record<string, unknown>)['retry_after'];
    if (typeof value === 'number' && value >= 0) return Math.ceil(value * 1000);
  }
  return undefined;
}

function isGlobalLimit(response: TransportResponse, body: unknown): boolean {
  if (header(response, 'x-ratelimit-global')?.toLowerCase() === 'true') return true;
  if (header(response, 'x-ratelimit-scope')?.toLowerCase() === 'global') return true;
  return typeof body === 'object' && body !== null && (body as Record<string, unknown>)['global'] === true;
}

const MAX_SUMMARY = 300;
/** Only the head of a long text body is summarised, so the work stays small whatever the body's size. */
const MAX_SUMMARY_INPUT = 16 * 1024;

/** Produces a short, readable summary of an error body of any shape (JSON with messages, codes or field errors, text, HTML). */
function summarizeBody(body: unknown): string {
  if (body === undefined || body === null) return '';
  if (typeof body === 'string') {
    const head = body.length > MAX_SUMMARY_INPUT ? body.slice(0, MAX_SUMMARY_INPUT) : body;
    const text = looksLikeHtml(head) ? htmlToText(head) : head;
    return truncate(text.replace(/\s+/g, ' ').trim());
  }
  if (typeof body !== 'object') return truncate(String(body));
  const record = body as Record<string, unknown>;
  const parts: string[] = [];
  const message = firstString(record, ['message', 'error_description', 'detail', 'title', 'error']);
  if (message) parts.push(message);
  const code = extractCode(body);
  if (code !== undefined && String(code) !== message) parts.push(`code ${String(code)}`);
  const fieldErrors = describeFieldErrors(record['errors']);
  if (fieldErrors) parts.push(fieldErrors);
  if (parts.length === 0) return truncate(JSON.stringify(body).slice(0, MAX_SUMMARY + 1));
  return truncate(parts.join('; '));
}

/** The machine-readable error code of a body (`code`, or `error.code`), if it has one. */
function extractCode(body: unknown): string | number | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const code = (body as Record<string, unknown>)['code'];
  if (typeof code === 'string' || typeof code === 'number') return code;
  const error = (body as Record<string, unknown>)['error'];
  if (typeof error === 'object' && error !== null) return extractCode(error);
  return undefined;
}

function firstString(record: Record<string, unknown>, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const value = record[key];
    if (typeof value === 'string' && value.length > 0) return value;
    if (typeof value === 'object' && value !== null && key === 'error') {
      const nested = firstString(value as Record<string, unknown>, ['message', 'detail']);
      if (nested) return nested;
    }
  }
  return undefined;
}

function describeFieldErrors(errors: unknown): string {
  if (errors === undefined || errors === null) return '';
  if (Array.isArray(errors)) {
    return errors
      .slice(0, 5)
      .map((entry) => {
        if (typeof entry === 'string') return entry;
        if (typeof entry === 'object' && entry !== null) {
          const e = entry as Record<string, unknown>;
          const where = typeof e['field'] === 'string' ? e['field'] : typeof e['path'] === 'string' ? e['path'] : '';
          const what = typeof e['message'] === 'string' ? e['message'] : JSON.stringify(entry);
          return where ? `${where}: ${what}` : what;
        }
        return String(entry);
      })
      .join(', ');
  }
  if (typeof errors === 'object') {
    return Object.entries(errors as Record<string, unknown>)
      .slice(0, 5)
      .map(([field, value]) => `${field}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
      .join(', ');
  }
  return String(errors);
}

function looksLikeHtml(text: string): boolean {
  return /^\s*<(!doctype|html|head|body|\?xml)/i.test(text);
}

/** The page's title and first heading, or its text without tags. Every pattern stops at the next `<`, so the scan is linear. */
function htmlToText(html: string): string {
  const title = /<title[^<>]*>([^<]*)<\/title>/i.exec(html)?.[1]?.trim();
  const h1 = /<h1[^<>]*>([^<]*)<\/h1>/i.exec(html)?.[1]?.trim();
  if (title || h1) return [title, h1].filter((part, index, all) => part && all.indexOf(part) === index).join(': ');
  return html.replace(/<[^<>]*>/g, ' ');
}

function truncate(text: string): string {
  return text.length > MAX_SUMMARY ? `${text.slice(0, MAX_SUMMARY)}…` : text;
}
