/**
 * Every Redis store's contract against a real single `redis-server`, as on a
 * cluster (redis-cluster-stores.test.ts) and through Sentinel
 * (redis-sentinel-stores.test.ts).
 */
import { describeWithRedis, useRedis } from '../helpers/redis-server.js';
import { redisStoreContracts } from './redis-contracts.js';

describeWithRedis('the Redis stores against a real redis-server', () => {
  const redis = useRedis();
  redisStoreContracts('on one node', () => redis.connection);
});
