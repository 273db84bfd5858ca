/**
 * A login or refresh that answers 2xx without a usable token leaves no half
 * session: the cookies that answer set are discarded, the session stays as
 * it was before the call, and the error says what was missing.
 */
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, UnexpectedResponseError, isCommunityChatError } from '../../src/index.js';
import { startLoopbackServer, type LoopbackServer } from '../helpers/index.js';

/** What the fake service answers to login and refresh. */
let answer: { status: number; body: unknown; cookie?: string } = { status: 200, body: {} };
let server: LoopbackServer;

function send(response: ServerResponse): void {
  response.writeHead(answer.status, { 'content-type': 'application/json', ...(answer.cookie ? { 'set-cookie': answer.cookie } : {}) });
  response.end(JSON.stringify(answer.body));
}

beforeAll(async () => {
  server = await startLoopbackServer((request, response) => {
    const url = request.url ?? '';
    if (url.endsWith('/auth/login') || url.endsWith('/auth/refresh')) return send(response);
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ auth: request.headers.authorization ?? null }));
  });
});
afterAll(() => server.close());

const credentials = { email: 'ada@example.com', password: 'correct horse' };

describe('a login or refresh without a usable token', () => {
  it.each(['undici', 'fetch'] as const)(
    '%s: a login answering 200 { ok: true } with a Set-Cookie keeps no cookie and no token, and says what was missing',
    async (transport) => {
      answer = { status: 200, body: { ok: true }, cookie: 'rt=half-session-cookie; HttpOnly; Path=/api/v1/auth' };
      const client = new Client({ baseUrl: server.url, transport });
      const error = await client.auth.login(credentials).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UnexpectedResponseError);
      expect(isCommunityChatError(error, 'UnexpectedResponseError')).toBe(true);
      expect(error).toMatchObject({ operation: 'auth.login' });
      const message = (error as Error).message;
      expect(message).toContain(
        'no access token in the body (looked for access_token, accessToken, token at the top level and under data, session, tokens, result)',
      );
      expect(message).toContain("the body's top-level fields: ok");
      expect(message).toContain('set readAccessToken');
      expect(message).not.toContain(credentials.password);
      expect(client.session.cookies.export()).toEqual([]);
      expect(client.session.accessToken).toBeUndefined();
      expect(client.session.canRefresh).toBe(false);
      await expect(client.users.getMe()).rejects.toThrow(/needs one of these credentials/);
      await client.close();
    },
  );

  it('a failed login keeps the session held before it; a custom readAccessToken is named in the error', async () => {
    const client = new Client({
      baseUrl: server.url,
      readAccessToken: (body) => ((body as { jwt?: string }).jwt ? { accessToken: String((body as { jwt?: string }).jwt) } : undefined),
    });
    answer = { status: 200, body: { jwt: 'access-1' }, cookie: 'rt=refresh-1; HttpOnly; Path=/api/v1/auth' };
    await client.auth.login(credentials);
    const held = client.session.export();
    answer = { status: 200, body: { data: {} }, cookie: 'rt=second-login-cookie; HttpOnly; Path=/api/v1/auth' };
    const error = await client.auth.login(credentials).catch((e: unknown) => e);
    expect(String(error)).toContain('the readAccessToken option found no access token in the body');
    expect(client.session.export()).toEqual(held);
    expect(await client.users.getMe()).toEqual({ auth: 'Bearer access-1' });
    await client.close();
  });

  it('a login rejected with 401 and a Set-Cookie keeps no cookie either', async () => {
    answer = { status: 401, body: { message: 'bad password' }, cookie: 'rt=rejected-cookie; HttpOnly; Path=/api/v1/auth' };
    const client = new Client({ baseUrl: server.url, retries: 0 });
    await expect(client.auth.login(credentials)).rejects.toThrow();
    expect(client.session.cookies.export()).toEqual([]);
    await client.close();
  });

  it('a refresh answering 200 without a token keeps the previous cookie and token', async () => {
    answer = { status: 200, body: { access_token: 'access-1', expires_in: 900 }, cookie: 'rt=refresh-1; HttpOnly; Path=/api/v1/auth' };
    const client = new Client({ baseUrl: server.url });
    await client.auth.login(credentials);
    const held = client.session.export();
    expect(held.cookies.map((cookie) => cookie.value)).toEqual(['refresh-1']);
    answer = { status: 200, body: { refreshed: true }, cookie: 'rt=refresh-2-without-token; HttpOnly; Path=/api/v1/auth' };
    const error = await client.auth.refresh().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect(error).toMatchObject({ operation: 'auth.refresh' });
    expect((error as Error).message).toContain(
      "no access token in the body (looked for access_token, accessToken, token at the top level and under data, session, tokens, result); the body's top-level fields: refreshed",
    );
    expect(client.session.export()).toEqual(held);
    expect(client.session.accessToken).toBe('access-1');
    expect(server.requests.at(-1)?.headers['cookie']).toBe('rt=refresh-1');
    expect(await client.users.getMe()).toEqual({ auth: 'Bearer access-1' });
    await client.close();
  });
});
