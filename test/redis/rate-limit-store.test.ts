/**
 * The Redis rate-limit store's webhook turns, against a real redis-server:
 * a turn given back releases its own reservation (named by the signal it was
 * taken with), not the oldest, and an execution refused before its send
 * leaves no reservation behind in the webhook's window.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createClient } from 'redis';
import { Client, isCommunityChatError } from '../../src/index.js';
import type { RateLimitSettings } from '../../src/stores.js';
import { createRedisRateLimitStore } from '../../src/redis/index.js';
import { startLimitsServer, type LimitsServer } from '../helpers/limits-server.js';
import { describeWithRedis, startRedisServer, type RunningRedis } from '../helpers/redis-server.js';

async function connect(url: string) {
  const client = createClient({ url });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

type Redis = Awaited<ReturnType<typeof connect>>;

const WINDOW = { limit: 5, windowMs: 60_000 };
const RESERVATION_MS = 30_000;

describeWithRedis("the Redis rate-limit store's webhook turns", () => {
  let redis: RunningRedis;
  let connection: Redis;
  let server: LimitsServer;

  beforeAll(async () => {
    redis = await startRedisServer();
    connection = await connect(redis.url);
    server = await startLimitsServer({ webhookLimit: 6, webhookWindowMs: 60_000 });
  }, 20_000);
  afterAll(async () => {
    await server?.close();
    await connection?.quit();
    await redis?.stop();
  });

  /**
   * The entries of a webhook's window in the order they were taken (the store numbers its reservations), each with how
   * far its score lies ahead of Redis's clock: about `reservationMs` while reserved, at most 0 once given back.
   */
  async function windowEntries(prefix: string, webhookId: string): Promise<{ ahead: number }[]> {
    const [seconds, micros] = (await connection.sendCommand(['TIME'])) as [string, string];
    const now = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    const entries = await connection.zRangeWithScores(`{${prefix}}w:${webhookId}`, 0, -1);
    const sequence = (id: string) => Number.parseInt(id.slice(id.lastIndexOf(':') + 1), 36);
    return entries.sort((a, b) => sequence(a.value) - sequence(b.value)).map((entry) => ({ ahead: entry.score - now }));
  }

  it('a turn given back releases the reservation taken with its signal, not the oldest one', async () => {
    const prefix = `turns-${Date.now()}:`;
    const store = createRedisRateLimitStore({ client: connection, prefix, reservationMs: RESERVATION_MS });
    const settings: RateLimitSettings = { now: Date.now, webhookWindow: WINDOW, maxPauseMs: 600_000, globalRateLimit: undefined };
    store.attach(settings);
    const first = new AbortController();
    const second = new AbortController();
    await store.webhookTurn('hook', first.signal, () => undefined);
    await store.webhookTurn('hook', second.signal, () => undefined);
    store.webhookDone('hook', second.signal);
    await store.flushed();
    const [older, newer] = await windowEntries(prefix, 'hook');
    expect(older?.ahead, 'the first turn, still in flight: its reservation (ms ahead of now)').toBeGreaterThan(RESERVATION_MS / 2);
    expect(newer?.ahead, 'the second turn, given back: counted from now (ms ahead of now)').toBeLessThanOrEqual(0);
    store.webhookDone('hook', first.signal);
    await store.flushed();
    const after = await windowEntries(prefix, 'hook');
    expect(
      after.map((entry) => entry.ahead <= 0),
      'each turn given back once both were',
    ).toEqual([true, true]);
  });

  it("a request's bucket place is released by the signal it was taken with, not the oldest place of the bucket", async () => {
    const prefix = `places-${Date.now()}:`;
    const store = createRedisRateLimitStore({ client: connection, prefix, reservationMs: RESERVATION_MS });
    store.attach({ now: Date.now, webhookWindow: undefined, maxPauseMs: 600_000, globalRateLimit: undefined });
    const key = store.bucketKey('GET /channels/:id', '1');
    // The bucket is known (a response taught it), so both requests hold a reservation, not the discovery lock.
    store.learn('GET /channels/:id', '1', { limit: 5, remaining: 5, resetAfterMs: 60_000, bucket: 'abc' });
    await store.flushed();
    const [first, second] = [new AbortController(), new AbortController()];
    await store.acquire(key, 'normal', first.signal, () => undefined);
    await store.acquire(key, 'normal', second.signal, () => undefined);
    const reservations = async () => {
      const [bucket] = (await connection.keys(`{${prefix}}r:*`)) as string[];
      const entries = bucket === undefined ? [] : await connection.zRange(bucket, 0, -1);
      const sequence = (id: string) => Number.parseInt(id.slice(id.lastIndexOf(':') + 1), 36);
      return entries.map(sequence).sort((a, b) => a - b);
    };
    const [older, newer] = await reservations();
    expect(
      [older, newer].every((id) => id !== undefined),
      'two reservations in flight',
    ).toBe(true);
    store.release(key, second.signal);
    await store.flushed();
    expect(await reservations(), 'the second request finished: its reservation released, the first one kept').toEqual([older]);
    store.release(key, first.signal);
    await store.flushed();
    expect(await reservations(), 'both released').toEqual([]);
    // A place taken with a signal, then one without: releasing without a signal gives back the second, not the older one.
    const signalled = new AbortController();
    await store.acquire(key, 'normal', signalled.signal, () => undefined);
    await store.acquire(key, 'normal', undefined, () => undefined);
    const [withSignal, without] = await reservations();
    store.release(key);
    await store.flushed();
    expect(await reservations(), 'the place taken without a signal released, the signalled one kept').toEqual([withSignal]);
    expect(without, 'two places were held').toBeDefined();
    store.release(key, signalled.signal);
    await store.flushed();
    expect(await reservations(), 'both released again').toEqual([]);
  });

  it('an execution whose bucket wait is refused gives its webhook turn back: no reservation is left in the window', async () => {
    const prefix = `refused-${Date.now()}:`;
    const store = createRedisRateLimitStore({ client: connection, prefix, reservationMs: RESERVATION_MS });
    const client = new Client({
      baseUrl: server.url,
      auth: { botToken: 'a-bot-token', webhookTokens: { wh1: 'a-webhook-token' } },
      rateLimitStore: store,
      webhookRateLimit: WINDOW,
      deadlineMs: 5_000,
    });
    try {
      // A global pause of a minute: the bucket wait is refused (it would outlast the 5 s deadline) after the turn was taken.
      store.pause('', 60_000, true);
      await store.flushed();
      const error = await client.webhooks.execute('wh1', { content: 'x' }).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(isCommunityChatError(error, 'RateLimitError'), `what the caller got: ${String(error)}`).toBe(true);
      await store.flushed();
      const entries = await windowEntries(prefix, 'wh1');
      expect(entries, 'the turns the execution took').toHaveLength(1);
      expect(entries[0]?.ahead, 'the turn of the refused execution (ms ahead of now: a reservation still held when > 0)').toBeLessThanOrEqual(0);
      expect(
        server.webhookAccepted.filter((accepted) => accepted.content === 'x'),
        'executions that reached the server',
      ).toEqual([]);
    } finally {
      await client.close();
    }
  });
});
