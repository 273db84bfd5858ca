/**
 * The SDK's error hierarchy and its type guards.
 *
 * Every error the SDK throws is a {@link CommunityChatError}. Guards such as
 * {@link isApiError} recognise errors by a brand stored under a global symbol,
 * so they also work when two copies of the package are loaded (for example an
 * ESM and a CJS copy, or two versions in one dependency tree), where
 * `instanceof` would fail.
 *
 * @module
 */

import type { CredentialKind, HttpMethod } from './routes.js';

const KINDS = Symbol.for('community-chat-sdk.error.kinds');

/** Names of every error class, used by the cross-copy guards. */
export type ErrorKind =
  | 'CommunityChatError'
  | 'ApiError'
  | 'AuthenticationError'
  | 'PermissionError'
  | 'NotFoundError'
  | 'RateLimitError'
  | 'ServerError'
  | 'ValidationError'
  | 'MissingCredentialError'
  | 'InsecureTransportError'
  | 'NetworkError'
  | 'TimeoutError'
  | 'AbortError'
  | 'UnexpectedResponseError'
  | 'GatewayError'
  | 'GatewayFatalError'
  | 'InteractionError'
  | 'InteractionAlreadyAcknowledgedError'
  | 'InteractionExpiredError'
  | 'InteractionResponseError';

function brand(target: { prototype: object }, kinds: readonly ErrorKind[]): void {
  Object.defineProperty(target.prototype, KINDS, { value: Object.freeze([...kinds]), enumerable: false });
}

function hasKind(value: unknown, kind: ErrorKind): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const kinds = (value as Record<symbol, unknown>)[KINDS];
  return Array.isArray(kinds) && kinds.includes(kind);
}

/** Options shared by every SDK error. */
export interface CommunityChatErrorOptions {
  /** The underlying error, if any. */
  cause?: unknown;
}

/** Base class of every error thrown by the SDK. */
export class CommunityChatError extends Error {
  constructor(message: string, options?: CommunityChatErrorOptions) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
  }
}
brand(CommunityChatError, ['CommunityChatError']);

/** Where a failed request was going; paths never contain secrets. */
export interface RequestDescription {
  /** HTTP method of the request. */
  method: HttpMethod;
  /** Request path with every secret path segment replaced by `:redacted`. */
  path: string;
  /** Operation id from the route table, or `'request'` for the low-level escape hatch. */
  operation: string;
}

/** Everything known about a non-2xx response. */
export interface ApiErrorInit extends RequestDescription {
  /** HTTP status code. */
  status: number;
  /** Parsed body: JSON value, text, or `undefined` when empty. Secrets are redacted. */
  body: unknown;
  /** Response headers, lower-cased, with cookies removed. */
  headers: Record<string, string>;
  /** The credential kind the request used. */
  credential: CredentialKind;
  /** Attempt number, starting at 1. */
  attempt?: number;
}

/** A non-2xx response from the service. */
export class ApiError extends CommunityChatError {
  /** HTTP status code. */
  readonly status: number;
  /** Machine-readable error code from the body, when the body has one. */
  readonly code: string | number | undefined;
  /** Parsed response body (JSON value or text), with secret-looking fields redacted. */
  readonly body: unknown;
  /** Response headers, lower-cased, without cookies. */
  readonly headers: Record<string, string>;
  /** HTTP method of the failed request. */
  readonly method: HttpMethod;
  /** Path of the failed request, with secret segments replaced by `:redacted`. */
  readonly path: string;
  /** Operation id of the failed request. */
  readonly operation: string;
  /** The credential kind the request used (`none` for public routes). */
  readonly credential: CredentialKind;
  /** Attempt number that produced this error, starting at 1. */
  readonly attempt: number;

  constructor(init: ApiErrorInit, message?: string) {
    const summary = message ?? summarizeBody(init.body);
    super(`${init.method} ${init.path} failed with ${init.status}${summary ? `: ${summary}` : ''}`);
    this.status = init.status;
    this.code = extractCode(init.body);
    this.body = init.body;
    this.headers = init.headers;
    this.method = init.method;
    this.path = init.path;
    this.operation = init.operation;
    this.credential = init.credential;
    this.attempt = init.attempt ?? 1;
  }
}
brand(ApiError, ['CommunityChatError', 'ApiError']);

