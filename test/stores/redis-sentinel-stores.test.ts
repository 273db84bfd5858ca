/**
 * The Redis stores through a node-redis Sentinel client (`createSentinel`),
 * against a real master watched by a real Sentinel: the same contracts as on
 * one node and on a cluster.
 */
import { createSentinel } from 'redis';
import { afterAll, beforeAll } from 'vitest';
import { describeWithRedis } from '../helpers/redis-server.js';
import { startRedisSentinel, type RunningSentinel } from '../helpers/redis-sentinel.js';
import { redisStoreContracts } from './redis-contracts.js';

describeWithRedis('the Redis stores through Sentinel', () => {
  let sentinel: RunningSentinel;
  let connection: ReturnType<typeof createSentinel>;
  const _stores = 0;
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

  redisStoreContracts('through Sentinel', () => connection);
});
