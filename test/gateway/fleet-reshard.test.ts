/**
 * A fleet's reshard in one process: two Gateways sharing the emulator's
 * shards through the in-memory coordinator. `reshard(n)` resolves once n
 * shards run, never on a switch to another count; a set the fleet reshards
 * away from takes no more shards.
 */
import { expect, it } from 'vitest';
import { Client } from '../../src/index.js';
import { MemoryGatewaySessionStore } from '../../src/stores.js';
import type { ShardCoordinator } from '../../src/gateway/coordinator.js';
import { MemoryShardCoordinator } from '../../src/testing/index.js';
import { useEmulatorWithAdmin } from '../helpers/emulators.js';
import { until } from '../helpers/until.js';

const start = useEmulatorWithAdmin();

/** A coordinator that accepts a reshard request whatever is pending (as a faulty one may): the Gateway must not take it for its own. */
class LenientCoordinator extends MemoryShardCoordinator {
  override async requestReshard(count: number): Promise<void> {
    await super.requestReshard(count).catch(() => undefined);
  }
}

/** Two members of one fleet on the emulator. */
async function twoMembers(coordinator: MemoryShardCoordinator, shards: number, maxShards?: number) {
  const { emulator } = await start({ gateway: { shards, maxConcurrency: 16 } });
  const gateway = { coordinator, sessionStore: new MemoryGatewaySessionStore(), maxShards };
  const clients = [0, 1].map(() => new Client({ baseUrl: emulator.url, auth: { botToken: emulator.seed.botToken }, gateway }));
  await Promise.all(clients.map((client) => client.gateway.connect()));
  const running = () => clients.reduce((sum, client) => sum + client.gateway.shards.length, 0);
  await until(() => running() === shards, { what: `the ${shards} shards shared` });
  return { emulator, clients, running };
}

it('reshard(n) in a fleet resolves once n shards run across the members, with one Identify per new shard', async () => {
  const coordinator = new MemoryShardCoordinator({ leaseMs: 600 });
  const { emulator, clients, running } = await twoMembers(coordinator, 2);
  try {
    const [a] = clients as [Client, Client];
    await a.gateway.reshard(4);
    expect(a.gateway.shardCount).toBe(4);
    await until(() => running() === 4 && clients.every((client) => client.gateway.shardCount === 4), { what: 'both members on 4 shards' });
    expect(emulator.gatewayStats.forBot().identifies).toBe(2 + 4);
  } finally {
    for (const client of clients) await client.close();
  }
});

it('reshard(n) rejects when the fleet switched to another count (a request another reshard was pending for)', async () => {
  const coordinator = new LenientCoordinator({ leaseMs: 600 });
  const { clients } = await twoMembers(coordinator, 2);
  try {
    const [a] = clients as [Client, Client];
    await coordinator.requestReshard(1);
    await expect(a.gateway.reshard(3)).rejects.toThrow(/switched to 1 shards, not the 3 asked for/);
    expect(a.gateway.shardCount).toBe(1);
  } finally {
    for (const client of clients) await client.close();
  }
});

/** The in-memory coordinator, counting the steps it answered. */
class CountingCoordinator extends MemoryShardCoordinator {
  steps = 0;
  override async tick(...args: Parameters<MemoryShardCoordinator['tick']>) {
    this.steps++;
    return super.tick(...args);
  }
}

it("a fleet's reshard target past gateway.maxShards is reported once and not planned (a count from Redis is trusted only within it)", async () => {
  const coordinator = new CountingCoordinator({ leaseMs: 600 });
  const { clients, running } = await twoMembers(coordinator, 2, 3);
  const refused: string[] = [];
  for (const client of clients) client.gateway.on('error', (error) => refused.push(error.message));
  try {
    await coordinator.requestReshard(4);
    await until(() => refused.length === 2, { what: `both members refusing the target of 4 (errors so far: ${refused.length})` });
    expect(refused).toEqual(Array(2).fill('the fleet asks to reshard to 4 shards, more than gateway.maxShards (3): not started'));
    expect(clients.map((client) => client.gateway.shardCount)).toEqual([2, 2]);
    // The refused target stops no set from taking shards: both stay served (a hand-off to rebalance included).
    await until(() => running() === 2 && coordinator.holders(2).size === 2, { what: 'both shards served while the target is pending' });
    // Committed by a peer that can run it: still refused here, and still said once per member, not at every step.
    await coordinator.commitReshard(4);
    const from = coordinator.steps;
    await until(() => coordinator.steps >= from + 8, { what: 'eight more steps of the two members' });
    expect(refused, 'refusals after eight more steps, the count committed').toHaveLength(2);
  } finally {
    for (const client of clients) await client.close();
  }
});

