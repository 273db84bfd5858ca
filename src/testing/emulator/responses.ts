/**
 * Building the emulator's answers: JSON and empty responses, the error it
 * throws to answer with a status, and body validation with the SDK's schemas.
 *
 * @module
 */

import type { EmulatorResponse } from './types.js';

/** Thrown by handlers to answer with an error status (Discord's body: `message`, `code`, extras). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: number = status * 100,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** A JSON response. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): EmulatorResponse {
  return { status, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) };
}

/** A 204 response. */
export function noContent(headers: Record<string, string | string[]> = {}): EmulatorResponse {
  return { status: 204, headers, body: '' };
}

/** The answer to an {@link HttpError}. */
export function errorResponse(error: HttpError): EmulatorResponse {
  return json(error.status, { message: error.message, code: error.code, ...error.extra }, error.headers);
}

/** Marks a body that is not JSON. */
const INVALID_JSON = Symbol('invalid json');

/** Parses a request body; an empty body is `{}`. */
export function parseJson(text: string): unknown {
  if (text === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return INVALID_JSON;
  }
}

/** Parses a JSON body, answering 400 (Discord's 50109) when it is not JSON. */
export function parseBody(body: string): unknown {
  const parsed = parseJson(body);
  if (parsed === INVALID_JSON) throw new HttpError(400, 'The request body is not valid JSON', 50109);
  return parsed;
}

/**
 * What the emulator needs of a body schema: zod's `safeParse`, by its shape, so
 * that the emulator's declarations name no zod type.
 */
interface BodySchema<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] } };
}

/** Parses and validates a JSON body, answering 400 (Discord's 50109 / 50035) when it does not fit. */
export function validate<T>(schema: BodySchema<T>, body: string): T {
  return validateValue(schema, parseBody(body));
}

/** Validates a parsed body, answering 400 (Discord's 50035) when it does not fit. */
export function validateValue<T>(schema: BodySchema<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (!result.success) {
    const errors = Object.fromEntries(result.error.issues.map((issue) => [issue.path.map(String).join('.') || '(body)', issue.message]));
    throw new HttpError(400, 'Invalid Form Body', 50035, { errors });
  }
  return result.data;
}

/** One page of `items`, from the required `page` and `per_page` query parameters. */
export function page(items: Record<string, unknown>[], query: URLSearchParams): Record<string, unknown> {
  const number = Number(query.get('page'));
  const perPage = Number(query.get('per_page'));
  if (!Number.isInteger(number) || number < 1 || !Number.isInteger(perPage) || perPage < 1 || perPage > 100) {
    throw new HttpError(400, 'page and per_page are required positive integers (per_page at most 100)', 50035);
  }
  const slice = items.slice((number - 1) * perPage, number * perPage);
  return { items: slice, page: number, per_page: perPage, total: items.length, has_more: number * perPage < items.length };
}
