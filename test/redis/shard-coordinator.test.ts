/**
 * The Redis shard coordinator on a real Redis: fair shares, expiry of a
 * dead member's leases, fencing tokens on release, and interaction claims
 * that a dead holder gives up.
 */
import { expect, it } from 'vitest';
import { ShardCoordinatorError, ValidationError } from '../../src/errors/index.js';
import type { ShardLease } from '../../src/stores.js';
import { createRedisShardCoordinator } from '../../src/redis/index.js';
import { describeWithRedis, useRedis } from '../helpers/redis-server.js';
import { until } from '../helpers/until.js';

describeWithRedis('the Redis shard coordinator', () => {
  const redis = useRedis();
  let n = 0;
  const coordinator = (leaseMs = 5000) => createRedisShardCoordinator({ client: redis.connection, key: `coord-${++n}`, leaseMs });

  it('shares 8 shards 3, 3 and 2 among three members, each shard held once, in the order they asked', async () => {
    const c = coordinator();
    for (const m of ['a', 'b', 'c']) await c.tick(m, 8, false);
    const ticks = await Promise.all(['a', 'b', 'c'].map((m) => c.tick(m, 8, true)));
    const held = ticks.flatMap((tick) => tick.leases.map((lease) => lease.shardId));
    expect(held.sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(ticks.map((tick) => tick.leases.length).sort()).toEqual([2, 3, 3]);
    expect(ticks.map((tick) => tick.members)).toEqual([3, 3, 3]);
    // Member a asked first: it took the first shards never held.
    expect(ticks[0]?.leases.map((lease) => lease.shardId)).toEqual([0, 1, 2]);
    // A renewal keeps the same leases and fences.
    expect((await c.tick('a', 8, true)).leases).toEqual(ticks[0]?.leases);
  });

  it("a dead member's leases expire and are taken with a higher fence; a release with an old fence deletes nothing", async () => {
    const c = coordinator(400);
    const first = await c.tick('a', 2, true);
    expect(first.leases.map((lease) => lease.shardId)).toEqual([0, 1]);
    // b joins: a is live, so b gets nothing yet (a holds both, beyond its fair share until it hands one off).
    expect((await c.tick('b', 2, true)).leases).toEqual([]);
    // a dies (stops renewing): after the lease, b takes both.
    const taken = await until(
      async () => {
        const tick = await c.tick('b', 2, true);
        return tick.leases.length === 2 ? tick : undefined;
      },
      { what: "a's leases expired and taken by b" },
    );
    expect(taken.members).toBe(1);
    for (const lease of taken.leases) expect(lease.fence).toBeGreaterThan(Math.max(...first.leases.map((l) => l.fence)));
    // a wakes and gives back what it held: its old fences no longer match, nothing is deleted.
    for (const lease of first.leases) await c.release('a', 2, lease);
    expect((await c.tick('b', 2, true)).leases).toEqual(taken.leases);
    // a's own tick finds it holds nothing.
    expect((await c.tick('a', 2, false)).leases).toEqual([]);
  });

  it('a short-lived claim (a fleet switch claims its events for seconds) is free for another live member once past its life', async () => {
    const c = coordinator(5000);
    await c.tick('a', 1, false);
    await c.tick('b', 1, false);
    const start = performance.now();
    expect(await c.claimInteraction('a', 'e1', 300)).toBe(true);
    expect(await c.claimInteraction('b', 'e1', 300), 'within its life: a’s').toBe(false);
    await until(async () => await c.claimInteraction('b', 'e1', 300), { what: 'b taking the claim once its 300 ms passed' });
    expect(performance.now() - start, 'taken by its life, not by a dying (a stays a member for 5 s)').toBeLessThan(4000);
  });

  it('claims an interaction once among live members, hands a dead holder’s claim over, and never again once answered', async () => {
    const c = coordinator(400);
    await c.tick('a', 1, false);
    await c.tick('b', 1, false);
    expect(await c.claimInteraction('a', 'i1')).toBe(true);
    expect(await c.claimInteraction('b', 'i1')).toBe(false);
    // Its own claim again (a replay after it fenced a shard and took it back): yes; the Gateway skips one it is still running.
    expect(await c.claimInteraction('a', 'i1')).toBe(true);
    // a dies before answering: once its membership expires, b takes the claim over.
    await until(async () => await c.claimInteraction('b', 'i1'), { what: "a's claim handed over" });
    // a wakes: its step is refused (it must join again under a new id), so its old claims stay with live members.
    expect((await c.tick('a', 1, true, true)).expired).toBe(true);
    await c.tick('b', 1, false);
    expect(await c.claimInteraction('b', 'i1')).toBe(true);
    expect(await c.claimInteraction('a', 'i1')).toBe(false);
    await c.answered('i1');
    expect(await c.claimInteraction('b', 'i1')).toBe(false);
    await c.leave('b', 1);
    expect(await c.claimInteraction('c', 'i1')).toBe(false);
  });

  it("a reshard: the request reaches every member with its ready count, the new count is shared out, and the commit makes it the fleet's", async () => {
    const c = coordinator();
    expect(await c.shardCount()).toBeUndefined();
    for (const m of ['a', 'b', 'c']) await c.tick(m, 8, true);
    expect((await c.tick('a', 8, true)).target).toBeUndefined();
    await c.requestReshard(12);
    const seen = await Promise.all(['a', 'b', 'c'].map((m) => c.tick(m, 8, true)));
    expect(seen.map((tick) => tick.target)).toEqual([12, 12, 12]);
    // The new count's leases are their own: 4 each, beside the 8 still held.
    const next = await Promise.all(['a', 'b', 'c'].map((m) => c.tick(m, 12, true)));
    expect(next.flatMap((tick) => tick.leases.map((lease) => lease.shardId)).sort((x, y) => x - y)).toEqual([...Array(12).keys()]);
    expect(next.map((tick) => tick.ready)).toEqual([0, 0, 0]);
    for (const id of [0, 1, 2, 0]) await c.shardReady(12, id);
    // Another process asking for the same reshard (every one of a fleet may) keeps what is READY.
    await c.requestReshard(12);
    expect((await c.tick('a', 12, true)).ready).toBe(3);
    expect((await c.tick('a', 8, true)).ready).toBe(0);
    await c.commitReshard(12);
    expect(await c.shardCount()).toBe(12);
    expect((await c.tick('b', 8, true)).target).toBeUndefined();
    await expect(c.requestReshard(0)).rejects.toThrow(ValidationError);
  });

  it('takes at most 1,000 shards in one step: a lone member of 2,500 shards holds 1,000, 2,000, then all', async () => {
    const c = coordinator();
    await c.tick('a', 2500, false);
    const held = [];
    for (let step = 0; step < 3; step++) held.push((await c.tick('a', 2500, true)).leases.length);
    expect(held).toEqual([1000, 2000, 2500]);
  });

  it('a member that leaves gives its leases back at once: the other takes them on its next step, not a lease later', async () => {
    const c = coordinator(60_000);
    for (const m of ['a', 'b']) await c.tick(m, 4, false);
    await Promise.all(['a', 'b'].map((m) => c.tick(m, 4, true)));
    await c.claimInteraction('b', 'i-left');
    await c.leave('b', 4);
    const tick = await c.tick('a', 4, true);
    expect([tick.members, tick.leases.map((lease) => lease.shardId)]).toEqual([1, [0, 1, 2, 3]]);
    // Its claims pass to live members too.
    expect(await c.claimInteraction('a', 'i-left')).toBe(true);
  });

  it('refuses a reshard to another count while one is pending, whatever the pending count (1 included)', async () => {
    const c = coordinator();
    await c.requestReshard(1);
    const refused = await c.requestReshard(3).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(ShardCoordinatorError);
    expect(String(refused)).toContain('a reshard to 1 shards is under way');
    expect((await c.tick('a', 2, false)).target).toBe(1);
    // Asking again for the pending one is fine; once it is committed, another may be asked for.
    await c.requestReshard(1);
    await c.commitReshard(1);
    await c.requestReshard(3);
    expect((await c.tick('a', 1, false)).target).toBe(3);
  });

  it('once every shard of the target is READY, the old count takes no shard: not one a switched member gave back, nor after the commit', async () => {
    const c = coordinator();
    expect(await c.shardCount(4)).toBe(4);
    for (const m of ['a', 'b', 'c']) await c.tick(m, 4, false);
    const old = await Promise.all(['a', 'b', 'c'].map((m) => c.tick(m, 4, true)));
    expect(old.map((tick) => tick.leases.length)).toEqual([2, 2, 0]);
    await c.requestReshard(6);
    for (const m of ['a', 'b', 'c']) await c.tick(m, 6, true);
    for (const id of [0, 1, 2, 3, 4]) await c.shardReady(6, id);
    // Before the switch the old set still serves: a shard of it given back is taken by a member below its share.
    const [first, second] = old[0]?.leases ?? [];
    await c.release('a', 4, first as ShardLease);
    const taken = await c.tick('c', 4, true);
    expect(taken.leases.map((lease) => lease.shardId)).toEqual([first?.shardId]);
    await c.release('c', 4, taken.leases[0] as ShardLease);
    // The last shard READY: the switch is under way. a switches and gives back the old shards; c, below its share, takes none.
    await c.shardReady(6, 5);
    await c.release('a', 4, second as ShardLease);
    expect((await c.tick('c', 4, true)).leases).toEqual([]);
    expect((await c.tick('d', 4, true)).leases).toEqual([]);
    // The new count's shards are still taken, and after the commit the old count takes nothing either.
    await c.release('a', 6, (await c.tick('a', 6, true)).leases[0] as ShardLease);
    expect((await c.tick('d', 6, true)).leases).toHaveLength(1);
    await c.commitReshard(6);
    expect((await c.tick('c', 4, true)).leases).toEqual([]);
  });

  it("every step answers the fleet's count, so a member that was away for a whole reshard sees what the fleet runs now", async () => {
    const c = coordinator();
    expect((await c.tick('a', 4, false)).fleetCount, 'no count recorded yet').toBeUndefined();
    expect(await c.shardCount(4)).toBe(4);
    expect((await c.tick('a', 4, true)).fleetCount).toBe(4);
    await c.requestReshard(6);
    expect((await c.tick('a', 4, true)).fleetCount, 'while the reshard is pending: still 4 (the target says 6)').toBe(4);
    await c.commitReshard(6);
    const away = await c.tick('b', 4, true); // a member that missed the whole reshard, still on 4
    expect([away.fleetCount, away.target, away.leases]).toEqual([6, undefined, []]);
  });
});
