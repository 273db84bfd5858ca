import { describe, expect, it } from 'vitest';
import { AuthenticationError, Client, CookieJar, UnexpectedResponseError } from '../../src/index.js';
import { useMswRecorder } from '../helpers/index.js';

describe('CookieJar', () => {
  it('matches paths, expires cookies and deletes on empty values', () => {
    let now = 0;
    const jar = new CookieJar(() => now);
    jar.storeSetCookieHeaders(['a=1; Path=/api/v1/auth; Max-Age=10', 'b=2', 'c=3; Path=/other']);
    expect(jar.headerFor('/api/v1/auth/refresh')).toBe('a=1; b=2');
    expect(jar.headerFor('/api/v1/authx')).toBe('b=2');
    now = 11_000;
    expect(jar.headerFor('/api/v1/auth/refresh')).toBe('b=2');
    jar.storeSetCookieHeaders(['b=; Max-Age=0']);
    expect(jar.headerFor('/')).toBeUndefined();
    expect(JSON.stringify(jar)).not.toContain('=3');
  });
});
