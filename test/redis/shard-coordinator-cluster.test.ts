/**
 * The shard coordinator on a real 3-master Redis Cluster: every script's keys share the fleet key's one hash tag, so each
 * step (join, take, reshard, leave) runs on one master without CROSSSLOT, and two fleets land where their tags say.
 */
import { createCluster } from 'redis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createRedisShardCoordinator } from '../../src/redis/index.js';
import { startRedisCluster, type RunningRedisCluster } from '../helpers/redis-cluster.js';
import { describeWithRedis } from '../helpers/redis-server.js';

describeWithRedis('the shard coordinator on a 3-master Redis Cluster', () => {
  let cluster: RunningRedisCluster;
  beforeAll(async () => {
    cluster = await startRedisCluster();
  }, 60_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  it('runs every step of a fleet on one master: members share 6 shards, reshard to 9, leave', async () => {
    const connection = createCluster({ rootNodes: cluster.nodes.map((node) => ({ url: node.url })) });
    connection.on('error', () => undefined);
    await connection.connect();
    try {
      const c = createRedisShardCoordinator({ client: connection, key: 'cluster-bot', bot: '42' });
      expect(await c.shardCount(6)).toBe(6);
      for (const m of ['a', 'b']) await c.tick(m, 6, false);
      const ticks = await Promise.all(['a', 'b'].map((m) => c.tick(m, 6, true)));
      expect(ticks.flatMap((tick) => tick.leases.map((lease) => lease.shardId)).sort()).toEqual([0, 1, 2, 3, 4, 5]);
      await c.requestReshard(9);
      const next = await Promise.all(['a', 'b'].map((m) => c.tick(m, 9, true)));
      expect(next.map((tick) => tick.target)).toEqual([9, 9]);
      for (let id = 0; id < 9; id++) await c.shardReady(9, id);
      await c.release('a', 6, ticks[0]?.leases[0] ?? { shardId: -1, fence: 0 });
      await c.commitReshard(9);
      expect(await c.shardCount()).toBe(9);
      await c.leave('a', 9);
      expect((await c.tick('b', 9, true)).leases).toHaveLength(9);
    } finally {
      await connection.close();
    }
  }, 30_000);
});
