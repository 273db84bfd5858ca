/**
 * The shard coordinator when a key it derives (the index `:owners:`, the holders, the free set, the cursor `:next:`) is
 * lost or repaired, on a real Redis: every shard is served again within a bounded number of steps (the sweep re-offers a
 * shard neither held nor free, 16 a step), and what was found is reported. Also: fences stay monotonic across repairs,
 * release and leave check every key's type before writing, and a late commit of an earlier reshard changes nothing.
 */
import { expect, it } from 'vitest';
import { ShardCoordinatorError } from '../../src/errors/index.js';
import type { CoordinatorTick, ShardLease } from '../../src/stores.js';
import { createRedisShardCoordinator } from '../../src/redis/index.js';
import { describeWithRedis, useRedis } from '../helpers/redis-server.js';
import { until } from '../helpers/until.js';

describeWithRedis('the Redis shard coordinator when a derived key is lost or repaired', () => {
  const redis = useRedis();
  let n = 0;
  const fleet = (count: number, members: string[]) => {
    const key = `repair-${++n}`;
    const c = createRedisShardCoordinator({ client: redis.connection, key, leaseMs: 5000 });
    return { k: `{${key}}`, c, count, members };
  };
  const send = (...args: string[]) => redis.connection.sendCommand(args);
  const redisMs = async () => {
    const [seconds, micros] = (await send('TIME')) as unknown as string[];
    return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
  };
  const ids = (tick: CoordinatorTick) => tick.leases.map((lease) => lease.shardId);

  /** Registers the members, then lets each take its share; answers each member's leases. */
  async function started(f: ReturnType<typeof fleet>): Promise<Map<string, ShardLease[]>> {
    for (const m of f.members) await f.c.tick(m, f.count, false);
    const held = new Map<string, ShardLease[]>();
    for (const m of f.members) held.set(m, (await f.c.tick(m, f.count, true)).leases);
    return held;
  }

  /**
   * Steps every member in turn until the shards they hold cover 0..count-1, each once; fails naming what each held after
   * `rounds` rounds. Answers the rounds it took and every report the steps gave.
   */
  async function servedWithin(f: ReturnType<typeof fleet>, rounds: number, members = f.members) {
    const reports: ShardCoordinatorError[] = [];
    const held = new Map<string, number[]>();
    for (let round = 1; round <= rounds; round++) {
      for (const m of members) {
        const tick = await f.c.tick(m, f.count, true);
        if (tick.report instanceof ShardCoordinatorError) reports.push(tick.report);
        held.set(m, ids(tick));
      }
      const all = [...held.values()].flat().sort((a, b) => a - b);
      if (JSON.stringify(all) === JSON.stringify([...Array(f.count).keys()])) return { round, reports };
    }
    throw new Error(`after ${rounds} rounds the members held ${JSON.stringify(Object.fromEntries(held))}, not each of ${f.count} shards once`);
  }
  const keysOf = (reports: ShardCoordinatorError[]) => [...new Set(reports.flatMap((report) => report.keys))];

  it('the index deleted (evicted): reported, and every shard served again on the next round', async () => {
    const f = fleet(4, ['a', 'b']);
    await started(f);
    await send('DEL', `${f.k}:owners:4`);
    const { round, reports } = await servedWithin(f, 2);
    expect(round).toBe(1);
    expect(keysOf(reports)).toContain(`${f.k}:owners:4`);
    // Still served afterwards, and quietly.
    expect(await servedWithin(f, 1)).toEqual({ round: 1, reports: [] });
  });

  it('the index of the wrong type: reported once (at most 20 lines), then every shard served, and stays served', async () => {
    const f = fleet(100, ['a', 'b']);
    await started(f);
    await send('SET', `${f.k}:owners:100`, 'x');
    // 100 shards: the cursor starts again from 0 at once (the sweep alone, 16 a step, would take four rounds).
    const { round, reports } = await servedWithin(f, 2);
    expect(round).toBe(1);
    expect(keysOf(reports)).toContain(`${f.k}:owners:100`);
    // Each of a's 50 leases found without its index is a line: the report quotes 20 and counts the rest.
    const [first] = reports;
    expect(first?.message.split('; ')).toHaveLength(21);
    expect(first?.message).toMatch(/; and \d+ more$/);
    for (let i = 0; i < 3; i++) expect(await servedWithin(f, 1)).toEqual({ round: 1, reports: [] });
  });

  it('the holders of the wrong type while a member is dead: its shards are freed and served by the live one', async () => {
    const f = fleet(4, ['a', 'b']);
    await started(f);
    // b dies (its membership ended long ago), and the holders key is overwritten: nothing lists b as a dead holder.
    await send('ZADD', `${f.k}:members`, '1', 'b');
    await send('SET', `${f.k}:holders:4`, 'x');
    const { reports } = await servedWithin(f, 2, ['a']);
    expect(keysOf(reports)).toContain(`${f.k}:holders:4`);
  });

  it('the free set of the wrong type after a release: the shard given back is served again', async () => {
    const f = fleet(4, ['a']);
    const lease = (await started(f)).get('a')?.[3] as ShardLease;
    await f.c.release('a', 4, lease);
    await send('SET', `${f.k}:free:4`, 'x');
    const { reports } = await servedWithin(f, 1);
    expect(keysOf(reports)).toContain(`${f.k}:free:4`);
  });

  it('a release while the free set holds a string: checked before any write, reported, and the shard served again', async () => {
    const f = fleet(4, ['a']);
    const lease = (await started(f)).get('a')?.[3] as ShardLease;
    await send('SET', `${f.k}:free:4`, 'x');
    const error = await f.c.release('a', 4, lease).then(
      () => new Error('the release resolved without reporting the free set'),
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(ShardCoordinatorError);
    expect((error as ShardCoordinatorError).keys).toEqual([`${f.k}:free:4`]);
    // The release was made whole: the lease deleted and the shard in the free set.
    expect(await send('HGET', `${f.k}:leases:4`, '3')).toBeNull();
    expect(await send('ZSCORE', `${f.k}:free:4`, '3')).not.toBeNull();
    expect(await servedWithin(f, 1)).toEqual({ round: 1, reports: [] });
  });

  it('a plausible cursor planted: the shards below it are offered by the sweep and reported', async () => {
    const f = fleet(4, ['a']);
    await f.c.tick('a', 4, false);
    await send('SET', `${f.k}:next:4`, '3');
    const { round, reports } = await servedWithin(f, 2);
    expect(round).toBe(1);
    expect(reports.flatMap((report) => report.message.match(/shard \d+, neither held nor free/g) ?? [])).toHaveLength(3);
  });

  it('a leave reports what it repaired, and the leases it gave back are served by the others', async () => {
    const f = fleet(4, ['a', 'b']);
    await started(f);
    await send('SET', `${f.k}:free:4`, 'x');
    const error = await f.c.leave('b', 4).then(
      () => new Error('the leave resolved without reporting the free set'),
      (thrown: unknown) => thrown,
    );
    expect((error as ShardCoordinatorError).keys).toEqual([`${f.k}:free:4`]);
    // The member is gone from the holders too, and a alone serves all four.
    expect(await send('ZSCORE', `${f.k}:holders:4`, 'b')).toBeNull();
    expect((await servedWithin(f, 1, ['a'])).round).toBe(1);
  });

  it('a fencing counter planted at 2^52: reported, and fences start again from the time, never past 2^52', async () => {
    const f = fleet(3, ['a']);
    await send('SET', `${f.k}:fence`, '4503599627370495');
    const registration = await f.c.tick('a', 3, false);
    expect(registration.report).toBeInstanceOf(ShardCoordinatorError);
    expect((registration.report as ShardCoordinatorError).keys).toEqual([`${f.k}:fence`]);
    const time = Number(((await send('TIME')) as unknown as string[])[0]) * 1000;
    const { leases } = await f.c.tick('a', 3, true);
    for (const lease of leases) expect(lease.fence).toBeGreaterThan(time - 60_000);
    for (const lease of leases) expect(lease.fence).toBeLessThan(time + 2 ** 40);
  });

  it('a fencing counter deleted while another count holds leases: reported, and the new count’s fences above them', async () => {
    const f = fleet(2, ['a']);
    const old = (await started(f)).get('a') ?? [];
    await send('DEL', `${f.k}:fence`);
    const next = await f.c.tick('a', 3, true);
    expect((next.report as ShardCoordinatorError | undefined)?.keys).toEqual([`${f.k}:fence`]);
    const highest = Math.max(...old.map((lease) => lease.fence));
    for (const lease of next.leases) expect(lease.fence).toBeGreaterThan(highest);
  });

  it('fences rise across takes in one millisecond and across a lease given back and taken again', async () => {
    const f = fleet(50, ['a']);
    const first = (await started(f)).get('a') ?? [];
    const fences = first.map((lease) => lease.fence);
    expect(new Set(fences).size).toBe(50);
    await f.c.release('a', 50, first[0] as ShardLease);
    const again = (await f.c.tick('a', 50, true)).leases.find((lease) => lease.shardId === 0);
    expect(again?.fence).toBeGreaterThan(Math.max(...fences));
  });

  it('a fencing counter set back (an older snapshot restored): the next fence is still above every one given', async () => {
    const f = fleet(2, ['a']);
    const [kept, given] = (await started(f)).get('a') ?? [];
    await f.c.release('a', 2, given as ShardLease);
    await send('SET', `${f.k}:fence`, '5');
    // Fences run ahead of Redis's clock by the shards taken in one ms: a snapshot is restored later than that.
    const highest = Math.max(kept?.fence ?? 0, given?.fence ?? 0);
    await until(async () => redisMs().then((ms) => ms > highest), { what: `Redis's clock past fence ${highest}` });
    const again = (await f.c.tick('a', 2, true)).leases.find((lease) => lease.shardId === 1);
    expect(again?.fence).toBeGreaterThan(Math.max(kept?.fence ?? Number.POSITIVE_INFINITY, given?.fence ?? Number.POSITIVE_INFINITY));
  });

  it('a late commit of an earlier reshard does not roll the fleet back', async () => {
    const { c } = fleet(2, []);
    await c.shardCount(2);
    await c.requestReshard(3);
    await c.commitReshard(3);
    await c.requestReshard(4);
    await c.commitReshard(4);
    await c.commitReshard(3); // a slow member of the first reshard
    expect(await c.shardCount(4)).toBe(4);
    expect(await c.shardCount()).toBe(4);
  });
});
