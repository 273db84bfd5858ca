/**
 * One contract of the `ShardCoordinator` interface, run against both coordinators: the rules live twice (the Redis one's
 * Lua, the in-memory one of `/testing` in TypeScript), users test their fleets with the memory one and run the Redis one,
 * so a difference between the two is a bug met in production only. Each case states one rule the interface's TSDoc gives
 * (or, where it is silent, what the Redis coordinator does), through the interface only.
 */
import { expect, it } from 'vitest';
import { ShardCoordinatorError, ValidationError } from '../../src/errors/index.js';
import type { CoordinatorTick, ShardCoordinator, ShardLease } from '../../src/stores.js';

/** A fresh coordinator (its own fleet), with the way to let its clock run. */
export interface CoordinatorSubject {
  /** The coordinator under test (`join`, `shardCount`, `requestReshard`, `shardReady` and `commitReshard` present). */
  readonly coordinator: ShardCoordinator & Required<Pick<ShardCoordinator, 'join' | 'shardCount' | 'requestReshard' | 'shardReady' | 'commitReshard'>>;
  /** Resolves once at least `ms` passed on the coordinator's clock (the memory one's moves; the Redis one's is waited for). */
  advance(ms: number): Promise<void>;
  /** Ends what `make` started. */
  close(): Promise<void>;
}

/** Makes a fresh subject whose leases (and memberships) live `leaseMs` without renewal, and whose largest count is `maxShards`. */
export type MakeCoordinator = (options: { leaseMs: number; maxShards?: number }) => Promise<CoordinatorSubject>;

/** A lease long enough that no member expires during a case; the short one lets a case see members die (a second on Redis). */
const LONG = 60_000;
const SHORT = 1000;
/** The shortest lease both take (300 ms): the cases that let 40 leases pass. */
const SHORTEST = 300;

const ids = (tick: CoordinatorTick) => tick.leases.map((lease) => lease.shardId);

/** Who held each shard a step newly gave, as both coordinators report it (the name is the Redis one's `name` option only). */
function holders(tick: CoordinatorTick): Record<number, unknown> | undefined {
  if (tick.previous === undefined) return undefined;
  return Object.fromEntries([...tick.previous].map(([shardId, { name: _name, ...holder }]) => [shardId, holder]));
}

