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
  if (typeof value === 'string') return secrets.includes(value) ? REDACTED : scrubText(value, secrets);
  if (typeof value !== 'object' || value === null) return value;
  if (depth > 20) return REDACTED;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, secrets, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    const redacted = isSecretKey(key) && item !== null && item !== undefined && item !== '' ? REDACTED : redactValue(item, secrets, depth + 1);
    // A `__proto__` key from JSON is kept as a plain field, never as the copy's prototype.
    if (key === '__proto__') Object.defineProperty(out, key, { value: redacted, enumerable: true, writable: true, configurable: true });
    else out[key] = redacted;
  }
  return out;
}

const HTML_ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

const PLAIN = /^[A-Za-z0-9\-_.!~*()]*$/;

/** A secret as it stands, URL-encoded, escaped inside a JSON string, and HTML-escaped (each distinct). */
function secretForms(secret: string): readonly string[] {
  // Most tokens hold only characters that no encoding changes: one form, nothing allocated.
  if (PLAIN.test(secret)) return [secret];
  let encoded: string;
  try {
    encoded = encodeURIComponent(secret);
  } catch {
    encoded = secret;
  }
  const html = secret.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c);
  const numeric = secret.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return [...new Set([secret, encoded, JSON.stringify(secret).slice(1, -1), html, numeric])];
}

/**
 * Replaces every occurrence of each known secret in `text`: raw,
 * URL-encoded, escaped inside a JSON string, or HTML-escaped. Secrets shorter than 4 characters are replaced only where they
 * stand as a whole word, so that a short password cannot shred every message.
 */
export function scrubText(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length === 0) continue;
    if (secret.length < 4) {
      // A short secret is replaced only as a whole word, so that it cannot shred every message.
      out = out.replace(new RegExp(`(?<![\\p{L}\\p{N}])${secret.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\p{L}\\p{N}])`, 'gu'), REDACTED);
      continue;
    }
    // The raw value, and the forms a server may echo it in: URL-encoded, inside a JSON string, HTML-escaped.
    for (const form of secretForms(secret)) if (out.includes(form)) out = out.split(form).join(REDACTED);
  }
  return out;
}

/**
 * Response headers worth keeping on an error: what describes the body, the
 * rate limits, and the ids that tie a request to the server's logs. Anything
 * else (`Location` with a token in its URL, `WWW-Authenticate` echoing a
 * credential, custom echo headers) is dropped.
 */
const DEBUG_HEADER =
  /^(content-type|content-length|content-encoding|date|age|server|via|retry-after|cache-control|x-ratelimit-[a-z-]+|cf-ray|traceparent|x-amzn-requestid|x-amz-cf-id|(x-)?(request|correlation|trace)-id)$/;

/**
 * Keeps only the headers that help debugging (see {@link DEBUG_HEADER}), with
 * lower-cased names, credentials and cookies shown as redacted, multi-valued
 * headers flattened, and every known secret value scrubbed from each value.
 */
export function redactHeaders(headers: Record<string, string | string[] | undefined>, secrets: readonly string[] = []): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined) continue;
    const lower = name.toLowerCase();
    if (SECRET_HEADERS.has(lower)) out[lower] = REDACTED;
    else if (DEBUG_HEADER.test(lower)) out[lower] = scrubText(Array.isArray(value) ? value.join(', ') : value, secrets);
  }
  return out;
}

/**
 * The secret values a request body carries: every non-empty string under a
 * key that names a secret (`password`, `token`, `new_password`, ...), at any
 * depth. Used to scrub them from whatever the server echoes back.
 */
export function secretValuesIn(body: unknown, found: string[] = [], depth = 0): string[] {
  if (typeof body !== 'object' || body === null || depth > 20) return found;
  for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
    if (typeof value === 'string') {
      if (value !== '' && isSecretKey(key)) found.push(value);
    } else secretValuesIn(value, found, depth + 1);
  }
  return found;
}

/** The symbol Node's `util.inspect` looks for, without importing `node:util`. */
export const inspectSymbol: unique symbol = Symbol.for('nodejs.util.inspect.custom') as never;

/** The strings `redactValue` would scrub in `value`, into `out` (it stops below depth 20, as `redactValue` does). */
export function collectStrings(value: unknown, out: string[], depth = 0): void {
  if (typeof value === 'string') out.push(value);
  else if (typeof value === 'object' && value !== null && depth <= 20)
    for (const item of Array.isArray(value) ? value : Object.values(value)) collectStrings(item, out, depth + 1);
}

