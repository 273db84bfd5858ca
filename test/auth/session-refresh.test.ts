import type { ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AuthenticationError, Client, MissingCredentialError, SessionStoreError, TimeoutError, type SessionSnapshot } from '../../src/index.js';
import type { StoreErrorEvent, SessionExpiredEvent, SessionRefreshedEvent } from '../../src/diagnostics.js';
import { startLoopbackServer, type LoopbackServer } from '../helpers/index.js';

/** A fake auth service: tokens `access-N`, refresh cookies `refresh-N`; only the newest of each is valid. */
let server: LoopbackServer;
let generation = 0;
let refreshCalls = 0;
let revoked = false;

function json(response: ServerResponse, status: number, body: unknown, headers: Record<string, string | string[]> = {}) {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

beforeAll(async () => {
  server = await startLoopbackServer((request, response) => {
    const url = request.url ?? '';
    if (url.endsWith('/auth/refresh')) {
      refreshCalls++;
      if (revoked || request.headers.cookie !== `rt=refresh-${generation}`) return json(response, 401, { message: 'refresh token revoked' });
      generation++;
      // Answer a little later, so concurrent callers really overlap the refresh.
      setTimeout(
        () =>
          json(
            response,
            200,
            { access_token: `access-${generation}`, expires_in: 900 },
            { 'set-cookie': `rt=refresh-${generation}; HttpOnly; Path=/api/v1/auth` },
          ),
        30,
      );
      return;
    }
    const auth = request.headers.authorization;
    if (auth?.startsWith('Bot ')) return auth === 'Bot good-bot' ? json(response, 200, { as: 'bot' }) : json(response, 401, { message: 'bad bot token' });
    if (url.startsWith('/api/v1/webhooks/')) return json(response, 401, { message: 'unknown webhook token' });
    if (auth !== `Bearer access-${generation}`) return json(response, 401, { message: 'expired access token' });
    json(response, 200, { as: 'user', generation });
  });
});
afterEach(() => {
  server.requests.length = 0;
  refreshCalls = 0;
  revoked = false;
});
afterAll(() => server.close());

function sessionClient(
  options: {
    expiresInMs?: number;
    now?: () => number;
    store?: { load?: () => SessionSnapshot | undefined; save?: (s: SessionSnapshot | undefined) => void };
  } = {},
) {
  generation++;
  const now = options.now ?? Date.now;
  const client = new Client({
    baseUrl: server.url,
    clock: now,
    ...(options.store ? { sessionStore: options.store } : {}),
    auth: {
      session: {
        accessToken: `access-${generation - 1}`,
        accessTokenExpiresAt: now() + (options.expiresInMs ?? 600_000),
        cookies: [{ name: 'rt', value: `refresh-${generation - 1}`, path: '/api/v1/auth', expiresAt: undefined }],
      },
    },
  });
  // The server only accepts the newest generation: rewind so the held tokens are the valid ones.
  generation--;
  return client;
}

describe('session refresh', () => {
  it('a failing session store is a storeError event naming what failed, never quoting the session it held', async () => {
    let clock = Date.now();
    let saved = 0;
    const client = sessionClient({
      expiresInMs: 30_000,
      now: () => clock,
      store: {
        save: (snapshot) => {
          saved++;
          throw new Error(`disk full while writing ${JSON.stringify(snapshot)}`);
        },
      },
    });
    const events: StoreErrorEvent[] = [];
    const debug: string[] = [];
    client.on('storeError', (event) => events.push(event));
    client.on('debug', (line) => debug.push(line));
    clock += 1_000;
    await expect(client.applications.list()).resolves.toMatchObject({ as: 'user' });
    expect(saved).toBe(1);
    expect(events).toEqual([{ store: 'session', error: expect.any(SessionStoreError) }]);
    expect(events[0]?.error.message).toMatch(/^The session store failed: Error: disk full while writing /);
    expect(events[0]?.error.cause).toBeUndefined();
    // The event is what to listen to (asserted above); the debug line beside it is only read here, for secrets.
    expect(debug, `the debug lines the secrets check reads: ${debug.join(' | ')}`).toHaveLength(1);
    const shown = `${JSON.stringify(events)} ${events[0]?.error.message} ${debug.join(' ')}`;
    expect(shown).not.toMatch(/access-\d|refresh-\d/);
  });

  it('refreshes before the access token expires', async () => {
    let clock = Date.now();
    const client = sessionClient({ expiresInMs: 30_000, now: () => clock });
    const refreshed: SessionRefreshedEvent[] = [];
    client.on('sessionRefreshed', (event) => refreshed.push(event));
    clock += 1_000;
    const result = await client.applications.list();
    expect(result).toEqual({ as: 'user', generation });
    expect(server.requests.map((r) => r.url)).toEqual(['/api/v1/auth/refresh', '/api/v1/applications']);
    expect(refreshed).toEqual([{ accessTokenExpiresAt: clock + 900_000, trigger: 'expiry' }]);
  });

  it('refreshes once on a 401 and retries the call', async () => {
    const client = sessionClient();
    generation++; // the server moved on: the held access token is now stale, the refresh cookie still valid
    generation--;
    client.session.setAccessToken('stale-token');
    await expect(client.applications.list()).resolves.toMatchObject({ as: 'user' });
    expect(server.requests.map((r) => `${r.url} ${r.headers['authorization'] ?? r.headers['cookie']}`)).toEqual([
      '/api/v1/applications Bearer stale-token',
      `/api/v1/auth/refresh rt=refresh-${generation - 1}`,
      `/api/v1/applications Bearer access-${generation}`,
    ]);
  });

  it('50 concurrent calls across a refresh trigger exactly one refresh', async () => {
    const client = sessionClient();
    client.session.setAccessToken('stale-token');
    const results = await Promise.all(Array.from({ length: 50 }, () => client.applications.list()));
    expect(results.every((r) => (r as unknown as { as: string }).as === 'user')).toBe(true);
    expect(refreshCalls).toBe(1);
  });

  it('50 concurrent calls near expiry trigger exactly one refresh, and it never queues behind them', async () => {
    let clock = Date.now();
    const client = sessionClient({ expiresInMs: 10_000, now: () => clock });
    clock += 1;
    const results = await Promise.all(Array.from({ length: 50 }, () => client.applications.list()));
    expect(results).toHaveLength(50);
    expect(refreshCalls).toBe(1);
    expect(server.requests[0]?.url).toBe('/api/v1/auth/refresh');
  });

  it('a revoked session rejects with AuthenticationError, emits sessionExpired and clears the session', async () => {
    const client = sessionClient();
    client.session.setAccessToken('stale-token');
    revoked = true;
    const expired: SessionExpiredEvent[] = [];
    client.on('sessionExpired', (event) => expired.push(event));
    const error = (await client.applications.list().catch((e: unknown) => e)) as AuthenticationError;
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.credential).toBe('user');
    expect(expired).toEqual([{ reason: 'refreshRejected' }]);
    expect(client.session.canRefresh).toBe(false);
    await expect(client.applications.list()).rejects.toBeInstanceOf(MissingCredentialError);
  });

  it('a 401 invalidates only the credential that failed', async () => {
    const client = new Client({ baseUrl: server.url, auth: { botToken: 'good-bot', webhookTokens: { wh1: 'dead-token' } } });
    generation++;
    client.session.restore({ accessToken: `access-${generation}`, cookies: [] });
    // A webhook 401 touches neither the bot token nor the session.
    await expect(client.webhooks.execute('wh1', { content: 'x' })).rejects.toBeInstanceOf(AuthenticationError);
    await expect(client.users.getMe()).resolves.toEqual({ as: 'bot' });
    await expect(client.applications.list()).resolves.toMatchObject({ as: 'user' });
    expect(client.webhookTokens.has('wh1')).toBe(false);
    // A bot 401 stops the bot token only; user-or-bot routes fall back to the session.
    client.setBotToken('revoked-bot');
    await expect(client.users.getMe({ credential: 'bot' })).rejects.toBeInstanceOf(AuthenticationError);
    await expect(client.users.getMe()).resolves.toMatchObject({ as: 'user' });
    await expect(client.interactions.respond('i1', { interaction_type: 1 })).rejects.toThrow(/bot token was rejected with 401/);
    const sent = server.requests.length;
    expect(server.requests.filter((r) => r.url.includes('/callback'))).toHaveLength(0);
    client.setBotToken('good-bot');
    await expect(client.users.getMe()).resolves.toEqual({ as: 'bot' });
    expect(server.requests.length).toBe(sent + 1);
  });

  it('loads the session from a store before the first call and saves every change', async () => {
    generation++;
    const saved: (SessionSnapshot | undefined)[] = [];
    const store = {
      load: () => ({
        accessToken: 'stale',
        accessTokenExpiresAt: Date.now() + 600_000,
        cookies: [{ name: 'rt', value: `refresh-${generation}`, path: '/api/v1/auth', expiresAt: undefined }],
      }),
      save: (snapshot: SessionSnapshot | undefined) => {
        saved.push(snapshot);
      },
    };
    const loaded = new Client({ baseUrl: server.url, sessionStore: store });
    expect(loaded.session.canRefresh).toBe(false);
    await expect(loaded.applications.list()).resolves.toMatchObject({ as: 'user' });
    expect(server.requests.map((r) => r.url)).toEqual(['/api/v1/applications', '/api/v1/auth/refresh', '/api/v1/applications']);
    expect(saved).toHaveLength(1);
    expect(saved[0]?.accessToken).toBe(`access-${generation}`);
    expect(saved[0]?.cookies[0]?.value).toBe(`refresh-${generation}`);
  });
});

