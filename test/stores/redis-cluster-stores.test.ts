/**
 * Every Redis store against a real 3-master Redis Cluster (node-redis
 * `createCluster`): the same contracts as on one node, plus the user
 * session store and the Identify throttle, whose keys land on other nodes.
 */
import { createCluster } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisIdentifyThrottle, createRedisUserSessionStore } from '../../src/redis/index.js';
import { startRedisCluster, type RunningRedisCluster } from '../helpers/redis-cluster.js';
import { describeWithRedis } from '../helpers/redis-server.js';
import { redisStoreContracts } from './redis-contracts.js';

type Cluster = ReturnType<typeof createCluster>;

describeWithRedis('the Redis stores on a 3-master Redis Cluster', () => {
  let cluster: RunningRedisCluster;
  let connection: Cluster;
  let stores = 0;
  beforeAll(async () => {
    cluster = await startRedisCluster();
    connection = createCluster({ rootNodes: cluster.nodes.map((node) => ({ url: node.url })) });
    connection.on('error', () => undefined);
    await connection.connect();
  }, 30_000);
  afterAll(async () => {
    await connection?.close();
    await cluster?.stop();
  });

  redisStoreContracts('on a cluster', () => connection);

  describe('the user session store and the Identify throttle on a cluster', () => {
    it('save, load, and the refresh lock held by one process at a time', async () => {
      const a = createRedisUserSessionStore({ client: connection, key: 'cluster:bot:session' });
      const b = createRedisUserSessionStore({ client: connection, key: 'cluster:bot:session' });
      await a.save({ cookies: [], accessToken: 'access-1', accessTokenExpiresAt: Date.now() + 60_000 });
      expect(await b.load()).toMatchObject({ accessToken: 'access-1' });
      expect(await a.lockRefresh()).toBe(true);
      expect(await b.lockRefresh()).toBe(false);
      await a.unlockRefresh();
      expect(await b.lockRefresh()).toBe(true);
      await b.unlockRefresh();
    });

    it('paces two shards of one bucket, whichever node holds the bucket', async () => {
      const throttle = createRedisIdentifyThrottle({ client: connection, prefix: `cluster-identify-${++stores}:`, intervalMs: 300 });
      const turns: number[] = [];
      await Promise.all([0, 1].map((shardId) => throttle.wait({ shardId, shardCount: 2, maxConcurrency: 1 }).then(() => turns.push(Date.now()))));
      expect(turns).toHaveLength(2);
      expect(Math.abs((turns[1] as number) - (turns[0] as number))).toBeGreaterThanOrEqual(250);
    });
  });
});