/** 401: the credential was missing, malformed, expired or revoked. */
export class AuthenticationError extends ApiError {
  constructor(init: ApiErrorInit) {
    const hint: Partial<Record<CredentialKind, string>> = {
      bot: 'the bot token was rejected; replace it (it may have been reset)',
      user: 'the user session was rejected; log in again or refresh it',
      webhook: 'the webhook token was rejected; it may have been reset',
      refreshCookie: 'the refresh cookie was rejected; the session has ended, log in again',
      none: 'the service asked for credentials on a route the contract lists as public',
    };
    const summary = summarizeBody(init.body);
    super(init, `${hint[init.credential] ?? 'credential rejected'}${summary ? ` (${summary})` : ''}`);
  }
}
brand(AuthenticationError, ['CommunityChatError', 'ApiError', 'AuthenticationError']);

/** 403: authenticated but not permitted (membership, roles or ownership). */
export class PermissionError extends ApiError {}
brand(PermissionError, ['CommunityChatError', 'ApiError', 'PermissionError']);

/** 404: the addressed resource does not exist. */
export class NotFoundError extends ApiError {}
brand(NotFoundError, ['CommunityChatError', 'ApiError', 'NotFoundError']);

/** Extra facts about a rate limit. */
export interface RateLimitErrorInit extends ApiErrorInit {
  /** How long the service asked to wait, in milliseconds, if it said. */
  retryAfterMs: number | undefined;
  /** Whether the limit is the global (per-IP) one. */
  global: boolean;
}

/** 429: the rate limit was exceeded. */
export class RateLimitError extends ApiError {
  /** Milliseconds the service asked the client to wait, or `undefined` if it did not say. */
  readonly retryAfterMs: number | undefined;
  /** Whether the global (per-IP) limit was hit rather than a route's. */
  readonly global: boolean;

  constructor(init: RateLimitErrorInit, reason?: string) {
    const summary = summarizeBody(init.body);
    const wait = init.retryAfterMs === undefined ? 'no Retry-After given' : `retry after ${init.retryAfterMs} ms`;
    super(init, `rate limited${init.global ? ' (global)' : ''}, ${wait}${reason ? `; ${reason}` : ''}${summary ? ` (${summary})` : ''}`);
    this.retryAfterMs = init.retryAfterMs;
    this.global = init.global;
  }
}
brand(RateLimitError, ['CommunityChatError', 'ApiError', 'RateLimitError']);

/** 5xx: the service failed. */
export class ServerError extends ApiError {}
brand(ServerError, ['CommunityChatError', 'ApiError', 'ServerError']);

/** One problem found while validating input. */
export interface ValidationIssue {
  /** Dotted path of the offending field, e.g. `data.content` or `options.0.name`. */
  path: string;
  /** What is wrong with it. */
  message: string;
}

/** Input was rejected locally, before any network I/O. */
export class ValidationError extends CommunityChatError {
  /** Every offending field. */
  readonly issues: readonly ValidationIssue[];
  /** The operation whose input was rejected. */
  readonly operation: string;

  constructor(operation: string, issues: readonly ValidationIssue[]) {
    const list = issues.map((issue) => `${issue.path || '(input)'}: ${issue.message}`).join('; ');
    super(`Invalid input for ${operation}: ${list}`);
    this.operation = operation;
    this.issues = issues;
  }
}
brand(ValidationError, ['CommunityChatError', 'ValidationError']);

/** The operation needs a credential the client does not hold; nothing was sent. */
export class MissingCredentialError extends CommunityChatError {
  /** Operation id. */
  readonly operation: string;
  /** Credential kinds the operation accepts. */
  readonly accepted: readonly CredentialKind[];

  constructor(operation: string, accepted: readonly CredentialKind[], reasons: readonly string[] = []) {
    super(
      `${operation} needs one of these credentials: ${accepted.join(', ')}; the client holds none of them${reasons.length > 0 ? ` (${reasons.join('; ')})` : ''}. Nothing was sent.`,
    );
    this.operation = operation;
    this.accepted = accepted;
  }
}
brand(MissingCredentialError, ['CommunityChatError', 'MissingCredentialError']);

