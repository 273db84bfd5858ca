/**
 * A fleet member's typed events (`gateway/fleet-events.ts`, emitted by the supervisor in `gateway/coordinator.ts`): a shard
 * taken over from a member that died (by name), released (why), fenced; members changed; `serving` when what is held
 * changes (a spare says it is one); and the same on the `gateway:fleet` diagnostics channel.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { expect, it } from 'vitest';
import { FleetSupervisor, type FleetHost } from '../../src/gateway/coordinator.js';
import { emitFleetEvent, type FleetEvent, type PreviousHolder } from '../../src/gateway/fleet-events.js';
import { createFleet } from '../../src/gateway/fleet.js';
import { LastSessions, MemoryGatewaySessionStore } from '../../src/gateway/gateway-session-store.js';
import type { ShardHandle } from '../../src/gateway/shards.js';
import { DIAGNOSTICS_CHANNELS } from '../../src/diagnostics.js';
import { ScriptedCoordinator, step } from '../helpers/scripted-coordinator.js';
import { MemoryShardCoordinator } from '../../src/testing/shard-coordinator.js';
import { until } from '../helpers/until.js';

/** A supervisor of `count` shards whose host records its fleet events and starts. */
function member(count = 4) {
  const coordinator = new ScriptedCoordinator(1000);
  const events: FleetEvent[] = [];
  const starts: { shardId: number; lease: unknown }[] = [];
  const clock = { now: 0 };
  const host: FleetHost = {
    start: async (shardId, lease) => void starts.push({ shardId, lease }),
    stop: async () => undefined,
    ready: () => true,
    debug: () => undefined,
    failed: (error) => {
      throw error;
    },
    event: (event) => events.push(event),
  };
  const fleet = new FleetSupervisor(coordinator, count, 'me', host, () => clock.now);
  const answer = async (tick: ReturnType<typeof step>) => {
    const ticking = fleet.tick();
    (await coordinator.next('tick')).resolve(tick);
    await ticking;
  };
  return { coordinator, fleet, events, starts, clock, answer };
}

const types = (events: FleetEvent[]) => events.map((event) => event.type);

it('says once that the process serves nothing (a spare) after joining, then what it serves each time that changes, and when the members change', async () => {
  const { events, answer } = member(4);
  await answer(step({}, 3));
  expect(events, 'the joining step (it takes nothing) says nothing').toEqual([]);
  await answer(step({}, 5));
  expect(events).toEqual([
    { type: 'membersChanged', member: 'me', shardCount: 4, members: 5, fairShare: 1 },
    { type: 'serving', member: 'me', shardCount: 4, shardIds: [], spare: true, members: 5, fairShare: 1 },
  ]);
  await answer(step({}, 5));
  expect(events, 'nothing changed: nothing said').toHaveLength(2);
  await answer(step({ 2: 7 }, 2));
  expect(events.slice(2)).toEqual([
    { type: 'membersChanged', member: 'me', shardCount: 4, members: 2, fairShare: 2 },
    { type: 'serving', member: 'me', shardCount: 4, shardIds: [2], spare: false, members: 2, fairShare: 2 },
  ]);
  await answer(step({ 2: 7, 3: 8 }, 2));
  expect(events.slice(4)).toEqual([{ type: 'serving', member: 'me', shardCount: 4, shardIds: [2, 3], spare: false, members: 2, fairShare: 2 }]);
});

it('a shard whose former holder died is announced taken over with its name; one handed off by a live member, or left behind by one that closed, is not', async () => {
  const { events, starts, answer } = member(4);
  await answer(step({}));
  const dead: PreviousHolder = { member: 'pid-1', name: 'alpha', live: false, left: false };
  const live: PreviousHolder = { member: 'pid-2', name: 'beta', live: true };
  const left: PreviousHolder = { member: 'pid-3', name: 'gamma', live: false, left: true };
  await answer({
    ...step({ 0: 1, 1: 2, 2: 3 }),
    previous: new Map([
      [0, dead],
      [1, live],
      [2, left],
    ]),
  });
  expect(events.filter((event) => event.type === 'shardTakenOver')).toEqual([
    { type: 'shardTakenOver', member: 'me', shardCount: 4, shardId: 0, fromMember: 'pid-1', fromName: 'alpha' },
  ]);
  // The host starts each shard knowing its fence and former holder (its shardAcquired event says resumed or identified).
  expect(starts).toEqual([
    { shardId: 0, lease: { fence: 1, from: dead } },
    { shardId: 1, lease: { fence: 2, from: live } },
    { shardId: 2, lease: { fence: 3, from: left } },
  ]);
});