/** Runs the contract on the coordinators `make` gives (one per case, closed after it). */
export function coordinatorContract(name: string, make: MakeCoordinator): void {
  const withSubject = (options: { leaseMs: number; maxShards?: number }, run: (subject: CoordinatorSubject) => Promise<void>) => async () => {
    const subject = await make(options);
    try {
      await run(subject);
    } finally {
      await subject.close();
    }
  };

  it(
    `${name}: shares the shards fairly (ceil(count / members)), lowest free shard first, each held by exactly one member; a renewal keeps leases and fences`,
    withSubject({ leaseMs: LONG }, async ({ coordinator: c }) => {
      for (const m of ['a', 'b', 'c']) await c.tick(m, 8, false);
      const ticks = [await c.tick('a', 8, true), await c.tick('b', 8, true), await c.tick('c', 8, true)];
      expect(ticks.map(ids), 'the shards each member took (a, b, c in the order they asked)').toEqual([
        [0, 1, 2],
        [3, 4, 5],
        [6, 7],
      ]);
      expect(
        ticks.map((tick) => [tick.members, tick.index]),
        'members and index (ids in sorted order)',
      ).toEqual([
        [3, 0],
        [3, 1],
        [3, 2],
      ]);
      expect((await c.tick('a', 8, true)).leases, "a's renewal").toEqual(ticks[0]?.leases);
      // A fourth member takes nothing while the three hold their shares: none is free.
      await c.tick('d', 8, false);
      expect(ids(await c.tick('d', 8, true)), 'd took shards still held').toEqual([]);
    }),
  );

  it(
    `${name}: one step takes at most 1,000 free shards; the next steps take the rest of the share`,
    withSubject({ leaseMs: LONG }, async ({ coordinator: c }) => {
      expect((await c.tick('a', 2500, true)).leases.length, 'shards the first step took').toBe(1000);
      expect((await c.tick('a', 2500, true)).leases.length, 'shards held after the second').toBe(2000);
      expect((await c.tick('a', 2500, true)).leases.length, 'shards held after the third').toBe(2500);
    }),
  );

  it(
    `${name}: a fence rises with each acquisition, of any shard, of any count, by any member`,
    withSubject({ leaseMs: LONG }, async ({ coordinator: c }) => {
      const fences = (await c.tick('a', 2, true)).leases.map((lease) => lease.fence);
      expect(fences.length, 'a alone taking both shards').toBe(2);
      fences.push(...(await c.tick('a', 1, true)).leases.map((lease) => lease.fence));
      let from = 'a';
      for (const to of ['b', 'a']) {
        await c.release(from, 1, (await c.tick(from, 1, false)).leases[0] as ShardLease);
        const taken = (await c.tick(to, 1, true)).leases[0];
        expect(taken?.shardId, `${to} taking the shard of 1 that ${from} gave back`).toBe(0);
        fences.push((taken as ShardLease).fence);
        from = to;
      }
      expect(
        fences.every((fence, i) => i === 0 || fence > (fences[i - 1] as number)),
        `fences in the order given: ${fences.join(', ')}`,
      ).toBe(true);
    }),
  );

  it(
    `${name}: a release with a stale fence, or by another member, frees nothing; with the holder's fence it frees the shard`,
    withSubject({ leaseMs: LONG }, async ({ coordinator: c }) => {
      await c.tick('a', 2, false);
      await c.tick('b', 2, false);
      const { leases } = await c.tick('a', 2, true);
      const lease = leases[0] as ShardLease;
      expect(lease.shardId).toBe(0);
      await c.release('a', 2, { shardId: 0, fence: lease.fence - 1 });
      await c.release('b', 2, lease);
      expect(ids(await c.tick('b', 2, true)), 'b took shard 1 only: 0 is still a’s').toEqual([1]);
      expect((await c.tick('a', 2, false)).leases, 'a still holds shard 0 with its fence').toEqual([lease]);
      await c.release('a', 2, lease);
      expect((await c.tick('a', 2, false)).leases, 'a after giving shard 0 back').toEqual([]);
      await c.tick('c', 2, false);
      expect(ids(await c.tick('c', 2, true)), 'a third member taking the shard a gave back').toEqual([0]);
    }),
  );

  it(
    `${name}: leave frees every lease of the member and ends its membership (its next registered step is expired)`,
    withSubject({ leaseMs: LONG }, async ({ coordinator: c }) => {
      await c.tick('a', 3, false);
      expect(ids(await c.tick('a', 3, true))).toEqual([0, 1, 2]);
      await c.tick('b', 3, false);
      await c.leave('a', 3);
      const b = await c.tick('b', 3, true);
      expect([b.members, ids(b)], 'b alone, with every shard a gave back').toEqual([1, [0, 1, 2]]);
      expect(await c.tick('a', 3, false, true), 'a stepping again after leaving').toEqual(expect.objectContaining({ expired: true, members: 0, leases: [] }));
    }),
  );

  it(
    `${name}: a member not renewed past leaseMs loses its leases (taken with higher fences) and its membership`,
    withSubject({ leaseMs: SHORT }, async ({ coordinator: c, advance }) => {
      await c.tick('a', 2, false);
      const held = await c.tick('a', 2, true);
      expect(ids(held)).toEqual([0, 1]);
      await advance(SHORT);
      const taken = await c.tick('b', 2, true);
      expect([taken.members, ids(taken)], 'b alone, taking both of the dead a’s shards').toEqual([1, [0, 1]]);
      const highest = Math.max(...held.leases.map((lease) => lease.fence));
      expect(Math.min(...taken.leases.map((lease) => lease.fence)), 'the fences b was given').toBeGreaterThan(highest);
      // a wakes: a release with its old fence frees nothing, and its step says its membership expired.
      for (const lease of held.leases) await c.release('a', 2, lease);
      expect((await c.tick('b', 2, false)).leases).toEqual(taken.leases);
      expect((await c.tick('a', 2, true, true)).expired, 'a’s step after its membership expired').toBe(true);
    }),
  );

  it(
    `${name}: previous is undefined when no shard a step gave had another holder (never held, or held by this member)`,
    withSubject({ leaseMs: LONG }, async ({ coordinator: c }) => {
      await c.tick('a', 2, false);
      expect((await c.tick('a', 2, true)).previous, 'shards never held').toBeUndefined();
      expect((await c.tick('a', 2, true)).previous, 'a renewal').toBeUndefined();
      const lease = (await c.tick('a', 2, false)).leases[1] as ShardLease;
      await c.release('a', 2, lease);
      const again = await c.tick('a', 2, true);
      expect([ids(again), again.previous], 'a taking back the shard it gave back').toEqual([[0, 1], undefined]);
    }),
  );

  it(
    `${name}: previous names the holder a shard came from: live (handed off), left, or dead with how long since it renewed`,
    withSubject({ leaseMs: SHORT }, async ({ coordinator: c, advance }) => {
      await c.tick('a', 2, false);
      const held = await c.tick('a', 2, true);
      await c.tick('b', 2, false);
      await c.release('a', 2, held.leases[1] as ShardLease);
      const handed = await c.tick('b', 2, true);
      expect([ids(handed), holders(handed)], 'b taking shard 1 that the live a handed off').toEqual([[1], { 1: { member: 'a', live: true, left: false } }]);
      await c.leave('b', 2);
      const back = await c.tick('a', 2, true);
      expect([ids(back), holders(back)], 'a taking shard 1 back from b, which left').toEqual([[0, 1], { 1: { member: 'b', live: false, left: true } }]);
      // a dies: c takes both shards from a member that did not renew, and says how long ago it last did.
      await advance(SHORT);
      const taken = await c.tick('c', 2, true);
      expect(ids(taken)).toEqual([0, 1]);
      const dead = { member: 'a', live: false, left: false, sinceRenewalMs: expect.any(Number) };
      expect(holders(taken), 'c taking the shards of the dead a').toEqual({ 0: dead, 1: dead });
      for (const holder of taken.previous?.values() ?? []) expect(holder.sinceRenewalMs, 'since a last renewed').toBeGreaterThanOrEqual(SHORT);
    }),
  );

  it(
    `${name}: previous gives sinceRenewalMs only for a lease its dead holder lost, not for one it gave back before it died`,
    withSubject({ leaseMs: SHORT }, async ({ coordinator: c, advance }) => {
      const held = await c.tick('a', 2, true);
      await c.release('a', 2, held.leases[1] as ShardLease);
      await advance(SHORT);
      const taken = await c.tick('b', 2, true);
      expect(holders(taken), 'b taking shard 0 (a died holding it) and shard 1 (a gave it back, then died)').toEqual({
        0: { member: 'a', live: false, left: false, sinceRenewalMs: expect.any(Number) },
        1: { member: 'a', live: false, left: false },
      });
    }),
  );

  it(
    `${name}: previous says left for a member that left the fleet, also for a shard of another count it held`,
    withSubject({ leaseMs: SHORT }, async ({ coordinator: c, advance }) => {
      await c.tick('a', 1, true);
      await c.tick('a', 2, true);
      await c.leave('a', 2); // the membership ends; its lease of the count of 1 lapses
      await advance(SHORT);
      const other = await c.tick('b', 1, true);
      expect(holders(other), 'b taking the shard of 1 that a held when it left').toEqual({
        0: { member: 'a', live: false, left: true, sinceRenewalMs: expect.any(Number) },
      });
      const given = await c.tick('b', 2, true);
      expect(holders(given), 'b taking the shards of 2 that a gave back when it left').toEqual({
        0: { member: 'a', live: false, left: true },
        1: { member: 'a', live: false, left: true },
      });
    }),
  );

  it(
    `${name}: previous gives a dead holder's sinceRenewalMs while the fleet steps, up to 40 leases after its last renewal, none past that`,
    withSubject({ leaseMs: SHORTEST }, async ({ coordinator: c, advance }) => {
      await c.tick('a', 1, true);
      await c.tick('a', 2, true);
      // a dies; b steps both counts every lease without taking anything (the fleet's records of each count stay), and frees a's leases.
      for (let leases = 1; leases <= 41; leases++) {
        await advance(SHORTEST);
        await c.tick('b', 2, false);
        if (leases === 4) {
          const taken = await c.tick('b', 1, true);
          expect(holders(taken), 'b taking the shard of 1 of the dead a, 4 leases after it renewed').toEqual({
            0: { member: 'a', live: false, left: false, sinceRenewalMs: expect.any(Number) },
          });
          const since = taken.previous?.get(0)?.sinceRenewalMs as number;
          expect(since, 'since a renewed (4 leases passed)').toBeGreaterThanOrEqual(4 * SHORTEST);
          expect(since, 'since a renewed (4 leases passed)').toBeLessThanOrEqual(40 * SHORTEST);
        } else await c.tick('b', 1, false);
      }
      const late = await c.tick('b', 2, true);
      expect(holders(late), 'b taking the shards of 2 of the dead a, 41 leases after it renewed: past 40, not known').toEqual({
        0: { member: 'a', live: false, left: false },
        1: { member: 'a', live: false, left: false },
      });
    }),
    60_000,
  );

  it(
    `${name}: previous gives no sinceRenewalMs for a dead holder of a fleet that made no step for more than 3 leases (its records expired)`,
    withSubject({ leaseMs: SHORTEST }, async ({ coordinator: c, advance }) => {
      await c.tick('a', 1, true);
      await advance(4 * SHORTEST);
      const taken = await c.tick('b', 1, true);
      expect(holders(taken), 'b taking the shard of the dead a, 4 leases after the last step').toEqual({ 0: { member: 'a', live: false, left: false } });
    }),
  );

  it(
    `${name}: join records the bot; another bot is refused with a ValidationError, the same bot again is not, and steps go on`,
    withSubject({ leaseMs: LONG }, async ({ coordinator: c }) => {
      c.join('111');
      c.join('111');
      expect(() => c.join('222'), 'another bot').toThrow(ValidationError);
      expect(() => c.join(''), 'an empty bot id').toThrow(ValidationError);
      expect(ids(await c.tick('a', 1, true))).toEqual([0]);
    }),
  );

  it(
    `${name}: refuses a member id or a shard count out of bounds with a ValidationError, on every call that takes one`,
    withSubject({ leaseMs: LONG, maxShards: 16 }, async ({ coordinator: c }) => {
      const lease = { shardId: 0, fence: 1 };
      const refused: [string, () => Promise<unknown>][] = [
        ['tick with an empty member', () => c.tick('', 2, true)],
        ['tick with a member holding |', () => c.tick('a|b', 2, true)],
        ['tick with a member holding a line feed', () => c.tick('a\nb', 2, true)],
        ['tick with a member of 201 characters', () => c.tick('m'.repeat(201), 2, true)],
        ['tick with 0 shards', () => c.tick('a', 0, true)],
        ['tick with 1.5 shards', () => c.tick('a', 1.5, true)],
        ['tick beyond maxShards', () => c.tick('a', 17, true)],
        ['tick with a member holding DEL (0x7f)', () => c.tick('a\u007fb', 2, true)],
        ['tick with a member holding a C1 control (0x85, next line)', () => c.tick('a\u0085b', 2, true)],
        ['tick with a member holding a C1 control (0x9f)', () => c.tick('a\u009fb', 2, true)],
        ['release with 0 shards', () => c.release('a', 0, lease)],
        ['release with an empty member', () => c.release('', 2, lease)],
        ['release with a member holding |', () => c.release('a|b', 2, lease)],
        ['release beyond maxShards', () => c.release('a', 17, lease)],
        ['release of shard -1', () => c.release('a', 2, { shardId: -1, fence: 1 })],
        ['release of shard -1.5', () => c.release('a', 2, { shardId: -1.5, fence: 1 })],
        ['release with no fence', () => c.release('a', 2, { shardId: 0 } as ShardLease)],
        ['release of a shard beyond the count', () => c.release('a', 2, { shardId: 2, fence: 1 })],
        ['release with a fence NaN', () => c.release('a', 2, { shardId: 0, fence: Number.NaN })],
        ['release with a fence 1.5', () => c.release('a', 2, { shardId: 0, fence: 1.5 })],
        ['release with a fence -1', () => c.release('a', 2, { shardId: 0, fence: -1 })],
        ['release of no lease', () => c.release('a', 2, undefined as unknown as ShardLease)],
        ['leave beyond maxShards', () => c.leave('a', 17)],
        ['leave with an empty member', () => c.leave('', 2)],
        ['leave with a member holding |', () => c.leave('a|b', 2)],
        ['claimInteraction with an empty member', () => c.claimInteraction('', 'i1')],
        ['claimInteraction with a member holding |', () => c.claimInteraction('a|b', 'i1')],
        ['shardCount(0)', () => c.shardCount(0)],
        ['requestReshard(0)', () => c.requestReshard(0)],
        ['requestReshard beyond maxShards', () => c.requestReshard(17)],
        ['shardReady of a shard beyond the count', () => c.shardReady(2, 2)],
        ['shardReady of 0 shards', () => c.shardReady(0, 0)],
        ['commitReshard(0)', () => c.commitReshard(0)],
      ];
      for (const [what, call] of refused) await expect(call(), what).rejects.toThrow(ValidationError);
      expect((await c.tick('m'.repeat(200), 16, false)).members, 'a member of 200 characters, 16 shards (maxShards)').toBe(1);
      expect((await c.tick('a\u00a0é~1', 2, false)).members, 'a member holding a no-break space (0xa0), é and ~').toBe(2);
      expect(await c.claimInteraction('b', 'i1'), 'the refused claims took nothing').toBe(true);
      expect(await c.shardCount(), 'a refused call stored no count').toBeUndefined();
      expect((await c.tick('a', 2, false)).target, 'a refused call asked for no reshard').toBeUndefined();
    }),
  );

  it(`${name}: refuses a leaseMs option that is not a whole number from 300 ms to 2^31 - 1 with a ValidationError`, async () => {
    for (const leaseMs of [0, 1, 100, 299, 300.5, 2 ** 31, Number.NaN]) await expect(make({ leaseMs }), `leaseMs ${leaseMs}`).rejects.toThrow(ValidationError);
    for (const leaseMs of [300, 2 ** 31 - 1]) {
      const subject = await make({ leaseMs });
      try {
        expect(subject.coordinator.leaseMs, `leaseMs ${leaseMs}`).toBe(leaseMs);
      } finally {
        await subject.close();
      }
    }
  });

  it(`${name}: refuses a maxShards option out of 1 to 65,536 with a ValidationError; unset, counts up to 10,000 pass`, async () => {
    for (const maxShards of [0, 65_537, 2.5]) await expect(make({ leaseMs: LONG, maxShards }), `maxShards ${maxShards}`).rejects.toThrow(ValidationError);
    await withSubject({ leaseMs: LONG }, async ({ coordinator: c }) => {
      await expect(c.tick('a', 10_001, false), 'a count beyond the default maxShards').rejects.toThrow(ValidationError);
      expect((await c.tick('a', 10_000, false)).members, 'a count of the default maxShards').toBe(1);
    })();
    await withSubject({ leaseMs: LONG, maxShards: 65_536 }, async ({ coordinator: c }) => {
      expect((await c.tick('a', 65_536, false)).members, 'a count of the largest maxShards').toBe(1);
    })();
  });

  it(
    `${name}: shardCount: the first proposal wins (one beyond maxShards refused, always), then what a reshard commits`,
    withSubject({ leaseMs: LONG, maxShards: 16 }, async ({ coordinator: c }) => {
      expect(await c.shardCount(), 'before any proposal').toBeUndefined();
      await expect(c.shardCount(17), 'a first proposal beyond maxShards').rejects.toThrow(ShardCoordinatorError);
      expect(await c.shardCount(4)).toBe(4);
      expect(await c.shardCount(6), 'a later proposal').toBe(4);
      await expect(c.shardCount(17), 'a later proposal beyond maxShards').rejects.toThrow(ShardCoordinatorError);
      expect((await c.tick('a', 4, false)).fleetCount).toBe(4);
      await c.requestReshard(6);
      await c.commitReshard(6);
      expect(await c.shardCount(4)).toBe(6);
      expect((await c.tick('a', 6, false)).fleetCount).toBe(6);
    }),
  );

  it(
    `${name}: a reshard shows as target, READY shards as ready, the commit as fleetCount; one at a time; a late commit changes nothing`,
    withSubject({ leaseMs: LONG }, async ({ coordinator: c }) => {
      await c.shardCount(2);
      await c.requestReshard(2);
      expect((await c.tick('a', 2, false)).target, 'a reshard to the count the fleet runs').toBeUndefined();
      await c.requestReshard(3);
      await c.requestReshard(3);
      await expect(c.requestReshard(4), 'another reshard while one is under way').rejects.toThrow(ShardCoordinatorError);
      const asked = await c.tick('a', 2, false);
      expect([asked.target, asked.ready, asked.fleetCount], 'target, ready, fleetCount once asked').toEqual([3, 0, 2]);
      await c.shardReady(3, 0);
      await c.shardReady(3, 0);
      await c.shardReady(3, 2);
      expect((await c.tick('a', 3, false)).ready, 'READY shards of the new count (one counted once)').toBe(2);
      expect((await c.tick('a', 2, false)).ready, 'READY shards of the old count').toBe(0);
      await c.commitReshard(4);
      expect((await c.tick('a', 2, false)).fleetCount, 'after a commit of a count not asked for').toBe(2);
      await c.commitReshard(3);
      const done = await c.tick('a', 3, false);
      expect([done.target, done.fleetCount], 'target and fleetCount after the commit').toEqual([undefined, 3]);
      await c.requestReshard(5);
      expect((await c.tick('a', 3, false)).target, 'a next reshard').toBe(5);
    }),
  );

  it(
    `${name}: during a reshard the old count takes free shards until every new shard is READY, none after, nor after the commit`,
    withSubject({ leaseMs: LONG }, async ({ coordinator: c }) => {
      await c.shardCount(2);
      await c.tick('a', 2, false);
      await c.requestReshard(3);
      expect(ids(await c.tick('a', 2, true)), 'the old count while the new set starts').toEqual([0, 1]);
      for (const lease of (await c.tick('a', 2, false)).leases) await c.release('a', 2, lease);
      for (const shardId of [0, 1, 2]) await c.shardReady(3, shardId);
      expect(ids(await c.tick('a', 2, true)), 'the old count once the switch is under way').toEqual([]);
      expect(ids(await c.tick('a', 3, true)), 'the new count').toEqual([0, 1, 2]);
      await c.commitReshard(3);
      expect(ids(await c.tick('a', 2, true)), 'the old count after the commit').toEqual([]);
    }),
  );

  it(
    `${name}: claims an interaction once among live members (its holder again), hands over a claim whose holder left, none after answered`,
    withSubject({ leaseMs: LONG }, async ({ coordinator: c }) => {
      for (const m of ['a', 'b', 'c']) await c.tick(m, 1, false);
      expect(await c.claimInteraction('a', 'i1'), 'a first').toBe(true);
      expect(await c.claimInteraction('b', 'i1'), 'b while a lives').toBe(false);
      expect(await c.claimInteraction('a', 'i1'), 'a again').toBe(true);
      await c.leave('a', 1);
      expect(await c.claimInteraction('b', 'i1'), 'b once a left').toBe(true);
      expect(await c.claimInteraction('c', 'i1'), 'c while b lives').toBe(false);
      await c.answered('i1');
      for (const m of ['a', 'b', 'c']) expect(await c.claimInteraction(m, 'i1'), `${m} after answered`).toBe(false);
      expect(await c.claimInteraction('c', 'i2'), 'another interaction').toBe(true);
    }),
  );

  it(
    `${name}: refuses a claim's ttlMs that is not a duration of at least 1 ms with a ValidationError, and claims nothing`,
    withSubject({ leaseMs: LONG }, async ({ coordinator: c }) => {
      await c.tick('a', 1, false);
      await c.tick('b', 1, false);
      for (const ttlMs of [0, -5, Number.NaN, Number.POSITIVE_INFINITY])
        await expect(c.claimInteraction('a', 'i1', ttlMs), `ttlMs ${ttlMs}`).rejects.toThrow(ValidationError);
      expect(await c.claimInteraction('b', 'i1'), 'b: the refused claims took nothing').toBe(true);
      expect(await c.claimInteraction('a', 'i2', 2500.5), 'a claim of a fractional ttlMs').toBe(true);
      expect(await c.claimInteraction('b', 'i2'), 'b while a’s fractional claim lives').toBe(false);
    }),
  );

  it(
    `${name}: a claim whose holder died is taken over; one past its ttlMs is free while its holder lives`,
    withSubject({ leaseMs: SHORT }, async ({ coordinator: c, advance }) => {
      await c.tick('a', 1, false);
      expect(await c.claimInteraction('a', 'dies')).toBe(true);
      await advance(SHORT);
      await c.tick('b', 1, false);
      expect(await c.claimInteraction('b', 'dies'), 'b once a died').toBe(true);
      expect(await c.claimInteraction('b', 'short', 20)).toBe(true);
      await advance(20);
      await c.tick('c', 1, false);
      await c.tick('b', 1, false);
      expect(await c.claimInteraction('c', 'short'), 'c once b’s 20 ms claim passed').toBe(true);
    }),
  );
}
