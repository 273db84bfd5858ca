import { getEventListeners } from 'node:events';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  AbortError,
  Client,
  NetworkError,
  RateLimitError,
  ServerError,
  TimeoutError,
  ValidationError,
  isCommunityChatError,
  type ClientEvents,
  type ClientOptions,
} from '../../src/index.js';
import type { RateLimitedEvent, RequestHeldEvent, RetryEvent } from '../../src/diagnostics.js';
import { SECRETS, activeTimers, startLoopbackServer, trackUnhandledRejections, type LoopbackServer } from '../helpers/index.js';
import { until } from '../helpers/ws-server.js';

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterEach(() => {
  server.requests.length = 0;
});
afterAll(() => server.close());

const json = (response: import('node:http').ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
};

/** Resolves with the next `event` the client emits. */
function next<K extends keyof ClientEvents>(c: Client, event: K): Promise<ClientEvents[K][0]> {
  return new Promise((resolve) => c.once(event, ((value: ClientEvents[K][0]) => resolve(value)) as never));
}

function client(options: ClientOptions = {}): Client {
  return new Client({
    baseUrl: server.url,
    auth: { botToken: SECRETS.botToken, webhookTokens: { wh1: SECRETS.webhookToken } },
    baseDelayMs: 10,
    maxDelayMs: 40,
    timeoutMs: 1000,
    // These tests use channels.get as a plain GET of the pipeline; the id check of responses is tested in test/resources.
    requireResponseIds: false,
    ...options,
  });
}

