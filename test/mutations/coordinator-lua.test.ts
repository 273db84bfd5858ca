/**
 * The shard coordinator's Lua rules that the mutation measure (`npm run mutate`, area `lua`) found unguarded, on a real
 * Redis: a switch starts only for the count a reshard asked for, a member's index is a stable order, and a holder counts
 * as live only until its expiry.
 */
import { expect, it } from 'vitest';
import { createRedisShardCoordinator } from '../../src/redis/index.js';
import { describeWithRedis, useRedis } from '../helpers/redis-server.js';

describeWithRedis('the shard coordinator scripts (mutation guards)', () => {
  const redis = useRedis();
  let n = 0;
  const fleet = (leaseMs = 5000) => {
    const key = `mut-lua-${++n}`;
    return { k: `{${key}}`, c: createRedisShardCoordinator({ client: redis.connection, key, leaseMs }) };
  };
  const send = (...args: string[]) => redis.connection.sendCommand(args);
  /** Redis time in ms (the scripts' only clock). */
  const redisNow = async () => {
    const [seconds, micros] = (await send('TIME')) as unknown as [string, string];
    return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
  };

  it('every shard of the running count READY starts no switch while no reshard asks for that count', async () => {
    const { k, c } = fleet();
    await c.shardCount(2);
    await c.shardReady(2, 0);
    await c.shardReady(2, 1);
    expect(await send('GET', `${k}:switching`), 'a switch started with no reshard asked for').toBeNull();
    await c.requestReshard(3);
    await c.shardReady(2, 0);
    expect(await send('GET', `${k}:switching`), 'READY shards of the count being left started a switch to it').toBeNull();
  });

  it("a member's index is its place in the sorted member ids, whatever order their memberships expire in", async () => {
    const { k, c } = fleet();
    await c.tick('x', 2, false);
    await c.tick('y', 2, false);
    // x renewed last (its membership expires after y's): the index still follows the ids, x before y.
    await send('ZADD', `${k}:members`, String((await redisNow()) + 8000), 'x');
    expect((await c.tick('y', 2, false)).index, "y's index: x sorts before y").toBe(1);
    expect((await c.tick('x', 2, false)).index, "x's index").toBe(0);
  });

  it("a holder whose expiry passed holds nothing: a dead holder's lease the step had no room to free is offered by the sweep", async () => {
    const { k, c } = fleet();
    const members = Array.from({ length: 9 }, (_, i) => `m${i}`);
    for (const m of members) await c.tick(m, 9, false);
    for (const m of members) expect((await c.tick(m, 9, true)).leases).toHaveLength(1);
    // All nine died: their memberships and holdings expired (a step frees the leases of at most 8 dead holders).
    const past = String((await redisNow()) - 1);
    for (const m of members) {
      await send('ZREM', `${k}:members`, m);
      await send('ZADD', `${k}:holders:9`, past, m);
    }
    // One step that takes at once: it frees the leases of 8 dead holders; the ninth's is offered by the sweep, its holder expired.
    const { leases } = await c.tick('z', 9, true);
    expect(
      leases.map((lease) => lease.shardId),
      'the shards z took from the nine dead holders',
    ).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
  });
});