/** How deep {@link scrubError} and {@link errorTexts} follow an error's `cause` (and an `AggregateError`'s `errors`); an error deeper is dropped. */
export const MAX_CAUSE_DEPTH = 8;

/** The most errors of one error's tree (causes and `AggregateError` members) {@link scrubError} keeps; the others are dropped. */
export const MAX_CAUSE_ERRORS = 64;

/** What stands in for an error dropped from a cause tree (too deep, or past {@link MAX_CAUSE_ERRORS}): never left in clear. */
export const DROPPED_CAUSE = '[cause dropped: deeper than the SDK scrubs secrets]';

/** One value below an error: its `cause`, or one of an `AggregateError`'s `errors`. */
interface CauseMember {
  readonly value: unknown;
  replace(value: unknown): void;
}

/** The values below `item`: its own `cause`, and the first {@link MAX_CAUSE_ERRORS} of an `AggregateError`'s `errors`. */
function causeMembers(item: Error): CauseMember[] {
  const members: CauseMember[] = [];
  if (Object.hasOwn(item, 'cause')) members.push({ value: item.cause, replace: (value) => void (item.cause = value) });
  if (item instanceof AggregateError && Array.isArray(item.errors)) {
    const errors: unknown[] = item.errors;
    for (let i = 0; i < Math.min(errors.length, MAX_CAUSE_ERRORS); i++) members.push({ value: errors[i], replace: (value) => void (errors[i] = value) });
  }
  return members;
}

/**
 * Walks `error`'s tree breadth first: `onError` for `error` and each error below it (each once, at most
 * {@link MAX_CAUSE_DEPTH} deep and {@link MAX_CAUSE_ERRORS} in all), `onValue` for each other value below a visited
 * error (a string or an object as `cause`), `onDropped` for each error past the bounds.
 */
function walkCauses(error: Error, onError: (item: Error) => void, onValue: (member: CauseMember) => void, onDropped: (member: CauseMember) => void): void {
  const seen = new Set<Error>([error]);
  onError(error);
  let level: Error[] = [error];
  for (let depth = 1; level.length > 0; depth++) {
    const next: Error[] = [];
    for (const item of level)
      for (const member of causeMembers(item)) {
        const { value } = member;
        if (!(value instanceof Error)) {
          if (typeof value === 'string' || (typeof value === 'object' && value !== null)) onValue(member);
        } else if (seen.has(value)) continue;
        else if (depth > MAX_CAUSE_DEPTH || seen.size >= MAX_CAUSE_ERRORS) onDropped(member);
        else {
          seen.add(value);
          next.push(value);
          onError(value);
        }
      }
    level = next;
  }
}

/**
 * The texts of an error's tree that {@link scrubError} scrubs, to find the secrets they may hold: each error's message
 * and stack, string causes, and the strings inside object causes.
 */
export function errorTexts(error: Error): string[] {
  const texts: string[] = [];
  walkCauses(
    error,
    (item) => texts.push(item.message, item.stack ?? ''),
    (member) => collectStrings(member.value, texts),
    () => undefined,
  );
  return texts;
}

/**
 * The error scrubbed of known secrets, in place (as the SDK made the error or holds the cause it wraps): the message
 * and stack of it and of each error below it (its `cause`, an `AggregateError`'s `errors`); a string cause scrubbed, an
 * object cause replaced by a scrubbed copy (`redactValue`); an error deeper than {@link MAX_CAUSE_DEPTH}, past
 * {@link MAX_CAUSE_ERRORS} in all, or past the first {@link MAX_CAUSE_ERRORS} of an `AggregateError`, replaced by
 * {@link DROPPED_CAUSE} rather than left in clear.
 */
export function scrubError<E extends Error>(error: E, secrets: readonly string[]): E {
  walkCauses(
    error,
    (item) => {
      const message = scrubText(item.message, secrets);
      if (message !== item.message) item.message = message;
      if (item.stack !== undefined) {
        const stack = scrubText(item.stack, secrets);
        if (stack !== item.stack) item.stack = stack;
      }
      if (item instanceof AggregateError && Array.isArray(item.errors) && item.errors.length > MAX_CAUSE_ERRORS)
        item.errors.splice(MAX_CAUSE_ERRORS, Number.POSITIVE_INFINITY, DROPPED_CAUSE);
    },
    (member) => member.replace(typeof member.value === 'string' ? scrubText(member.value, secrets) : redactValue(member.value, secrets)),
    (member) => member.replace(DROPPED_CAUSE),
  );
  return error;
}
