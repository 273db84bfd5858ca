/**
 * The shard sets' dispatch rules that need no connection: what a successor skips of a predecessor's replay (bounded by the
 * stored record, and over at RESUMED), and what a hand-off leaves of events waiting for their switch claims.
 */
import { expect, it } from 'vitest';
import { FleetSupervisor, type FleetHost } from '../../src/gateway/coordinator.js';
import { dispatchedAhead, type GatewaySessionRecord, MAX_DISPATCHED_AHEAD } from '../../src/gateway/gateway-session-store.js';
import type { GatewayDispatchEvent } from '../../src/gateway/options.js';
import { SwitchEvents, switchEventKey } from '../../src/gateway/reshard.js';
import { ShardSets } from '../../src/gateway/shard-sets.js';
import { type ShardHandle, sessionRecordOf } from '../../src/gateway/shards.js';
import { MemoryShardCoordinator } from '../../src/testing/index.js';
import { until } from '../helpers/until.js';

function hostOfSets() {
  return {
    newShard: (): ShardHandle => {
      throw new Error('no shard is started here');
    },
    record: () => undefined,
    store: undefined,
    storeFailed: () => undefined,
    report: () => undefined,
    now: () => 0,
    maxShards: 16,
  };
}

function sets(): ShardSets {
  return new ShardSets(hostOfSets());
}

it("a predecessor's `dispatched` is skipped during the replay only: RESUMED ends it, whatever the stored bound said", () => {
  const shards = sets();
  shards.current.replayed.set(0, Number.MAX_SAFE_INTEGER); // a planted value
  const out: string[] = [];
  const admit = (t: string, s: number) =>
    shards.admit(shards.current, { t, s, d: { id: String(s) }, shardId: 0 } satisfies GatewayDispatchEvent, () => out.push(`${t} ${s}`));
  admit('MESSAGE_CREATE', 6); // replayed: the predecessor emitted it
  admit('INTERACTION_CREATE', 7); // interactions have their own claim: never skipped here
  admit('RESUMED', 8);
  admit('MESSAGE_CREATE', 9);
  admit('MESSAGE_CREATE', 10);
  expect(out, 'after RESUMED every event is live again').toEqual(['INTERACTION_CREATE 7', 'RESUMED 8', 'MESSAGE_CREATE 9', 'MESSAGE_CREATE 10']);
});

it("a record's `dispatched` counts only above its sequence and at most MAX_DISPATCHED_AHEAD above it", () => {
  expect(dispatchedAhead({ sessionId: 's', sequence: 50, dispatched: 60 })).toBe(60);
  expect(dispatchedAhead({ sessionId: 's', sequence: 50, dispatched: 50 }), 'not above: nothing to skip').toBeUndefined();
  expect(dispatchedAhead({ sessionId: 's', sequence: 50, dispatched: 3 }), 'below: nothing to skip').toBeUndefined();
  expect(dispatchedAhead({ sessionId: 's', sequence: null, dispatched: 3 })).toBeUndefined();
  expect(dispatchedAhead({ sessionId: 's', sequence: 50 })).toBeUndefined();
  expect(dispatchedAhead({ sessionId: 's', sequence: 5, dispatched: Number.MAX_SAFE_INTEGER }), 'a planted value, bounded').toBe(5 + MAX_DISPATCHED_AHEAD);
});

/** A memory coordinator whose first claim answers only when the test says (Redis busy). */
class SlowFirstClaim extends MemoryShardCoordinator {
  answer: (() => void) | undefined;
  override async claimInteraction(member: string, key: string, ttlMs?: number): Promise<boolean> {
    if (this.answer === undefined) await new Promise<void>((resolve) => (this.answer = resolve));
    return super.claimInteraction(member, key, ttlMs);
  }
}