describe('manual refresh', () => {
  it('three concurrent client.auth.refresh() calls share one request, and the session stays valid', async () => {
    const client = sessionClient();
    const grants = await Promise.all([client.auth.refresh(), client.auth.refresh(), client.auth.refresh()]);
    expect(refreshCalls).toBe(1);
    expect(new Set(grants.map((grant) => grant.accessTokenExpiresAt)).size).toBe(1);
    await expect(client.applications.list()).resolves.toBeDefined();
    await client.close();
  });

  it('keeps its options (headers, retries) under a shared refresh lock that is acquired asynchronously', async () => {
    let locked = false;
    const store = {
      // As a Redis store does: the lock answer arrives on a later turn of the event loop.
      lockRefresh: () => new Promise<boolean>((resolve) => setImmediate(() => resolve((locked = !locked)))),
      unlockRefresh: () => {
        locked = false;
      },
      load: () => undefined,
      save: () => undefined,
    };
    const client = sessionClient({ store });
    await client.auth.refresh({ headers: { 'x-trace-id': 'manual-refresh-7' } });
    const sent = server.requests.filter((r) => r.url.endsWith('/auth/refresh'));
    expect(sent).toHaveLength(1);
    expect(sent[0]?.headers['x-trace-id']).toBe('manual-refresh-7');
    // retries: 0 travels too: a refresh answered 503 is sent once, not retried.
    const failing = await startLoopbackServer((_request, response) => json(response, 503, { message: 'try later' }));
    const other = new Client({
      baseUrl: failing.url,
      sessionStore: store,
      auth: {
        session: {
          accessToken: 'a0',
          accessTokenExpiresAt: Date.now() + 600_000,
          cookies: [{ name: 'rt', value: 'r0', path: '/api/v1/auth', expiresAt: undefined }],
        },
      },
    });
    await expect(other.auth.refresh({ retries: 0 })).rejects.toThrow();
    expect(failing.requests.filter((r) => r.url.endsWith('/auth/refresh'))).toHaveLength(1);
    await other.close();
    await failing.close();
    await client.close();
  });
});

