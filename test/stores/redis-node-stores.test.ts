/**
 * Every Redis store's contract against a real single `redis-server`, as on a
 * cluster (redis-cluster-stores.test.ts) and through Sentinel
 * (redis-sentinel-stores.test.ts).
 */
import { createClient } from 'redis';
import { afterAll, beforeAll } from 'vitest';
import { describeWithRedis, startRedisServer, type RunningRedis } from '../helpers/redis-server.js';
import { redisStoreContracts } from './redis-contracts.js';

describeWithRedis('the Redis stores against a real redis-server', () => {
  let redis: RunningRedis;
  let connection: ReturnType<typeof createClient>;
  beforeAll(async () => {
    redis = await startRedisServer();
    connection = createClient({ url: redis.url });
    connection.on('error', () => undefined);
    await connection.connect();
  }, 20_000);
  afterAll(async () => {
    await connection?.quit();
    await redis?.stop();
  });
  redisStoreContracts('on one node', () => connection);
});
