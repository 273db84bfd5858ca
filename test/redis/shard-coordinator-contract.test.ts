/**
 * The `ShardCoordinator` contract (`test/helpers/coordinator-contract.ts`) on the Redis coordinator and a real
 * `redis-server`, one fleet key per case: its clock is Redis `TIME`, which `advance` waits for. The same cases run on the
 * in-memory one (`test/testing/shard-coordinator-contract.test.ts`).
 */
import { createRedisShardCoordinator } from '../../src/redis/index.js';
import { coordinatorContract } from '../helpers/coordinator-contract.js';
import { describeWithRedis, useRedis } from '../helpers/redis-server.js';
import { until } from '../helpers/until.js';

describeWithRedis('the ShardCoordinator contract: the Redis coordinator', () => {
  const redis = useRedis();
  let fleets = 0;
  /** Redis's clock, milliseconds. */
  const redisNow = async () => {
    const [seconds, micros] = (await redis.connection.sendCommand(['TIME'])) as [string, string];
    return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
  };
  coordinatorContract('redis', async ({ leaseMs, maxShards }) => {
    const coordinator = createRedisShardCoordinator({ client: redis.connection, key: `contract-${++fleets}`, leaseMs, maxShards });
    return {
      coordinator,
      advance: async (ms) => {
        const from = await redisNow();
        await until(async () => (await redisNow()) >= from + ms, { timeoutMs: ms + 5000, what: `Redis's clock moving ${ms} ms` });
      },
      close: async () => undefined,
    };
  });
});
