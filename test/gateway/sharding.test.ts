/**
 * Sharding in one process (Discord's scheme): Identify carries the shard,
 * each interaction reaches exactly one shard (the one owning its community;
 * DMs shard 0) and the same handlers, events carry the shard id, and the
 * plan comes from GET /gateway/bot where the options leave it open.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  Client,
  ValidationError,
  createInteractionRouter,
  shardOfGuild,
  type GatewayOptions,
  type GatewayReadyEvent,
  SessionStoreError,
} from '../../src/index.js';
import { GatewayOpcode } from '../../src/testing/index.js';
import { MemoryIdentifyThrottle, MemoryGatewaySessionStore } from '../../src/stores.js';
import type { StoreErrorEvent, StoreRecoveredEvent } from '../../src/diagnostics.js';
import { GatewayServer } from '../../src/testing/gateway-server.js';
import type { GatewayServerOptions } from '../../src/testing/gateway-server-options.js';
import { SECRETS } from '../helpers/index.js';
import { until } from '../helpers/ws-server.js';
import { guildIdOnShard, startShardedEmulator } from '../helpers/sharded-emulator.js';

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(gateway: GatewayOptions, serverOptions: GatewayServerOptions = {}, clock?: () => number) {
  const server = new GatewayServer({ heartbeatIntervalMs: 60_000, ...serverOptions });
  await server.listening();
  const client = new Client({
    baseUrl: 'http://127.0.0.1:9',
    auth: { botToken: SECRETS.botToken },
    ...(clock === undefined ? {} : { clock }),
    gateway: { url: server.url, reconnectBaseDelayMs: 5, reconnectMaxDelayMs: 20, ...gateway },
  });
  cleanups.push(
    () => server.close(),
    () => client.close(),
  );
  return { server, client, gateway: client.gateway };
}

const payload = (id: string, guildId: string | undefined) => ({
  id,
  type: 2,
  token: `interaction-token-${id}`,
  application_id: 'app1',
  channel_id: 'ch1',
  ...(guildId === undefined ? { user: { id: 'u1', username: 'ada' } } : { guild_id: guildId, member: { user: { id: 'u1', username: 'ada' } } }),
  data: { id: 'cmd1', name: 'ping' },
});

describe('shardOfGuild', () => {
  it("is Discord's (guild_id >> 22) % count, with DMs and bad ids on shard 0", () => {
    // 175928847299117063 is Discord's documentation example: timestamp 41944705796 ms.
    expect(shardOfGuild('175928847299117063', 4)).toBe(Number(41944705796n % 4n));
    expect(shardOfGuild('175928847299117063', 1)).toBe(0);
    for (let shard = 0; shard < 5; shard++) expect(shardOfGuild(guildIdOnShard(shard, 5), 5)).toBe(shard);
    expect(shardOfGuild(undefined, 4)).toBe(0);
    expect(shardOfGuild('not-a-snowflake', 4)).toBe(0);
  });
});

describe('sharding in one process', () => {
  it('identifies each shard with [id, count], delivers each interaction exactly once on the shard owning its community, to the same handlers', async () => {
    const { server, gateway } = await setup({ shards: 'auto', shardCount: 4, maxConcurrency: 4 });
    const router = createInteractionRouter();
    const handled: string[] = [];
    router.onCommand('ping', (interaction) => void handled.push(interaction.id));
    gateway.use(router);
    const seen: { id: string; shardId: number }[] = [];
    gateway.on('interactionCreate', (interaction, shardId) => seen.push({ id: interaction.id, shardId }));
    const ready: GatewayReadyEvent[] = [];
    gateway.on('ready', (event) => ready.push(event));
    await gateway.connect();

    expect(gateway.status).toBe('ready');
    expect(gateway.shardCount).toBe(4);
    expect(gateway.shards.map((shard) => [shard.id, shard.status])).toEqual([0, 1, 2, 3].map((id) => [id, 'ready']));
    const identified = server.received.filter((frame) => frame.op === GatewayOpcode.Identify).map((frame) => (frame.d as { shard: number[] }).shard);
    expect(identified.sort()).toEqual([
      [0, 4],
      [1, 4],
      [2, 4],
      [3, 4],
    ]);
    expect(ready.map((event) => event.shardId).sort()).toEqual([0, 1, 2, 3]);
    expect(new Set(ready.map((event) => event.sessionId)).size).toBe(4);

    const expected = new Map<string, number>();
    for (let round = 1; round <= 3; round++) {
      for (let shard = 0; shard < 4; shard++) {
        const id = `r${round}s${shard}`;
        expect(server.dispatchToToken(SECRETS.botToken, 'INTERACTION_CREATE', payload(id, guildIdOnShard(shard, 4, round)))).toBe(1);
        expected.set(id, shard);
      }
    }
    expect(server.dispatchToToken(SECRETS.botToken, 'INTERACTION_CREATE', payload('dm', undefined))).toBe(1);
    expected.set('dm', 0);
    // One last interaction on each shard: each shard's dispatches are handled in order, so once the four are handled, so is
    // any second delivery of the ones before.
    for (let shard = 0; shard < 4; shard++) {
      expect(server.dispatchToToken(SECRETS.botToken, 'INTERACTION_CREATE', payload(`last${shard}`, guildIdOnShard(shard, 4, 4)))).toBe(1);
      expected.set(`last${shard}`, shard);
    }
    const lastOnEach = [0, 1, 2, 3].map((shard) => `last${shard}`);
    await until(() => lastOnEach.every((id) => handled.includes(id) && seen.some((entry) => entry.id === id)), {
      what: () => `the last interaction of each shard handled (handled: ${handled.join(', ')})`,
    });
    expect(seen).toHaveLength(expected.size);
    expect(new Map(seen.map((entry) => [entry.id, entry.shardId]))).toEqual(expected);
    expect(handled.sort()).toEqual([...expected.keys()].sort());
  });

  it('runs only the listed shards: another process runs the others', async () => {
    const { server, gateway } = await setup({ shards: [1, 3], shardCount: 4, maxConcurrency: 4 });
    const seen: number[] = [];
    gateway.on('interactionCreate', (_interaction, shardId) => seen.push(shardId));
    await gateway.connect();
    expect(gateway.shards.map((shard) => shard.id)).toEqual([1, 3]);
    expect(server.dispatchToToken(SECRETS.botToken, 'INTERACTION_CREATE', payload('a', guildIdOnShard(1, 4)))).toBe(1);
    expect(server.dispatchToToken(SECRETS.botToken, 'INTERACTION_CREATE', payload('b', guildIdOnShard(2, 4)))).toBe(0);
    expect(server.dispatchToToken(SECRETS.botToken, 'INTERACTION_CREATE', payload('c', undefined))).toBe(0);
    await until(() => seen.length === 1);
    expect(seen).toEqual([1]);
  });

  it('events carry the shard id: ready, dispatch, close, reconnecting, resumed', async () => {
    const { server, gateway } = await setup({ shards: 'auto', shardCount: 2, maxConcurrency: 2 });
    const events: string[] = [];
    for (const name of ['ready', 'close', 'reconnecting', 'resumed', 'dispatch'] as const)
      gateway.on(name, (event: { shardId: number }) => events.push(`${name}:${event.shardId}`));
    await gateway.connect();
    server.dropConnections();
    await until(() => events.filter((event) => event.startsWith('resumed')).length === 2);
    for (const shard of [0, 1]) for (const name of ['ready', 'close', 'reconnecting', 'resumed', 'dispatch']) expect(events).toContain(`${name}:${shard}`);
  });

  it('without sharding: one connection, Identify without shard, events from shard 0 (as before)', async () => {
    const { server, gateway } = await setup({});
    const shards: number[] = [];
    gateway.on('ready', (event) => shards.push(event.shardId));
    gateway.on('interactionCreate', (_interaction, shardId) => shards.push(shardId));
    await gateway.connect();
    expect(server.received.find((frame) => frame.op === GatewayOpcode.Identify)?.d).not.toHaveProperty('shard');
    expect(gateway.shardCount).toBe(1);
    server.dispatchToToken(SECRETS.botToken, 'INTERACTION_CREATE', payload('x', guildIdOnShard(3, 4)));
    await until(() => shards.length === 2);
    expect(shards).toEqual([0, 0]);
  });

  it('refuses unusable sharding options before any I/O, naming the option', async () => {
    const server = new GatewayServer();
    await server.listening();
    cleanups.push(() => server.close());
    const cases: [GatewayOptions, string][] = [
      [{ shards: [0, 0], shardCount: 2 }, 'gateway.shards'],
      [{ shards: [4], shardCount: 4 }, 'gateway.shards'],
      [{ shards: [-1] }, 'gateway.shards'],
      [{ shardCount: 0 }, 'gateway.shardCount'],
      [{ shards: 'auto', maxConcurrency: 1.5 }, 'gateway.maxConcurrency'],
      [{ shardsPerWorker: 2 }, 'gateway.shardsPerWorker'],
    ];
    for (const [options, path] of cases) {
      // Refused when the Client is built (a count out of bounds) or at connect() (options that contradict each other).
      let client: Client | undefined;
      const error = await (async () => {
        client = new Client({ auth: { botToken: SECRETS.botToken }, gateway: { url: server.url, ...options } });
        await client.gateway.connect();
      })().catch((caught: unknown) => caught);
      expect(error, JSON.stringify(options)).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).message).toContain(path);
      await client?.close();
    }
    expect(server.stats.connections).toBe(0);
  });

  it('a throttle with no pacing lets shards of one bucket identify too early: the server answers Invalid Session; the default pacing never does', async () => {
    const pacing = { maxConcurrency: 1, intervalMs: 200 };
    const early = await setup(
      { shards: 'auto', shardCount: 2, maxConcurrency: 1, identifyThrottle: new MemoryIdentifyThrottle({ intervalMs: 0 }) },
      { identifyPacing: pacing },
    );
    await early.gateway.connect();
    expect(early.server.stats.tooEarlyIdentifies).toBeGreaterThanOrEqual(1);

    const paced = await setup(
      { shards: 'auto', shardCount: 2, maxConcurrency: 1, identifyThrottle: new MemoryIdentifyThrottle({ intervalMs: 250 }) },
      { identifyPacing: pacing },
    );
    await paced.gateway.connect();
    expect(paced.server.stats.tooEarlyIdentifies).toBe(0);
    expect(paced.server.identifyLog.map((record) => record.accepted)).toEqual([true, true]);
  });

  it('a failing Gateway session store is a storeError event, as on the Client, and the shard still connects', async () => {
    const failing = {
      load: async () => {
        throw new Error(`store down (token ${SECRETS.botToken})`);
      },
      save: async () => undefined,
    };
    const { gateway } = await setup({ shards: [0], shardCount: 1, maxConcurrency: 1, sessionStore: failing });
    const events: StoreErrorEvent[] = [];
    const errors: Error[] = [];
    gateway.on('storeError', (event) => events.push(event));
    gateway.on('error', (error) => errors.push(error));
    await gateway.connect();
    expect(gateway.status).toBe('ready');
    expect(events).toEqual([{ store: 'gatewaySession', error: expect.any(SessionStoreError) }]);
    expect(events[0]?.error.message).toBe('The session store failed: Error: store down (token [redacted])');
    expect(errors).toEqual([]);
  });

  it('a Gateway session store that keeps failing is one storeError per outage, and one storeRecovered (duration, failures) when it answers', async () => {
    const store = new MemoryGatewaySessionStore();
    let down = false;
    let failed = 0;
    const flaky = {
      load: (shardId: number, shardCount: number) => store.load(shardId, shardCount),
      save: async (...args: Parameters<MemoryGatewaySessionStore['save']>) => {
        if (down) {
          failed++;
          throw new Error(`store down (token ${SECRETS.botToken})`);
        }
        await store.save(...args);
      },
    };
    let now = 1_000_000;
    const { server, gateway } = await setup({ shards: [0], shardCount: 1, maxConcurrency: 1, sessionStore: flaky }, {}, () => now);
    const errors: StoreErrorEvent[] = [];
    const recovered: StoreRecoveredEvent[] = [];
    gateway.on('storeError', (event) => errors.push(event));
    gateway.on('storeRecovered', (event) => recovered.push(event));
    await gateway.connect();
    await until(async () => (await store.load(0, 1)) !== undefined, { what: 'the session saved' });
    down = true;
    for (let n = 1; n <= 5; n++) {
      server.dispatch('MESSAGE_CREATE', { id: `m${n}`, channel_id: 'c' });
      await until(() => failed >= n, { what: `save ${n} failing` });
    }
    expect(errors.length, `storeError events for ${failed} failed saves in one outage`).toBe(1);
    expect(recovered).toEqual([]);
    // Flapping: answers and failures one after another, within 5 s of a failure, are the same outage.
    for (let n = 6; n <= 9; n++) {
      down = n % 2 === 0;
      server.dispatch('MESSAGE_CREATE', { id: `m${n}`, channel_id: 'c' });
      await until(async () => !down || failed >= 5 + (n - 4) / 2, { what: `save ${n}` });
      if (!down) await until(async () => (await store.load(0, 1))?.sequence === gateway.shards[0]?.sequence, { what: `save ${n} answered` });
    }
    expect([errors.length, recovered.length], 'storeError and storeRecovered while the store flaps').toEqual([1, 0]);
    down = false;
    now += 5000;
    server.dispatch('MESSAGE_CREATE', { id: 'm10', channel_id: 'c' });
    await until(() => recovered.length === 1, { what: 'storeRecovered once the store answers, 5 s after its last failure' });
    // The clock stood still through the failures, then moved 5 s: the outage lasted exactly that.
    expect(recovered[0]).toEqual({ store: 'gatewaySession', durationMs: 5000, failures: failed });
    // A second outage is reported again.
    down = true;
    server.dispatch('MESSAGE_CREATE', { id: 'm11', channel_id: 'c' });
    await until(() => errors.length === 2, { what: 'the second outage reported' });
  });

  it('a plain close() ends the session (1000): the store forgets it and a successor identifies without trying to resume', async () => {
    const store = new MemoryGatewaySessionStore();
    const first = await setup({ shards: [1], shardCount: 2, maxConcurrency: 2, sessionStore: store });
    await first.gateway.connect();
    // The session was saved (a turn of the event loop after READY) before the close forgets it.
    let saved = await store.load(1, 2);
    for (let turn = 0; saved === undefined && turn < 100; turn++) {
      await new Promise((resolve) => setImmediate(resolve));
      saved = await store.load(1, 2);
    }
    expect(saved).toBeDefined();
    await first.gateway.close();
    expect(await store.load(1, 2)).toBeUndefined();
    expect(first.server.stats.sessionsEndedByClient).toBe(1);
    const client = new Client({
      auth: { botToken: SECRETS.botToken },
      gateway: { url: first.server.url, shards: [1], shardCount: 2, maxConcurrency: 2, sessionStore: store },
    });
    cleanups.push(() => client.close());
    await client.gateway.connect();
    expect(first.server.stats.resumes).toBe(0);
    expect(first.server.stats.identifies).toBe(2);
  });

  it('close({ handOff: true }) keeps the session resumable (4000) and saved: a successor resumes it, the missed dispatch is replayed, no Identify', async () => {
    const store = new MemoryGatewaySessionStore();
    const first = await setup({ shards: [1], shardCount: 2, maxConcurrency: 2, sessionStore: store });
    await first.gateway.connect();
    first.server.dispatchToToken(SECRETS.botToken, 'INTERACTION_CREATE', payload('before', guildIdOnShard(1, 2)));
    await until(() => first.gateway.sequence === 2);
    await first.gateway.close({ handOff: true });
    expect(first.server.stats.sessionsEndedByClient).toBe(0);
    expect(await store.load(1, 2)).toMatchObject({ sessionId: first.gateway.sessionId ?? expect.any(String), sequence: 2 });

    // A new process (here: a new client) runs shard 1 again; the dispatch it missed is replayed.
    first.server.dispatchToToken(SECRETS.botToken, 'INTERACTION_CREATE', payload('missed', guildIdOnShard(1, 2)));
    const client = new Client({
      auth: { botToken: SECRETS.botToken },
      gateway: { url: first.server.url, shards: [1], shardCount: 2, maxConcurrency: 2, sessionStore: store },
    });
    cleanups.push(() => client.close());
    const seen: string[] = [];
    client.gateway.on('interactionCreate', (interaction) => seen.push(interaction.id));
    const resumed: number[] = [];
    client.gateway.on('resumed', (event) => resumed.push(event.shardId));
    await client.gateway.connect();
    expect(resumed).toEqual([1]);
    expect(first.server.stats.identifies).toBe(1);
    expect(first.server.stats.resumes).toBe(1);
    await until(() => seen.length === 1);
    expect(seen).toEqual(['missed']);
  });
});

describe('sharding against the emulator', () => {
  it("takes the shard count from GET /gateway/bot; the emulator routes each interaction to its community's shard (DMs: 0), and reply() answers it", async () => {
    const emulator = await startShardedEmulator({ gateway: { shards: 3, maxConcurrency: 3 } });
    cleanups.push(() => emulator.close());
    const client = new Client({ baseUrl: emulator.url, auth: { botToken: emulator.seed.botToken }, gateway: { shards: 'auto' } });
    cleanups.push(() => client.close());
    const seen: { id: string; shardId: number }[] = [];
    client.gateway.on('interactionCreate', (interaction, shardId) => seen.push({ id: interaction.id, shardId }));
    client.gateway.onCommand('ping', (interaction) => interaction.reply(`pong from ${interaction.guildId ?? 'a DM'}`));
    await client.gateway.connect();
    expect(client.gateway.shardCount).toBe(3);
    expect(emulator.gatewayStats.identifies.map((record) => record.shard?.join('/')).sort()).toEqual(['0/3', '1/3', '2/3']);

    const inGuild = emulator.invokeCommand({ name: 'ping' });
    const inDm = emulator.invokeCommand({ name: 'ping', guildId: null });
    expect([inGuild.delivered, inDm.delivered]).toEqual([1, 1]);
    expect(await inGuild.response).toMatchObject({ interaction_type: 4, data: { content: `pong from ${emulator.seed.guildId}` } });
    expect(await inDm.response).toMatchObject({ interaction_type: 4, data: { content: 'pong from a DM' } });
    // Two shards, two sockets: which interaction arrives first is not fixed; each arrives once, on its shard.
    expect(
      [...seen].sort((a, b) => (a.id === inGuild.id ? -1 : b.id === inGuild.id ? 1 : 0)),
      'each interaction once, on its shard',
    ).toEqual([
      { id: inGuild.id, shardId: shardOfGuild(emulator.seed.guildId, 3) },
      { id: inDm.id, shardId: 0 },
    ]);
    expect(emulator.gatewayStats.counts.tooEarlyIdentifies).toBe(0);
  });
});
