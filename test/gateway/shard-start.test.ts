/**
 * Every shard starts in one place (`gateway/shard-start.ts`): a fixed shard list, a fleet's lease and a reshard's next set each
 * start theirs through `startShard`, seen here through a fake factory (what each shard was asked, in order: created, its
 * stored session restored, connected) and a spy on `startShard` (a caller that starts shards by hand goes red).
 */
import { beforeEach, expect, it, vi } from 'vitest';
import { LastSessions, MemoryGatewaySessionStore } from '../../src/gateway/gateway-session-store.js';
import { withCount } from '../../src/gateway/reshard.js';
import type { ShardPlan } from '../../src/gateway/shard-plan.js';
import { ShardSets } from '../../src/gateway/shard-sets.js';
import { connectWhileHeld, RECONNECT_AFTER_MS, type ShardAdmission, startAll, startShard } from '../../src/gateway/shard-start.js';
import { GatewayFatalError } from '../../src/index.js';
import type { ShardHandle } from '../../src/gateway/shards.js';
import { createFleet } from '../../src/gateway/fleet.js';
import { Client } from '../../src/index.js';
import { type Emulator, MemoryShardCoordinator } from '../../src/testing/index.js';
import { ScriptedCoordinator, step } from '../helpers/scripted-coordinator.js';
import { startShardedEmulator } from '../helpers/sharded-emulator.js';
import { until } from '../helpers/until.js';

vi.mock('../../src/gateway/shard-start.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/gateway/shard-start.js')>();
  return { ...actual, startShard: vi.fn(actual.startShard), startAll: vi.fn(actual.startAll) };
});

const started = vi.mocked(startShard);
/** A fixed list's shards start through `startAll`, which starts each through `startShard` in its own module. */
const startedAll = vi.mocked(startAll);
beforeEach(() => {
  started.mockClear(); // in braces: a function beforeEach returns is run as its cleanup
  startedAll.mockClear();
});

/** What each shard was asked, in order (`<count>/<id> <step>`), and the Gateway's parts around the sets, faked. */
function setsWith(store: MemoryGatewaySessionStore) {
  const log: string[] = [];
  const newShard = (id: number, plan: ShardPlan): ShardHandle => {
    const name = `${plan.count}/${id}`;
    log.push(`${name} create`);
    const shard: ShardHandle = {
      ...{ id, status: 'idle', sessionId: undefined, sequence: null, latency: undefined, lastAckAt: undefined, resumeUrl: undefined },
      restore: (record) => {
        log.push(`${name} restore ${record.sessionId}`);
        shard.sessionId = record.sessionId;
        shard.sequence = record.sequence;
      },
      connect: async () => {
        log.push(`${name} connect`);
        shard.status = 'ready';
        shard.sessionId ??= `new-${name}`;
        shard.sequence ??= 1;
      },
      destroy: async () => void log.push(`${name} destroy`),
    };
    return shard;
  };
  const sets = new ShardSets({
    ...{ newShard, store, storeFailed: () => undefined, report: () => undefined, now: () => Date.now(), maxShards: 16 },
    record: (shard) => (shard.sessionId === undefined ? undefined : { sessionId: shard.sessionId, sequence: shard.sequence }),
  });
  return { sets, log };
}

const plan: ShardPlan = { sharded: true, ids: [0, 1], count: 2, maxConcurrency: 1, perWorker: undefined };
/** The admissions `startShard` was called with for shards of `count`, by shard id. */
const admissions = (count: number): [number, ShardAdmission['kind'], boolean | undefined][] =>
  [...started.mock.calls, ...startedAll.mock.calls.flatMap(([target, ids, admission]) => ids.map((id) => [target, id, admission] as const))]
    .filter(([target]) => target.count === count)
    .map(([, id, admission]) => [id, admission.kind, admission.kind === 'fixed' ? admission.restore : undefined] as const)
    .sort(([a], [b]) => a - b) as [number, ShardAdmission['kind'], boolean | undefined][];