describe('429 handling', () => {
  it('waits out a storm of 429s with fractional Retry-After seconds, emitting rateLimited each time', async () => {
    let hits = 0;
    server.setHandler((_request, response) =>
      ++hits <= 3 ? json(response, 429, { message: 'slow' }, { 'retry-after': '0.05' }) : json(response, 200, { id: 'ch1' }),
    );
    const c = client();
    const events: RateLimitedEvent[] = [];
    c.on('rateLimited', (event) => events.push(event));
    await expect(c.channels.get('ch1')).resolves.toEqual({ id: 'ch1' });
    expect(server.requests).toHaveLength(4);
    expect(events.map((e) => [e.retryAfterMs, e.willRetry, e.attempt])).toEqual([
      [50, true, 1],
      [50, true, 2],
      [50, true, 3],
    ]);
  });

  it('honours Retry-After as an HTTP date', async () => {
    let hits = 0;
    server.setHandler((_request, response) =>
      ++hits === 1 ? json(response, 429, {}, { 'retry-after': new Date(Date.now() + 1000).toUTCString() }) : json(response, 200, { ok: true }),
    );
    const started = Date.now();
    await expect(client().channels.get('ch1')).resolves.toEqual({ ok: true });
    const [first, second] = server.requests;
    expect((second?.receivedAt ?? 0) - (first?.receivedAt ?? 0)).toBeGreaterThanOrEqual(1);
    expect(Date.now() - started).toBeLessThan(2500);
  });

  it('a global 429 pauses every bucket; a route 429 pauses only its own', async () => {
    server.setHandler((request, response) => {
      if (request.url?.endsWith('/global') && server.requests.filter((r) => r.url.endsWith('/global')).length === 1) {
        json(response, 429, { global: true }, { 'retry-after': '0.4', 'x-ratelimit-global': 'true' });
      } else if (request.url?.endsWith('/route') && server.requests.filter((r) => r.url.endsWith('/route')).length === 1) {
        json(response, 429, {}, { 'retry-after': '0.4' });
      } else json(response, 200, {});
    });
    const routeClient = client();
    const routePaused = next(routeClient, 'rateLimited');
    const routeLimited = routeClient.channels.get('route');
    await routePaused;
    const otherStart = Date.now();
    await routeClient.channels.get('other');
    // Another bucket is not held by the 400 ms route pause.
    expect(Date.now() - otherStart).toBeLessThan(330);
    await routeLimited;

    const globalClient = client();
    const globalPaused = next(globalClient, 'rateLimited');
    const globalLimited = globalClient.channels.get('global');
    expect((await globalPaused).global).toBe(true);
    const pausedStart = Date.now();
    await globalClient.channels.get('elsewhere');
    expect(Date.now() - pausedStart).toBeGreaterThanOrEqual(250);
    await globalLimited;
  });

  it('rejects with RateLimitError instead of waiting past maxRateLimitWaitMs', async () => {
    server.setHandler((_request, response) => json(response, 429, { message: 'wait two minutes' }, { 'retry-after': '120' }));
    const c = client({ maxRateLimitWaitMs: 5_000 });
    const events: RateLimitedEvent[] = [];
    c.on('rateLimited', (event) => events.push(event));
    const started = Date.now();
    const error = (await c.channels.get('ch1').catch((e: unknown) => e)) as RateLimitError;
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.retryAfterMs).toBe(120_000);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(events[0]?.willRetry).toBe(false);
    expect(error.sent).toBe(true);
    // The bucket stays paused: the next call rejects locally without touching the server, and says so.
    const refused = (await c.channels.get('ch1').catch((e: unknown) => e)) as RateLimitError;
    expect(refused).toBeInstanceOf(RateLimitError);
    expect(refused.sent).toBe(false);
    expect(refused.message).toMatch(
      /^GET \/api\/v1\/channels\/ch1 was not sent: it would wait \d+ ms for a route rate limit \(the wait exceeds maxRateLimitWaitMs \(5000 ms\)\); nothing was sent$/,
    );
    expect(refused.message).not.toContain('failed with 429');
    expect(server.requests).toHaveLength(1);
  });

  it('rejectOnRateLimit fails fast for matching operations only', async () => {
    server.setHandler((_request, response) => json(response, 429, {}, { 'retry-after': '0.05' }));
    const c = client({ rejectOnRateLimit: (info) => info.operation === 'channels.get' });
    await expect(c.channels.get('ch1')).rejects.toBeInstanceOf(RateLimitError);
    expect(server.requests).toHaveLength(1);
    const list = client({ rejectOnRateLimit: ['activities.get'] });
    await expect(list.activities.get('a1')).rejects.toBeInstanceOf(RateLimitError);
  });

  it('falls back to a bounded backoff when Retry-After is missing', async () => {
    let hits = 0;
    server.setHandler((_request, response) => (++hits === 1 ? json(response, 429, {}) : json(response, 200, { ok: 1 })));
    const c = client();
    const events: RateLimitedEvent[] = [];
    c.on('rateLimited', (event) => events.push(event));
    await expect(c.channels.get('ch1')).resolves.toEqual({ ok: 1 });
    expect(events[0]?.retryAfterMs).toBe(1000);
  });

  it('learns X-RateLimit headers and holds requests before the bucket runs dry', async () => {
    let remaining = 2;
    server.setHandler((_request, response) => {
      if (remaining <= 0) return json(response, 429, {}, { 'retry-after': '5' });
      remaining--;
      json(
        response,
        200,
        {},
        { 'x-ratelimit-limit': '2', 'x-ratelimit-remaining': String(remaining), 'x-ratelimit-reset-after': '0.3', 'x-ratelimit-bucket': 'abc' },
      );
      if (remaining === 0) setTimeout(() => (remaining = 2), 300);
    });
    const c = client();
    const limited: RateLimitedEvent[] = [];
    c.on('rateLimited', (event) => limited.push(event));
    for (let i = 0; i < 6; i++) await c.channels.get('ch1');
    expect(limited).toHaveLength(0);
    expect(server.requests).toHaveLength(6);
  });
});

