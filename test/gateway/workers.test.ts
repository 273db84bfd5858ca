/**
 * Shards in worker_threads (`shardsPerWorker`): 4 shards in 2 workers. The
 * sockets live in the workers; interactions are built, handled and answered
 * on the main thread, through the main thread's client.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Client, GatewayFatalError, shardOfGuild, type GatewayReadyEvent } from '../../src/index.js';
import { MemoryGatewaySessionStore, MemoryIdentifyThrottle } from '../../src/stores.js';
import { startShardedEmulator } from '../helpers/sharded-emulator.js';
import { until } from '../helpers/until.js';

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('shards in worker threads', () => {
  it('4 shards in 2 workers: each interaction reaches the main thread once, from the right shard, and reply() answers through the main client', async () => {
    const emulator = await startShardedEmulator({ gateway: { shards: 4, maxConcurrency: 4 } });
    cleanups.push(() => emulator.close());
    const client = new Client({ baseUrl: emulator.url, auth: { botToken: emulator.seed.botToken }, gateway: { shards: 'auto', shardsPerWorker: 2 } });
    cleanups.push(() => client.close());
    const answeredBy: string[] = [];
    client.on('request', (event) => answeredBy.push(event.operation));
    const seen: { id: string; shardId: number }[] = [];
    client.gateway.on('interactionCreate', (interaction, shardId) => seen.push({ id: interaction.id, shardId }));
    client.gateway.onCommand('ping', (interaction) => interaction.reply('pong'));
    const ready: GatewayReadyEvent[] = [];
    client.gateway.on('ready', (event) => ready.push(event));
    await client.gateway.connect();

    expect(client.gateway.status).toBe('ready');
    expect(client.gateway.shards.map((shard) => shard.status)).toEqual(['ready', 'ready', 'ready', 'ready']);
    expect(client.gateway.shards.every((shard) => typeof shard.sessionId === 'string')).toBe(true);
    expect(ready.map((event) => event.shardId).sort()).toEqual([0, 1, 2, 3]);
    expect(emulator.gatewayStats.counts.connections).toBe(4);

    const invoked = [
      emulator.invokeCommand({ name: 'ping' }),
      emulator.invokeCommand({ name: 'ping', guildId: null }),
      emulator.invokeCommand({ name: 'ping' }),
    ];
    for (const interaction of invoked) {
      expect(interaction.delivered).toBe(1);
      expect(await interaction.response).toMatchObject({ interaction_type: 4, data: { content: 'pong' } });
    }
    const guildShard = shardOfGuild(emulator.seed.guildId, 4);
    // Workers deliver side by side: compare by interaction, not by order of arrival.
    expect(new Map(seen.map((entry) => [entry.id, entry.shardId]))).toEqual(
      new Map([
        [invoked[0]?.id, guildShard],
        [invoked[1]?.id, 0],
        [invoked[2]?.id, guildShard],
      ]),
    );
    expect(seen).toHaveLength(3);
    // The answers went through the main thread's client (its request events saw them).
    expect(answeredBy.filter((operation) => operation === 'interactions.respond')).toHaveLength(3);

    const gateway = client.gateway;
    await gateway.close();
    expect(gateway.status).toBe('destroyed');
    await until(() => !emulator.isBotConnected(), { what: "the workers' sockets closed at the emulator" });
  }, 30_000);

  it('a fatal close in a worker rejects connect() on the main thread with GatewayFatalError', async () => {
    const emulator = await startShardedEmulator({ gateway: { shards: 2, maxConcurrency: 2 } });
    cleanups.push(() => emulator.close());
    const client = new Client({
      baseUrl: emulator.url,
      auth: { botToken: 'not-a-bot-token' },
      gateway: { shards: [0, 1], shardCount: 2, maxConcurrency: 2, shardsPerWorker: 1 },
    });
    cleanups.push(() => client.close());
    const error = await client.gateway.connect().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GatewayFatalError);
    expect((error as GatewayFatalError).code).toBe(4004);
    expect((error as Error).message).not.toContain('not-a-bot-token');
  }, 30_000);

  it('Identify turns come from the main thread: shards in 2 workers, one bucket, none too early; without pacing some are', async () => {
    const counts: Record<string, number> = {};
    // Unpaced, 2 shards are enough (each too-early Identify costs a 1-5 s Invalid Session wait), in one worker so that they identify
    // together however late each worker thread starts on a loaded machine; paced, 4 in 2 workers.
    for (const [label, intervalMs, shards, perWorker] of [
      ['unpaced', 0, 2, 2],
      ['paced', 300, 4, 2],
    ] as const) {
      const emulator = await startShardedEmulator({ gateway: { shards, maxConcurrency: 1, identifyIntervalMs: 250 } });
      cleanups.push(() => emulator.close());
      const client = new Client({
        baseUrl: emulator.url,
        auth: { botToken: emulator.seed.botToken },
        gateway: { shards: 'auto', shardsPerWorker: perWorker, identifyThrottle: new MemoryIdentifyThrottle({ intervalMs }) },
      });
      cleanups.push(() => client.close());
      await client.gateway.connect();
      counts[label] = emulator.gatewayStats.counts.tooEarlyIdentifies;
      expect(emulator.gatewayStats.identifies.filter((record) => record.accepted)).toHaveLength(shards);
    }
    expect(counts['paced']).toBe(0);
    expect(counts['unpaced']).toBeGreaterThanOrEqual(1);
  }, 60_000);

  it("a worker shard handing off saves its session to the main thread's store, and a new Gateway resumes it", async () => {
    const emulator = await startShardedEmulator({ gateway: { shards: 2, maxConcurrency: 2 } });
    cleanups.push(() => emulator.close());
    const store = new MemoryGatewaySessionStore();
    const options = { shards: [0, 1], shardCount: 2, maxConcurrency: 2, shardsPerWorker: 1, sessionStore: store };
    const first = new Client({ baseUrl: emulator.url, auth: { botToken: emulator.seed.botToken }, gateway: options });
    await first.gateway.connect();
    const sessions = first.gateway.shards.map((shard) => shard.sessionId);
    await first.close({ handOff: true });
    expect((await store.load(0, 2))?.sessionId).toBe(sessions[0]);
    expect((await store.load(1, 2))?.sessionId).toBe(sessions[1]);

    const second = new Client({ baseUrl: emulator.url, auth: { botToken: emulator.seed.botToken }, gateway: options });
    cleanups.push(() => second.close());
    const resumed: number[] = [];
    second.gateway.on('resumed', (event) => resumed.push(event.shardId));
    await second.gateway.connect();
    expect(resumed.sort()).toEqual([0, 1]);
    expect(second.gateway.shards.map((shard) => shard.sessionId)).toEqual(sessions);
    expect(emulator.gatewayStats.counts.identifies).toBe(2);
  }, 30_000);
});
