/**
 * Guards of the shard coordinator's scripts that a happy path never exercises, on a real Redis: a release compares the
 * fence, a reshard request forgets an earlier READY set, a leave ends the member's holding, every key the scripts write
 * expires, a fleet's members share `leaseMs` within a factor of 10, and one step's work stays bounded (dead holders'
 * leases freed 1,000 a step; a planted crowd of members reported).
 */
import { expect, it } from 'vitest';
import { ShardCoordinatorError } from '../../src/errors/index.js';
import type { ShardLease } from '../../src/stores.js';
import { createRedisShardCoordinator } from '../../src/redis/index.js';
import { describeWithRedis, useRedis } from '../helpers/redis-server.js';
import { until } from '../helpers/until.js';

describeWithRedis('the Redis shard coordinator’s guards', () => {
  const redis = useRedis();
  let n = 0;
  const fleet = (leaseMs = 5000) => {
    const key = `guards-${++n}`;
    return { key, k: `{${key}}`, c: createRedisShardCoordinator({ client: redis.connection, key, leaseMs }) };
  };
  const send = (...args: string[]) => redis.connection.sendCommand(args);

  it("a release by the holder with a stale fence deletes nothing: the lease, its index entry and the holder's next step keep it", async () => {
    const { k, c } = fleet();
    await c.tick('a', 2, false);
    const { leases } = await c.tick('a', 2, true);
    const lease = leases[0] as ShardLease;
    await c.release('a', 2, { shardId: 0, fence: lease.fence - 1 });
    expect(await send('HGET', `${k}:leases:2`, '0')).toBe(`a|${lease.fence}`);
    expect(await send('ZSCORE', `${k}:owners:2`, 'a|0')).not.toBeNull();
    expect(await send('ZSCORE', `${k}:free:2`, '0')).toBeNull();
    expect((await c.tick('a', 2, true)).leases).toEqual(leases);
  });

  it('a reshard request forgets a READY set left by an earlier reshard to the same count: the switch waits for this one', async () => {
    const { k, c } = fleet();
    await c.shardCount(2);
    await send('SADD', `${k}:ready:3`, '0', '1', '2');
    await c.requestReshard(3);
    await c.shardReady(3, 0);
    expect(await send('GET', `${k}:switching`), 'the switch started on a stale READY set').toBeNull();
    expect((await c.tick('a', 3, false)).ready).toBe(1);
  });

  it('a leave ends the membership and the holding: the member is in neither the members nor the holders', async () => {
    const { k, c } = fleet();
    await c.tick('a', 2, false);
    await c.tick('a', 2, true);
    await c.leave('a', 2);
    expect(await send('ZSCORE', `${k}:members`, 'a')).toBeNull();
    expect(await send('ZSCORE', `${k}:holders:2`, 'a'), 'a still listed as a holder after leaving').toBeNull();
    expect(await send('HLEN', `${k}:leases:2`)).toBe(0);
  });

  it('every key the scripts write expires', async () => {
    const { k, c } = fleet();
    await c.shardCount(2);
    for (const m of ['a', 'b']) await c.tick(m, 2, false);
    const { leases } = await c.tick('a', 2, true);
    await c.release('a', 2, leases[0] as ShardLease);
    expect(Number(await send('PTTL', `${k}:free:2`)), 'PTTL of the free set a release wrote').toBeGreaterThan(0);
    await c.tick('b', 2, true);
    await c.claimInteraction('a', '123');
    await c.requestReshard(3);
    for (const shard of [0, 1, 2]) await c.shardReady(3, shard);
    await c.tick('a', 3, true);
    const keys = async () => ((await send('KEYS', `${k}*`)) as unknown as string[]).sort();
    const check = async () => {
      for (const key of await keys()) expect(Number(await send('PTTL', key)), `PTTL of ${key}`).toBeGreaterThan(0);
    };
    expect(await keys()).toEqual(
      expect.arrayContaining([`${k}:members`, `${k}:fence`, `${k}:lease`, `${k}:count`, `${k}:target`, `${k}:switching`, `${k}:ready:3`]),
    );
    expect(await keys()).toEqual(expect.arrayContaining(['leases', 'owners', 'holders', 'next', 'sweep'].map((name) => `${k}:${name}:2`)));
    await check();
    await c.commitReshard(3);
    await c.leave('b', 2);
    expect(await keys()).toEqual(expect.arrayContaining([`${k}:free:2`, `${k}:count`]));
    await check();
    // The fleet's count lives a day, renewed by every step (a fleet running longer keeps it).
    await send('PEXPIRE', `${k}:count`, '60000');
    await c.tick('a', 3, false);
    expect(Number(await send('PTTL', `${k}:count`)), 'PTTL of the count after a step').toBeGreaterThan(86_000_000);
  });

  it('refuses a member whose leaseMs is more than 10 times longer or shorter than the fleet’s, naming the key', async () => {
    const { key, k } = fleet();
    const of = (leaseMs: number) => createRedisShardCoordinator({ client: redis.connection, key, leaseMs });
    await of(5000).tick('a', 2, false);
    for (const leaseMs of [50_001, 300]) {
      const error = await of(leaseMs)
        .tick('b', 2, false)
        .then(
          () => new Error(`leaseMs ${leaseMs} was accepted`),
          (thrown: unknown) => thrown,
        );
      expect(error).toBeInstanceOf(ShardCoordinatorError);
      expect((error as ShardCoordinatorError).keys).toEqual([`${k}:lease`]);
      expect(String(error)).toContain(`leases of 5000 ms, and this process ${leaseMs} ms`);
    }
    // Within 10 times: a member.
    expect((await of(50_000).tick('c', 2, false)).members).toBe(2);
  });

  it("a dead holder's leases are freed 1,000 a step at most, the rest on the next steps", async () => {
    const { k, c } = fleet(60_000);
    await until(async () => (await c.tick('big', 2500, true)).leases.length === 2500, { what: 'big holding all 2,500 shards', timeoutMs: 20_000 });
    // big dies.
    await send('ZADD', `${k}:holders:2500`, '1', 'big');
    await send('ZADD', `${k}:members`, '1', 'big');
    await c.tick('a', 2500, false);
    // 1,000 by the cleanup, and at most 16 more by the sweep (shards 0 to 15, which no live member holds).
    const freed = Number(await send('ZCARD', `${k}:free:2500`));
    expect(freed, 'shards freed by one step').toBeGreaterThanOrEqual(1000);
    expect(freed, 'shards freed by one step').toBeLessThanOrEqual(1016);
    expect(Number(await send('ZLEXCOUNT', `${k}:owners:2500`, '[big|', '(big|:')), "big's index entries left for later steps").toBe(2500 - freed);
    await until(async () => (await c.tick('a', 2500, true)).leases.length === 2500, { what: 'a holding all 2,500 shards', timeoutMs: 20_000 });
    expect(await send('ZSCORE', `${k}:holders:2500`, 'big')).toBeNull();
  }, 60_000);

  it('a crowd of more than 1,000 planted members is reported, and the step still answers', async () => {
    const { k, c } = fleet();
    const time = Number(((await send('TIME')) as unknown as string[])[0]) * 1000;
    const crowd = Array.from({ length: 1001 }, (_, i) => [String(time + 5000), `planted-${i}`]).flat();
    await send('ZADD', `${k}:members`, ...crowd);
    const tick = await c.tick('a', 4, false);
    expect(tick.members).toBe(1002);
    expect((tick.report as ShardCoordinatorError | undefined)?.keys).toContain(`${k}:members`);
    expect(tick.report?.message).toContain('1002 live members, more than the 1000');
  });
});
