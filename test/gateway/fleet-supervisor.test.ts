/**
 * The fleet supervisor (`gateway/coordinator.ts`) alone, fast: a coordinator
 * whose every answer the test gives (late, failed, never) or the in-memory
 * one with several members, a host that records what it is told, and a
 * clock the test moves. Each test names the rule it guards.
 */
import { expect, it } from 'vitest';
import { FleetSupervisor, type FleetHost, type ShardCoordinator } from '../../src/gateway/coordinator.js';
import { MemoryShardCoordinator } from '../../src/testing/index.js';
import { ScriptedCoordinator, step } from '../helpers/scripted-coordinator.js';
import { until } from '../helpers/until.js';

/** A host that records each start and stop (`start 0`, `stop 0 handOff`, `stop 0 lost`), every shard READY. */
function recordingHost() {
  const log: string[] = [];
  const failures: unknown[] = [];
  const host: FleetHost = {
    start: async (shardId) => void log.push(`start ${shardId}`),
    stop: async (shardId, handOff) => void log.push(`stop ${shardId} ${handOff ? 'handOff' : 'lost'}`),
    ready: () => true,
    debug: () => undefined,
    failed: (error) => failures.push(error),
  };
  return { host, log, failures };
}

/** A supervisor on a clock the test moves (`clock.now`). */
function supervisor(coordinator: ShardCoordinator, count = 2, member = 'm') {
  const clock = { now: 0 };
  const recorded = recordingHost();
  const fleet = new FleetSupervisor(coordinator, count, member, recorded.host, () => clock.now);
  return { fleet, clock, ...recorded };
}

/** One step of `fleet`, answered with `answer` once the clock reads `at` (the step is sent at the clock's current time). */
async function answerStep(
  fleet: FleetSupervisor,
  coordinator: ScriptedCoordinator,
  answer: ReturnType<typeof step>,
  at?: { clock: { now: number }; now: number },
) {
  const ticking = fleet.tick();
  const call = await coordinator.next('tick');
  if (at !== undefined) at.clock.now = at.now;
  call.resolve(answer);
  await ticking;
  return call;
}

/** A supervisor holding `leases` (shard id to fence) after its joining step, on a lease of 1000 ms from time 0. */
async function holding(leases: Record<number, number>) {
  const coordinator = new ScriptedCoordinator(1000);
  const parts = supervisor(coordinator);
  await answerStep(parts.fleet, coordinator, step({}));
  await answerStep(parts.fleet, coordinator, step(leases));
  return { coordinator, ...parts };
}

it('a lease is known valid for 80% of leaseMs counted from when its renewal was sent, not from the reply', async () => {
  const coordinator = new ScriptedCoordinator(1000);
  const { fleet, clock, log } = supervisor(coordinator);
  await answerStep(fleet, coordinator, step({}));
  // Sent at 0, answered at 700: valid until 800 (from the reply it would be 1500).
  await answerStep(fleet, coordinator, step({ 0: 1 }), { clock, now: 700 });
  expect(log).toEqual(['start 0']);
  clock.now = 799;
  expect(fleet.holds(0), 'valid just before 80% of the lease from the send').toBe(true);
  clock.now = 801;
  expect(fleet.holds(0), 'lapsed 80% of the lease after the renewal was sent').toBe(false);
  await until(() => log.includes('stop 0 lost'), { what: 'shard 0 stopped as lost' });
});

it('a lease whose fence changed is fenced (another process took it meanwhile), not only a lease missing from the answer', async () => {
  const { fleet, coordinator, log } = await holding({ 0: 1, 1: 2 });
  await answerStep(fleet, coordinator, step({ 0: 5, 1: 2 }));
  expect(log).toEqual(['start 0', 'start 1', 'stop 0 lost']);
  expect(fleet.mayAnswer(0), 'an answer on the fenced shard').toBe(false);
  expect(fleet.holds(1)).toBe(true);
  // Acquired again under its new fence on a later step, and answerable again.
  const renewing = answerStep(fleet, coordinator, step({ 0: 5, 1: 2 }));
  await renewing;
  await until(() => log.includes('start 0', 1), { what: 'shard 0 started again' });
  expect(log.filter((line) => line === 'start 0')).toHaveLength(2);
});

it('the fair share is ceil(count / members): 8 shards on 3 members is 3, 3 and 2, and nobody hands off at 3', async () => {
  const clock = { now: 0 };
  const coordinator = new MemoryShardCoordinator({ leaseMs: 1000, clock: () => clock.now });
  const members = ['a', 'b', 'c'].map((name) => {
    const recorded = recordingHost();
    return { name, ...recorded, fleet: new FleetSupervisor(coordinator, 8, name, recorded.host, () => clock.now) };
  });
  const [a, b, c] = members as [(typeof members)[0], (typeof members)[0], (typeof members)[0]];
  // Two members first: 4 each.
  for (const member of [a, b, a, b]) await member.fleet.tick();
  expect([a.fleet.shardIds.length, b.fleet.shardIds.length]).toEqual([4, 4]);
  // A third joins: each of the two hands off one (4 > 3), never two, and the third takes what they release.
  await c.fleet.tick();
  await a.fleet.tick();
  await b.fleet.tick();
  await until(() => coordinator.holders(8).size === 6, { what: 'the two hand-offs released' });
  await c.fleet.tick();
  for (const member of members) await member.fleet.tick();
  expect(members.map((member) => member.fleet.shardIds.length)).toEqual([3, 3, 2]);
  expect(members.map((member) => member.log.filter((line) => line.endsWith('handOff')).length)).toEqual([1, 1, 0]);
  expect(new Set(members.flatMap((member) => member.fleet.shardIds)).size).toBe(8);
});

