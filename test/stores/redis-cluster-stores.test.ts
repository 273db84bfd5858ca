/**
 * Every Redis store against a real 3-master Redis Cluster (node-redis
 * `createCluster`): the same contracts as on one node, plus the user
 * session store, the Identify throttle, and the event stream with its
 * workers, whose keys land on other nodes.
 */
import { createCluster } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../../src/index.js';
import {
  createEventWorker,
  createRedisEventStream,
  createRedisIdentifyThrottle,
  createRedisUserSessionStore,
  type EventWorker,
} from '../../src/redis/index.js';
import { useEmulatorWithAdmin } from '../helpers/emulators.js';
import { startRedisCluster, type RunningRedisCluster } from '../helpers/redis-cluster.js';
import { describeWithRedis } from '../helpers/redis-server.js';
import { until } from '../helpers/until.js';
import { redisStoreContracts } from './redis-contracts.js';

const startEmulator = useEmulatorWithAdmin();

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

  describe('Gateway events to workers on a stream in the cluster', () => {
    it('two workers answer 40 commands once each; a poison event is dead-lettered, replayed and purged; the trim empties the stream', async () => {
      const { emulator, admin } = await startEmulator();
      await admin.commands.sync(emulator.seed.applicationId, [{ name: 'ping', description: 'Ping' }]);
      // Three streams held by the three masters: each stream's keys live on its own master.
      const names = ['cluster-events-a', 'cluster-events-b', 'cluster-events-c'];
      const masters = new Set(await Promise.all(names.map((name) => cluster.masterOf(`{${name}}`))));
      expect(masters.size).toBe(3);
      const closers: { close(): Promise<unknown> }[] = [];
      try {
        for (const name of names) {
          const stream = createRedisEventStream({ client: connection, stream: name });
          const workers: EventWorker[] = [];
          const answered: string[] = [];
          const dead: string[] = [];
          let poisoned = 0;
          for (let i = 0; i < 2; i++) {
            const client = new Client({ baseUrl: emulator.url, auth: { botToken: emulator.seed.botToken }, clock: emulator.clock });
            // claimIdleMs 1000: a live handler's claim is renewed every third of it, so a loaded machine (an event loop held
            // 100 ms) does not lapse it and redeliver the interaction; the poison event is still dead-lettered within 2 s.
            const worker = createEventWorker({ stream, group: 'bots', consumer: `w${i}`, client, pollMs: 5, claimIdleMs: 1000, maxDeliveries: 2 });
            worker.onCommand('ping', async (interaction) => {
              await interaction.reply('pong');
              answered.push(interaction.id);
            });
            worker.onDispatch('MESSAGE_CREATE', () => {
              poisoned++;
              throw new Error('poison');
            });
            worker.on('deadLetter', (event) => dead.push(event.reason));
            closers.push(client, worker);
            await worker.start();
            workers.push(worker);
          }
          const gateway = new Client({ baseUrl: emulator.url, auth: { botToken: emulator.seed.botToken } });
          closers.push(gateway);
          gateway.gateway.publishTo(stream);
          await gateway.gateway.connect();
          const runs = Array.from({ length: 40 }, () => emulator.invokeCommand({ name: 'ping' }));
          const settled = new Set<string>();
          for (const run of runs) run.response.then(() => settled.add(run.id)).catch(() => undefined);
          await until(() => settled.size === 40 && answered.length === 40, { what: `40 answers on ${name}`, timeoutMs: 20_000 }).catch((error: unknown) => {
            const missing = runs.filter((run) => !settled.has(run.id)).map((run) => run.id);
            throw new Error(
              `${String(error)}: ${missing.length} of 40 interactions unanswered on ${name} (${missing.slice(0, 5).join(', ')}); dead letters: ${dead.join(', ')}`,
            );
          });
          expect(new Set(answered)).toEqual(new Set(runs.map((run) => run.id)));

          await stream.publish([{ t: 'MESSAGE_CREATE', s: 1, d: { content: 'poison' }, shardId: 0 }]);
          await until(() => dead.length === 1, { what: 'the poison event dead-lettered', timeoutMs: 5000 });
          expect(poisoned).toBe(2);
          const [letter] = await stream.deadLetters();
          expect(await stream.replayDeadLetter(letter?.id ?? '')).toBeDefined();
          await until(() => dead.length === 2, { what: 'the replayed poison event dead-lettered again', timeoutMs: 5000 });
          expect(await stream.purgeDeadLetters()).toBe(1);
          await until(async () => (await stream.backlog()).groups.every((group) => group.pending === 0), { what: 'every entry acknowledged' });
          await stream.trim();
          expect((await stream.backlog()).length).toBe(0);
          // The next stream's Gateway is the only one connected.
          await gateway.close();
        }
        await emulator.waitForIdle();
        expect(emulator.messages()).toHaveLength(120);
      } finally {
        for (const item of closers.reverse()) await item.close();
      }
    }, 60_000);
  });
});