it('events waiting for their switch claims at a hand-off: the record says none of them was dispatched, so the successor emits what the holder did not', async () => {
  const coordinator = new SlowFirstClaim({ leaseMs: 60_000 });
  const records = new Map<number, GatewaySessionRecord | undefined>();
  const shard = { id: 1, sessionId: 'session', sequence: 12, resumeUrl: undefined } as unknown as ShardHandle;
  const host = (): FleetHost => ({
    start: async () => undefined,
    stop: async (id) => void records.set(id, sessionRecordOf(shard, undefined, a.inFlight)), // a hand-off saves the session
    ready: () => true,
    debug: () => undefined,
    failed: () => undefined,
  });
  const a = new FleetSupervisor(coordinator, 2, 'a', host());
  await a.tick();
  await a.tick();
  expect(a.shardIds).toEqual([0, 1]);
  // During the switch, event 10's claim is slow; 11 and 12 wait behind it (as ShardSets.admit queues them).
  const events = new SwitchEvents();
  const emitted: number[] = [];
  const event = (s: number): GatewayDispatchEvent => ({ t: 'MESSAGE_CREATE', s, d: { id: String(s) }, shardId: 1 });
  for (const s of [10, 11, 12]) {
    const key = switchEventKey('MESSAGE_CREATE', { id: String(s) });
    events.queue(
      1,
      event(s),
      () => a.claim(key, 1, 5_000),
      () => emitted.push(s),
      () => a.inFlight.begin(1, key, s, true),
    );
  }
  const b = new FleetSupervisor(coordinator, 2, 'b', host());
  await b.tick();
  await a.tick(); // a hands shard 1 off to b
  expect(a.shardIds).toEqual([0]);
  expect(records.get(1), 'saved at the hand-off: resumes before 10, and claims nothing of 10..12 as dispatched').toEqual({ sessionId: 'session', sequence: 9 });
  coordinator.answer?.();
  await until(() => !events.queued(1, 1), { what: "shard 1's switch queue on a settling" });
  expect(emitted, 'a emits the one whose claim it won (10); 11 and 12, claimed after the hand-off, are left to b').toEqual([10]);
  // b resumes from the record: the service replays 10..12, none skipped as already emitted; b's claims decide.
  const successor = new ShardSets({ ...hostOfSets(), now: () => 0 });
  const through = dispatchedAhead(records.get(1) as GatewaySessionRecord);
  if (through !== undefined) successor.current.replayed.set(1, through);
  const passed: number[] = [];
  for (const s of [10, 11, 12]) successor.admit(successor.current, event(s), () => passed.push(s));
  expect(passed).toEqual([10, 11, 12]);
  const claimedByB = await Promise.all(
    [10, 11, 12].map((s) => coordinator.claimInteraction('b', `${switchEventKey('MESSAGE_CREATE', { id: String(s) })}`, 5_000)),
  );
  expect(claimedByB, "10 is a's (emitted there), 11 and 12 b's: each once").toEqual([false, true, true]);
});

it("during a fleet's switch, a set's shard drops a resume's replay of an event (same sequence) until its new session (READY) starts the sequences again", async () => {
  const coordinator = new MemoryShardCoordinator({ leaseMs: 60_000 });
  const shard = (id: number) =>
    ({
      id,
      sessionId: undefined,
      status: 'ready',
      connect: async () => undefined,
      destroy: async () => undefined,
      restore: () => undefined,
    }) as unknown as ShardHandle;
  const shards = new ShardSets({ ...hostOfSets(), newShard: shard });
  shards.current.plan = { sharded: true, ids: [0], count: 1, maxConcurrency: 1, perWorker: undefined };
  const fleet = shards.fleetOf(shards.current, coordinator, 'a');
  await fleet.tick();
  await coordinator.requestReshard(2);
  await fleet.tick(); // the step that starts the next set: the switch's claims begin
  expect(shards.next?.plan?.count, 'the next set started').toBe(2);
  const out: string[] = [];
  const admit = (name: string, t: string, s: number, id = '1000632') =>
    shards.admit(shards.current, { t, s, d: { id, content: 'm' }, shardId: 0 }, () => out.push(name));
  admit('message', 'MESSAGE_CREATE', 5);
  admit('message replayed', 'MESSAGE_CREATE', 5);
  admit('new session', 'READY', 1);
  admit('same payload, new session', 'MESSAGE_CREATE', 5);
  admit('last', 'MESSAGE_CREATE', 6, '1000633'); // the shard's events keep their order: once it is out, every one before it was decided
  await until(() => out.includes('last'), { what: 'the last event, behind the claims of the ones before it' });
  expect(out, 'the replay dropped; the new session at sequence 5 again is another event').toEqual([
    'message',
    'new session',
    'same payload, new session',
    'last',
  ]);
  await shards.close();
  await fleet.retire(async () => undefined);
});