it('a fixed shard list starts each shard through startShard: created, its stored session restored, its saver registered, then connected', async () => {
  const store = new MemoryGatewaySessionStore();
  await store.save(1, 2, { sessionId: 'kept-1', sequence: 5 });
  const { sets, log } = setsWith(store);
  sets.current.plan = plan;
  await sets.startFixed();
  expect(admissions(2), 'every id of the list, through the one start').toEqual([
    [0, 'fixed', true],
    [1, 'fixed', true],
  ]);
  expect(sets.current.shards.map((shard) => shard.id)).toEqual([0, 1]);
  expect([...sets.current.savers.keys()].sort(), 'a saver per shard').toEqual([0, 1]);
  await sets.connect(undefined);
  expect(
    log.filter((line) => line.startsWith('2/1')),
    'restored before it connects',
  ).toEqual(['2/1 create', '2/1 restore kept-1', '2/1 connect']);
  sets.current.savers.get(0)?.schedule();
  await sets.current.savers.get(0)?.flush();
  expect(await store.load(0, 2), "the registered saver writes shard 0's session").toEqual({ sessionId: 'new-2/0', sequence: 1 });
});

it("a fleet's lease starts its shard through startShard: restored from the store before it connects, its saver writing the lease's fence", async () => {
  const store = new MemoryGatewaySessionStore();
  await store.save(0, 2, { sessionId: 'kept-0', sequence: 9 });
  const { sets, log } = setsWith(store);
  sets.current.plan = plan;
  const coordinator = new ScriptedCoordinator(1000);
  const fleet = sets.fleetOf(sets.current, coordinator, 'me');
  for (const answer of [step({}), step({ 0: 7 })]) {
    const ticking = fleet.tick();
    (await coordinator.next('tick')).resolve(answer);
    await ticking;
  }
  await until(() => log.includes('2/0 connect'), { what: `shard 0 connected under its lease (log: ${log.join(', ')})` });
  expect(admissions(2), 'the leased shard, through the one start').toEqual([[0, 'lease', undefined]]);
  expect(started.mock.calls[0]?.[2]).toMatchObject({ kind: 'lease', fence: 7 });
  expect(log).toEqual(['2/0 create', '2/0 restore kept-0', '2/0 connect']);
  expect(sets.current.shards.map((shard) => shard.id)).toEqual([0]);
  sets.current.savers.get(0)?.schedule();
  await sets.current.savers.get(0)?.flush();
  expect(await store.load(0, 2), 'saved with the fence of the lease it runs under').toEqual({ sessionId: 'kept-0', sequence: 9, fence: 7 });
});

it("a reshard's next set starts each shard through startShard without loading a stale record, its savers registered before the switch", async () => {
  const store = new MemoryGatewaySessionStore();
  await store.save(2, 3, { sessionId: 'stale-2', sequence: 3 }); // of an earlier run of 3 shards: never resumed
  const { sets, log } = setsWith(store);
  sets.current.plan = plan;
  await sets.startFixed();
  await sets.connect(undefined);
  started.mockClear();
  startedAll.mockClear();
  await sets.reshard(withCount(plan, 3), undefined);
  expect(admissions(3), 'every shard of the next set, through the one start, not loaded').toEqual([
    [0, 'fixed', false],
    [1, 'fixed', false],
    [2, 'fixed', false],
  ]);
  expect(
    log.filter((line) => line.startsWith('3/2')),
    'identified, the stale record not restored',
  ).toEqual(['3/2 create', '3/2 connect']);
  expect(sets.current.plan?.count, 'switched').toBe(3);
  expect([...sets.current.savers.keys()].sort()).toEqual([0, 1, 2]);
  await Promise.all([...sets.current.savers.values()].map((saver) => saver.flush()));
  expect(await store.load(2, 3), "the switch saved the new set's sessions over the stale one").toEqual({ sessionId: 'new-3/2', sequence: 1 });
});

it('a lease lost while the session loaded keeps nothing of the shard, and a held shard whose connect fails is reported and connected again', async () => {
  const store = new MemoryGatewaySessionStore();
  const list: ShardHandle[] = [];
  const savers = new Map();
  const errors: unknown[] = [];
  let connects = 0;
  const shard = (id: number): ShardHandle => ({
    ...{ id, status: 'idle', sessionId: undefined, sequence: null, latency: undefined, lastAckAt: undefined, resumeUrl: undefined },
    restore: () => undefined,
    connect: async () => {
      if (++connects === 1) throw new Error('the first connect failed');
    },
    destroy: async () => undefined,
  });
  const target = { create: shard, list, savers, count: 1, store, record: () => undefined, storeFailed: () => undefined, report: () => undefined };
  const lost = await startShard(target, 0, { kind: 'lease', holds: () => false, connected: () => undefined });
  expect(lost, 'nothing started').toBeUndefined();
  expect([list.length, savers.size], 'no shard, no saver kept').toEqual([0, 0]);
  let ready = false;
  const reported = { ...target, report: (report: { payload: unknown }) => void errors.push(report.payload) };
  await startShard(reported, 0, { kind: 'lease', holds: () => true, connected: () => void (ready = true) });
  await until(() => ready, { what: `connected again after the failed connect (${connects} connects)`, timeoutMs: 4000 });
  expect(String(errors[0]), 'the failure reported').toMatch(/the first connect failed/);
  expect(connects).toBe(2);
});