it('a shard fenced, handed off to rebalance, given back when closing: each says so, with why', async () => {
  const { coordinator, fleet, events, clock, answer } = member(2);
  await answer(step({}));
  await answer(step({ 0: 1, 1: 2 }));
  // Another process holds shard 0 now (its fence changed): fenced.
  await answer(step({ 0: 9, 1: 2 }));
  expect(events.find((event) => event.type === 'shardFenced')).toEqual({
    type: 'shardFenced',
    member: 'me',
    shardCount: 2,
    shardId: 0,
    reason: 'its lease is held by another process',
  });
  // Two members and this one holds two: one is handed off, and released once the coordinator took it back.
  const ticking = fleet.tick();
  (await coordinator.next('tick')).resolve(step({ 0: 3, 1: 2 }, 2));
  await ticking;
  const release = await coordinator.next('release');
  expect(
    events.some((event) => event.type === 'shardReleased'),
    'not released before the coordinator answered',
  ).toBe(false);
  release.resolve(undefined);
  await until(() => events.some((event) => event.type === 'shardReleased'), { what: 'the hand-off released' });
  const handed = (release.args[2] as { shardId: number }).shardId;
  expect(events.filter((event) => event.type === 'shardReleased')).toEqual([
    { type: 'shardReleased', member: 'me', shardCount: 2, shardId: handed, reason: 'rebalance' },
  ]);
  clock.now = 100;
  const closing = fleet.close(async () => undefined);
  (await coordinator.next('leave')).resolve(undefined);
  await closing;
  expect(events.filter((event) => event.type === 'shardReleased').at(-1)).toEqual({
    type: 'shardReleased',
    member: 'me',
    shardCount: 2,
    shardId: 1 - handed,
    reason: 'closing',
  });
});

it('a failed release or leave is no release: no event', async () => {
  const { coordinator, fleet, events, answer } = member(1);
  await answer(step({}));
  await answer(step({ 0: 1 }));
  const closing = fleet.close(async () => undefined).catch(() => undefined);
  (await coordinator.next('leave')).reject(new Error('Redis did not answer'));
  await closing;
  expect(types(events)).not.toContain('shardReleased');
});

it('publishes each event on the gateway:fleet channel, then emits it under its type', () => {
  const published: unknown[] = [];
  const listener = (message: unknown) => published.push(message);
  subscribe(DIAGNOSTICS_CHANNELS.gatewayFleet, listener);
  try {
    const emitted: unknown[] = [];
    const event: FleetEvent = { type: 'shardFenced', member: 'me', shardCount: 2, shardId: 1, reason: 'why' };
    emitFleetEvent(event, (name, payload) => emitted.push([name, payload]));
    expect(published).toEqual([event]);
    expect(emitted).toEqual([['shardFenced', event]]);
  } finally {
    unsubscribe(DIAGNOSTICS_CHANNELS.gatewayFleet, listener);
  }
});

it('shardAcquired comes once the shard is up: resumed when its stored session went on, identified when there was none or the service refused it', async () => {
  const coordinator = new ScriptedCoordinator(1000);
  const store = new MemoryGatewaySessionStore();
  await store.save(0, 3, { sessionId: 'kept', sequence: 5 });
  await store.save(2, 3, { sessionId: 'refused', sequence: 9 });
  const events: FleetEvent[] = [];
  const list: ShardHandle[] = [];
  const shard = (id: number): ShardHandle => {
    const handle: ShardHandle = {
      ...{ id, status: 'idle', sessionId: undefined, sequence: null, latency: undefined, lastAckAt: undefined, resumeUrl: undefined },
      restore: (record) => void (handle.sessionId = record.sessionId),
      // Shard 2's stored session is refused: it identifies, with a new session.
      connect: async () => void (id === 2 || handle.sessionId === undefined ? (handle.sessionId = `new-${id}`) : undefined),
      destroy: async () => undefined,
    };
    return handle;
  };
  const fleet = createFleet(
    coordinator,
    3,
    {
      ...{ create: shard, list, savers: new Map(), store, last: new LastSessions(), holds: () => true },
      ...{ record: () => undefined, storeFailed: () => undefined, report: () => undefined, event: (event) => events.push(event) },
    },
    'me',
  );
  const answer = async (tick: ReturnType<typeof step>) => {
    const ticking = fleet.tick();
    (await coordinator.next('tick')).resolve(tick);
    await ticking;
  };
  await answer(step({}));
  const dead: PreviousHolder = { member: 'old', name: 'alpha', live: false };
  await answer({ ...step({ 0: 4, 1: 5, 2: 6 }), previous: new Map([[0, dead]]) });
  await until(() => events.filter((event) => event.type === 'shardAcquired').length === 3, { what: 'three shardAcquired events' });
  const acquired = events.filter((event) => event.type === 'shardAcquired').sort((a, b) => a.shardId - b.shardId);
  expect(acquired).toEqual([
    { type: 'shardAcquired', member: 'me', shardCount: 3, shardId: 0, fence: 4, resumed: true, from: dead, durationMs: expect.any(Number) },
    { type: 'shardAcquired', member: 'me', shardCount: 3, shardId: 1, fence: 5, resumed: false, from: undefined, durationMs: expect.any(Number) },
    { type: 'shardAcquired', member: 'me', shardCount: 3, shardId: 2, fence: 6, resumed: false, from: undefined, durationMs: expect.any(Number) },
  ]);
});

