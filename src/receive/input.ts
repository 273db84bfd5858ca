/**
 * The inputs of verification, checked and normalised: the raw body to bytes,
 * headers of any shape to one lookup, and the secrets to a non-empty list.
 * Input that cannot be right (a parsed body, an empty secret) is a
 * `ValidationError` that says what to pass instead.
 *
 * @module
 */

import { ValidationError } from '../errors/index.js';

/** Headers as a plain object (any name case; `node:http`'s `req.headers` fits) or a fetch `Headers`. */
export type WebhookHeaders = Readonly<Record<string, string | readonly string[] | undefined>> | Headers;

/** The raw body, exactly as it arrived: text or bytes, never a parsed object. */
export type RawBody = string | Uint8Array;

const RAW_BODY_HINT =
  'pass the raw request body (a string, Buffer or Uint8Array) exactly as received: the signature covers the bytes, and a re-serialised object does not reproduce them. With Express use express.raw({ type: "application/json" }) on this route (not express.json()), or let the receiver\'s Express middleware read the body itself';

/** The body's bytes; a parsed object or anything else is refused with a `ValidationError` that says what to pass. */
export function bodyBytes(operation: string, rawBody: unknown): Uint8Array {
  if (typeof rawBody === 'string') return Buffer.from(rawBody, 'utf8');
  if (rawBody instanceof Uint8Array) return rawBody;
  if (rawBody instanceof ArrayBuffer) return new Uint8Array(rawBody);
  const what = rawBody === undefined || rawBody === null ? String(rawBody) : Array.isArray(rawBody) ? 'an array' : `a parsed ${typeof rawBody}`;
  throw new ValidationError(operation, [{ path: 'rawBody', message: `got ${what}; ${RAW_BODY_HINT}` }]);
}

/** The secrets as byte arrays; an empty list, an empty or whitespace-only secret is a `ValidationError`. */
export function secretKeys(operation: string, secret: unknown): Uint8Array[] {
  const list: unknown[] = Array.isArray(secret) ? secret : [secret];
  if (list.length === 0)
    throw new ValidationError(operation, [
      { path: 'secret', message: "no secret given: pass the webhook's signing secret (or an array of them while rotating)" },
    ]);
  return list.map((item, index) => {
    const path = Array.isArray(secret) ? `secret.${index}` : 'secret';
    if (typeof item === 'string') {
      if (item.trim() === '')
        throw new ValidationError(operation, [
          {
            path,
            message:
              'is empty or whitespace: an empty secret would let anyone sign; pass the secret from applicationWebhooks.create or regenerateSecret (is the environment variable set?)',
          },
        ]);
      return Buffer.from(item, 'utf8');
    }
    if (item instanceof Uint8Array) {
      if (item.byteLength === 0) throw new ValidationError(operation, [{ path, message: 'is empty: an empty secret would let anyone sign' }]);
      return item;
    }
    throw new ValidationError(operation, [{ path, message: 'must be a string or bytes' }]);
  });
}

/** A lookup of header values by name, whatever the input's shape and name case. */
export type HeaderLookup = (name: string) => string | readonly string[] | undefined;

/** Reads headers given as a fetch `Headers` or a plain object with names in any case. */
export function headerLookup(operation: string, headers: unknown): HeaderLookup {
  if (headers !== null && typeof headers === 'object' && typeof (headers as Headers).get === 'function' && typeof (headers as Headers).has === 'function') {
    const fetchHeaders = headers as Headers;
    return (name) => fetchHeaders.get(name) ?? undefined;
  }
  if (headers === null || typeof headers !== 'object')
    throw new ValidationError(operation, [{ path: 'headers', message: 'pass the request headers: a plain object (e.g. req.headers) or a Headers' }]);
  const byName = new Map<string, string | readonly string[]>();
  for (const [name, value] of Object.entries(headers as Record<string, unknown>)) {
    if (typeof value === 'string' || (Array.isArray(value) && value.every((item) => typeof item === 'string'))) {
      const key = name.toLowerCase();
      const earlier = byName.get(key);
      byName.set(key, earlier === undefined ? (value as string | string[]) : [...[earlier].flat(), ...[value as string | string[]].flat()]);
    }
  }
  return (name) => byName.get(name.toLowerCase());
}
