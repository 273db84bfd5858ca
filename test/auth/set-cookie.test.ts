import { describe, expect, it } from 'vitest';
import { MAX_COOKIE_AGE_SECONDS, parseCookieDate, parseSetCookie } from '../../src/auth/set-cookie.js';

describe('parseSetCookie (RFC 6265bis 5.6, what the jar reads)', () => {
  it('reads the name, the value and the attributes the jar uses, whatever their case and spacing', () => {
    expect(parseSetCookie('refresh_token=rt-1; Path=/api/v1/auth; HttpOnly; Secure; SameSite=Strict')).toEqual({
      name: 'refresh_token',
      value: 'rt-1',
      path: '/api/v1/auth',
    });
    expect(parseSetCookie(' a = b=c ;  max-AGE = 30 ')).toEqual({ name: 'a', value: 'b=c', maxAge: 30 });
    expect(parseSetCookie('a=1; Max-Age=-5')).toMatchObject({ maxAge: 0 }); // 0 or less: expired
    expect(parseSetCookie('a=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT')).toMatchObject({ expires: Date.UTC(2026, 9, 21, 7, 28) });
    expect(parseSetCookie('lonely')).toEqual({ name: '', value: 'lonely' }); // no "=": a nameless cookie
  });

  it('ignores what a user agent ignores: bad attribute values, a header with control characters, nothing at all', () => {
    expect(parseSetCookie('a=1; Max-Age=10s; Expires=not a date; Path=relative')).toEqual({ name: 'a', value: '1', path: undefined });
    expect(parseSetCookie('a=1\u0000; Path=/')).toBeUndefined();
    expect(parseSetCookie('a=1\n; Path=/')).toBeUndefined();
    expect(parseSetCookie('a=1\u007f; Path=/')).toBeUndefined();
    expect(parseSetCookie('a=1\t; Path=/')).toEqual({ name: 'a', value: '1', path: '/' }); // a tab is allowed
    expect(parseSetCookie('=; Path=/')).toBeUndefined();
  });
});

describe('parseSetCookie: bounds and whitespace', () => {
  const NOW = Date.UTC(2026, 0, 1);
  const LIMIT_MS = MAX_COOKIE_AGE_SECONDS * 1000;

  it('caps Max-Age at 400 days, a delta too long for a number included, and reads a very negative one as expired', () => {
    expect(MAX_COOKIE_AGE_SECONDS).toBe(34_560_000);
    expect(parseSetCookie('a=1; Max-Age=34560000')?.maxAge).toBe(34_560_000);
    expect(parseSetCookie('a=1; Max-Age=34560001')?.maxAge).toBe(34_560_000);
    expect(parseSetCookie(`a=1; Max-Age=${'9'.repeat(400)}`)?.maxAge, 'a 400-digit Max-Age').toBe(34_560_000);
    expect(parseSetCookie(`a=1; Max-Age=-${'9'.repeat(400)}`)?.maxAge, 'a 400-digit negative Max-Age').toBe(0);
  });

  it('caps Expires at 400 days after now', () => {
    expect(parseSetCookie('a=1; Expires=Fri, 31 Dec 9999 23:59:59 GMT', NOW)?.expires).toBe(NOW + LIMIT_MS);
    const soon = NOW + 60_000;
    expect(parseSetCookie(`a=1; Expires=${new Date(soon).toUTCString()}`, NOW)?.expires).toBe(soon);
  });

  it('ignores an attribute whose value is over 1024 characters, keeping what came before it', () => {
    const longest = `/${'p'.repeat(1023)}`;
    expect(parseSetCookie(`a=1; Path=${longest}`)?.path, 'a Path of exactly 1024 characters').toBe(longest);
    expect(parseSetCookie(`a=1; Path=/kept; Path=${longest}p`)?.path, 'a Path of 1025 characters').toBe('/kept');
    expect(parseSetCookie(`a=1; Max-Age=${'0'.repeat(1020)}10`)?.maxAge, 'a Max-Age of 1022 characters').toBe(10);
    expect(parseSetCookie(`a=1; Max-Age=${'0'.repeat(1030)}10`)?.maxAge, 'a Max-Age of 1032 characters').toBeUndefined();
  });

  it('trims only spaces and tabs around names, values and attributes', () => {
    expect(parseSetCookie(' \ta\t = 1\t ; \tPath\t=\t/x\t')).toEqual({ name: 'a', value: '1', path: '/x' });
    expect(parseSetCookie('a=\u00a0b\u2028')).toEqual({ name: 'a', value: '\u00a0b\u2028' });
    expect(parseSetCookie('\u00a0a=1')?.name).toBe('\u00a0a');
  });
});