it('a reshard while a member joins: an old shard handed off meanwhile is taken back, and every interaction and event across the switch runs once', {
  timeout: 40_000,
}, async () => {
  // New shards 0 and 1 wait for their Identify turn (5 s after the old ones): meanwhile the old set serves alone.
  const { emulator, admin } = await start({ gateway: { shards: 2, maxConcurrency: 4 } });
  await admin.commands.sync(emulator.seed.applicationId, [{ name: 'ping', description: 'Ping' }]);
  const coordinator = new MemoryShardCoordinator({ leaseMs: 600 });
  const gateway = { coordinator, sessionStore: new MemoryGatewaySessionStore() };
  const clients = [0, 1].map(() => new Client({ baseUrl: emulator.url, auth: { botToken: emulator.seed.botToken }, gateway }));
  // Per interaction and per message id, which member ran or emitted it (twice, or never, is the failure).
  const ran = new Map<string, string[]>();
  const note = (id: string, by: string) => ran.set(id, [...(ran.get(id) ?? []), by]);
  clients.forEach((client, member) => {
    client.gateway.onCommand('ping', async (interaction) => {
      note(interaction.id, `member ${member}`);
      await interaction.reply('pong');
    });
    client.gateway.on('dispatch', (event) => {
      if (event.t === 'MESSAGE_CREATE') note((event.d as { id: string }).id, `member ${member} shard ${event.shardId}`);
    });
  });
  const sent: string[] = [];
  const answers: Promise<unknown>[] = [];
  // Messages in four communities (one on each shard of 4, two on each of 2), interactions in DMs and in the seed community.
  const send = () => {
    const n = sent.length;
    if (n % 5 === 0) {
      const run = emulator.invokeCommand({ name: 'ping', ...(n % 10 === 0 ? { guildId: null } : {}) });
      answers.push(run.response);
      run.response.catch(() => undefined); // one never answered fails the test below, by name
      sent.push(run.id);
      return;
    }
    const id = String(1_000_000 + n);
    emulator.dispatchEvent('MESSAGE_CREATE', { id, guild_id: String((BigInt(n % 4) << 22n) + 7n), channel_id: '1', content: `m${n}` });
    sent.push(id);
  };
  let traffic: ReturnType<typeof setInterval> | undefined;
  try {
    const [a, b] = clients as [Client, Client];
    await a.gateway.connect();
    await until(() => a.gateway.shards.length === 2, { what: 'member 0 running both shards' });
    traffic = setInterval(send, 4);
    // The reshard is asked for, then a second member joins: member 0 hands one old shard off to it to rebalance.
    await coordinator.requestReshard(4);
    await b.gateway.connect();
    await until(() => clients.every((client) => client.gateway.shardCount === 4), { what: 'both members on 4 shards', timeoutMs: 15_000 });
    const after = sent.length;
    await until(() => sent.length >= after + 40, { what: 'traffic after the switch' });
    clearInterval(traffic);
    const missing = () => sent.filter((id) => !ran.has(id));
    await until(() => missing().length === 0, { what: 'every interaction run and message emitted', timeoutMs: 10_000 }).catch(() => {
      throw new Error(`${missing().length} of ${sent.length} never run or emitted (a shard dark during the reshard): ${missing().slice(0, 8).join(', ')}`);
    });
    await Promise.all(answers);
    const twice = [...ran].filter(([, by]) => by.length > 1).map(([id, by]) => `${id}: ${by.join(' and ')}`);
    expect(twice, `run or emitted more than once, of ${sent.length}`).toEqual([]);
    expect(emulator.gatewayStats.forBot().identifies, 'one Identify per shard of each set').toBe(2 + 4);
  } finally {
    if (traffic !== undefined) clearInterval(traffic);
    for (const client of clients) await client.close();
  }
});

/** `coordinator` for one member whose every step is answered `delayMs` late (it sees the reshard, and the switch, later). */
function late(coordinator: MemoryShardCoordinator, delayMs: number): ShardCoordinator {
  const c = coordinator;
  return {
    leaseMs: c.leaseMs,
    tick: async (member, shardCount, acquire, registered) => {
      const answer = await c.tick(member, shardCount, acquire, registered);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      return answer;
    },
    ...{ release: c.release.bind(c), leave: c.leave.bind(c), shardCount: c.shardCount.bind(c), requestReshard: c.requestReshard.bind(c) },
    ...{ shardReady: c.shardReady.bind(c), commitReshard: c.commitReshard.bind(c), claimInteraction: c.claimInteraction.bind(c), answered: c.answered.bind(c) },
  };
}