it("a claim is granted only with the coordinator's yes: a no, or a yes for a shard fenced meanwhile, runs nothing", async () => {
  const { fleet, coordinator } = await holding({ 0: 1 });
  const no = fleet.claim('i-no', 0);
  (await coordinator.next<boolean>('claimInteraction')).resolve(false);
  expect(await no).toBe(false);
  const yes = fleet.claim('i-yes', 0);
  (await coordinator.next<boolean>('claimInteraction')).resolve(true);
  expect(await yes).toBe(true);
  // Answered yes after another process took the lease: dropped.
  const late = fleet.claim('i-late', 0);
  const call = await coordinator.next<boolean>('claimInteraction');
  await answerStep(fleet, coordinator, step({ 0: 9 }));
  call.resolve(true);
  expect(await late, 'a yes answered after the shard was fenced').toBe(false);
});

it('a claim answered after the lease lapsed (the process slept) is dropped, and the shard fenced', async () => {
  const { fleet, coordinator, clock, log } = await holding({ 0: 1 });
  const claiming = fleet.claim('i1', 0);
  const call = await coordinator.next<boolean>('claimInteraction');
  clock.now = 5000; // slept past the lease; the claim's answer arrives on wake
  call.resolve(true);
  expect(await claiming, 'the claim answered after the lease lapsed runs nothing here').toBe(false);
  await until(() => log.includes('stop 0 lost'), { what: 'shard 0 fenced on wake' });
});

