/**
 * The in-memory shard coordinator of `/testing`: the same rules as the Redis
 * one (fair shares lowest free shard first, leases with fences, hand-backs
 * that compare the fence, claims a dead member gives up, one reshard at a
 * time), on a clock the test moves; and a fleet of two Gateways in one
 * process sharing the emulator's shards through it.
 */
import { expect, it } from 'vitest';
import { Client, ValidationError } from '../../src/index.js';
import { MemoryGatewaySessionStore } from '../../src/stores.js';
import { MemoryShardCoordinator } from '../../src/testing/index.js';
import { useEmulatorWithAdmin } from '../helpers/emulators.js';
import { until } from '../helpers/until.js';

const start = useEmulatorWithAdmin();

function coordinatorOnClock(leaseMs = 1000) {
  const clock = { now: 0 };
  return { clock, coordinator: new MemoryShardCoordinator({ leaseMs, clock: () => clock.now }) };
}

const ids = (answer: { leases: { shardId: number }[] }) => answer.leases.map((lease) => lease.shardId);

it('holders() lists who holds each shard, as the fair shares (ceil) gave them, lowest free shard first', async () => {
  const { coordinator } = coordinatorOnClock();
  await coordinator.tick('a', 5, false);
  await coordinator.tick('b', 5, false);
  expect(ids(await coordinator.tick('a', 5, true))).toEqual([0, 1, 2]);
  expect(ids(await coordinator.tick('b', 5, true))).toEqual([3, 4]);
  expect(coordinator.holders(5)).toEqual(
    new Map([
      [0, 'a'],
      [1, 'a'],
      [2, 'a'],
      [3, 'b'],
      [4, 'b'],
    ]),
  );
});

it("a reshard's old count takes a free shard while the new set starts, none once every new shard is READY, nor after the commit", async () => {
  const { coordinator } = coordinatorOnClock();
  await coordinator.shardCount(2);
  await coordinator.tick('a', 2, false);
  await coordinator.tick('b', 2, false);
  expect(ids(await coordinator.tick('a', 2, true))).toEqual([0]);
  await coordinator.requestReshard(3);
  // b's shard is free (handed off to rebalance): the old count takes it while the new set starts, to resume it.
  expect(ids(await coordinator.tick('b', 2, true)), 'taken during the reshard').toEqual([1]);
  await coordinator.release('b', 2, { shardId: 1, fence: 2 });
  for (const shardId of [0, 1, 2]) await coordinator.shardReady(3, shardId);
  // Every new shard READY: the switch is under way (members end their old sessions), so an old shard freed now stays free.
  expect(ids(await coordinator.tick('b', 2, true)), 'taken once the switch is under way').toEqual([]);
  expect(ids(await coordinator.tick('b', 3, true)), 'the new count still takes its share').toEqual([0, 1]);
  await coordinator.commitReshard(3);
  expect(ids(await coordinator.tick('b', 2, true)), 'taken after the commit').toEqual([]);
});

it('previous gives a dead holder’s sinceRenewalMs up to exactly 40 leases after its last renewal, and 3 leases after a step, not past either', async () => {
  const { clock, coordinator } = coordinatorOnClock(1000);
  const since = async (count: number) => (await coordinator.tick('b', count, true)).previous?.get(0)?.sinceRenewalMs;
  for (const count of [1, 2]) await coordinator.tick('a', count, true);
  // b steps every 3 leases (the records kept), its first step after a died frees a's leases.
  for (const at of [3000, 6000, 9000, 12_000, 15_000, 18_000, 21_000, 24_000, 27_000, 30_000, 33_000, 36_000, 39_000, 40_000]) {
    clock.now = at;
    for (const count of [1, 2]) await coordinator.tick('b', count, false);
  }
  expect(await since(1), 'taken at 40 leases exactly').toBe(40_000);
  clock.now = 40_001;
  expect(await since(2), 'taken 1 ms past 40 leases').toBeUndefined();
  // A count no member stepped for 3 leases keeps its leases (a dead holder's renewal known); one past that forgets them.
  for (const count of [3, 4]) await coordinator.tick('c', count, true);
  clock.now = 40_001 + 3000;
  expect(await since(3), 'taken 3 leases after the last step').toBe(3000);
  clock.now = 40_001 + 3001;
  const late = (await coordinator.tick('b', 4, true)).previous?.get(0);
  expect(late, 'taken 3 leases and 1 ms after the last step').toEqual({ member: 'c', live: false, left: false });
});

