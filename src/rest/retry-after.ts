/**
 * A standalone Retry-After parser.
 *
 * @module
 */

/**
 * Parses a `Retry-After` header value into milliseconds.
 *
 * Accepts delay-seconds, including fractions (`"1.5"`), and HTTP dates
 * (`"Wed, 21 Oct 2026 07:28:00 GMT"`). A date in the past gives 0. Anything
 * else, including negative numbers, gives `undefined`.
 *
 * @param value The header value.
 * @param now The current time in epoch milliseconds. @default Date.now()
 */
export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (value === undefined || value === null) return undefined;
  const text = value.trim();
  if (text === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) {
    const seconds = Number(text);
    return Number.isFinite(seconds) ? Math.ceil(seconds * 1000) : undefined;
  }
  if (/^[+-]?\d/.test(text)) return undefined;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}
