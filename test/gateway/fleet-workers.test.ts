/**
 * A fleet whose members run their shards in worker threads
 * (`shardsPerWorker` with a `coordinator`): two Gateways in one process on
 * one emulator, sharing 4 shards through a `MemoryShardCoordinator`. Each
 * shard a member takes starts in one of its workers and each one it hands
 * off or loses stops there alone; the fleet's rules (the claim, the fence,
 * the saved session) hold on the main thread as with shards in this thread.
 */
import { afterEach, expect, it } from 'vitest';
import { Client } from '../../src/index.js';
import { MemoryGatewaySessionStore, type ShardCoordinator } from '../../src/stores.js';
import { runningShardWorkers } from '../../src/gateway/worker-thread.js';
import { MemoryShardCoordinator } from '../../src/testing/index.js';
import { guildIdOnShard, startShardedEmulator } from '../helpers/sharded-emulator.js';
import { until } from '../helpers/until.js';

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A coordinator that fails every call while `cut` (a member cut off from Redis), else the shared one's answer. */
function cuttable(inner: MemoryShardCoordinator): { coordinator: ShardCoordinator; cut: { on: boolean } } {
  const cut = { on: false };
  const coordinator = new Proxy(inner, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) =>
        cut.on ? Promise.reject(new Error('cut off from the coordinator')) : (value as (...a: unknown[]) => unknown).apply(target, args);
    },
  });
  return { coordinator, cut };
}

async function startFleet(coordinators: [ShardCoordinator, ShardCoordinator] | undefined) {
  const emulator = await startShardedEmulator({ gateway: { shards: 4, maxConcurrency: 4 } });
  cleanups.push(() => emulator.close());
  const shared = new MemoryShardCoordinator({ leaseMs: 600 });
  const sessionStore = new MemoryGatewaySessionStore();
  const handled = new Map<string, string[]>();
  const clients = [0, 1].map((member) => {
    const coordinator = coordinators?.[member] ?? shared;
    const client = new Client({
      baseUrl: emulator.url,
      auth: { botToken: emulator.seed.botToken },
      gateway: { coordinator, sessionStore, shardsPerWorker: 2 },
    });
    cleanups.push(() => client.close());
    client.gateway.onCommand('ping', async (interaction) => {
      handled.set(interaction.id, [...(handled.get(interaction.id) ?? []), `member ${member}`]);
      await interaction.reply('pong');
    });
    return client;
  }) as [Client, Client];
  return { emulator, shared, sessionStore, handled, clients };
}

const held = (client: Client) => client.gateway.shards.filter((shard) => shard.status === 'ready').map((shard) => shard.id);

it('every shard held once, the joining member resumes the shards handed to it, interactions answered once, a closing member hands its shards over', async () => {
  const { emulator, shared, handled, clients } = await startFleet(undefined);
  const [a, b] = clients;
  const answerOnce = async (what: string) => {
    const invoked = [0, 1, 2].flatMap(() => [emulator.invokeCommand({ name: 'ping' }), emulator.invokeCommand({ name: 'ping', guildId: null })]);
    for (const interaction of invoked) expect((await interaction.response).data, `${what}: interaction ${interaction.id}`).toEqual({ content: 'pong' });
    for (const interaction of invoked) expect(handled.get(interaction.id), `${what}: who handled interaction ${interaction.id}`).toHaveLength(1);
  };

  await a.gateway.connect();
  await until(() => held(a).length === 4, { what: 'member a running all 4 shards' });
  expect(runningShardWorkers.size, 'member a: 4 shards in 2 workers').toBe(2);
  expect(emulator.gatewayStats.forBot().identifies).toBe(4);
  await answerOnce('member a alone');

  const acquiredByB: { shardId: number; resumed: boolean }[] = [];
  b.gateway.on('shardAcquired', ({ shardId, resumed }) => void acquiredByB.push({ shardId, resumed }));
  await b.gateway.connect();
  await until(() => held(a).length === 2 && held(b).length === 2, { what: 'the 4 shards shared 2 and 2' });
  await until(() => acquiredByB.length === 2, { what: "b's shardAcquired events for its 2 shards" });
  expect(
    acquiredByB.filter((event) => !event.resumed),
    "b's shards acquired without resuming",
  ).toEqual([]);
  expect([...held(a), ...held(b)].sort(), 'every shard held once').toEqual([0, 1, 2, 3]);
  expect(new Set(shared.holders(4).values()).size, 'held by both members').toBe(2);
  expect(emulator.gatewayStats.forBot(), 'the shards handed to b resumed, not identified').toMatchObject({ identifies: 4 });
  expect(emulator.gatewayStats.forBot().resumes).toBeGreaterThanOrEqual(2);
  await answerOnce('two members');

  await a.close({ handOff: true });
  await until(() => held(b).length === 4, { what: 'member b running all 4 shards after a handed off' });
  expect(emulator.gatewayStats.forBot().identifies, 'a closing: its shards resumed by b').toBe(4);
  await until(() => acquiredByB.length === 4, { what: "b's shardAcquired events for a's 2 shards" });
  expect(acquiredByB.map((event) => event.shardId).sort(), 'shardAcquired once per shard').toEqual([0, 1, 2, 3]);
  expect(
    acquiredByB.filter((event) => !event.resumed),
    "a's shards acquired by b without resuming",
  ).toEqual([]);
  expect(runningShardWorkers.size, "a's workers ended; b runs 4 shards in 2").toBe(2);
  await answerOnce('member b alone');
}, 60_000);

