/**
 * The Redis stores through a node-redis Sentinel client (`createSentinel`),
 * against a real master watched by a real Sentinel: the same contracts as on
 * one node and on a cluster.
 */
import { createSentinel } from 'redis';
import { afterAll, beforeAll } from 'vitest';
import { createRedisGatewaySessionStore, createRedisRateLimitStore, createRedisReplayStore } from '../../src/redis/index.js';
import { describeWithRedis } from '../helpers/redis-server.js';
import { startRedisSentinel, type RunningSentinel } from '../helpers/redis-sentinel.js';
import { rateLimitStoreContract } from './rate-limit-store.conformance.js';
import { gatewaySessionStoreContract, replayStoreContract } from './session-and-replay.conformance.js';

describeWithRedis('the Redis stores through Sentinel', () => {
  let sentinel: RunningSentinel;
  let connection: ReturnType<typeof createSentinel>;
  let stores = 0;
  beforeAll(async () => {
    sentinel = await startRedisSentinel();
    connection = createSentinel({ name: sentinel.name, sentinelRootNodes: [sentinel.sentinel] });
    connection.on('error', () => undefined);
    await connection.connect();
  }, 30_000);
  afterAll(async () => {
    await connection?.close();
    await sentinel?.stop();
  });

  rateLimitStoreContract('the Redis rate-limit store through Sentinel', async ({ webhookWindow, globalRateLimit }) => {
    const store = createRedisRateLimitStore({ client: connection, prefix: `sentinel-contract-${++stores}:`, pollMs: 20 });
    store.configure({ now: Date.now, webhookWindow, maxPauseMs: 600_000, globalRateLimit });
    return store;
  });
  let prefix = '';
  replayStoreContract(
    'the Redis replay store through Sentinel',
    () => createRedisReplayStore({ client: connection, prefix: (prefix = `sentinel-replay-${++stores}:`) }),
    async (_store, key) => {
      await connection.pExpire(`${prefix}${key}`, 1);
      while ((await connection.exists(`${prefix}${key}`)) === 1) await new Promise((resolve) => setImmediate(resolve));
    },
  );
  gatewaySessionStoreContract('the Redis Gateway session store through Sentinel', () =>
    createRedisGatewaySessionStore({ client: connection, prefix: `sentinel-gw-${++stores}:` }),
  );
});
