/**
 * The shard coordinator against values it did not write, on a real Redis: a fleet key shared by two bots, planted or
 * stale leases, members, counters and counts. Each is reported (a ShardCoordinatorError naming the key), repaired, and
 * never leaves a shard dark: the step after the report holds every shard.
 */
import { expect, it } from 'vitest';
import { ShardCoordinatorError, isCommunityChatError } from '../../src/errors/index.js';
import type { CoordinatorTick, ShardLease } from '../../src/stores.js';
import { createRedisShardCoordinator, type RedisShardCoordinator } from '../../src/redis/index.js';
import { describeWithRedis, useRedis } from '../helpers/redis-server.js';

describeWithRedis('the Redis shard coordinator and values it did not write', () => {
  const redis = useRedis();
  let n = 0;
  const fleet = (bot?: string) => {
    const key = `values-${++n}`;
    // `null`: a coordinator without a bot.
    const coordinator = (other: string | null | undefined = bot) =>
      createRedisShardCoordinator({ client: redis.connection, key, leaseMs: 5000, bot: other ?? undefined });
    return { key, coordinator };
  };
  const send = (...args: string[]) => redis.connection.sendCommand(args);
  /** Redis's clock, ms. */
  const redisNow = async () => Number(((await send('TIME')) as unknown as string[])[0]) * 1000;
  const tomorrow = async () => (await redisNow()) + 86_400_000;

  /** What a step reported: its refusal, or the report its answer carries; a ShardCoordinatorError, with the keys it names. */
  async function reported(what: string, step: Promise<CoordinatorTick>): Promise<ShardCoordinatorError> {
    const error = await step.then(
      (tick) => tick.report ?? new Error(`${what}: the step answered without reporting anything`),
      (thrown: unknown) => thrown,
    );
    if (error instanceof ShardCoordinatorError) return error;
    throw new Error(`${what}: gave ${String(error)} instead of a ShardCoordinatorError`);
  }

  const ids = (tick: CoordinatorTick) => tick.leases.map((lease) => lease.shardId);

  /** A step that repaired values and holds shards: its answer holds them (they are served) and reports in the same step. */
  async function servedThenReported(what: string, c: RedisShardCoordinator, member: string, count: number) {
    const tick = await c.tick(member, count, true);
    return { tick, error: await reported(what, Promise.resolve(tick)) };
  }

  /** The shards a member holds after its next step. */
  const shards = async (c: RedisShardCoordinator, member: string, count: number) => (await c.tick(member, count, true)).leases.map((lease) => lease.shardId);

  it('refuses a process of another bot (or of none) given the same key, loudly, while the first bot keeps every shard', async () => {
    const { key, coordinator } = fleet('111');
    const first = coordinator();
    await first.tick('a', 4, false);
    expect(await shards(first, 'a', 4)).toEqual([0, 1, 2, 3]);
    for (const other of ['222', null]) {
      const error = await reported(`bot ${other}`, coordinator(other).tick('b', 4, true));
      expect(isCommunityChatError(error, 'ShardCoordinatorError')).toBe(true);
      expect(error.keys).toEqual([`{${key}}:bot`]);
      expect(error.message).toContain('"111"');
    }
    // The refused processes never joined: the first bot still counts one member and holds all four shards.
    const tick = await first.tick('a', 4, true);
    expect([tick.members, tick.leases.length]).toEqual([1, 4]);
    // join() sets the bot of a coordinator created without one.
    const joined = coordinator(null);
    joined.join('111');
    expect((await joined.tick('c', 4, false)).members).toBe(2);
  });

  it('takes a shard whose lease names a member that does not exist (live until tomorrow), and reports it', async () => {
    const { key, coordinator } = fleet();
    const c = coordinator();
    await send('HSET', `{${key}}:leases:4`, '2', `ghost|5|${await tomorrow()}`, '3', 'ghost|7');
    // The first step's sweep finds both leases (no member holds them), frees the shards and reports the leases.
    const error = await reported('planted leases', c.tick('a', 4, false));
    // Leases without their index: the index is reported missing too.
    expect(error.keys).toEqual([`{${key}}:owners:4`, `{${key}}:leases:4`]);
    expect(error.message).toContain('neither held nor free');
    expect(await shards(c, 'a', 4)).toEqual([0, 1, 2, 3]);
  });

  it('frees a shard whose lease was overwritten under a live holder, and takes it again with a new fence', async () => {
    const { key, coordinator } = fleet();
    const c = coordinator();
    await c.tick('a', 2, false);
    const before = await c.tick('a', 2, true);
    await send('HSET', `{${key}}:leases:2`, '1', `ghost|-30|${await tomorrow()}`);
    const { tick: after, error } = await servedThenReported('overwritten lease', c, 'a', 2);
    expect(error.keys).toEqual([`{${key}}:leases:2`]);
    expect(ids(after)).toEqual([0, 1]);
    expect(after.leases[1]?.fence).toBeGreaterThan(before.leases[1]?.fence ?? Number.POSITIVE_INFINITY);
  });

  it('takes a free shard whose planted lease names a live member that does not hold it, and reports it', async () => {
    const { key, coordinator } = fleet();
    const c = coordinator();
    for (const m of ['a', 'b']) await c.tick(m, 3, false);
    expect(await shards(c, 'a', 3)).toEqual([0, 1]);
    expect(await shards(c, 'b', 3)).toEqual([2]);
    // a gives shard 1 back (a hand-off); a lease naming a, live, is planted on it: b, below its share, takes it anyway.
    await c.release('a', 3, (await c.tick('a', 3, false)).leases[1] as ShardLease);
    await send('HSET', `{${key}}:leases:3`, '1', 'a|99');
    const { tick, error } = await servedThenReported('lease naming a live member', c, 'b', 3);
    expect(error.keys).toEqual([`{${key}}:leases:3`]);
    expect(ids(tick)).toEqual([1, 2]);
    expect(await shards(c, 'b', 3)).toEqual([1, 2]);
    expect(await shards(c, 'a', 3)).toEqual([0]);
  });

  it.each(['abc', '-30', '1e1', '99999999999999999999'])('a fencing counter of %s: reported, then fences start above any given', async (planted) => {
    const { key, coordinator } = fleet();
    const c = coordinator();
    await send('SET', `{${key}}:fence`, planted);
    // Every step reads the counter: the first one (taking nothing) reports it.
    expect((await reported(`fence ${planted}`, c.tick('a', 3, false))).keys).toEqual([`{${key}}:fence`]);
    const tick = await c.tick('a', 3, true);
    expect(ids(tick)).toEqual([0, 1, 2]);
    const time = await redisNow();
    for (const lease of tick.leases) expect(lease.fence).toBeGreaterThan(time - 60_000);
  });

  it('a fencing counter deleted while leases are held: reported, and the next fence is above every one given', async () => {
    const { key, coordinator } = fleet();
    const c = coordinator();
    await c.tick('a', 2, false);
    const before = await c.tick('a', 2, true);
    await c.release('a', 2, before.leases[1] as ShardLease);
    await send('DEL', `{${key}}:fence`);
    const { tick: after, error } = await servedThenReported('fence deleted', c, 'a', 2);
    expect(error.keys).toEqual([`{${key}}:fence`]);
    expect(ids(after)).toEqual([0, 1]);
    expect(after.leases[1]?.fence).toBeGreaterThan(before.leases[0]?.fence ?? Number.POSITIVE_INFINITY);
  });

  it('a members key of the wrong type: reported and replaced, and the shards are served', async () => {
    const { key, coordinator } = fleet();
    const c = coordinator();
    await send('SET', `{${key}}:members`, 'planted');
    expect((await reported('members of the wrong type', c.tick('a', 2, false))).keys).toEqual([`{${key}}:members`]);
    expect(await shards(c, 'a', 2)).toEqual([0, 1]);
  });

  it('a holder planted live until tomorrow with a lease and its index entry: reported, and its shard freed and served', async () => {
    const { key, coordinator } = fleet();
    const c = coordinator();
    const k = `{${key}}`;
    await send('ZADD', `${k}:holders:2`, String(await tomorrow()), 'ghost');
    await send('ZADD', `${k}:owners:2`, '0', 'ghost|0');
    await send('HSET', `${k}:leases:2`, '0', 'ghost|5');
    await send('SET', `${k}:fence`, '5');
    expect((await reported('planted holder', c.tick('a', 2, false))).keys).toEqual([`${k}:holders:2`]);
    expect(await shards(c, 'a', 2)).toEqual([0, 1]);
  });

  it('a member planted live until tomorrow does not halve the share: reported, removed, every shard served', async () => {
    const { key, coordinator } = fleet();
    const c = coordinator();
    await send('ZADD', `{${key}}:members`, String(await tomorrow()), 'ghost');
    expect((await reported('planted member', c.tick('a', 2, false))).keys).toEqual([`{${key}}:members`]);
    expect(await shards(c, 'a', 2)).toEqual([0, 1]);
  });

  it.each(['99999999999', '1e1', '-3', '0', 'ten', '04'])('a fleet count of %s is never used: reported and replaced by the proposed count', async (planted) => {
    const { key, coordinator } = fleet();
    const c = coordinator();
    await send('SET', `{${key}}:count`, planted);
    // connect() goes on with the proposed count; the next step reports what was replaced.
    expect(await c.shardCount(4)).toBe(4);
    expect((await reported(`count ${planted}`, c.tick('a', 4, false))).keys).toEqual([`{${key}}:count`]);
    expect(await c.shardCount(6)).toBe(4);
    expect((await c.tick('a', 4, false)).members).toBe(1);
  });

  it('a reshard asked while a planted target is pending is made, and the next step reports the planted value', async () => {
    const { key, coordinator } = fleet();
    const c = coordinator();
    await send('SET', `{${key}}:target`, '1e1');
    await c.requestReshard(3);
    expect((await reported('planted pending target', c.tick('a', 2, false))).keys).toEqual([`{${key}}:target`]);
    expect((await c.tick('a', 2, false)).target).toBe(3);
  });

  it('a planted reshard target is reported and dropped: no process starts a set of 99999999999 shards', async () => {
    const { key, coordinator } = fleet();
    const c = coordinator();
    await send('SET', `{${key}}:target`, '99999999999');
    expect((await reported('planted target', c.tick('a', 2, false))).keys).toEqual([`{${key}}:target`]);
    expect((await c.tick('a', 2, true)).target).toBeUndefined();
  });
});