it('a lease not renewed within leaseMs is taken under a new fence; a stale release or a member that left gives nothing back twice', async () => {
  const { clock, coordinator } = coordinatorOnClock(1000);
  const first = await coordinator.tick('a', 1, true);
  expect(first.leases).toEqual([{ shardId: 0, fence: 1 }]);
  clock.now = 1000; // a's membership and lease lapse
  const taken = await coordinator.tick('b', 1, true);
  expect(taken.leases).toEqual([{ shardId: 0, fence: 2 }]);
  // a's stale release (fence 1) does not free b's lease; its step finds its membership gone.
  await coordinator.release('a', 1, { shardId: 0, fence: 1 });
  expect(coordinator.holders(1).get(0)).toBe('b');
  expect(await coordinator.tick('a', 1, true, true)).toMatchObject({ expired: true, leases: [] });
  // b leaves: its membership and leases end at once.
  await coordinator.leave('b', 1);
  expect(coordinator.members()).toEqual([]);
  expect(coordinator.holders(1).size).toBe(0);
  await coordinator.release('b', 1, { shardId: 0, fence: 2 });
  expect((await coordinator.tick('c', 1, true)).leases).toEqual([{ shardId: 0, fence: 3 }]);
  // c's lease lapses and c takes it again (fence 4): a release under the old fence (a hand-off that came late) keeps it.
  clock.now = 2500;
  expect((await coordinator.tick('c', 1, true)).leases).toEqual([{ shardId: 0, fence: 4 }]);
  await coordinator.release('c', 1, { shardId: 0, fence: 3 });
  expect(coordinator.holders(1).get(0)).toBe('c');
  await coordinator.release('c', 1, { shardId: 0, fence: 4 });
  expect(coordinator.holders(1).size).toBe(0);
});

it("claims: the holder's own again yes, another live member's no, a dead member's taken over, an answered one no", async () => {
  const { clock, coordinator } = coordinatorOnClock(1000);
  await coordinator.tick('a', 1, false);
  await coordinator.tick('b', 1, false);
  expect(await coordinator.claimInteraction('a', 'i')).toBe(true);
  expect(await coordinator.claimInteraction('a', 'i')).toBe(true);
  expect(await coordinator.claimInteraction('b', 'i')).toBe(false);
  clock.now = 500;
  await coordinator.tick('b', 1, false);
  clock.now = 1200; // a is gone, b renewed
  expect(await coordinator.claimInteraction('b', 'i')).toBe(true);
  await coordinator.answered('i');
  expect(await coordinator.claimInteraction('b', 'i')).toBe(false);
  // A short-lived claim (a fleet's switch claims its events for a few seconds) is free for another live member once past it.
  expect(await coordinator.claimInteraction('b', 'e', 100)).toBe(true);
  clock.now = 1250;
  await coordinator.tick('a', 1, false);
  expect(await coordinator.claimInteraction('a', 'e', 100), 'within its life: still b’s').toBe(false);
  clock.now = 1301;
  expect(await coordinator.claimInteraction('a', 'e', 100), 'past its 100 ms life (behind a 16-minute claim in the map)').toBe(true);
});

