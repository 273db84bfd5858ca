/**
 * The Redis rate-limit store in one process, against a real redis-server:
 * round trips per request, buckets that only move forward, the proactive
 * global cap shared by two clients, and what happens when Redis is gone.
 */
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { createClient } from 'redis';
import { Client, isCommunityChatError } from '../../src/index.js';
import type { StoreErrorEvent, StoreRecoveredEvent } from '../../src/diagnostics.js';
import { createRedisRateLimitStore } from '../../src/redis/index.js';
import { startLoopbackServer, type LoopbackServer } from '../helpers/index.js';
import { until } from '../helpers/ws-server.js';
import { describeWithRedis, startRedisServer, type RunningRedis } from '../helpers/redis-server.js';

async function connect(url: string) {
  const client = createClient({ url, socket: { reconnectStrategy: 100 } });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

type Redis = Awaited<ReturnType<typeof connect>>;

/** `calls` of the EVALSHA/EVAL commands so far, from INFO commandstats. */
async function scriptCalls(redis: Redis): Promise<number> {
  const info = await redis.info('commandstats');
  let total = 0;
  for (const match of info.matchAll(/cmdstat_(evalsha|eval):calls=(\d+)/g)) total += Number(match[2]);
  return total;
}

describeWithRedis('the Redis rate-limit store', () => {
  let redis: RunningRedis;
  let connection: Redis;
  let server: LoopbackServer;

  beforeAll(async () => {
    redis = await startRedisServer();
    connection = await connect(redis.url);
    // Every response carries a roomy bucket, as a real server's would.
    server = await startLoopbackServer((request, response) => {
      response.writeHead(200, {
        'content-type': 'application/json',
        'x-ratelimit-limit': '1000',
        'x-ratelimit-remaining': '999',
        'x-ratelimit-reset-after': '60',
        'x-ratelimit-bucket': 'roomy',
      });
      response.end(JSON.stringify({ id: request.url }));
    });
  }, 20_000);
  afterAll(async () => {
    await server?.close();
    await connection?.quit();
    await redis?.stop();
  });

  it('costs one Redis round trip per request when the bucket has room (release and learn ride on the next take)', async () => {
    const store = createRedisRateLimitStore({ client: connection, prefix: `trips-${Date.now()}:` });
    const client = new Client({ baseUrl: server.url, auth: { botToken: 't' }, rateLimitStore: store });
    await client.channels.get('1');
    const before = await scriptCalls(connection);
    const total = 400;
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < total) {
          next++;
          await client.channels.get('1');
        }
      }),
    );
    await store.flushed();
    const perRequest = ((await scriptCalls(connection)) - before - 1) / total;
    console.log(`[round trips] ${perRequest.toFixed(3)} Redis scripts per request at concurrency 16`);
    expect(perRequest).toBeLessThanOrEqual(1.05);
    await client.close();
  });

  it('a learned bucket with every place in flight makes the next request wait for its reset (reason bucket)', async () => {
    const prefix = `inflight-${Date.now()}:`;
    const store = createRedisRateLimitStore({ client: connection, prefix });
    store.attach({ now: Date.now, webhookWindow: undefined, maxPauseMs: 600_000, globalRateLimit: undefined });
    const route = 'GET /channels/{channel_id}';
    const key = store.bucketKey(route, '42');
    // The first request discovers the bucket: 2 per window, 1 left after it, the window resets in 400 ms.
    await store.acquire(key, 'normal', undefined, () => undefined);
    store.learn(route, '42', { limit: 2, remaining: 1, resetAfterMs: 400, bucket: 'two' });
    store.release(key);
    await store.flushed();
    const learned = store.bucketKey(route, '42');
    // The one place left is taken and stays in flight.
    const held: { ms: number; reason: string }[] = [];
    await store.acquire(learned, 'normal', undefined, (ms, reason) => void held.push({ ms, reason }));
    expect(held).toEqual([]);
    // The next one must wait for the window, however fast it asks: held by the bucket, for up to the reset.
    const started = Date.now();
    await store.acquire(learned, 'normal', undefined, (ms, reason) => void held.push({ ms, reason }));
    expect(held.length).toBeGreaterThan(0);
    expect(held[0]?.reason).toBe('bucket');
    expect(held[0]?.ms).toBeGreaterThan(0);
    expect(held[0]?.ms).toBeLessThanOrEqual(400 + 100); // the reset, and the store's safety margin
    expect(Date.now() - started).toBeGreaterThanOrEqual(held[0]?.ms ?? 0);
  });

  it('treats what Redis holds as hostile: planted non-numbers and wrong key types give a fresh start, a reset of 1e308 is capped at maxPauseMs; never a raw Lua or WRONGTYPE error', async () => {
    const prefix = `planted-${Date.now()}:`;
    const store = createRedisRateLimitStore({ client: connection, prefix });
    store.attach({ now: Date.now, webhookWindow: { limit: 30, windowMs: 60_000 }, maxPauseMs: 600_000, globalRateLimit: { limit: 100, windowMs: 1000 } });
    const route = 'GET /channels/{channel_id}';
    const take = async (major: string) => {
      const key = store.bucketKey(route, major);
      const waits: number[] = [];
      await store.acquire(key, 'normal', undefined, (ms) => {
        waits.push(ms);
        throw new Error(`refused a wait of ${ms} ms`);
      });
      store.release(key);
      return waits;
    };
    await connection.hSet(`{${prefix}}b:${route}:nan`, { k: '1', l: 'many', r: 'abc', t: 'later' });
    expect(await take('nan')).toEqual([]);
    await connection.set(`{${prefix}}b:${route}:string`, 'not a hash');
    await connection.set(`{${prefix}}r:${route}:string`, 'not a sorted set');
    expect(await take('string')).toEqual([]);
    await connection.hSet(`{${prefix}}gp`, { planted: '1' });
    await connection.set(`{${prefix}}g`, 'not a sorted set');
    expect(await take('global-planted')).toEqual([]);
    await connection.hSet(`{${prefix}}b:${route}:far`, { k: '1', l: '1', r: '0', t: '1e308' });
    const far = await take('far').catch((error: unknown) => error);
    expect(String(far)).toMatch(/refused a wait of (\d+) ms/);
    expect(Number(/(\d+) ms/.exec(String(far))?.[1])).toBeLessThanOrEqual(600_000);
    await connection.set(`{${prefix}}w:hook`, 'not a sorted set');
    await store.webhookTurn('hook', undefined, () => undefined);
    store.webhookDone('hook');
    await store.flushed();
  });

  it('a learned bucket only moves forward: a stale response cannot widen a window another process narrowed', async () => {
    const prefix = `forward-${Date.now()}:`;
    const a = createRedisRateLimitStore({ client: connection, prefix });
    const b = createRedisRateLimitStore({ client: connection, prefix });
    for (const store of [a, b]) store.attach({ now: Date.now, webhookWindow: undefined, maxPauseMs: 600_000, globalRateLimit: undefined });
    const route = 'GET /channels/{channel_id}';
    a.learn(route, '9', { limit: 5, remaining: 1, resetAfterMs: 5000, bucket: 'narrow' });
    await a.flushed();
    b.learn(route, '9', { limit: 5, remaining: 4, resetAfterMs: 4000, bucket: 'narrow' });
    await b.flushed();
    const stored = await connection.hGetAll(`{${prefix}}b:narrow:9`);
    expect(stored.r).toBe('1');
    expect(stored.l).toBe('5');
  });

  it('clients whose clocks are an hour apart share one webhook window: Redis TIME is the only clock', async () => {
    const arrivals: number[] = [];
    const hooks = await startLoopbackServer((_request, response) => {
      arrivals.push(Date.now());
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ id: 'm' }));
    });
    const prefix = `skew-${Date.now()}:`;
    const window = { limit: 5, windowMs: 1000 };
    const skews = [0, 3_600_000, -3_600_000];
    const clients = skews.map(
      (skew) =>
        new Client({
          baseUrl: hooks.url,
          clock: () => Date.now() + skew,
          webhookRateLimit: window,
          rateLimitStore: createRedisRateLimitStore({ client: connection, prefix }),
        }),
    );
    try {
      const started = Date.now();
      await Promise.all(
        clients.flatMap((client, c) =>
          Array.from({ length: 5 }, (_, i) => client.webhooks.execute({ id: 'w-skew', token: 'token-skew' }, { content: `${c}-${i}` })),
        ),
      );
      expect(arrivals).toHaveLength(15);
      // No 1 s window at the server holds more than 5, whichever client's clock is right.
      const sorted = [...arrivals].sort((x, y) => x - y);
      const busiest = Math.max(...sorted.map((at, i) => sorted.slice(i).filter((later) => later < at + window.windowMs).length));
      expect(busiest).toBeLessThanOrEqual(window.limit);
      // 15 executions at 5 a second take at least two full windows; a client trusting its own clock an hour ahead would not have waited.
      expect(Date.now() - started).toBeGreaterThanOrEqual(2 * window.windowMs - 50);
    } finally {
      await Promise.all(clients.map((client) => client.close()));
      await hooks.close();
    }
  }, 20_000);

  it('the proactive global cap holds across clients sharing the store prefix', async () => {
    const prefix = `cap-${Date.now()}:`;
    const globalRateLimit = { limit: 5, windowMs: 1000 };
    const clients = [0, 1].map(
      () =>
        new Client({
          baseUrl: server.url,
          auth: { botToken: 't' },
          globalRateLimit,
          rateLimitStore: createRedisRateLimitStore({ client: connection, prefix }),
        }),
    );
    const before = server.requests.length;
    const started = Date.now();
    await Promise.all(clients.flatMap((client, c) => Array.from({ length: 6 }, (_, i) => client.channels.get(`${c}-${i}`))));
    const arrivals = server.requests.slice(before).map((request) => request.receivedAt as number);
    for (const first of arrivals) expect(arrivals.filter((at) => at >= first && at < first + 1000).length).toBeLessThanOrEqual(5);
    expect(Date.now() - started).toBeGreaterThan(2000);
    await Promise.all(clients.map((client) => client.close()));
  });

  it('when Redis is unreachable, calls fail fast with RateLimitStoreError, or go on in memory with a warning under onStoreError: "local"', async () => {
    const doomed = await startRedisServer();
    const lost = await connect(doomed.url);
    const failing = new Client({ baseUrl: server.url, auth: { botToken: 't' }, rateLimitStore: createRedisRateLimitStore({ client: lost, prefix: 'gone:' }) });
    const local = createRedisRateLimitStore({ client: lost, prefix: 'gone:', onStoreError: 'local' });
    const warnings: StoreErrorEvent[] = [];
    local.on('storeError', (event) => warnings.push(event));
    // The store is an event emitter: a listener removed with off() hears nothing.
    const removed: StoreErrorEvent[] = [];
    const listener = (event: StoreErrorEvent) => removed.push(event);
    local.on('storeError', listener).off('storeError', listener);
    const falling = new Client({ baseUrl: server.url, auth: { botToken: 't' }, rateLimitStore: local });
    await failing.channels.get('1');
    await doomed.stop();
    // The client notices the connection is gone (isReady false) before the next call.
    await until(() => !lost.isReady);
    const started = Date.now();
    const error = await failing.channels.get('1').catch((caught: unknown) => caught);
    expect(isCommunityChatError(error, 'RateLimitStoreError')).toBe(true);
    expect(String((error as Error).message)).toContain('unreachable');
    expect(Date.now() - started).toBeLessThan(500);
    const before = server.requests.length;
    await falling.channels.get('2');
    await falling.channels.get('3');
    expect(server.requests.length - before).toBe(2);
    expect(local.usingLocalFallback).toBe(true);
    // One storeError, the fallback's, in the shape the Client and the Gateway use: which store, and an Error.
    expect(warnings.map((event) => [event.store, event.error instanceof Error])).toEqual([['rateLimit', true]]);
    expect(removed).toEqual([]);
    await Promise.all([failing.close(), falling.close()]);
    await lost.destroy();
  });

  it.each(['throw', 'local'] as const)(
    'onStoreError "%s": a stalled Redis is one outage, a storeError at its first failed step and a storeRecovered (duration, failed steps) at the answer that ends it',
    async (onStoreError) => {
      const stalled = await startRedisServer();
      const held = await connect(stalled.url);
      const store = createRedisRateLimitStore({ client: held, prefix: `outage-${onStoreError}:`, commandTimeoutMs: 300, onStoreError });
      store.attach({ now: Date.now, webhookWindow: undefined, maxPauseMs: 600_000, globalRateLimit: undefined });
      const errors: StoreErrorEvent[] = [];
      const recovered: StoreRecoveredEvent[] = [];
      store.on('storeError', (event) => errors.push(event));
      store.on('storeRecovered', (event) => recovered.push(event));
      const key = store.bucketKey('GET /channels/{channel_id}', 'outage');
      const take = () => store.acquire(key, 'normal', undefined, () => undefined).then(() => store.release(key));
      await take();
      await store.flushed();
      // The store's clock (its pacing and its outages) stands still until the test moves it: the outage's length is known.
      vi.useFakeTimers({ toFake: ['Date'] });
      try {
        process.kill(stalled.pid, 'SIGSTOP');
        try {
          const outcome = await take().then(
            () => 'taken in memory',
            (error: unknown) => (isCommunityChatError(error, 'RateLimitStoreError') ? 'RateLimitStoreError' : String(error)),
          );
          expect(outcome).toBe(onStoreError === 'local' ? 'taken in memory' : 'RateLimitStoreError');
          await store.flushed(); // the step carrying the given-up step's undo fails too
          if (onStoreError === 'local') await take(); // on the fallback: Redis is not asked, nothing fails
        } finally {
          process.kill(stalled.pid, 'SIGCONT');
        }
        expect(
          errors.map((event) => [event.store, event.error instanceof Error]),
          'one storeError for the outage',
        ).toEqual([['rateLimit', true]]);
        expect(recovered, 'nothing ends before Redis answers').toEqual([]);
        vi.setSystemTime(Date.now() + 5000); // the fallback tries Redis again after 5 s; an outage ends 5 s after its last failure
        await take();
        expect(store.usingLocalFallback, 'back on Redis').toBe(false);
        expect(recovered, 'two failed steps: the take, and the step carrying its undo').toEqual([{ store: 'rateLimit', durationMs: 5000, failures: 2 }]);
        await take();
        expect([errors.length, recovered.length], 'ended once').toEqual([1, 1]);
      } finally {
        vi.useRealTimers();
        await held.destroy();
        await stalled.stop();
      }
    },
    20_000,
  );

  it('a step given up on while Redis was stopped is undone when Redis answers: the next call on the route does not wait 30 s for a discovery lock nobody holds', async () => {
    const stalled = await startRedisServer();
    const held = await connect(stalled.url);
    const prefix = 'late-step:';
    const store = createRedisRateLimitStore({ client: held, prefix, commandTimeoutMs: 300 });
    store.attach({ now: Date.now, webhookWindow: undefined, maxPauseMs: 600_000, globalRateLimit: undefined });
    const key = store.bucketKey('GET /channels/{channel_id}', 'late');
    process.kill(stalled.pid, 'SIGSTOP');
    let error: unknown;
    try {
      // An unknown bucket: this step would take its discovery lock (30 s) and a reservation.
      error = await store.acquire(key, 'normal', undefined, () => undefined).catch((caught: unknown) => caught);
    } finally {
      process.kill(stalled.pid, 'SIGCONT');
    }
    expect(isCommunityChatError(error, 'RateLimitStoreError')).toBe(true);
    await store.flushed();
    expect(await held.keys(`${prefix}d:*`)).toEqual([]);
    expect(await held.zCard(`{${prefix}}r:${key}`)).toBe(0);
    // The next call discovers at once instead of waiting for the lock to expire.
    const waits: string[] = [];
    await store.acquire(key, 'normal', undefined, (_ms, reason) => void waits.push(reason));
    expect(waits).toEqual([]);
    await held.quit();
    await stalled.stop();
  }, 20_000);

  it('a stalled Redis (connection open, no answers) makes calls reject with RateLimitStoreError within about commandTimeoutMs, sending nothing: never a hang', async () => {
    const stalled = await startRedisServer();
    const held = await connect(stalled.url);
    const commandTimeoutMs = 600;
    const client = new Client({
      baseUrl: server.url,
      auth: { botToken: 't' },
      rateLimitStore: createRedisRateLimitStore({ client: held, prefix: 'stalled:', commandTimeoutMs }),
    });
    let stopped = false;
    try {
      await client.channels.get('1');
      process.kill(stalled.pid, 'SIGSTOP');
      stopped = true;
      const before = server.requests.length;
      const started = Date.now();
      // Three concurrent calls, then one more: each gives up on its own timer.
      const outcomes = await Promise.all(
        ['1', '2', '3'].map(async (id) => {
          const error = await client.channels.get(id).then(
            () => undefined,
            (caught: unknown) => caught,
          );
          return { error, elapsed: Date.now() - started };
        }),
      );
      const again = Date.now();
      const second = await client.channels.get('4').catch((caught: unknown) => caught);
      const secondElapsed = Date.now() - again;
      console.log(
        `[stalled Redis] commandTimeoutMs ${commandTimeoutMs}: rejected after ${outcomes.map((outcome) => outcome.elapsed).join(', ')} ms, then ${secondElapsed} ms`,
      );
      for (const { error, elapsed } of [...outcomes, { error: second, elapsed: secondElapsed }]) {
        expect(isCommunityChatError(error, 'RateLimitStoreError')).toBe(true);
        expect(String((error as Error).message)).toContain(`${commandTimeoutMs} ms`);
        // It waited for Redis (timers may fire a little early on a loaded machine), and gave up long before any HTTP timeout.
        expect(elapsed).toBeGreaterThanOrEqual(commandTimeoutMs - 50);
        expect(elapsed).toBeLessThan(commandTimeoutMs + 5000);
      }
      expect(server.requests.length).toBe(before);
    } finally {
      if (stopped) process.kill(stalled.pid, 'SIGCONT');
      await client.close();
      await held.destroy();
      await stalled.stop();
    }
  }, 30_000);
});