/** Credentials would have gone over plain HTTP to a non-loopback host; nothing was sent. */
export class InsecureTransportError extends CommunityChatError {
  constructor(operation: string, origin: string) {
    super(
      `${operation} refused to send credentials over plain HTTP to ${origin}. Use https://, or pass allowInsecureHttp: true if you really mean it. Nothing was sent.`,
    );
  }
}
brand(InsecureTransportError, ['CommunityChatError', 'InsecureTransportError']);

/** Facts shared by errors raised while a request was under way. */
export interface RequestFailureInit extends RequestDescription {
  /** Attempt number, starting at 1. */
  attempt?: number;
  /** Whether the request may have reached the server (its outcome is unknown). */
  mayHaveReachedServer: boolean;
  /** Underlying error. */
  cause?: unknown;
}

abstract class RequestFailure extends CommunityChatError {
  /** HTTP method. */
  readonly method: HttpMethod;
  /** Redacted path. */
  readonly path: string;
  /** Operation id. */
  readonly operation: string;
  /** Attempt number, starting at 1. */
  readonly attempt: number;
  /** Whether the request may have reached the server, so its effect is unknown. */
  readonly mayHaveReachedServer: boolean;

  constructor(init: RequestFailureInit, message: string) {
    super(`${init.method} ${init.path}: ${message}`, { cause: init.cause });
    this.method = init.method;
    this.path = init.path;
    this.operation = init.operation;
    this.attempt = init.attempt ?? 1;
    this.mayHaveReachedServer = init.mayHaveReachedServer;
  }
}

/** The connection failed (refused, reset, DNS failure...). */
export class NetworkError extends RequestFailure {
  constructor(init: RequestFailureInit, detail: string) {
    super(init, `network error: ${detail}`);
  }
}
brand(NetworkError, ['CommunityChatError', 'NetworkError']);

/** The request took longer than its timeout. */
export class TimeoutError extends RequestFailure {
  /** The timeout that elapsed, in milliseconds. */
  readonly timeoutMs: number;
  constructor(init: RequestFailureInit, timeoutMs: number) {
    super(init, `timed out after ${timeoutMs} ms${init.mayHaveReachedServer ? ' (the request may have reached the server)' : ''}`);
    this.timeoutMs = timeoutMs;
  }
}
brand(TimeoutError, ['CommunityChatError', 'TimeoutError']);

/** The caller aborted the request with its `AbortSignal`. */
export class AbortError extends RequestFailure {
  constructor(init: RequestFailureInit) {
    super(init, `aborted by the caller${init.mayHaveReachedServer ? ' (the request may have reached the server)' : ''}`);
  }
}
brand(AbortError, ['CommunityChatError', 'AbortError']);

/** A 2xx response whose body the SDK could not use (e.g. invalid JSON, or a login answer without a token). */
export class UnexpectedResponseError extends CommunityChatError {
  /** Operation id. */
  readonly operation: string;
  /** HTTP status of the response. */
  readonly status: number;

  constructor(operation: string, status: number, message: string, options?: CommunityChatErrorOptions) {
    super(`${operation}: unexpected response (${status}): ${message}`, options);
    this.operation = operation;
    this.status = status;
  }
}
brand(UnexpectedResponseError, ['CommunityChatError', 'UnexpectedResponseError']);

/** The Gateway could not connect (timed out, aborted, or destroyed before READY). */
export class GatewayError extends CommunityChatError {
  /** Close code, when the connection closed with one. */
  readonly code: number | undefined;
  constructor(message: string, code?: number, options?: CommunityChatErrorOptions) {
    super(message, options);
    this.code = code;
  }
}
brand(GatewayError, ['CommunityChatError', 'GatewayError']);