it('a member cut off from the coordinator fences its worker-run shards: nothing dispatched there after the fence, its workers end, the other member takes the shards over', async () => {
  const inner = new MemoryShardCoordinator({ leaseMs: 600 });
  const { coordinator: cutOff, cut } = cuttable(inner);
  const { emulator, handled, clients } = await startFleet([cutOff, inner]);
  const [a, b] = clients;
  const messages: string[] = [];
  for (const [member, client] of [a, b].entries())
    client.gateway.on('dispatch', (event) => {
      if (event.t === 'MESSAGE_CREATE') messages.push(`${(event.d as { id: string }).id} by member ${member}`);
    });
  const fenced: number[] = [];
  a.gateway.on('shardFenced', (event) => void fenced.push(event.shardId));
  await a.gateway.connect();
  const acquiredByB: { shardId: number; resumed: boolean }[] = [];
  b.gateway.on('shardAcquired', ({ shardId, resumed }) => void acquiredByB.push({ shardId, resumed }));
  await b.gateway.connect();
  await until(() => held(a).length === 2 && held(b).length === 2, { what: 'the 4 shards shared 2 and 2' });
  await until(() => acquiredByB.length === 2, { what: "b's shardAcquired events for its 2 shards" });
  expect(
    acquiredByB.filter((event) => !event.resumed),
    "b's shards acquired without resuming",
  ).toEqual([]);
  const ofA = held(a);

  cut.on = true;
  await until(() => fenced.length === 2, { what: 'member a fencing its 2 shards once its lease may have lapsed' });
  expect(fenced.sort()).toEqual(ofA);
  for (const shardId of ofA)
    emulator.dispatchEvent('MESSAGE_CREATE', { id: `after-fence-${shardId}`, channel_id: '1', guild_id: guildIdOnShard(shardId, 4), content: 'x' });
  const ping = emulator.invokeCommand({ name: 'ping', guildId: null });
  await until(() => held(b).length === 4, { what: "member b taking a's shards over" });
  // b runs 4 shards in 2 workers; a's ended with its fenced shards (their sockets closed there).
  await until(() => runningShardWorkers.size === 2, { what: "member a's workers ended with its fenced shards" });
  await until(() => ofA.every((shardId) => messages.includes(`after-fence-${shardId} by member 1`)), {
    what: 'the messages sent after the fence, replayed to b',
  });
  expect((await ping.response).data).toEqual({ content: 'pong' });
  expect(handled.get(ping.id), 'the interaction sent after the fence').toEqual(['member 1']);
  expect(
    messages.filter((line) => line.startsWith('after-fence') && line.endsWith('member 0')),
    'dispatched on a fenced shard',
  ).toEqual([]);
  cut.on = false;
}, 60_000);