it("events other than interactions are emitted once across a fleet's switch, though the members switch at different steps", async () => {
  const coordinator = new MemoryShardCoordinator({ leaseMs: 1500 });
  const { emulator } = await start({ gateway: { shards: 2, maxConcurrency: 16 } });
  const sessionStore = new MemoryGatewaySessionStore();
  // Member 1 learns of each step 400 ms late: it sees the reshard after member 0 started its next set, and switches later too.
  const clients = [coordinator, late(coordinator, 400)].map(
    (member) => new Client({ baseUrl: emulator.url, auth: { botToken: emulator.seed.botToken }, gateway: { coordinator: member, sessionStore } }),
  );
  const seen = new Map<string, string[]>();
  for (const [member, client] of clients.entries())
    client.gateway.on('dispatch', (event) => {
      if (event.t !== 'MESSAGE_CREATE') return;
      const id = (event.d as { id: string }).id;
      seen.set(id, [...(seen.get(id) ?? []), `member ${member} shard ${event.shardId}`]);
    });
  const sent: string[] = [];
  // Six communities over the shards of 2 and of 3: for some, the old shard is one member's and the new shard the other's.
  const send = () => {
    const n = sent.length;
    const id = String(1_000_000 + n);
    emulator.dispatchEvent('MESSAGE_CREATE', { id, guild_id: String((BigInt(n % 6) << 22n) + 7n), channel_id: '1', content: `m${n}` });
    sent.push(id);
  };
  let traffic: ReturnType<typeof setInterval> | undefined;
  try {
    await Promise.all(clients.map((client) => client.gateway.connect()));
    await until(() => clients.every((client) => client.gateway.shards.length === 1), { what: 'one shard on each member' });
    traffic = setInterval(send, 3);
    await coordinator.requestReshard(3);
    await until(() => clients.every((client) => client.gateway.shardCount === 3), { what: 'both members on 3 shards', timeoutMs: 10_000 });
    const after = sent.length;
    await until(() => sent.length >= after + 40, { what: 'messages after the switch' });
    clearInterval(traffic);
    const missing = () => sent.filter((id) => !seen.has(id));
    await until(() => missing().length === 0, { what: 'every message emitted' }).catch(() => {
      throw new Error(`${missing().length} of ${sent.length} messages never emitted: ${missing().slice(0, 8).join(', ')}`);
    });
    const twice = [...seen].filter(([, by]) => by.length > 1).map(([id, by]) => `${id}: ${by.join(' and ')}`);
    expect(twice, `messages emitted more than once, of ${sent.length}`).toEqual([]);
  } finally {
    if (traffic !== undefined) clearInterval(traffic);
    for (const client of clients) await client.close();
  }
});

/** `coordinator` for one member whose steps fail while `cut.off` (a process cut off from Redis): its lease and membership lapse. */
function cutOff(coordinator: MemoryShardCoordinator, cut: { off: boolean }): ShardCoordinator {
  const c = coordinator;
  return {
    leaseMs: c.leaseMs,
    tick: async (member, shardCount, acquire, registered) => {
      if (cut.off) throw new Error('cut off from the coordinator');
      return c.tick(member, shardCount, acquire, registered);
    },
    ...{ release: c.release.bind(c), leave: c.leave.bind(c), shardCount: c.shardCount.bind(c), requestReshard: c.requestReshard.bind(c) },
    ...{ shardReady: c.shardReady.bind(c), commitReshard: c.commitReshard.bind(c), claimInteraction: c.claimInteraction.bind(c), answered: c.answered.bind(c) },
  };
}

it('a member away for a whole reshard (request to commit) follows the fleet to its new count when it comes back, and takes its share', async () => {
  const coordinator = new MemoryShardCoordinator({ leaseMs: 600 });
  const { emulator } = await start({ gateway: { shards: 2, maxConcurrency: 16 } });
  const sessionStore = new MemoryGatewaySessionStore();
  const cut = { off: false };
  const a = new Client({ baseUrl: emulator.url, auth: { botToken: emulator.seed.botToken }, gateway: { coordinator, sessionStore } });
  const b = new Client({ baseUrl: emulator.url, auth: { botToken: emulator.seed.botToken }, gateway: { coordinator: cutOff(coordinator, cut), sessionStore } });
  const counts = () =>
    `member a: ${a.gateway.shardCount} shards, holding [${a.gateway.shards.map((s) => s.id)}]; member b: ${b.gateway.shardCount}, holding [${b.gateway.shards.map((s) => s.id)}]`;
  try {
    await Promise.all([a.gateway.connect(), b.gateway.connect()]);
    await until(() => a.gateway.shards.length === 1 && b.gateway.shards.length === 1, { what: 'the 2 shards shared' });
    cut.off = true;
    await until(() => b.gateway.shards.length === 0 && a.gateway.shards.length === 2, { what: `member b fenced, member a holding both (${counts()})` });
    await a.gateway.reshard(4); // member b is away from the request to the commit
    expect(a.gateway.shardCount).toBe(4);
    cut.off = false;
    await until(() => b.gateway.shardCount === 4 && b.gateway.shards.length === 2 && a.gateway.shards.length === 2, {
      what: "member b back on the fleet's 4 shards, holding its share",
      timeoutMs: 10_000,
    }).catch((error: unknown) => {
      throw new Error(`${String(error)}: ${counts()}`);
    });
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
});
