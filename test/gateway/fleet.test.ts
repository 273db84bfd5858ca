/**
 * The Gateway's side of a fleet (`gateway/fleet.ts`) alone, fast: starting
 * and stopping the shards a scripted coordinator gives, the sessions kept
 * and written back, the claim before handlers run, and the answers
 * recorded or refused.
 */
import { expect, it } from 'vitest';
import type { FleetSupervisor } from '../../src/gateway/coordinator.js';
import { answerable, createFleet, deliverClaimed, recordingAnswers, type FleetShards } from '../../src/gateway/fleet.js';
import { LastSessions, MemoryGatewaySessionStore, type GatewaySessionRecord, type GatewaySessionStore } from '../../src/gateway/gateway-session-store.js';
import type { GatewayDispatchEvent } from '../../src/gateway/options.js';
import type { ShardHandle } from '../../src/gateway/shards.js';
import type { Interaction } from '../../src/interactions/interaction.js';
import { Client } from '../../src/index.js';
import { MemoryShardCoordinator } from '../../src/testing/index.js';
import { useEmulatorWithAdmin } from '../helpers/emulators.js';
import { ScriptedCoordinator, step } from '../helpers/scripted-coordinator.js';
import { until } from '../helpers/until.js';

const startEmulator = useEmulatorWithAdmin();

/** A shard that records its connects (failing the first `failures`), restores and destroys. */
function fakeShard(id: number, failures = 0) {
  const facts: string[] = [];
  let connects = 0;
  const shard: ShardHandle & { facts: string[] } = {
    id,
    status: 'idle',
    sessionId: undefined,
    sequence: null,
    latency: undefined,
    lastAckAt: undefined,
    resumeUrl: undefined,
    facts,
    restore: (record) => {
      facts.push(`restore ${record.sessionId} ${record.sequence}`);
      shard.sessionId = record.sessionId;
      shard.sequence = record.sequence;
    },
    connect: async () => {
      facts.push('connect');
      if (++connects <= failures) throw new Error(`connect ${connects} failed`);
      shard.status = 'ready';
    },
    destroy: async (options) => void facts.push(`destroy ${options?.handOff === true ? 'handOff' : 'end'}`),
  };
  return shard;
}

/** A fleet of one shard count on a scripted coordinator, with the Gateway's parts faked. */
function fleetOf(options: { store?: GatewaySessionStore; failures?: number; count?: number; last?: LastSessions; ready?: () => Promise<void> } = {}) {
  const coordinator = new ScriptedCoordinator(1000);
  const created: ReturnType<typeof fakeShard>[] = [];
  const errors: unknown[] = [];
  const last = options.last ?? new LastSessions();
  /** Shards the test says this process no longer holds. */
  const lost = new Set<number>();
  let fleet: FleetSupervisor | undefined;
  const shards: FleetShards = {
    create: (id) => {
      const shard = fakeShard(id, options.failures);
      created.push(shard);
      return shard;
    },
    list: [],
    savers: new Map(),
    store: options.store,
    last,
    record: (shard) => (shard.sessionId === undefined ? undefined : { sessionId: shard.sessionId, sequence: shard.sequence }),
    storeFailed: (error) => errors.push(error),
    holds: (id) => !lost.has(id) && fleet?.has(id) === true,
    report: (report) => report.event === 'error' && errors.push(report.payload),
    ...(options.ready === undefined ? {} : { ready: options.ready }),
  };
  fleet = createFleet(coordinator, options.count ?? 2, shards, 'm');
  return { coordinator, fleet, shards, created, errors, last, lost };
}

/** Gives the shard a session at `sequence` and waits until its saver wrote it. */
async function sessionSaved(shard: ReturnType<typeof fakeShard> | undefined, shards: FleetShards, sequence: number): Promise<void> {
  if (shard === undefined) throw new Error('no shard was created');
  shard.sessionId = 's';
  shard.sequence = sequence;
  shards.savers.get(shard.id)?.schedule();
  await shards.savers.get(shard.id)?.flush();
}

/** Runs the joining step, then a step granting `leases`, answering each; resolves once the shards it gave started. */
async function acquire(coordinator: ScriptedCoordinator, fleet: FleetSupervisor, leases: Record<number, number>) {
  for (const answer of [step({}), step(leases)]) {
    const ticking = fleet.tick();
    (await coordinator.next('tick')).resolve(answer);
    await ticking;
  }
}

