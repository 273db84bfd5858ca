/**
 * The Redis replay store against a real redis-server: two receivers (each
 * with its own Redis connection, as two processes would have) share it and
 * handle a delivery once; a Redis that is down makes the receiver answer
 * 503, and the retry once Redis is back is handled once.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createClient } from 'redis';
import { createWebhookReceiver, type WebhookReceiver } from '../../src/receiver.js';
import { isCommunityChatError } from '../../src/index.js';
import { createRedisReplayStore, type RedisClientLike } from '../../src/redis/index.js';
import { startRawLoopbackServer, type RawLoopbackServer } from '../helpers/index.js';
import { until } from '../helpers/until.js';
import { describeWithRedis, startRedisServer, type RunningRedis } from '../helpers/redis-server.js';
import { NOW_MS, NOW_S, post, settle, signedDelivery, WEBHOOK_SECRET } from '../receive/helpers.js';

type Connection = ReturnType<typeof createClient>;

async function connect(url: string): Promise<Connection> {
  const connection: Connection = createClient({ url, socket: { reconnectStrategy: false } }) as unknown as Connection;
  connection.on('error', () => undefined);
  await connection.connect();
  return connection;
}

describeWithRedis('the Redis replay store', () => {
  const servers: RawLoopbackServer[] = [];
  const connections: Connection[] = [];
  const redises: RunningRedis[] = [];

  beforeAll(async () => {
    redises.push(await startRedisServer());
  }, 20_000);
  afterAll(async () => {
    for (const server of servers) await server.close();
    for (const connection of connections) if (connection.isOpen) await connection.quit();
    for (const redis of redises) await redis.stop();
  });

  async function serve(receiver: WebhookReceiver, handled: string[]): Promise<string> {
    receiver.on('delivery', (delivery) => void handled.push(delivery.id));
    receiver.on('error', () => undefined);
    const server = await startRawLoopbackServer(receiver.node);
    servers.push(server);
    return server.url;
  }

  it('claims with SET NX PX under the prefix: once, until the time to live passes', async () => {
    const connection = await connect(redises[0]!.url);
    connections.push(connection);
    const store = createRedisReplayStore({ client: connection, prefix: 'claims-test:' });
    expect(await store.claim('delivery:d1', 300)).toBe(true);
    expect(await store.claim('delivery:d1', 300)).toBe(false);
    expect(await connection.get('claims-test:delivery:d1')).toMatch(/^[\w-]{12}$/);
    const ttl = await connection.pTTL('claims-test:delivery:d1');
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(300);
    // The claim lapses with its TTL: waited for in Redis itself, not by the clock of this process.
    await until(async () => (await connection.exists('claims-test:delivery:d1')) === 0);
    expect(await store.claim('delivery:d1', 300)).toBe(true);
  });

  it('a claim given up on while Redis was stopped is undone when Redis answers: the sender’s retry is handled, not called a duplicate', async () => {
    const stalled = await startRedisServer();
    redises.push(stalled);
    const connection = await connect(stalled.url);
    connections.push(connection);
    const receiver = createWebhookReceiver({
      secret: WEBHOOK_SECRET,
      replayStore: createRedisReplayStore({ client: connection, prefix: 'late:', commandTimeoutMs: 300 }),
      clock: () => NOW_MS,
    });
    const handled: string[] = [];
    const url = await serve(receiver, handled);
    const delivery = signedDelivery({ id: 'dlv-late' });
    process.kill(stalled.pid, 'SIGSTOP');
    let answer: Awaited<ReturnType<typeof post>>;
    try {
      answer = await post(url, delivery.body, delivery.headers);
    } finally {
      process.kill(stalled.pid, 'SIGCONT');
    }
    expect(answer.status).toBe(503);
    // Redis runs the late SET NX, then the undo queued behind it.
    await until(async () => (await connection.exists('late:delivery:dlv-late')) === 0);
    const retry = await post(url, delivery.body, delivery.headers);
    expect(retry).toEqual({ status: 200, json: { ok: true } });
    await until(async () => handled.length === 1);
    expect(handled).toEqual(['dlv-late']);
  }, 20_000);

  it('two receivers with their own connections share it: a delivery sent to both is handled once; a replay is 401', async () => {
    const handled: string[] = [];
    const urls: string[] = [];
    for (let i = 0; i < 2; i++) {
      const connection = await connect(redises[0]!.url);
      connections.push(connection);
      const receiver = createWebhookReceiver({
        secret: WEBHOOK_SECRET,
        clock: () => NOW_MS,
        replayStore: createRedisReplayStore({ client: connection, prefix: 'lb-test:' }),
      });
      urls.push(await serve(receiver, handled));
    }
    const first = signedDelivery({ id: 'dlv-redis-lb' });
    const retry = signedDelivery({ id: 'dlv-redis-lb', timestamp: NOW_S + 3 });
    const answers = await Promise.all([post(urls[0]!, first.body, first.headers), post(urls[1]!, retry.body, retry.headers)]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    expect(answers.filter((answer) => answer.json['duplicate'] === true)).toHaveLength(1);
    expect(await post(urls[1]!, first.body, first.headers)).toEqual({ status: 401, json: { ok: false, reason: 'replayed' } });
    await settle();
    expect(handled).toEqual(['dlv-redis-lb']);
  });

  it('a Redis that is down: 503 (no crash, no handler); the identical retry once Redis is back is handled once', async () => {
    const down = await startRedisServer();
    redises.push(down);
    let current = await connect(down.url);
    connections.push(current);
    // One store for the receiver's life; its connection is replaced when Redis comes back.
    const client: RedisClientLike = {
      get isReady() {
        return current.isReady;
      },
      sendCommand: (args: string[]) => current.sendCommand(args),
    };
    const store = createRedisReplayStore({ client, commandTimeoutMs: 500 });
    const receiver = createWebhookReceiver({ secret: WEBHOOK_SECRET, clock: () => NOW_MS, replayStore: store });
    const errors: unknown[] = [];
    receiver.on('error', (event) => void errors.push(event.error));
    const handled: string[] = [];
    const url = await serve(receiver, handled);
    await down.stop();
    const delivery = signedDelivery({ id: 'dlv-redis-down' });
    expect(await post(url, delivery.body, delivery.headers)).toEqual({ status: 503, json: { ok: false, reason: 'unavailable' } });
    await settle();
    expect(handled).toEqual([]);
    expect(isCommunityChatError(errors[0], 'RateLimitStoreError')).toBe(true);
    const back = await startRedisServer();
    redises.push(back);
    current = await connect(back.url);
    connections.push(current);
    expect(await post(url, delivery.body, delivery.headers)).toEqual({ status: 200, json: { ok: true } });
    const again = signedDelivery({ id: 'dlv-redis-down', timestamp: NOW_S + 1 });
    expect(await post(url, again.body, again.headers)).toEqual({ status: 200, json: { ok: true, duplicate: true } });
    await settle();
    expect(handled).toEqual(['dlv-redis-down']);
  }, 20_000);
});