/** A supervisor of `count` shards on a shared in-memory coordinator, recording its `serving` events (each one's shard ids). */
function memoryMember(coordinator: FlakyCoordinator, clock: { now: number }, id: string, count: number) {
  const serving: number[][] = [];
  const failures: unknown[] = [];
  const host: FleetHost = {
    start: async () => undefined,
    stop: async () => undefined,
    ready: () => true,
    debug: () => undefined,
    failed: (error) => void failures.push(error),
    event: (event) => {
      if (event.type === 'serving') serving.push(event.shardIds);
    },
  };
  return { fleet: new FleetSupervisor(coordinator, count, id, host, () => clock.now), serving, failures };
}

/** The in-memory coordinator of `/testing`, whose steps can be made to fail (Redis down). */
class FlakyCoordinator extends MemoryShardCoordinator {
  failing = false;
  override tick(...args: Parameters<MemoryShardCoordinator['tick']>): ReturnType<MemoryShardCoordinator['tick']> {
    return this.failing ? Promise.reject(new Error('the coordinator did not answer')) : super.tick(...args);
  }
}

it('says serving whenever what is held changes, once per change: a hand-off to a member that joined, a lease lost while the coordinator is down, closing', async () => {
  const clock = { now: 0 };
  const coordinator = new FlakyCoordinator({ leaseMs: 1000, clock: () => clock.now });
  const a = memoryMember(coordinator, clock, 'a', 2);
  await a.fleet.tick();
  await a.fleet.tick();
  expect(a.serving, "a's first acquiring step").toEqual([[0, 1]]);
  const b = memoryMember(coordinator, clock, 'b', 2);
  await b.fleet.tick();
  await b.fleet.tick();
  expect(b.serving, 'b joins as a spare').toEqual([[]]);
  // a sees two members: it hands one shard off (a release), said once, at the step's end.
  await a.fleet.tick();
  expect(a.serving, 'the hand-off to rebalance').toEqual([[0, 1], [0]]);
  await a.fleet.tick();
  expect(a.serving, 'a step that changes nothing says nothing').toHaveLength(2);
  await until(() => coordinator.holders(2).size === 1, { what: 'the hand-off released' });
  await b.fleet.tick();
  expect(b.serving, 'b takes the shard handed off').toEqual([[], [1]]);
  // The coordinator stops answering; a's lease lapses on its clock: the shard is fenced, and serving says so with no step answered.
  coordinator.failing = true;
  clock.now += 900;
  expect(a.fleet.holds(0)).toBe(false);
  expect(a.serving, 'the lease lost while the coordinator is down').toEqual([[0, 1], [0], []]);
  await a.fleet.tick(); // fails: nothing more to say
  expect(a.failures.length, 'the failed steps reported').toBeGreaterThan(0);
  expect(a.serving).toHaveLength(3);
  // b closes: its shard is given back.
  await b.fleet.close(async () => undefined);
  expect(b.serving, 'closing').toEqual([[], [1], []]);
});

it('says once what a step changed: a shard lost and another acquired in one answer are one serving', async () => {
  const { events, answer } = member(4);
  await answer(step({}));
  await answer(step({ 0: 1, 1: 2 }));
  await answer(step({ 1: 2, 2: 5 }));
  expect(events.filter((event) => event.type === 'shardFenced').map((event) => event.shardId)).toEqual([0]);
  expect(events.filter((event) => event.type === 'serving').map((event) => event.shardIds)).toEqual([
    [0, 1],
    [1, 2],
  ]);
});

it("says serving when a reshard's switch retires the old set (its shards released)", async () => {
  const clock = { now: 0 };
  const coordinator = new FlakyCoordinator({ leaseMs: 1000, clock: () => clock.now });
  const a = memoryMember(coordinator, clock, 'a', 2);
  await a.fleet.tick();
  await a.fleet.tick();
  await a.fleet.retire(async () => undefined);
  expect(a.serving).toEqual([[0, 1], []]);
  expect(coordinator.holders(2).size, 'the leases given back').toBe(0);
});