it('a held shard whose connect failed connects again while it is held', async () => {
  const { coordinator, fleet, created } = fleetOf({ failures: 1 });
  await acquire(coordinator, fleet, { 0: 1 });
  await until(() => created[0]?.facts.filter((fact) => fact === 'connect').length === 2, { what: 'a second connect after the failed one', timeoutMs: 4000 });
  expect(created[0]?.status).toBe('ready');
});

it('a shard whose READY record fails with a value that cannot be read as text is reported, and nothing escapes', async () => {
  const { coordinator, fleet, created, errors } = fleetOf({ ready: () => Promise.reject(Object.create(null)) });
  await acquire(coordinator, fleet, { 0: 1 });
  await until(() => errors.length > 0, { what: 'the failed READY record reported' });
  expect(String(errors[0])).toMatch(/a thrown object that cannot be read as text/);
  expect(created[0]?.status).toBe('ready');
});

it('a shard lost while its session loaded is not kept: not listed, not connected, no saver', async () => {
  let release = (_: GatewaySessionRecord | undefined) => undefined as void;
  const store: GatewaySessionStore = {
    load: () => new Promise((resolve) => (release = resolve)),
    save: async () => undefined,
  };
  const { coordinator, fleet, shards, created, lost } = fleetOf({ store });
  const acquiring = acquire(coordinator, fleet, { 0: 1 });
  await until(() => created.length === 1, { what: 'shard 0 created, its session loading' });
  lost.add(0); // taken by another process while the load is under way
  release({ sessionId: 's', sequence: 3 });
  await acquiring;
  expect(created[0]?.facts, 'restored, then stopped: nothing of it runs on').toEqual(['restore s 3', 'destroy end']);
  expect(shards.list).toEqual([]);
  expect(shards.savers.size).toBe(0);
});

it("a lost shard's saver writes nothing more, not even a write queued behind a store that does not answer", async () => {
  const writes: (GatewaySessionRecord | undefined)[] = [];
  let unblock = () => undefined as void;
  const store: GatewaySessionStore = {
    load: async () => writes[0], // it has the first write: nothing is written back
    save: async (_id, _count, record) => {
      writes.push(record);
      if (writes.length === 1) await new Promise<void>((resolve) => (unblock = resolve));
    },
  };
  const { coordinator, fleet, shards, created } = fleetOf({ store });
  await acquire(coordinator, fleet, { 0: 1 });
  const shard = created[0] as ReturnType<typeof fakeShard>;
  shard.sessionId = 's';
  shard.sequence = 10;
  shards.savers.get(0)?.schedule();
  await until(() => writes.length === 1, { what: 'the first write, held by the store' });
  shard.sequence = 20;
  const saver = shards.savers.get(0);
  saver?.schedule(); // queued behind the held write
  const fencing = fleet.tick();
  (await coordinator.next('tick')).resolve(step({}));
  await fencing;
  await until(() => shard.facts.includes('destroy handOff'), { what: 'shard 0 stopped as lost' });
  unblock();
  await saver?.flush(); // settles once the held write is done and anything queued behind it has run (or was dropped)
  expect(writes.map((record) => record?.sequence)).toEqual([10]);
});

it('the last session of a shard lost here is written back when the store has none (Redis restarted empty), and read from memory at a start', async () => {
  const store = new MemoryGatewaySessionStore();
  const { coordinator, fleet, shards, created, last } = fleetOf({ store });
  await acquire(coordinator, fleet, { 0: 1 });
  await sessionSaved(created[0], shards, 12);
  expect(last.get(0, 2)).toEqual({ sessionId: 's', sequence: 12, fence: 1 });
  await store.save(0, 2, undefined); // the store lost it
  const fencing = fleet.tick();
  (await coordinator.next('tick')).resolve(step({}));
  await fencing;
  await until(async () => (await store.load(0, 2))?.sequence === 12, { what: 'the session written back' });

  // A store that lost it again: the next start here resumes from what this process kept.
  await store.save(0, 2, undefined);
  const taking = fleet.tick();
  (await coordinator.next('tick')).resolve(step({ 0: 3 }));
  await taking;
  await until(() => created[1]?.facts.includes('restore s 12'), { what: 'the kept session restored' });
});

