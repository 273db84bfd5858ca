/**
 * The only place that knows what a secret looks like.
 *
 * Errors, events, logs, `toJSON` and `util.inspect` all go through these
 * helpers, so a token, cookie or secret can never reach them by another road.
 *
 * @module
 */

/** The text that stands in for a secret. */
export const REDACTED = '[redacted]';

const SECRET_KEY = /token|secret|password|passwd|cookie|authorization|api[-_]?key|credential|session[-_]?id/i;
const SECRET_HEADERS = new Set(['authorization', 'cookie', 'set-cookie', 'proxy-authorization']);

/** Whether an object key names a secret (e.g. `token`, `access_token`, `secret`, `password`). */
export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key);
}

/**
 * Returns a copy of `value` in which every field whose key names a secret is
 * replaced by {@link REDACTED}, and every known secret string is scrubbed.
 */
export function redactValue(value: unknown, secrets: readonly string[] = [], depth = 0): unknown {
  if (typeof value === 'string') return scrubText(value, secrets);
  if (typeof value !== 'object' || value === null) return value;
  if (depth > 20) return REDACTED;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, secrets, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    out[key] = isSecretKey(key) && item !== null && item !== undefined && item !== '' ? REDACTED : redactValue(item, secrets, depth + 1);
  }
  return out;
}

/** Replaces every occurrence of each known secret (raw or URL-encoded) in `text`. */
export function scrubText(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length < 4) continue;
    out = out.split(secret).join(REDACTED);
    const encoded = encodeURIComponent(secret);
    if (encoded !== secret) out = out.split(encoded).join(REDACTED);
  }
  return out;
}

/** Lower-cases header names, drops credentials and cookies, and flattens multi-valued headers. */
export function redactHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const lower = name.toLowerCase();
    out[lower] = SECRET_HEADERS.has(lower) ? REDACTED : Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** Shows that a secret is present without showing it, e.g. for `util.inspect`. */
export function describeSecret(secret: string | undefined): string {
  return secret === undefined ? 'none' : REDACTED;
}

/** The symbol Node's `util.inspect` looks for, without importing `node:util`. */
export const inspectSymbol: unique symbol = Symbol.for('nodejs.util.inspect.custom') as never;
