/**
 * Reading one `Set-Cookie` header value, after RFC 6265bis section 5.6, as
 * far as the cookie jar needs: the name and value, `Max-Age`, `Expires` (by
 * the cookie-date algorithm of section 5.1.1) and `Path`. It needs no HTTP
 * stack, so the jar works on every runtime (undici's parser, used before, is
 * Node's alone: Workers have no undici).
 *
 * @module
 */

import { clampNumber } from '../core/bounds.js';

/** What the jar reads of a `Set-Cookie` header. */
interface SetCookie {
  /** The cookie's name (may be empty, for a header without `=`). */
  name: string;
  /** The cookie's value. */
  value: string;
  /** `Max-Age`, in seconds, at most {@link MAX_COOKIE_AGE_SECONDS} (0: expired). */
  maxAge?: number | undefined;
  /** `Expires`, epoch milliseconds, at most {@link MAX_COOKIE_AGE_SECONDS} after the time of parsing. */
  expires?: number | undefined;
  /** `Path`, when it starts with `/`. */
  path?: string | undefined;
}

/** The longest a cookie may live: 400 days (RFC 6265bis 5.6.1 and 5.6.2's cookie-age-limit). */
export const MAX_COOKIE_AGE_SECONDS = 400 * 24 * 60 * 60;
/** An attribute value longer than this is ignored (RFC 6265bis 5.6, step 5 of the attribute loop). */
const MAX_ATTRIBUTE_VALUE_LENGTH = 1024;

/** Whether `text` holds a control character other than tab: a header holding one is ignored entirely (RFC 6265bis 5.6, step 1). */
function hasControl(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if ((code <= 0x1f && code !== 0x09) || code === 0x7f) return true;
  }
  return false;
}

/** Removes leading and trailing space and tab, the only whitespace RFC 6265bis trims (not a no-break space or a line separator). */
function trimWhitespace(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && (text[start] === ' ' || text[start] === '\t')) start++;
  while (end > start && (text[end - 1] === ' ' || text[end - 1] === '\t')) end--;
  return text.slice(start, end);
}

/** `Max-Age`'s only form: an optional minus and digits. */
const DELTA_SECONDS = /^-?\d+$/;

/**
 * Parses one `Set-Cookie` header value; `undefined` for one a user agent
 * ignores (a control character, no name and no value). `now` (epoch
 * milliseconds) bounds `Expires` to 400 days ahead.
 */
export function parseSetCookie(header: string, now: number = Date.now()): SetCookie | undefined {
  if (hasControl(header)) return undefined;
  const [pair = '', ...attributes] = header.split(';');
  const equals = pair.indexOf('=');
  const name = equals === -1 ? '' : trimWhitespace(pair.slice(0, equals));
  const value = trimWhitespace(equals === -1 ? pair : pair.slice(equals + 1));
  if (name === '' && value === '') return undefined;
  const cookie: SetCookie = { name, value };
  for (const attribute of attributes) {
    const split = attribute.indexOf('=');
    const key = trimWhitespace(split === -1 ? attribute : attribute.slice(0, split)).toLowerCase();
    const argument = split === -1 ? '' : trimWhitespace(attribute.slice(split + 1));
    if (argument.length > MAX_ATTRIBUTE_VALUE_LENGTH) continue;
    if (key === 'max-age' && DELTA_SECONDS.test(argument)) {
      // A delta too long for a number (Infinity) is still a plain decimal: its sign says which end of the range it is.
      cookie.maxAge = clampNumber(argument, 0, MAX_COOKIE_AGE_SECONDS, argument.startsWith('-') ? 0 : MAX_COOKIE_AGE_SECONDS);
    } else if (key === 'expires') {
      const at = parseCookieDate(argument);
      if (at !== undefined) cookie.expires = Math.min(at, now + MAX_COOKIE_AGE_SECONDS * 1000);
    } else if (key === 'path') cookie.path = argument.startsWith('/') ? argument : undefined;
  }
  return cookie;
}

/** The characters between date tokens (RFC 6265bis 5.1.1's delimiter: tab, and the punctuation of printable ASCII other than `:`). */
const DATE_DELIMITERS = /[\t\x20-\x2f\x3b-\x40\x5b-\x60\x7b-\x7e]+/;
const TIME = /^(\d{1,2}):(\d{1,2}):(\d{1,2})(?:\D|$)/;
const DAY_OF_MONTH = /^(\d{1,2})(?:\D|$)/;
const YEAR = /^(\d{2,4})(?:\D|$)/;
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/**
 * A cookie date (RFC 6265bis 5.1.1), epoch milliseconds in UTC, or
 * `undefined` where the algorithm fails: each token is read as the first of
 * time, day of month, month and year it matches that is not found yet; all
 * four must be found, and the date must exist, from the year 1601. A date
 * with no zone is UTC, and words it does not know are skipped.
 */
export function parseCookieDate(text: string): number | undefined {
  let time: number[] | undefined;
  let day: number | undefined;
  let month: number | undefined;
  let year: number | undefined;
  for (const token of text.split(DATE_DELIMITERS)) {
    if (token === '') continue;
    const clock = time === undefined ? TIME.exec(token) : null;
    if (clock) {
      time = [Number(clock[1]), Number(clock[2]), Number(clock[3])];
      continue;
    }
    const dayMatch = day === undefined ? DAY_OF_MONTH.exec(token) : null;
    if (dayMatch) {
      day = Number(dayMatch[1]);
      continue;
    }
    const monthIndex = month === undefined ? MONTHS.indexOf(token.slice(0, 3).toLowerCase()) : -1;
    if (monthIndex !== -1) {
      month = monthIndex;
      continue;
    }
    const yearMatch = year === undefined ? YEAR.exec(token) : null;
    if (yearMatch) year = Number(yearMatch[1]);
  }
  if (time === undefined || day === undefined || month === undefined || year === undefined) return undefined;
  if (year >= 70 && year <= 99) year += 1900;
  else if (year >= 0 && year <= 69) year += 2000;
  const [hour = 0, minute = 0, second = 0] = time;
  if (day < 1 || day > 31 || year < 1601 || hour > 23 || minute > 59 || second > 59) return undefined;
  const at = new Date(Date.UTC(year, month, day, hour, minute, second));
  // A day past the month's end (30 February) rolls into the next month: such a date does not exist.
  return at.getUTCDate() === day ? at.getTime() : undefined;
}
