/**
 * Shared limits on a real Redis Cluster: 4 processes sharing limits through
 * a 3-master cluster, and a master that fails over to its replica in the
 * middle of a burst (paused, as a frozen host, then killed).
 */
import { createCluster } from 'redis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Client, isCommunityChatError } from '../../src/index.js';
import { createRedisIdentifyThrottle, createRedisRateLimitStore, createRedisReplayStore, createRedisUserSessionStore } from '../../src/redis/index.js';
import { startLimitsServer } from '../helpers/limits-server.js';
import { until } from '../helpers/until.js';
import { startRedisCluster, type RunningRedisCluster } from '../helpers/redis-cluster.js';
import { describeWithRedis } from '../helpers/redis-server.js';
import { burst } from './burst.js';

describeWithRedis('shared limits on a 3-master Redis Cluster with a replica each', () => {
  let cluster: RunningRedisCluster;

  beforeAll(async () => {
    cluster = await startRedisCluster({ replicas: 1 });
  }, 60_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  it('4 processes: no webhook window violation and at most one route 429, as on one node', async () => {
    const webhookWindowMs = 500;
    const server = await startLimitsServer({ routeLimit: 10, routeWindowMs: 500, webhookLimit: 30, webhookWindowMs });
    try {
      const results = await burst({ store: 'redis', clusterUrls: cluster.nodes.map((node) => node.url) }, server, webhookWindowMs);
      const routeTooMany = server.tooMany.get('chan-read:123') ?? 0;
      console.log(
        `[cluster burst] 4 processes x (15 channel reads + 100 webhook executions) on a 3-master cluster: ${server.webhookViolations} webhook window violations, ${routeTooMany} route 429s, at most ${server.maxInWebhookWindow()} per window`,
      );
      expect(results.map((result) => result.ok)).toEqual([115, 115, 115, 115]);
      expect(server.webhookViolations).toBe(0);
      expect(server.maxInWebhookWindow()).toBeLessThanOrEqual(30);
      expect(routeTooMany).toBeLessThanOrEqual(1);
    } finally {
      await server.close();
    }
  }, 120_000);

  it('claims, turns and locks that must reach a replica (waitForReplicas) are given back when none acknowledged them, and count when one did', async () => {
    const connection = createCluster({ rootNodes: cluster.nodes.map((node) => ({ url: node.url })) });
    connection.on('error', () => undefined);
    await connection.connect();
    try {
      const prefix = `acks-${Date.now()}:`;
      // Each master has one replica: one acknowledgement arrives, two never do.
      const replicated = createRedisReplayStore({ client: connection, prefix, waitForReplicas: { replicas: 1, timeoutMs: 500 } });
      const unreachable = createRedisReplayStore({ client: connection, prefix, waitForReplicas: { replicas: 2, timeoutMs: 50 } });
      const plain = createRedisReplayStore({ client: connection, prefix });
      expect(await replicated.claim('delivery:a', 60_000)).toBe(true);
      expect(await plain.claim('delivery:a', 60_000)).toBe(false);
      const refused = await unreachable.claim('delivery:b', 60_000).catch((error: unknown) => error);
      expect(isCommunityChatError(refused, 'RateLimitStoreError')).toBe(true);
      // Given back: the sender's retry is claimed, not taken for a duplicate.
      expect(await plain.claim('delivery:b', 60_000)).toBe(true);

      const lockOf = (replicas: number) =>
        createRedisUserSessionStore({ client: connection, key: `${prefix}session`, waitForReplicas: { replicas, timeoutMs: replicas > 1 ? 50 : 500 } });
      expect(await lockOf(2).lockRefresh()).toBe(false);
      const holder = lockOf(1);
      expect(await holder.lockRefresh()).toBe(true);
      expect(await lockOf(1).lockRefresh()).toBe(false);
      await holder.unlockRefresh();

      const turn = (replicas: number, signal?: AbortSignal) =>
        createRedisIdentifyThrottle({
          client: connection,
          prefix: `${prefix}identify-${replicas}:`,
          intervalMs: 200,
          pollMs: 50,
          waitForReplicas: { replicas, timeoutMs: 50 },
        }).wait({
          shardId: 0,
          shardCount: 1,
          maxConcurrency: 1,
          signal,
        });
      await expect(turn(1)).resolves.toBeUndefined();
      // Never acknowledged: the shard never identifies on that turn (here until the caller gives up).
      await expect(turn(2, AbortSignal.timeout(700))).rejects.toThrow();
    } finally {
      await connection.close();
    }
  }, 30_000);

  // Last: the killed master's replica, now a master, has no replica of its own.
  it('a master failing over mid-burst: every call settles (typed errors while no master answers), nothing is sent twice, limits hold after the promotion', async () => {
    const webhookWindowMs = 400;
    const server = await startLimitsServer({ routeLimit: 5, routeWindowMs: 300, webhookLimit: 30, webhookWindowMs });
    // node-redis refreshes its slot map once a node has been reconnecting this long (5 s by default); README recommends a shorter one.
    const connection = createCluster({ rootNodes: cluster.nodes.map((node) => ({ url: node.url })), topologyRefreshOnReconnectionAttemptStrategy: 1000 });
    connection.on('error', () => undefined);
    await connection.connect();
    const prefix = `failover-${Date.now()}:`;
    const client = new Client({
      baseUrl: server.url,
      auth: { botToken: 'shared-bot-token', webhookTokens: { wh1: 'webhook-token' } },
      webhookRateLimit: { limit: 30, windowMs: webhookWindowMs },
      deadlineMs: 10_000,
      // Releases sent while no master answered are lost with it: their places come back after reservationMs (2 s here, 30 s by default).
      rateLimitStore: createRedisRateLimitStore({ client: connection, prefix, commandTimeoutMs: 400, reservationMs: 2000 }),
    });
    try {
      await client.channels.get('123');
      // The burst: executions and reads, each execution with its own content, while the store's master is paused then killed.
      const calls: Promise<unknown>[] = [];
      const track = (call: Promise<unknown>) => {
        calls.push(call);
        // Read below with allSettled; marked handled now, since some reject while the failover is still under way.
        call.catch(() => undefined);
      };
      let n = 0;
      const send = () => {
        for (let i = 0; i < 10; i++) track(client.webhooks.execute('wh1', { content: `first-${n++}` }));
        for (let i = 0; i < 3; i++) track(client.channels.get('123'));
      };
      send();
      const failing = cluster.killMasterOf(`{${prefix}}g`);
      // Calls keep coming while no master answers for the store's slot.
      const during = setInterval(send, 100);
      const promoted = await failing;
      clearInterval(during);
      const started = Date.now();
      const settled = await Promise.allSettled(calls);
      const rejected = settled.filter((item) => item.status === 'rejected').map((item) => (item as PromiseRejectedResult).reason as unknown);
      console.log(
        `[cluster failover] master of the store's slot failed over to ${promoted}; ${calls.length} calls: ${settled.length - rejected.length} sent, ${rejected.length} refused (${rejected.filter((reason) => isCommunityChatError(reason, 'RateLimitStoreError')).length} RateLimitStoreError, the rest held past their deadline); all settled ${Date.now() - started} ms after the promotion`,
      );
      // Every call settled, and every refusal says the store failed (nothing was sent): no call hangs, none fails untyped.
      // A call that would wait past its deadline behind the failover and the backlog (a slow machine) is refused too, as
      // a RateLimitError or TimeoutError that was never sent: every refusal is typed and says nothing was sent.
      const notSent = (reason: unknown) =>
        isCommunityChatError(reason, 'RateLimitStoreError') ||
        (isCommunityChatError(reason, 'RateLimitError') && !reason.sent) ||
        (isCommunityChatError(reason, 'TimeoutError') && !reason.mayHaveReachedServer);
      expect(rejected.filter((reason) => !notSent(reason)).map(String)).toEqual([]);

      // After the promotion the same client and Redis client go on, once node-redis has learned the new master (no restart, nothing rebuilt).
      await until(
        () =>
          client.channels.get('123').then(
            () => true,
            () => false,
          ),
        { timeoutMs: 15_000, what: 'the store answering after the promotion' },
      );
      console.log(`[cluster failover] the store answered again ${Date.now() - started} ms after the promotion`);
      // They share limits again: a new burst, nothing refused, the window kept.
      const accepted = server.webhookAccepted.length;
      const after = await Promise.allSettled(Array.from({ length: 60 }, (_, i) => client.webhooks.execute('wh1', { content: `after-${i}` })));
      expect(after.filter((item) => item.status === 'rejected')).toEqual([]);
      expect(server.webhookAccepted.length - accepted).toBe(60);
      expect(server.webhookViolations).toBe(0);

      // Nothing was sent twice: every execution content reached the server at most once.
      const contents = server.requests
        .filter((request) => request.url.startsWith('/api/v1/webhooks/'))
        .map((request) => (JSON.parse(request.body) as { content: string }).content);
      expect(contents.length).toBe(new Set(contents).size);
    } finally {
      await client.close();
      await connection.close().catch(() => undefined);
      await server.close();
    }
  }, 120_000);
});