it('one reshard at a time: the same count again is accepted, another refused whatever it is; READY counted per count; commit ends it', async () => {
  const { coordinator } = coordinatorOnClock();
  expect(await coordinator.shardCount(4)).toBe(4);
  expect(await coordinator.shardCount(8)).toBe(4);
  await coordinator.requestReshard(1);
  await coordinator.requestReshard(1);
  await expect(coordinator.requestReshard(3)).rejects.toThrow(/reshard to 1 shards is under way/);
  await coordinator.shardReady(1, 0);
  expect(await coordinator.tick('a', 1, false)).toMatchObject({ target: 1, ready: 1 });
  expect(await coordinator.tick('a', 4, false)).toMatchObject({ target: 1, ready: 0 });
  await coordinator.commitReshard(1);
  expect(await coordinator.shardCount()).toBe(1);
  expect((await coordinator.tick('a', 1, false)).target).toBeUndefined();
  await expect(coordinator.requestReshard(0)).rejects.toThrow(ValidationError);
});

it('two Gateways in one process share the emulator’s shards through it, and the survivor resumes the shards one hands off', async () => {
  const { emulator } = await start({ gateway: { shards: 4, maxConcurrency: 4 } });
  const coordinator = new MemoryShardCoordinator({ leaseMs: 600 });
  const sessionStore = new MemoryGatewaySessionStore();
  const gateway = { coordinator, sessionStore };
  const clients = [0, 1].map(() => new Client({ baseUrl: emulator.url, auth: { botToken: emulator.seed.botToken }, gateway }));
  const [a, b] = clients as [Client, Client];
  try {
    await Promise.all(clients.map((client) => client.gateway.connect()));
    await until(() => a.gateway.shards.length + b.gateway.shards.length === 4 && a.gateway.shards.length === 2, {
      what: 'the 4 shards shared 2 and 2',
    });
    await b.close({ handOff: true });
    // The hand-off saved the sessions: the survivor resumes them, no Identify beyond the first 4.
    await until(() => a.gateway.shards.length === 4 && a.gateway.status === 'ready', { what: 'the survivor running all 4 shards' });
    // Each handed-off shard resumed (at least 2 resumes; a loaded machine may also resume a shard whose heartbeat ran late).
    const stats = emulator.gatewayStats.forBot();
    expect(stats.identifies, 'Identify in all: the first 4 only').toBe(4);
    expect(stats.resumes, 'resumes: the 2 shards handed off at least').toBeGreaterThanOrEqual(2);
    expect(coordinator.holders(4).size).toBe(4);
    expect(new Set(coordinator.holders(4).values()).size).toBe(1);
  } finally {
    for (const client of clients) await client.close();
  }
});

it('says who held each shard it gives: a live member that handed it off, one that left, and a dead one with how long since it renewed', async () => {
  const { clock, coordinator } = coordinatorOnClock(1000);
  expect((await coordinator.tick('a', 3, true)).previous, 'the first holder takes its shards from nobody').toBeUndefined();
  clock.now = 400;
  await coordinator.tick('a', 3, true); // a renews its three leases at 400
  // a hands shard 1 off (it stays a live member): b takes it from a live holder.
  await coordinator.release('a', 3, { shardId: 1, fence: 2 });
  clock.now = 500;
  expect((await coordinator.tick('b', 3, true)).previous?.get(1)).toEqual({ member: 'a', live: true, left: false });
  // a dies: it last renewed at 400; its leases lapse at 1400. c takes shards 0 and 2 at 2000, 1600 ms after that renewal.
  clock.now = 1300;
  await coordinator.tick('b', 3, false);
  clock.now = 2000;
  await coordinator.tick('b', 3, false);
  const taken = await coordinator.tick('c', 3, true);
  expect(taken.previous, 'what c took from the dead member a').toEqual(
    new Map([
      [0, { member: 'a', live: false, left: false, sinceRenewalMs: 1600 }],
      [2, { member: 'a', live: false, left: false, sinceRenewalMs: 1600 }],
    ]),
  );
  // c leaves the fleet: b takes its shards from a member that left (no takeover time).
  await coordinator.leave('c', 3);
  const after = await coordinator.tick('b', 3, true);
  expect(after.previous?.get(0), 'a shard of a member that left').toEqual({ member: 'c', live: false, left: true });
});