/** Three shards of four held and saved at sequence 5 (fences 1, 2, 3), then shard 1 handed off (the fair share is 2). */
async function handedOffShardOne(store: GatewaySessionStore, now?: () => number) {
  const made = fleetOf({ store, count: 4, ...(now === undefined ? {} : { last: new LastSessions(undefined, now) }) });
  const { coordinator, fleet, shards, created } = made;
  await acquire(coordinator, fleet, { 0: 1, 1: 2, 2: 3 });
  for (const shard of created) {
    shard.sessionId = `s${shard.id}`;
    shard.sequence = 5;
    shards.savers.get(shard.id)?.schedule();
  }
  await Promise.all([...shards.savers.values()].map((saver) => saver.flush()));
  const handing = fleet.tick();
  (await coordinator.next('tick')).resolve(step({ 0: 1, 1: 2, 2: 3 }, 2, 0));
  await handing;
  (await coordinator.next('release')).resolve(undefined);
  await until(() => created[1]?.facts.includes('destroy handOff') === true && !shards.savers.has(1), { what: 'shard 1 handed off' });
  return made;
}

/** Answers the next step with "your membership expired" (Redis restarted empty): the member joins again and writes back what it keeps. */
async function membershipExpired(made: Awaited<ReturnType<typeof handedOffShardOne>>) {
  const rejoining = made.fleet.tick();
  (await made.coordinator.next('tick')).resolve({ members: 0, index: 0, leases: [], expired: true });
  await rejoining;
}

it('a shard handed off keeps its session here: a store that lost it before the successor saved gets it back, with its fence', async () => {
  const store = new MemoryGatewaySessionStore();
  const made = await handedOffShardOne(store);
  expect(await store.load(1, 4), 'saved at the hand-off').toEqual({ sessionId: 's1', sequence: 5, fence: 2 });
  await store.save(1, 4, undefined); // Redis restarted empty before anyone took shard 1
  await membershipExpired(made);
  await until(async () => (await store.load(1, 4))?.sessionId === 's1', { what: 'shard 1 (handed off, never taken) written back' });
  expect(await store.load(1, 4)).toEqual({ sessionId: 's1', sequence: 5, fence: 2 });
});

it("a write-back never replaces a record saved under the same or a later fence (the successor's), and replaces an older one", async () => {
  const store = new MemoryGatewaySessionStore();
  const made = await handedOffShardOne(store);
  await store.save(1, 4, { sessionId: 's1', sequence: 9, fence: 7 }); // the successor's
  await store.save(2, 4, { sessionId: 's2', sequence: 2, fence: 1 }); // older than this member's (fence 3)
  await store.save(0, 4, { sessionId: 's0', sequence: 4 }); // saved before fences: left alone
  await membershipExpired(made);
  await until(async () => (await store.load(2, 4))?.fence === 3, { what: "shard 2's older record replaced by this member's (fence 3)" });
  expect(await store.load(1, 4), "the successor's record kept").toEqual({ sessionId: 's1', sequence: 9, fence: 7 });
  expect(await store.load(0, 4), 'a record without a fence kept').toEqual({ sessionId: 's0', sequence: 4 });
});

it('a handed-off session is kept only for a while: past it, nothing of it is written back or restored', async () => {
  let now = 0;
  const store = new MemoryGatewaySessionStore();
  const made = await handedOffShardOne(store, () => now);
  expect(made.last.get(1, 4)?.sessionId, 'kept right after the hand-off').toBe('s1');
  now += 600_000;
  expect(made.last.get(1, 4), 'forgotten once its time is up').toBeUndefined();
  expect(made.last.get(0, 4)?.sessionId, 'a held shard is kept').toBe('s0');
  await store.save(1, 4, undefined);
  await membershipExpired(made);
  await until(async () => (await store.load(0, 4))?.sessionId === 's0', { what: 'the held shards written back' });
  expect(await store.load(1, 4)).toBeUndefined();
});

it('a handed-off session is never resumed from memory (the store failing or empty): only a shard still held here falls back on its own', async () => {
  const { withLastSessions } = await import('../../src/gateway/gateway-session-store.js');
  const store = new MemoryGatewaySessionStore();
  const made = await handedOffShardOne(store);
  const failing: GatewaySessionStore = { load: () => Promise.reject(new Error('Redis did not answer')), save: async () => undefined };
  const reading = withLastSessions(failing, made.last);
  await expect(reading.load(1, 4), 'shard 1 (handed off): the store failed, nothing older is resumed').rejects.toThrow('Redis did not answer');
  expect(await reading.load(0, 4), 'shard 0 (held): its own last session').toEqual({ sessionId: 's0', sequence: 5, fence: 1 });
  const empty = withLastSessions(new MemoryGatewaySessionStore(), made.last);
  expect([await empty.load(1, 4), (await empty.load(2, 4))?.sessionId]).toEqual([undefined, 's2']);
});