describe('refresh under hostile conditions', () => {
  it('a shared-lock store that hangs cannot wedge the session: the caller settles at its deadline, and a later refresh goes through', async () => {
    let hang = true;
    const store = {
      lockRefresh: () => (hang ? new Promise<boolean>(() => {}) : true),
      unlockRefresh: () => undefined,
      load: () => undefined,
      save: () => undefined,
    };
    const client = sessionClient({ store });
    const error = await client.auth.refresh({ deadlineMs: 300 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    // The hung lock attempt gives up on its own (the store's calls are bounded), so the session is not stuck.
    hang = false;
    await expect
      .poll(
        async () =>
          await client.auth.refresh({ deadlineMs: 2_000 }).then(
            () => 'ok',
            (e: unknown) => (e as Error).name,
          ),
        { timeout: 9_000, interval: 500 },
      )
      .toBe('ok');
    expect(refreshCalls).toBeGreaterThanOrEqual(1);
  }, 15_000);

  it('a token that lives shorter than the refresh margin is refreshed at half its life, not before every call', async () => {
    const echo = await startLoopbackServer((request, response) => {
      if (request.url?.endsWith('/auth/refresh'))
        return json(response, 200, { access_token: `short-${Date.now()}`, expires_in: 30 }, { 'set-cookie': 'rt=next; Path=/api/v1/auth' });
      json(response, 200, { ok: true });
    });
    const client = new Client({
      baseUrl: echo.url,
      auth: {
        session: {
          accessToken: 'a0',
          accessTokenExpiresAt: Date.now() + 20_000,
          cookies: [{ name: 'rt', value: 'r0', path: '/api/v1/auth', expiresAt: undefined }],
        },
      },
    });
    for (let i = 0; i < 20; i++) await client.applications.list();
    expect(echo.requests.filter((r) => r.url.endsWith('/auth/refresh'))).toHaveLength(1);
    await client.close();
    await echo.close();
  });

  it('what login and refresh return holds neither the password nor the cookies the call sent, even echoed', async () => {
    const password = 'correct-horse-SECRETPW';
    const echo = await startLoopbackServer((request, response, body) => {
      if (request.url?.endsWith('/auth/login')) {
        return json(
          response,
          200,
          { access_token: 'acc-1', user: { bio: `your password is ${JSON.parse(body).password}` } },
          { 'set-cookie': 'rt=COOKIESECRETVALUE; Path=/api/v1/auth' },
        );
      }
      json(
        response,
        200,
        { access_token: 'acc-2', note: `cookie was ${request.headers.cookie}` },
        { 'set-cookie': 'rt=COOKIESECRETVALUE2; Path=/api/v1/auth' },
      );
    });
    const client = new Client({ baseUrl: echo.url });
    const login = await client.auth.login({ email: 'a@b.test', password });
    const refresh = await client.auth.refresh();
    const text = JSON.stringify([login, refresh]);
    for (const secret of [password, 'COOKIESECRETVALUE', 'acc-1', 'acc-2']) expect(text).not.toContain(secret);
    await client.close();
    await echo.close();
  });
});
