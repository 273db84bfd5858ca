import { describe, expect, it } from 'vitest';
import { parseSetCookie } from '../../src/auth/set-cookie.js';

describe('parseSetCookie (RFC 6265bis 5.4, what the jar reads)', () => {
  it('reads the name, the value and the attributes the jar uses, whatever their case and spacing', () => {
    expect(parseSetCookie('refresh_token=rt-1; Path=/api/v1/auth; HttpOnly; Secure; SameSite=Strict')).toEqual({
      name: 'refresh_token',
      value: 'rt-1',
      path: '/api/v1/auth',
    });
    expect(parseSetCookie(' a = b=c ;  max-AGE = 30 ')).toEqual({ name: 'a', value: 'b=c', maxAge: 30 });
    expect(parseSetCookie('a=1; Max-Age=-5')).toMatchObject({ maxAge: -5 });
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