/** An interaction as deliverClaimed needs it. */
const interaction = (id: string) => ({ id }) as Interaction;
const dispatch = (s: number, shardId = 0): GatewayDispatchEvent => ({ t: 'INTERACTION_CREATE', s, d: {}, shardId });

it("an interaction runs only on the claim's yes, and a replay that arrives while it runs is skipped", async () => {
  const { coordinator, fleet } = fleetOf();
  await acquire(coordinator, fleet, { 0: 1 });
  const delivered: string[] = [];
  const skipped: string[] = [];
  let finish = () => undefined as void;
  const gateway = {
    deliver: async (item: Interaction) => {
      delivered.push(item.id);
      await new Promise<void>((resolve) => (finish = resolve));
    },
    skipped: (line: string) => skipped.push(line),
    savers: new Map(),
  };
  deliverClaimed(fleet, dispatch(4), interaction('no'), gateway);
  (await coordinator.next<boolean>('claimInteraction')).resolve(false);
  deliverClaimed(fleet, dispatch(5), interaction('yes'), gateway);
  (await coordinator.next<boolean>('claimInteraction')).resolve(true);
  await until(() => delivered.length === 1, { what: 'the claimed interaction delivered' });
  expect(delivered).toEqual(['yes']);
  expect(skipped.some((line) => line.includes('no skipped'))).toBe(true);
  deliverClaimed(fleet, dispatch(6), interaction('yes'), gateway);
  expect(skipped.at(-1)).toMatch(/yes skipped: already running here/);
  expect(coordinator.waiting('claimInteraction')).toBe(0);
  finish();
});

it('a replay of an interaction that only waited for its claim is not skipped: the fence drops the waiting claim, the replay runs', async () => {
  const { coordinator, fleet } = fleetOf();
  await acquire(coordinator, fleet, { 0: 1 });
  const delivered: string[] = [];
  const gateway = { deliver: async (item: Interaction) => void delivered.push(item.id), skipped: () => undefined, savers: new Map() };
  deliverClaimed(fleet, dispatch(4), interaction('i'), gateway);
  const first = await coordinator.next<boolean>('claimInteraction');
  // Fenced (another fence) and taken again: the replay arrives on the new acquisition.
  for (const answer of [step({ 0: 2 }), step({ 0: 2 })]) {
    const ticking = fleet.tick();
    (await coordinator.next('tick')).resolve(answer);
    await ticking;
  }
  await until(() => fleet.has(0), { what: 'shard 0 taken again' });
  deliverClaimed(fleet, dispatch(4), interaction('i'), gateway);
  (await coordinator.next<boolean>('claimInteraction')).resolve(true);
  first.resolve(true);
  await until(() => delivered.length === 1, { what: 'the replay delivered' });
  await new Promise((resolve) => setImmediate(resolve));
  expect(delivered).toEqual(['i']);
});