describe('retries', () => {
  it('retries 5xx bursts on GET with backoff and reports the attempt', async () => {
    const statuses = [500, 502, 503];
    server.setHandler((_request, response) => {
      const status = statuses.shift();
      if (status) json(response, status, { message: 'oops' });
      else json(response, 200, { ok: true });
    });
    const c = client();
    const retries: RetryEvent[] = [];
    c.on('retry', (event) => retries.push(event));
    await expect(c.channels.get('ch1')).resolves.toEqual({ ok: true });
    expect(retries.map((r) => [r.reason, r.status, r.attempt])).toEqual([
      ['status', 500, 1],
      ['status', 502, 2],
      ['status', 503, 3],
    ]);
    expect(retries.every((r) => r.delayMs >= 0 && r.delayMs <= 40)).toBe(true);
  });

  it('gives up after `retries` and reports the last attempt; retries: 0 means one attempt', async () => {
    server.setHandler((_request, response) => json(response, 500, { message: 'down' }));
    const error = (await client({ retries: 2 })
      .channels.get('ch1')
      .catch((e: unknown) => e)) as ServerError;
    expect(error).toBeInstanceOf(ServerError);
    expect(error.attempt).toBe(3);
    expect(server.requests).toHaveLength(3);
    server.requests.length = 0;
    await expect(client({ retries: 0 }).channels.get('ch1')).rejects.toBeInstanceOf(ServerError);
    expect(server.requests).toHaveLength(1);
  });

  it('never retries a POST or PATCH that may have reached the server', async () => {
    server.setHandler((_request, response) => json(response, 503, {}));
    await expect(client().webhooks.execute('wh1', { content: 'once' })).rejects.toBeInstanceOf(ServerError);
    expect(server.requests).toHaveLength(1);

    server.requests.length = 0;
    server.setHandler((request) => request.socket.destroy());
    const reset = (await client()
      .channels.update('ch1', { name: 'x' })
      .catch((e: unknown) => e)) as NetworkError;
    expect(reset).toBeInstanceOf(NetworkError);
    expect(reset.mayHaveReachedServer).toBe(true);
    expect(server.requests).toHaveLength(1);

    server.requests.length = 0;
    server.setHandler(() => undefined);
    const timeout = (await client({ timeoutMs: 150 })
      .interactions.respond('i1', { interaction_type: 4, data: { content: 'hi' } })
      .catch((e: unknown) => e)) as TimeoutError;
    expect(timeout).toBeInstanceOf(TimeoutError);
    expect(timeout.mayHaveReachedServer).toBe(true);
    expect(server.requests).toHaveLength(1);
  });

  it('retries a GET whose connection resets before or during the body', async () => {
    let hits = 0;
    server.setHandler((request, response) => {
      hits++;
      if (hits === 1) request.socket.destroy();
      else if (hits === 2) {
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
        response.write('{"partial":');
        setTimeout(() => request.socket.destroy(), 10);
      } else json(response, 200, { ok: true });
    });
    await expect(client().channels.get('ch1')).resolves.toEqual({ ok: true });
    expect(hits).toBe(3);
  });

  it('resolves normally when the connection resets right after a complete response', async () => {
    server.setHandler((request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ ok: true }), () => request.socket.destroy());
    });
    const c = client();
    await expect(c.channels.update('ch1', { name: 'a' })).resolves.toEqual({ ok: true });
    await expect(c.channels.update('ch1', { name: 'b' })).resolves.toEqual({ ok: true });
    expect(server.requests).toHaveLength(2);
  });

  it('retries a POST whose connection was refused, and the server executes it once', async () => {
    const probe = await startLoopbackServer();
    const port = Number(new URL(probe.url).port);
    await probe.close();
    const c = new Client({ baseUrl: `http://127.0.0.1:${port}`, auth: { botToken: 'x' }, retries: 5, baseDelayMs: 200, maxDelayMs: 200 });
    const refused = next(c, 'retry');
    const pending = c.channels.ack('ch1');
    // The first attempt was refused and a retry is scheduled.
    expect((await refused).reason).toBe('network');
    // Start the server on the very port the client is retrying.
    const late = await startLoopbackServer((_request, response) => {
      response.statusCode = 204;
      response.end();
    }, port);
    try {
      await expect(pending).resolves.toBeUndefined();
      expect(late.requests).toHaveLength(1);
    } finally {
      await late.close();
    }
  });
});

