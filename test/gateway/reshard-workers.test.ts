/**
 * Resharding a Gateway whose shards run in worker threads
 * (`shardsPerWorker`): the new set starts in workers of its own while the
 * old set serves, the switch ends the old set's workers, and every
 * interaction is answered once with one Identify per new shard; in a fleet
 * too, each member's part of the new set in its own workers.
 */
import { afterEach, expect, it } from 'vitest';
import { Client } from '../../src/index.js';
import { MemoryGatewaySessionStore } from '../../src/stores.js';
import { MemoryShardCoordinator } from '../../src/testing/index.js';
import { runningShardWorkers } from '../../src/gateway/worker-thread.js';
import { startShardedEmulator } from '../helpers/sharded-emulator.js';
import { until } from '../helpers/until.js';

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Waits for every run's answer (at most 20 s), naming the ones never answered and how often each was handled. */
async function allAnswered(runs: { id: string; response: Promise<{ data?: unknown }> }[], handledBy: (id: string) => string) {
  const answered = new Map<string, { data?: unknown }>();
  for (const run of runs)
    void run.response.then(
      (response) => answered.set(run.id, response),
      () => undefined,
    );
  await until(() => answered.size === runs.length, { what: `every interaction answered (${runs.length})`, timeoutMs: 20_000 }).catch((error: unknown) => {
    const missing = runs.filter((run) => !answered.has(run.id));
    throw new Error(
      `${String(error)}: ${missing.length} unanswered: ${missing
        .slice(0, 6)
        .map((run) => `${run.id} (${handledBy(run.id)})`)
        .join(', ')}`,
    );
  });
  return runs.map((run) => answered.get(run.id) as { data?: unknown });
}

it('reshards 4 → 6 shards in workers under traffic: every interaction answered once, one Identify per new shard, the old workers ended', async () => {
  const emulator = await startShardedEmulator({ gateway: { shards: 4, maxConcurrency: 16, identifyIntervalMs: 0 } });
  cleanups.push(() => emulator.close());
  const client = new Client({ baseUrl: emulator.url, auth: { botToken: emulator.seed.botToken }, gateway: { shards: 'auto', shardsPerWorker: 2 } });
  cleanups.push(() => client.close());
  const handled = new Map<string, number>();
  client.gateway.onCommand('ping', async (interaction) => {
    handled.set(interaction.id, (handled.get(interaction.id) ?? 0) + 1);
    await interaction.reply('pong');
  });
  const runs: { id: string; response: Promise<{ data?: unknown }> }[] = [];
  let n = 0;
  const send = () => {
    const run = emulator.invokeCommand({ name: 'ping', ...(n++ % 2 === 0 ? {} : { guildId: null }) });
    runs.push({ id: run.id, response: run.response });
  };
  let traffic: ReturnType<typeof setInterval> | undefined;
  cleanups.push(() => clearInterval(traffic));
  await client.gateway.connect();
  expect(emulator.gatewayStats.forBot().identifies).toBe(4);
  expect(runningShardWorkers.size, '4 shards, 2 a worker').toBe(2);
  traffic = setInterval(send, 25);
  await until(() => runs.length >= 10, { what: 'traffic before the reshard' });
  await client.gateway.reshard(6, { signal: AbortSignal.timeout(30_000) });
  const afterSwitch = runs.length;
  await until(() => runs.length >= afterSwitch + 10, { what: 'traffic after the switch' });
  clearInterval(traffic);
  const responses = await allAnswered(runs, (id) => `handled ${handled.get(id) ?? 0} times`);

  expect(responses.filter((response) => (response.data as { content?: string } | undefined)?.content !== 'pong')).toEqual([]);
  expect([...handled.keys()].sort(), 'every interaction handled').toEqual(runs.map((run) => run.id).sort());
  expect(
    [...handled].filter(([, times]) => times !== 1),
    'interactions handled other than once',
  ).toEqual([]);
  expect(emulator.gatewayStats.forBot().identifies, 'one Identify per new shard').toBe(4 + 6);
  expect(client.gateway.shards.map((shard) => [shard.id, shard.status])).toEqual(Array.from({ length: 6 }, (_, id) => [id, 'ready']));
  expect(runningShardWorkers.size, "the new set's 3 workers; the old set's 2 ended").toBe(3);
}, 60_000);

it('a fleet of two members with shards in workers reshards 4 → 6: one Identify per new shard, every interaction answered once, 6 shards run', async () => {
  const emulator = await startShardedEmulator({ gateway: { shards: 4, maxConcurrency: 16 } });
  cleanups.push(() => emulator.close());
  const coordinator = new MemoryShardCoordinator({ leaseMs: 600 });
  const gateway = { coordinator, sessionStore: new MemoryGatewaySessionStore(), shardsPerWorker: 2 };
  const handled = new Map<string, string[]>();
  const clients = [0, 1].map((member) => {
    const client = new Client({ baseUrl: emulator.url, auth: { botToken: emulator.seed.botToken }, gateway });
    cleanups.push(() => client.close());
    client.gateway.onCommand('ping', async (interaction) => {
      handled.set(interaction.id, [...(handled.get(interaction.id) ?? []), `member ${member}`]);
      await interaction.reply('pong');
    });
    return client;
  }) as [Client, Client];
  const running = () => clients.reduce((sum, client) => sum + client.gateway.shards.filter((shard) => shard.status === 'ready').length, 0);
  await Promise.all(clients.map((client) => client.gateway.connect()));
  await until(() => running() === 4 && clients.every((client) => client.gateway.shards.length === 2), { what: 'the 4 shards shared 2 and 2' });
  const identifies = emulator.gatewayStats.forBot().identifies;
  const runs: { id: string; response: Promise<{ data?: unknown }> }[] = [];
  let n = 0;
  const traffic = setInterval(() => {
    const run = emulator.invokeCommand({ name: 'ping', ...(n++ % 2 === 0 ? {} : { guildId: null }) });
    runs.push({ id: run.id, response: run.response });
  }, 50);
  cleanups.push(() => clearInterval(traffic));
  await clients[0].gateway.reshard(6, { signal: AbortSignal.timeout(30_000) });
  await until(() => running() === 6 && clients.every((client) => client.gateway.shardCount === 6), { what: 'both members on 6 shards, all ready' });
  const afterSwitch = runs.length;
  await until(() => runs.length >= afterSwitch + 5, { what: 'traffic after the switch' });
  clearInterval(traffic);
  const responses = await allAnswered(runs, (id) => `handled by ${handled.get(id)?.join(' and ') ?? 'nobody'}`);

  expect(responses.filter((response) => (response.data as { content?: string } | undefined)?.content !== 'pong')).toEqual([]);
  expect(
    runs.filter((run) => handled.get(run.id)?.length !== 1).map((run) => `${run.id}: ${handled.get(run.id)?.join(', ') ?? 'nobody'}`),
    'interactions handled other than once',
  ).toEqual([]);
  expect(emulator.gatewayStats.forBot().identifies - identifies, 'one Identify per new shard').toBe(6);
  expect([...clients[0].gateway.shards, ...clients[1].gateway.shards].map((shard) => shard.id).sort()).toEqual([0, 1, 2, 3, 4, 5]);
}, 60_000);