it('a held shard failing to connect again and again is one error and a debug line once it connects; a fatal close is not tried again', async () => {
  vi.useFakeTimers();
  try {
    const reports: string[] = [];
    const report = (r: { event: string; payload: unknown }) =>
      void reports.push(`${r.event}: ${r.payload instanceof Error ? r.payload.message : String(r.payload)}`);
    let connects = 0;
    let ready = false;
    connectWhileHeld(
      async () => {
        if (++connects <= 3) throw new Error(`connect ${connects} failed`);
      },
      () => true,
      report,
      () => void (ready = true),
    );
    // Waits of 1, 2 and 4 s: doubling with each failure in a row.
    for (const wait of [1, 2, 4]) await vi.advanceTimersByTimeAsync(RECONNECT_AFTER_MS * wait);
    expect(ready, `connected on the fourth attempt (${connects} attempts)`).toBe(true);
    expect(reports, 'three failures, then connected').toEqual([
      'error: connect 1 failed',
      expect.stringMatching(/^debug: the shard is up after 3 failed attempts over \d+ ms$/),
    ]);

    const fatal: string[] = [];
    let tries = 0;
    connectWhileHeld(
      async () => {
        tries++;
        throw new GatewayFatalError(4004, 'Authentication failed', 'check the bot token');
      },
      () => true,
      (r) => void fatal.push(String(r.event)),
    );
    await vi.advanceTimersByTimeAsync(RECONNECT_AFTER_MS * 5);
    expect([tries, fatal], 'a fatal close: one attempt, one error').toEqual([1, ['error']]);
  } finally {
    vi.useRealTimers();
  }
});

it("createFleet's shards start through startShard too (a supervisor built without ShardSets)", async () => {
  const coordinator = new ScriptedCoordinator(1000);
  const list: ShardHandle[] = [];
  const fleet = createFleet(
    coordinator,
    1,
    {
      ...{ list, savers: new Map(), store: undefined, last: new LastSessions(), holds: () => true, record: () => undefined },
      ...{ storeFailed: () => undefined, report: () => undefined },
      create: (id) => ({
        ...{ id, status: 'idle', sessionId: undefined, sequence: null, latency: undefined, lastAckAt: undefined, resumeUrl: undefined },
        ...{ restore: () => undefined, connect: async () => undefined, destroy: async () => undefined },
      }),
    },
    'me',
  );
  for (const answer of [step({}), step({ 0: 2 })]) {
    const ticking = fleet.tick();
    (await coordinator.next('tick')).resolve(answer);
    await ticking;
  }
  await until(() => list.length === 1, { what: 'shard 0 started' });
  expect(admissions(1), 'the leased shard, through the one start').toEqual([[0, 'lease', undefined]]);
});

it("a Gateway's fixed list and a Gateway in a fleet start their shards through startShard", async () => {
  // One emulator each: the second Gateway's Identify does not wait for the first one's window.
  const emulators = await Promise.all([0, 1].map(() => startShardedEmulator({ gateway: { shards: 2, maxConcurrency: 2 } })));
  const [one, two] = emulators as [Emulator, Emulator];
  const fixed = new Client({
    ...{ baseUrl: one.url, auth: { botToken: one.seed.botToken } },
    gateway: { shards: 'auto', sessionStore: new MemoryGatewaySessionStore() },
  });
  const coordinator = new MemoryShardCoordinator({ leaseMs: 600 });
  const member = new Client({ baseUrl: two.url, auth: { botToken: two.seed.botToken }, gateway: { coordinator } });
  try {
    await fixed.gateway.connect();
    expect(admissions(2), "the fixed list's shards").toEqual([
      [0, 'fixed', true],
      [1, 'fixed', true],
    ]);
    started.mockClear();
    startedAll.mockClear();
    await member.gateway.connect();
    await until(() => member.gateway.shards.length === 2, { what: `the fleet member running both shards (${member.gateway.shards.length})` });
    expect(admissions(2), "the fleet member's leased shards").toEqual([
      [0, 'lease', undefined],
      [1, 'lease', undefined],
    ]);
  } finally {
    await Promise.all([fixed.close(), member.close()]);
    await Promise.all(emulators.map((emulator) => emulator.close()));
  }
});