/** The service closed the Gateway with a code that must not be retried (e.g. 4004 authentication failed). */
export class GatewayFatalError extends GatewayError {
  /** What to do about it. */
  readonly hint: string;
  constructor(code: number, name: string, hint: string) {
    super(`Gateway closed with ${code} (${name}): ${hint}. Not reconnecting.`, code);
    this.hint = hint;
  }
}
brand(GatewayFatalError, ['CommunityChatError', 'GatewayError', 'GatewayFatalError']);

/** Facts every interaction error carries. */
export interface InteractionErrorInit {
  /** The interaction's id. */
  interactionId: string;
  /** How old the interaction was when the error happened, in milliseconds. */
  ageMs: number;
}

function formatAge(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  return seconds >= 60 ? `${Math.floor(seconds / 60)} min ${seconds % 60} s` : `${seconds} s`;
}

/** Base class of errors about answering an interaction; every one carries the interaction's age. */
export class InteractionError extends CommunityChatError {
  /** The interaction's id. */
  readonly interactionId: string;
  /** The interaction's age when the error happened, in milliseconds. */
  readonly ageMs: number;
  constructor(init: InteractionErrorInit, message: string, options?: CommunityChatErrorOptions) {
    super(`Interaction ${init.interactionId} (age ${formatAge(init.ageMs)}): ${message}`, options);
    this.interactionId = init.interactionId;
    this.ageMs = init.ageMs;
  }
}
brand(InteractionError, ['CommunityChatError', 'InteractionError']);

/** A second acknowledgement (other than autocomplete results) was refused locally; nothing was sent. */
export class InteractionAlreadyAcknowledgedError extends InteractionError {
  /** The `interaction_type` of the earlier acknowledgement. */
  readonly previousType: number;
  constructor(init: InteractionErrorInit, previousType: number, attemptedType: number) {
    super(init, `already acknowledged with interaction_type ${previousType}; an interaction is acknowledged only once (autocomplete results excepted), so interaction_type ${attemptedType} was not sent`);
    this.previousType = previousType;
  }
}
brand(InteractionAlreadyAcknowledgedError, ['CommunityChatError', 'InteractionError', 'InteractionAlreadyAcknowledgedError']);

/** The interaction's 15-minute token has expired; nothing was sent. */
export class InteractionExpiredError extends InteractionError {
  /** When it expired, epoch milliseconds. */
  readonly expiredAt: number;
  constructor(init: InteractionErrorInit, expiredAt: number) {
    super(init, `expired at ${new Date(expiredAt).toISOString()}: interaction tokens are valid for 15 minutes from creation; nothing was sent`);
    this.expiredAt = expiredAt;
  }
}
brand(InteractionExpiredError, ['CommunityChatError', 'InteractionError', 'InteractionExpiredError']);

/** The callback failed. `mayHaveBeenDelivered` says whether the answer may still have reached the service. */
export class InteractionResponseError extends InteractionError {
  /** HTTP status, when the service answered. */
  readonly status: number | undefined;
  /** Whether the answer may have been delivered (a transport failure after sending). When `true`, the interaction stays acknowledged. */
  readonly mayHaveBeenDelivered: boolean;
  constructor(init: InteractionErrorInit, cause: unknown, status: number | undefined, mayHaveBeenDelivered: boolean) {
    const what =
      status !== undefined
        ? `the service rejected the answer with ${status}; the interaction is pending again`
        : mayHaveBeenDelivered
          ? 'the answer may have been delivered: the connection failed after it was sent, so it was not retried'
          : 'the answer was not delivered; the interaction is pending again';
    super(init, `${what} (${cause instanceof Error ? cause.message : String(cause)})`, { cause });
    this.status = status;
    this.mayHaveBeenDelivered = mayHaveBeenDelivered;
  }
}
brand(InteractionResponseError, ['CommunityChatError', 'InteractionError', 'InteractionResponseError']);