it('an answer is recorded as answered (tried again when the coordinator fails) and refused once its shard was fenced', async () => {
  const { coordinator, fleet } = fleetOf();
  await acquire(coordinator, fleet, { 0: 1 });
  const sent: string[] = [];
  const respond = recordingAnswers(
    coordinator,
    async (id) => void sent.push(id),
    (id) => answerable([fleet], id),
  );
  const answering = respond('a', {} as never);
  (await coordinator.next('answered')).reject(new Error('down'));
  await answering;
  expect(sent).toEqual(['a']);
  const retry = await coordinator.next('answered');
  expect(retry.args).toEqual(['a']);
  retry.resolve(undefined);

  fleet.inFlight.begin(0, 'b', 9);
  const fencing = fleet.tick();
  (await coordinator.next('tick')).resolve(step({}));
  await fencing;
  await expect(respond('b', {} as never)).rejects.toThrow(/lost its shard's lease/);
  expect(sent).toEqual(['a']);
});

it("the answer guard asks the set an interaction arrived on: during a reshard, the next set's leases", async () => {
  const current = fleetOf();
  const next = fleetOf({ count: 4 });
  await acquire(current.coordinator, current.fleet, { 0: 1 });
  await acquire(next.coordinator, next.fleet, { 0: 7 });
  next.fleet.inFlight.begin(0, 'on-next', 3);
  current.fleet.inFlight.begin(0, 'on-current', 3);
  const fencing = next.fleet.tick();
  (await next.coordinator.next('tick')).resolve(step({}));
  await fencing;
  expect(answerable([current.fleet, next.fleet], 'on-next'), "the next set's shard was fenced").toBe(false);
  expect(answerable([current.fleet, next.fleet], 'on-current')).toBe(true);
  expect(answerable([current.fleet, undefined], 'elsewhere')).toBe(true);
});

it('joining again writes back every session kept here, those of shards fenced while the store was down included', async () => {
  const memory = new MemoryGatewaySessionStore();
  let down = false;
  const store: GatewaySessionStore = {
    load: (id, count) => (down ? Promise.reject(new Error('ECONNREFUSED')) : memory.load(id, count)),
    save: (id, count, record) => (down ? Promise.reject(new Error('ECONNREFUSED')) : memory.save(id, count, record)),
  };
  const { coordinator, fleet, shards, created, errors } = fleetOf({ store });
  await acquire(coordinator, fleet, { 0: 1 });
  await sessionSaved(created[0], shards, 12);
  down = true;
  const fencing = fleet.tick();
  (await coordinator.next('tick')).resolve(step({}));
  await fencing;
  await until(() => errors.length > 0, { what: 'the write-back failing while the store is down' });
  down = false;
  await memory.save(0, 2, undefined); // back, and empty
  const rejoining = fleet.tick();
  (await coordinator.next('tick')).resolve({ members: 0, index: 0, leases: [], expired: true });
  await rejoining;
  await until(async () => (await memory.load(0, 2))?.sequence === 12, { what: 'the kept session written back on joining again' });
});

it('a successor resuming below an interaction still handled (its sequence held back) emits the events its predecessor emitted no more', async () => {
  const { emulator, admin } = await startEmulator({ gateway: { shards: 1 } });
  await admin.commands.sync(emulator.seed.applicationId, [{ name: 'ping', description: 'Ping' }]);
  const coordinator = new MemoryShardCoordinator({ leaseMs: 600 });
  const sessionStore = new MemoryGatewaySessionStore();
  const clients = [0, 1].map(() => new Client({ baseUrl: emulator.url, auth: { botToken: emulator.seed.botToken }, gateway: { coordinator, sessionStore } }));
  const emitted: string[] = [];
  let release = () => undefined as void;
  const handling = new Promise<void>((resolve) => (release = resolve));
  for (const [member, client] of clients.entries()) {
    client.gateway.on('dispatch', (event) => {
      if (event.t === 'MESSAGE_CREATE') emitted.push(`${(event.d as { id: string }).id} by member ${member}`);
    });
    client.gateway.onCommand('ping', async () => handling);
  }
  const [first, second] = clients as [Client, Client];
  try {
    await first.gateway.connect();
    await until(() => first.gateway.shards[0]?.status === 'ready', { what: 'member 0 running the shard' });
    emulator.invokeCommand({ name: 'ping', guildId: null }).response.catch(() => undefined);
    for (const id of ['11', '12', '13']) emulator.dispatchEvent('MESSAGE_CREATE', { id, channel_id: '1', content: id });
    await until(() => emitted.length === 3, { what: 'the three messages emitted by member 0' });
    // Handed off while the interaction is still handled: the saved sequence stays below it, so member 1's resume replays the messages.
    await first.close({ handOff: true, drainTimeoutMs: 1 });
    await second.gateway.connect();
    await until(() => second.gateway.shards[0]?.status === 'ready', { what: 'member 1 resuming the shard' });
    emulator.dispatchEvent('MESSAGE_CREATE', { id: '14', channel_id: '1', content: '14' });
    await until(() => emitted.some((line) => line.startsWith('14 ')), { what: 'a message after the hand-off emitted' });
    expect(emulator.gatewayStats.forBot().resumes, 'member 1 resumed the session').toBe(1);
    expect(emitted).toEqual(['11 by member 0', '12 by member 0', '13 by member 0', '14 by member 1']);
  } finally {
    release();
    for (const client of clients) await client.close();
  }
});