describe('deadline, timeouts and aborts', () => {
  it('an overall deadline covers backoff and every attempt', async () => {
    server.setHandler((_request, response) => json(response, 500, {}));
    const started = Date.now();
    const error = await client({ retries: 50, baseDelayMs: 100, maxDelayMs: 100, deadlineMs: 300 })
      .channels.get('ch1')
      .catch((e: unknown) => e);
    expect(isCommunityChatError(error)).toBe(true);
    expect(Date.now() - started).toBeLessThan(1000);
    // The deadline, not the 50 retries, ended it (backoff is random, so the count varies).
    expect(server.requests.length).toBeLessThan(51);
  });

  it.each([
    ['waiting in the queue behind a paused bucket', 'queued'],
    ['sleeping on a rate limit', 'sleeping'],
    ['in flight', 'inflight'],
    ['reading the body', 'body'],
    ['sleeping in backoff', 'backoff'],
  ] as const)('aborts while %s, settles promptly and leaks nothing', async (_label, stage) => {
    const unhandled = trackUnhandledRejections();
    const timersBefore = activeTimers();
    server.setHandler((request, response) => {
      if (stage === 'inflight') return;
      if (stage === 'body') {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.write('{"slow":');
        return;
      }
      if (stage === 'backoff') return json(response, 500, {});
      json(response, 429, {}, { 'retry-after': '5' });
      void request;
    });
    const c = client({ timeoutMs: 10_000, baseDelayMs: 5_000, maxDelayMs: 5_000 });
    const controller = new AbortController();
    let pending: Promise<unknown>;
    let ahead: Promise<unknown> | undefined;
    const aheadController = new AbortController();
    // The call under test reaches its stage: an event says so, or the server has its request.
    let held = 0;
    c.on('requestHeld', () => held++);
    const reached =
      stage === 'sleeping'
        ? next(c, 'rateLimited')
        : stage === 'backoff'
          ? next(c, 'retry')
          : stage === 'queued'
            ? until(() => held === 2) // the call ahead and the call under test, queued behind it
            : until(() => server.requests.length === 1);
    if (stage === 'queued') {
      // Pause the bucket, then queue one waiter ahead of the call under test.
      await c.channels.get('ch1', { deadlineMs: 50 }).catch(() => undefined);
      server.requests.length = 0;
      ahead = c.channels.get('ch1', { signal: aheadController.signal }).catch((e: unknown) => e);
      pending = c.channels.get('ch1', { signal: controller.signal });
    } else pending = c.channels.get('ch1', { signal: controller.signal });
    await reached;
    const sentBeforeAbort = server.requests.length;
    const abortedAt = Date.now();
    controller.abort();
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AbortError);
    expect(Date.now() - abortedAt).toBeLessThan(500);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(server.requests.length).toBe(sentBeforeAbort);
    if (ahead) {
      aheadController.abort();
      expect(await ahead).toBeInstanceOf(AbortError);
    }
    await c.close();
    expect(activeTimers()).toBeLessThanOrEqual(timersBefore);
    unhandled.stop();
    expect(unhandled.count).toBe(0);
  });

  it('every call of a mixed fault storm settles with a typed error or a result, and POSTs run once', async () => {
    const unhandled = trackUnhandledRejections();
    const timersBefore = activeTimers();
    const postCounts = new Map<string, number>();
    let n = 0;
    server.setHandler((request, response, body) => {
      n++;
      if (request.method === 'POST') postCounts.set(body, (postCounts.get(body) ?? 0) + 1);
      switch (n % 6) {
        case 0:
          return json(response, 429, {}, { 'retry-after': '0.02' });
        case 1:
          return json(response, 503, {});
        case 2:
          return request.socket.destroy();
        case 3:
          return; // never answers: the attempt times out
        default:
          return json(response, 200, { ok: true });
      }
    });
    const c = client({ timeoutMs: 150, retries: 2, deadlineMs: 3_000 });
    const calls: Promise<unknown>[] = [];
    for (let i = 0; i < 40; i++) {
      calls.push(i % 2 === 0 ? c.channels.get(`c${i}`) : c.channels.update(`c${i}`, { name: `n${i}` }));
    }
    const results = await Promise.allSettled(calls);
    for (const result of results) if (result.status === 'rejected') expect(isCommunityChatError(result.reason)).toBe(true);
    for (const [body, count] of postCounts) expect(count, body).toBeLessThanOrEqual(1);
    await c.close();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(activeTimers()).toBeLessThanOrEqual(timersBefore);
    unhandled.stop();
    expect(unhandled.count).toBe(0);
  });
});

