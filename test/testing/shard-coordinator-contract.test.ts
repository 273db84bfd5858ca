/**
 * The `ShardCoordinator` contract (`test/helpers/coordinator-contract.ts`) on the in-memory coordinator of `/testing`, its
 * clock moved by the test: the same cases run on the Redis one (`test/redis/shard-coordinator-contract.test.ts`).
 */
import { describe } from 'vitest';
import { MemoryShardCoordinator } from '../../src/testing/index.js';
import { coordinatorContract } from '../helpers/coordinator-contract.js';

describe('the ShardCoordinator contract: MemoryShardCoordinator', () => {
  coordinatorContract('memory', async ({ leaseMs, maxShards }) => {
    let now = 1_000;
    const coordinator = new MemoryShardCoordinator({ leaseMs, maxShards, clock: () => now });
    return {
      coordinator,
      advance: async (ms) => {
        now += ms;
      },
      close: async () => undefined,
    };
  });
});