describe('parseCookieDate (RFC 6265bis 5.1.1)', () => {
  it('reads the usual forms, as UTC', () => {
    const at = Date.UTC(2026, 9, 21, 7, 28);
    expect(parseCookieDate('Wed, 21 Oct 2026 07:28:00 GMT')).toBe(at);
    expect(parseCookieDate('21 Oct 2026 07:28:00'), 'no zone: UTC, not local time').toBe(at);
    expect(parseCookieDate('Wednesday, 21-Oct-26 07:28:00 GMT'), 'two-digit year below 70').toBe(at);
    expect(parseCookieDate('Sun Nov  6 08:49:37 1994'), "asctime's order").toBe(Date.UTC(1994, 10, 6, 8, 49, 37));
    expect(parseCookieDate('Sun, 06-Nov-94 08:49:37 GMT'), 'two-digit year from 70').toBe(Date.UTC(1994, 10, 6, 8, 49, 37));
    expect(parseCookieDate('octOBER 21 2026 7:28:0'), 'a month by its first three letters, any case; one-digit fields').toBe(at);
  });

  it('takes each field from the first token that fits it and skips the rest', () => {
    const october = Date.UTC(2026, 9, 21, 7, 28);
    expect(parseCookieDate('21 Oct 2026 07:28:00 GMT junk'), '"junk" after the month is not June').toBe(october);
    expect(parseCookieDate('21 Oct 2026 07:28:00 GMT+0200 Jun 1999 23:59:59')).toBe(october);
    expect(parseCookieDate('21st Oct 2026 07:28:00am'), 'non-digits after a day and a time').toBe(october);
  });

  it('fails where the algorithm fails', () => {
    for (const text of ['0', '1', '-1', '', 'Wed, 21 Oct 2026 GMT', '21 Oct 07:28:00', 'Oct 2026 07:28:00', '21 2026 07:28:00'])
      expect(parseCookieDate(text), JSON.stringify(text)).toBeUndefined();
    expect(parseCookieDate('01 Jan 1600 00:00:00 GMT'), 'before 1601').toBeUndefined();
    expect(parseCookieDate('01 Jan 1601 00:00:00 GMT'), '1601').toBe(Date.UTC(1601, 0, 1));
    expect(parseCookieDate('30 Feb 2026 00:00:00 GMT'), 'a day the month does not have').toBeUndefined();
    expect(parseCookieDate('32 Jan 2026 00:00:00 GMT'), 'day 32').toBeUndefined();
    expect(parseCookieDate('00 Jan 2026 00:00:00 GMT'), 'day 0').toBeUndefined();
    expect(parseCookieDate('21 Oct 2026 24:00:00 GMT'), 'hour 24').toBeUndefined();
    expect(parseCookieDate('21 Oct 2026 23:60:00 GMT'), 'minute 60').toBeUndefined();
    expect(parseCookieDate('21 Oct 2026 23:59:60 GMT'), 'second 60').toBeUndefined();
    expect(parseCookieDate('21 Oct 20266 07:28:00 GMT'), 'a five-digit year').toBeUndefined();
  });

  it('Expires that is not a cookie date is ignored: the cookie stays a session cookie', () => {
    for (const expires of ['0', '1', '-1']) expect(parseSetCookie(`a=1; Expires=${expires}`), `Expires=${expires}`).toEqual({ name: 'a', value: '1' });
  });
});