describe('held requests are announced', () => {
  it('a learned bucket with no room left holds the next request: requestHeld says what holds it and for how long, before it is sent', async () => {
    server.setHandler((_request, response) =>
      json(
        response,
        200,
        { id: 'ch1' },
        { 'x-ratelimit-limit': '1', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset-after': '0.3', 'x-ratelimit-bucket': 'b1' },
      ),
    );
    const c = client();
    await c.channels.get('ch1');
    const held: Array<RequestHeldEvent & { sentBefore: number }> = [];
    c.on('requestHeld', (event) => held.push({ ...event, sentBefore: server.requests.length }));
    await c.channels.get('ch1');
    expect(held).toHaveLength(1);
    expect(held[0]).toMatchObject({ operation: 'channels.get', method: 'GET', path: '/api/v1/channels/ch1', reason: 'bucket', sentBefore: 1 });
    expect(held[0]?.waitMs).toBeGreaterThan(0);
    expect(held[0]?.waitMs).toBeLessThan(1_000);
    expect(server.requests).toHaveLength(2);
  });

  it("a webhook's full rolling window holds the next execution: requestHeld with reason webhook, and the webhook token is not in it", async () => {
    server.setHandler((_request, response) => {
      response.statusCode = 204;
      response.end();
    });
    const c = client({ webhookRateLimit: { limit: 1, windowMs: 200 } });
    const held: RequestHeldEvent[] = [];
    c.on('requestHeld', (event) => held.push(event));
    await Promise.all([c.webhooks.execute('wh1', { content: 'one' }), c.webhooks.execute('wh1', { content: 'two' })]);
    expect(held.map((event) => event.reason)).toEqual(['webhook']);
    expect(held[0]?.waitMs).toBeGreaterThan(0);
    expect(JSON.stringify(held)).not.toContain(SECRETS.webhookToken);
  });

  it("the default longest wait covers the contract's one-minute webhook window: a 429 asking for 60.011 s is waited out, not refused", async () => {
    let hits = 0;
    server.setHandler((_request, response) => (++hits === 1 ? json(response, 429, {}, { 'retry-after': '60.011' }) : json(response, 200, { id: 'ch1' })));
    const c = client();
    const limited = next(c, 'rateLimited');
    const controller = new AbortController();
    const call = c.channels.get('ch1', { deadlineMs: 120_000, signal: controller.signal }).catch((e: unknown) => e);
    // willRetry: the SDK decided to wait (with maxRateLimitWaitMs at 60 s it would reject here).
    expect((await limited).willRetry).toBe(true);
    controller.abort();
    expect(await call).toBeInstanceOf(AbortError);
    expect(server.requests).toHaveLength(1);
    await c.close();
  });
});

describe('webhook rolling window', () => {
  it('spreads a burst out in order so no window at the server holds more than the limit', async () => {
    server.setHandler((_request, response) => {
      response.statusCode = 204;
      response.end();
    });
    const limit = 5;
    const windowMs = 400;
    const c = client({ webhookRateLimit: { limit, windowMs } });
    const sends = Array.from({ length: 17 }, (_, i) => c.webhooks.execute('wh1', { content: `message ${i}` }));
    await Promise.all(sends);
    const arrivals = server.requests.map((r) => ({ at: r.receivedAt ?? 0, index: Number(JSON.parse(r.body).content.split(' ')[1]) }));
    expect(arrivals.map((a) => a.index)).toEqual(Array.from({ length: 17 }, (_, i) => i));
    for (const first of arrivals) {
      const inWindow = arrivals.filter((a) => a.at >= first.at && a.at < first.at + windowMs);
      expect(inWindow.length).toBeLessThanOrEqual(limit);
    }
  });
});

describe('interaction callback lane', () => {
  it('does not wait behind a global pause caused by other traffic, but honours its own 429', async () => {
    let callbackHits = 0;
    server.setHandler((request, response) => {
      if (request.url?.includes('/callback')) {
        callbackHits++;
        if (callbackHits === 2) return json(response, 429, {}, { 'retry-after': '0.2' });
        response.statusCode = 204;
        return response.end();
      }
      json(response, 429, { global: true }, { 'retry-after': '2', 'x-ratelimit-global': 'true' });
    });
    const c = client({ maxRateLimitWaitMs: 10_000 });
    const paused = next(c, 'rateLimited');
    const blocked = c.channels.get('ch1', { deadlineMs: 500 }).catch((e: unknown) => e);
    // The global pause is in force before the callback is sent, or this test would test nothing.
    expect((await paused).global).toBe(true);
    const started = Date.now();
    await c.interactions.respond('i1', { interaction_type: 5 });
    // Not held by the 2 s global pause.
    expect(Date.now() - started).toBeLessThan(1000);
    const retriedStart = Date.now();
    await c.interactions.respond('i2', { interaction_type: 5 });
    expect(Date.now() - retriedStart).toBeGreaterThanOrEqual(180);
    expect(callbackHits).toBe(3);
    expect(await blocked).toBeInstanceOf(RateLimitError);
  });
});

describe('every wait watches the caller signal and the deadline', () => {
  const hangingStore = { load: () => new Promise<undefined>(() => {}) };
  const sessionSnapshot = (expiresInMs: number) => ({
    accessToken: 'access-held',
    accessTokenExpiresAt: Date.now() + expiresInMs,
    cookies: [{ name: 'rt', value: 'refresh-held', path: '/api/v1/auth', expiresAt: undefined }],
  });

  it('a bot-token call never waits for a user session store that never loads', async () => {
    server.setHandler((_request, response) => json(response, 200, { id: 'ch1' }));
    const bot = client({ sessionStore: hangingStore });
    await expect(bot.channels.get('ch1', { deadlineMs: 2_000 })).resolves.toEqual({ id: 'ch1' });
    await bot.close();
  });

  it('a user call waiting on a session store that never loads settles at its deadline, or on abort', async () => {
    const user = new Client({ baseUrl: server.url, sessionStore: hangingStore });
    const timedOut = await user.applications.list({ deadlineMs: 150 }).catch((e: unknown) => e);
    expect(timedOut).toBeInstanceOf(TimeoutError);
    const controller = new AbortController();
    const pending = user.applications.list({ signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    expect(await pending.catch((e: unknown) => e)).toBeInstanceOf(AbortError);
    expect(server.requests).toHaveLength(0);
    await user.close();
  });

  it('a refresh that takes 20 s does not hold a call past its 300 ms deadline, nor past an abort', async () => {
    let release: (() => void) | undefined;
    server.setHandler((request, response) => {
      if (request.url?.endsWith('/auth/refresh')) {
        const timer = setTimeout(() => json(response, 200, { access_token: 'access-new', expires_in: 900 }), 20_000);
        release = () => {
          clearTimeout(timer);
          json(response, 200, { access_token: 'access-new', expires_in: 900 });
        };
        return;
      }
      json(response, 200, [{ id: 'app1' }]);
    });
    const user = new Client({ baseUrl: server.url, auth: { session: sessionSnapshot(1_000) }, refreshMarginMs: 60_000 });
    const started = Date.now();
    const error = await user.applications.list({ deadlineMs: 300 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(Date.now() - started).toBeLessThan(5_000);
    const controller = new AbortController();
    const pending = user.applications.list({ signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    expect(await pending.catch((e: unknown) => e)).toBeInstanceOf(AbortError);
    release?.();
    await user.close();
  });

  it('a webhook execution queued behind a slow one of the same webhook settles at its deadline, or on abort; the one in flight is untouched', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let hits = 0;
    server.setHandler((_request, response) => {
      hits++;
      void held.then(() => json(response, 200, { id: 'm1' }));
    });
    const c = client({ timeoutMs: 5_000 });
    const first = c.webhooks.execute('wh1', { content: 'first' });
    const queued = c.webhooks.execute('wh1', { content: 'second' }, { deadlineMs: 150 }).catch((e: unknown) => e);
    const controller = new AbortController();
    const aborted = c.webhooks.execute('wh1', { content: 'third' }, { signal: controller.signal }).catch((e: unknown) => e);
    const started = Date.now();
    const timedOut = await queued;
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(timedOut).toBeInstanceOf(TimeoutError);
    controller.abort();
    expect(await aborted).toBeInstanceOf(AbortError);
    release();
    await expect(first).resolves.toEqual({ id: 'm1' });
    // Neither queued call reached the server.
    expect(hits).toBe(1);
    await c.close();
  });
});

describe('one AbortSignal shared by many calls', () => {
  it('adds one listener to the signal, warns nothing, and leaves none behind', async () => {
    server.setHandler((_request, response) => setTimeout(() => json(response, 200, { ok: true }), 20));
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    const controller = new AbortController();
    const shared = client();
    const calls = Array.from({ length: 25 }, (_, i) => shared.channels.get(`c${i}`, { signal: controller.signal }));
    await until(() => server.requests.length === 25);
    expect(getEventListeners(controller.signal, 'abort').length).toBeLessThanOrEqual(1);
    await Promise.all(calls);
    await new Promise((resolve) => setImmediate(resolve));
    process.off('warning', onWarning);
    expect(warnings.filter((warning) => warning.name === 'MaxListenersExceededWarning')).toEqual([]);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    await shared.close();
  });

  it('aborts every call sharing the signal', async () => {
    server.setHandler(() => {});
    const controller = new AbortController();
    const shared = client({ retries: 0 });
    const calls = Array.from({ length: 12 }, (_, i) => shared.channels.get(`c${i}`, { signal: controller.signal }).catch((e: unknown) => e));
    await until(() => server.requests.length === 12);
    controller.abort();
    const results = await Promise.all(calls);
    expect(results.every((result) => result instanceof AbortError)).toBe(true);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    await shared.close();
  });
});

describe('hostile rate-limit values are clamped, so the client recovers', () => {
  it('a global 429 with retry_after 1e308 rejects calls for at most maxRateLimitPauseMs, then they go through', async () => {
    let clock = Date.now();
    let answered = 0;
    server.setHandler((_request, response) => {
      answered++;
      if (answered === 1) return json(response, 429, { message: 'slow down', retry_after: 1e308, global: true });
      json(response, 200, { ok: true });
    });
    const c = client({ clock: () => clock, retries: 0 });
    expect(await c.channels.get('a').catch((e: unknown) => e)).toBeInstanceOf(RateLimitError);
    // The global pause holds: rejected at once, nothing sent.
    expect(await c.channels.get('b').catch((e: unknown) => e)).toBeInstanceOf(RateLimitError);
    expect(answered).toBe(1);
    clock += 10 * 60_000 + 1_000;
    await expect(c.channels.get('c')).resolves.toEqual({ ok: true });
    await expect(c.activities.get('x')).resolves.toEqual({ ok: true });
    await c.close();
  });

  it('X-RateLimit-Reset-After: 1e308 on a 200 blocks its route for at most maxRateLimitPauseMs', async () => {
    let clock = Date.now();
    let answered = 0;
    server.setHandler((_request, response) => {
      answered++;
      const headers: Record<string, string> =
        answered === 1 ? { 'x-ratelimit-limit': '1', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset-after': '1e308' } : {};
      json(response, 200, { ok: answered }, headers);
    });
    const c = client({ clock: () => clock, maxRateLimitPauseMs: 120_000 });
    await expect(c.channels.get('a')).resolves.toEqual({ ok: 1 });
    expect(await c.channels.get('a').catch((e: unknown) => e)).toBeInstanceOf(RateLimitError);
    expect(answered).toBe(1);
    clock += 121_000;
    await expect(c.channels.get('a')).resolves.toEqual({ ok: 2 });
    await c.close();
  });
  it('a Retry-After header of 10^20 seconds on a route 429 pauses the route for at most maxRateLimitPauseMs; one that is not delay-seconds (1e308) is a missing one', async () => {
    let offset = 0;
    let answered = 0;
    server.setHandler((_request, response) => {
      answered++;
      if (answered === 1) return json(response, 429, { message: 'slow down' }, { 'retry-after': '100000000000000000000' });
      json(response, 200, { ok: answered });
    });
    const c = client({ clock: () => Date.now() + offset, retries: 0, maxRateLimitPauseMs: 120_000, maxRateLimitWaitMs: 5_000 });
    expect(await c.channels.get('a').catch((e: unknown) => e)).toBeInstanceOf(RateLimitError);
    expect(await c.channels.get('a').catch((e: unknown) => e)).toBeInstanceOf(RateLimitError);
    expect(answered).toBe(1);
    offset += 121_000;
    await expect(c.channels.get('a')).resolves.toEqual({ ok: 2 });
    await c.close();

    // Not delay-seconds nor a date: treated as absent, so the SDK's own backoff (1 s first) applies and the call goes through.
    answered = 0;
    server.setHandler((_request, response) => {
      answered++;
      if (answered === 1) return json(response, 429, { message: 'slow down' }, { 'retry-after': '1e308' });
      json(response, 200, { ok: answered });
    });
    const d = client({ maxRateLimitWaitMs: 5_000 });
    await expect(d.channels.get('b')).resolves.toEqual({ ok: 2 });
    await d.close();
  });
});

describe('input that cannot be sent is refused before any I/O', () => {
  it.each([
    [
      'a CR/LF in a header value',
      (c: Client) => c.channels.get('ch1', { headers: { 'x-audit-log-reason': 'ok\r\nx-injected: 1' } }),
      'headers.x-audit-log-reason',
    ],
    ['a header name with a space', (c: Client) => c.channels.get('ch1', { headers: { 'bad name': 'v' } }), 'headers.bad name'],
    ['a lone surrogate in a path parameter', (c: Client) => c.channels.get('\uD800'), 'channel_id'],
    [
      'a lone surrogate in a query value',
      (c: Client) => c.request({ method: 'GET', path: '/channels/{channel_id}/drive-links' }, { params: { channel_id: 'c' }, query: { q: 'x\uDC00' } }),
      'query.q',
    ],
    ['an encoded dot segment in a custom route', (c: Client) => c.request({ method: 'GET', path: '/channels/%2e%2e/%2e%2e/users/@me' }), 'path'],
    ['an encoded slash in a custom route', (c: Client) => c.request({ method: 'GET', path: '/channels/a%2F..%2Fb' }), 'path'],
  ] as const)('%s: ValidationError naming the field, nothing sent, no retry', async (_label, call, field) => {
    server.setHandler((_request, response) => json(response, 200, {}));
    const c = client();
    const before = server.requests.length;
    const error = await call(c).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues.map((issue) => issue.path)).toContain(field);
    expect(server.requests.length - before).toBe(0);
    await c.close();
  });
});
