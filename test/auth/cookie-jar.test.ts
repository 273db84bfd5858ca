import { describe, expect, it } from 'vitest';
import { Client, CookieJar } from '../../src/index.js';
import { startLoopbackServer } from '../helpers/index.js';

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

describe('CookieJar after RFC 6265bis', () => {
  it('sends a nameless cookie back as its value alone', () => {
    const jar = new CookieJar(() => 0);
    jar.storeSetCookieHeaders(['lonely', 'a=1']);
    expect(jar.headerFor('/')).toBe('lonely; a=1');
  });

  it('a 400-digit Max-Age lives 400 days, and survives export, JSON and restore', () => {
    let now = 1_000;
    const jar = new CookieJar(() => now);
    jar.storeSetCookieHeaders([`a=1; Max-Age=${'9'.repeat(400)}`]);
    const [cookie] = jar.export();
    expect(cookie?.expiresAt, 'expiresAt of a 400-digit Max-Age').toBe(1_000 + 400 * 86_400_000);
    const restored = new CookieJar(() => now);
    restored.restore(JSON.parse(JSON.stringify(jar.export())));
    expect(restored.headerFor('/'), 'the cookie after export, JSON and restore').toBe('a=1');
    now = 1_000 + 400 * 86_400_000;
    expect(restored.headerFor('/'), 'the cookie 400 days on').toBeUndefined();
  });
});

describe('the cookie jar stays bounded', () => {
  it('holds at most 50 cookies, the newest, and ignores one longer than 4096 characters', () => {
    const jar = new CookieJar(() => 0);
    jar.storeSetCookieHeaders(Array.from({ length: 300 }, (_, i) => `junk${i}=v${i}; Path=/`));
    expect(jar.export()).toHaveLength(50);
    expect(jar.export().map((cookie) => cookie.name)).toContain('junk299');
    jar.storeSetCookieHeaders([`huge=${'x'.repeat(5000)}; Path=/`]);
    expect(jar.export().some((cookie) => cookie.name === 'huge')).toBe(false);
  });

  it('only the session routes fill the jar: cookies set on any other response are not kept', async () => {
    const server = await startLoopbackServer((request, response) => {
      const url = request.url ?? '';
      response.writeHead(200, {
        'content-type': 'application/json',
        'set-cookie': url.endsWith('/auth/login')
          ? ['refresh_token=rt-1; Path=/api/v1/auth; HttpOnly']
          : Array.from({ length: 20 }, (_, i) => `junk${i}=${url.length}; Path=/`),
      });
      response.end(JSON.stringify({ access_token: 'at-1', id: 'c1' }));
    });
    const client = new Client({ baseUrl: server.url, auth: { botToken: 'bot-token-cj' } });
    for (let i = 0; i < 10; i++) await client.channels.get(`c${i}`);
    expect(client.session.cookies.export()).toHaveLength(0);
    await client.auth.login({ email: 'a@b.test', password: 'pw-123456' });
    expect(client.session.cookies.export().map((cookie) => cookie.name)).toEqual(['refresh_token']);
    await client.close();
    await server.close();
  });
});