it('a claim that fails is tried again while the lease lasts (never run on a failure); one that hangs is given up when the lease lapses', async () => {
  const { fleet, coordinator, clock, failures } = await holding({ 0: 1 });
  const retried = fleet.claim('i1', 0);
  (await coordinator.next<boolean>('claimInteraction')).reject(new Error('READONLY'));
  (await coordinator.next<boolean>('claimInteraction')).reject(new Error('READONLY'));
  (await coordinator.next<boolean>('claimInteraction')).resolve(true);
  expect(await retried).toBe(true);
  expect(failures, 'one error per claim, however often it is tried').toHaveLength(1);

  // 30 ms of the lease left (clock at 770 of 800): the hanging claim is given up after that, then the lease has lapsed.
  clock.now = 770;
  const hanging = fleet.claim('i2', 0);
  await coordinator.next<boolean>('claimInteraction'); // never answered
  await until(() => failures.length === 2, { what: 'the hanging claim given up' });
  clock.now = 800;
  expect(await hanging).toBe(false);
  expect(String(failures[1])).toMatch(/no answer while shard 0's lease lasted/);
});

it("an event's claim of a fleet's switch (with ttlMs) is tried three times, each try waiting at most ttlMs, then rejects (its fallback decides)", async () => {
  const { fleet, coordinator, failures } = await holding({ 0: 1 });
  const failing = fleet.claim('e:k#1', 0, 5_000);
  for (let attempt = 0; attempt < 3; attempt++) (await coordinator.next<boolean>('claimInteraction')).reject(new Error('WRONGTYPE'));
  await expect(failing, 'rejected after the third failure, the lease still valid').rejects.toThrow('WRONGTYPE');
  expect(coordinator.waiting('claimInteraction'), 'no fourth try').toBe(0);
  expect(failures).toHaveLength(1);
  expect(coordinator.log.filter((line) => line.startsWith('claimInteraction')).at(-1)).toBe('claimInteraction "m" "e:k#1" 5000');

  const hanging = fleet.claim('e:k#2', 0, 30); // never answered: given up after 30 ms three times, not at the lease's end
  for (let attempt = 0; attempt < 3; attempt++) await coordinator.next<boolean>('claimInteraction');
  await expect(hanging).rejects.toThrow(/no answer/);
});

it('a claim for a shard not held here is refused without asking', async () => {
  const { fleet, coordinator } = await holding({ 0: 1 });
  expect(await fleet.claim('i1', 1)).toBe(false);
  expect(coordinator.waiting('claimInteraction')).toBe(0);
});

it("an answer is refused on a fenced shard, allowed after a hand-off (the claim stays this process's)", async () => {
  const coordinator = new ScriptedCoordinator(1000);
  const { fleet, clock, log } = supervisor(coordinator, 4);
  await answerStep(fleet, coordinator, step({}));
  await answerStep(fleet, coordinator, step({ 0: 1, 1: 2, 2: 3 }));
  // A second member: the fair share is 2, shard 1 or 0 is handed off (the one whose home is elsewhere first).
  await answerStep(fleet, coordinator, step({ 0: 1, 1: 2, 2: 3 }, 2, 0));
  const handedOff = log.find((line) => line.endsWith('handOff'));
  expect(handedOff).toBe('stop 1 handOff');
  expect(fleet.mayAnswer(1), 'after a hand-off').toBe(true);
  clock.now = 900;
  expect(fleet.mayAnswer(0), 'once the lease may have lapsed').toBe(false);
  expect(fleet.mayAnswer(0), 'still, once fenced').toBe(false);
});

it('a member whose membership expired joins again under a new id, and takes shards only on its third step (others write back first)', async () => {
  const { fleet, coordinator, log } = await holding({ 0: 1 });
  await answerStep(fleet, coordinator, { members: 0, index: 0, leases: [], expired: true });
  await until(() => log.includes('stop 0 lost'), { what: 'shard 0 fenced' });
  expect(fleet.member).toBe('m~1');
  const acquires: unknown[] = [];
  for (let i = 0; i < 3; i++) acquires.push((await answerStep(fleet, coordinator, step({}))).args[2]);
  expect(acquires).toEqual([false, false, true]);
});

it("a claim waiting when its shard is handed off still runs here (the successor's replay finds it this member's), while the membership lasts", async () => {
  const coordinator = new ScriptedCoordinator(1000);
  const { fleet, clock, log } = supervisor(coordinator, 4);
  await answerStep(fleet, coordinator, step({}));
  await answerStep(fleet, coordinator, step({ 0: 1, 1: 2, 2: 3 }));
  const kept = fleet.claim('i-kept', 1);
  const keptCall = await coordinator.next<boolean>('claimInteraction');
  const lapsing = fleet.claim('i-lapsing', 1);
  const lapsingCall = await coordinator.next<boolean>('claimInteraction');
  await answerStep(fleet, coordinator, step({ 0: 1, 1: 2, 2: 3 }, 2, 0));
  expect(log).toContain('stop 1 handOff');
  keptCall.resolve(true);
  expect(await kept, 'answered while the membership is known valid').toBe(true);
  clock.now = 801; // the membership (renewed by the step sent at 0) may have lapsed
  lapsingCall.resolve(true);
  expect(await lapsing, 'answered once the membership may have lapsed').toBe(false);
});

it("a set keeps taking shards while a reshard is pending (one handed off meanwhile is taken back): when the old count stops is the coordinator's to say", async () => {
  const { fleet, coordinator } = await holding({ 0: 1 });
  await answerStep(fleet, coordinator, { ...step({ 0: 1 }), target: 12 });
  // Refusing from the target alone left a shard another member handed off to rebalance dark until the switch (its events lost).
  const during = await answerStep(fleet, coordinator, { ...step({ 0: 1 }), target: 12 });
  expect(during.args[2], 'acquire while another count is asked for').toBe(true);
  const same = await answerStep(fleet, coordinator, step({ 0: 1 }));
  expect(same.args[2], 'acquire once no reshard is asked for').toBe(true);
});

it('a start and a stop of one shard never overlap, and the shard is not taken again until both ended', async () => {
  const coordinator = new ScriptedCoordinator(1000);
  const { fleet, clock, host, log } = supervisor(coordinator);
  let finishStart = () => undefined as void;
  host.start = (shardId) => {
    log.push(`start ${shardId}`);
    return new Promise<void>((resolve) => (finishStart = resolve));
  };
  await answerStep(fleet, coordinator, step({}));
  const acquiring = fleet.tick();
  (await coordinator.next('tick')).resolve(step({ 0: 1 }));
  await until(() => log.includes('start 0'), { what: 'shard 0 starting' });
  clock.now = 900; // the lease lapses while the start is under way
  expect(fleet.holds(0)).toBe(false);
  await new Promise((resolve) => setImmediate(resolve));
  expect(log, 'no stop while the start runs').toEqual(['start 0']);
  finishStart();
  await acquiring;
  await until(() => log.includes('stop 0 lost'), { what: 'the stop after the start' });
  // The next step gives the shard again: started again only now.
  const again = fleet.tick();
  (await coordinator.next('tick')).resolve(step({ 0: 2 }));
  await until(() => log.filter((line) => line === 'start 0').length === 2, { what: 'shard 0 started again' });
  finishStart();
  await again;
  expect(log).toEqual(['start 0', 'stop 0 lost', 'start 0']);
});

it("a claim waiting when a reshard retires its set still runs here: the member stays, and the next set's copy is skipped as seen twice", async () => {
  const { fleet, coordinator, log } = await holding({ 0: 1 });
  const claiming = fleet.claim('i1', 0);
  const call = await coordinator.next<boolean>('claimInteraction');
  const retiring = fleet.retire(async () => void log.push('stop all'));
  (await coordinator.next('release')).resolve(undefined);
  await retiring;
  call.resolve(true);
  expect(await claiming).toBe(true);
  expect(log).toContain('stop all');
});