/** Whether `value` is any error thrown by this SDK (any copy of it). */
export const isCommunityChatError = (value: unknown): value is CommunityChatError => hasKind(value, 'CommunityChatError');
/** Whether `value` is an {@link ApiError} (a non-2xx response). */
export const isApiError = (value: unknown): value is ApiError => hasKind(value, 'ApiError');
/** Whether `value` is an {@link AuthenticationError} (401). */
export const isAuthenticationError = (value: unknown): value is AuthenticationError => hasKind(value, 'AuthenticationError');
/** Whether `value` is a {@link PermissionError} (403). */
export const isPermissionError = (value: unknown): value is PermissionError => hasKind(value, 'PermissionError');
/** Whether `value` is a {@link NotFoundError} (404). */
export const isNotFoundError = (value: unknown): value is NotFoundError => hasKind(value, 'NotFoundError');
/** Whether `value` is a {@link RateLimitError} (429). */
export const isRateLimitError = (value: unknown): value is RateLimitError => hasKind(value, 'RateLimitError');
/** Whether `value` is a {@link ServerError} (5xx). */
export const isServerError = (value: unknown): value is ServerError => hasKind(value, 'ServerError');
/** Whether `value` is a {@link ValidationError}. */
export const isValidationError = (value: unknown): value is ValidationError => hasKind(value, 'ValidationError');
/** Whether `value` is a {@link MissingCredentialError}. */
export const isMissingCredentialError = (value: unknown): value is MissingCredentialError => hasKind(value, 'MissingCredentialError');
/** Whether `value` is an {@link InsecureTransportError}. */
export const isInsecureTransportError = (value: unknown): value is InsecureTransportError => hasKind(value, 'InsecureTransportError');
/** Whether `value` is a {@link NetworkError}. */
export const isNetworkError = (value: unknown): value is NetworkError => hasKind(value, 'NetworkError');
/** Whether `value` is a {@link TimeoutError}. */
export const isTimeoutError = (value: unknown): value is TimeoutError => hasKind(value, 'TimeoutError');
/** Whether `value` is an {@link AbortError}. */
export const isAbortError = (value: unknown): value is AbortError => hasKind(value, 'AbortError');

const MAX_SUMMARY = 300;

/** Produces a short, readable summary of an error body of any shape. */
export function summarizeBody(body: unknown): string {
  if (body === undefined || body === null) return '';
  if (typeof body === 'string') {
    const text = looksLikeHtml(body) ? htmlToText(body) : body;
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
  if (parts.length === 0) return truncate(JSON.stringify(body));
  return truncate(parts.join('; '));
}

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

function htmlToText(html: string): string {
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(html)?.[1]?.trim();
  const h1 = /<h1[^>]*>([^<]*)<\/h1>/i.exec(html)?.[1]?.trim();
  if (title || h1) return [title, h1].filter((part, index, all) => part && all.indexOf(part) === index).join(': ');
  return html.replace(/<[^>]*>/g, ' ');
}

function truncate(text: string): string {
  return text.length > MAX_SUMMARY ? `${text.slice(0, MAX_SUMMARY)}…` : text;
}
/** Whether `value` is an {@link UnexpectedResponseError}. */
export const isUnexpectedResponseError = (value: unknown): value is UnexpectedResponseError => hasKind(value, 'UnexpectedResponseError');
/** Whether `value` is a {@link GatewayError}. */
export const isGatewayError = (value: unknown): value is GatewayError => hasKind(value, 'GatewayError');
/** Whether `value` is a {@link GatewayFatalError}. */
export const isGatewayFatalError = (value: unknown): value is GatewayFatalError => hasKind(value, 'GatewayFatalError');
/** Whether `value` is an {@link InteractionError}. */
export const isInteractionError = (value: unknown): value is InteractionError => hasKind(value, 'InteractionError');
/** Whether `value` is an {@link InteractionAlreadyAcknowledgedError}. */
export const isInteractionAlreadyAcknowledgedError = (value: unknown): value is InteractionAlreadyAcknowledgedError => hasKind(value, 'InteractionAlreadyAcknowledgedError');
/** Whether `value` is an {@link InteractionExpiredError}. */
export const isInteractionExpiredError = (value: unknown): value is InteractionExpiredError => hasKind(value, 'InteractionExpiredError');
/** Whether `value` is an {@link InteractionResponseError}. */
export const isInteractionResponseError = (value: unknown): value is InteractionResponseError => hasKind(value, 'InteractionResponseError');
