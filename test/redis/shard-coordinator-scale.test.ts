/**
 * The shard coordinator at scale, on one real Redis, with coordinators and no sockets (no Gateway): a step's cost follows
 * the shards the member holds, not the shard count (counted in commands Redis ran, `INFO commandstats`, never timed), and
 * 50 supervisors sharing 1,000 shards rebalance a member's death within `leaseMs` plus 5 s.
 */
import { afterEach, expect, it } from 'vitest';
import { FleetSupervisor, type FleetHost, type ShardCoordinator } from '../../src/gateway/coordinator.js';
import { createRedisShardCoordinator, type RedisShardCoordinator } from '../../src/redis/index.js';
import { describeWithRedis, useRedis } from '../helpers/redis-server.js';
import { until } from '../helpers/until.js';

describeWithRedis('the Redis shard coordinator at scale', () => {
  const redis = useRedis();
  const send = (...args: string[]) => redis.connection.sendCommand(args);

  /** How many commands Redis ran for `step` (those its scripts called; the script call itself and the counting excluded). */
  async function commandsOf(step: () => Promise<unknown>): Promise<number> {
    await send('CONFIG', 'RESETSTAT');
    await step();
    const stats = String(await send('INFO', 'commandstats'));
    let total = 0;
    for (const [, name, calls] of stats.matchAll(/^cmdstat_([a-z|]+):calls=(\d+)/gm)) {
      if (!['evalsha', 'eval', 'config', 'info'].includes(name as string)) total += Number(calls);
    }
    return total;
  }

  /** A fleet of `count` shards where member `a` holds 10 and member `big` all the others. */
  async function fleetOf(count: number): Promise<RedisShardCoordinator> {
    const c = createRedisShardCoordinator({ client: redis.connection, key: `scale-${count}`, leaseMs: 60_000 });
    await until(async () => (await c.tick('big', count, true)).leases.length === count, { what: `big holding all ${count} shards`, timeoutMs: 30_000 });
    const { leases } = await c.tick('big', count, true);
    for (const lease of leases.slice(0, 10)) await c.release('big', count, lease);
    await c.tick('a', count, false);
    expect((await c.tick('a', count, true)).leases).toHaveLength(10);
    return c;
  }

  it('a step of a member holding 10 shards runs as many commands at 100, 1,000 and 10,000 shards; one holding all grows with them', async () => {
    const steps: Record<number, { a: number; big: number }> = {};
    for (const count of [100, 1000, 10_000]) {
      const c = await fleetOf(count);
      const a = await commandsOf(() => c.tick('a', count, true));
      const big = await commandsOf(() => c.tick('big', count, true));
      steps[count] = { a, big };
    }
    const at = (count: number) => steps[count] as { a: number; big: number };
    // What member a's step costs does not depend on the shard count (a loop over the count would add ~9,900 commands).
    expect(at(10_000).a, JSON.stringify(steps)).toBe(at(100).a);
    // About 70 commands, and the sweep's 16 shards (3 each: a lease, its holder, the index, or the free set).
    expect(at(100).a, JSON.stringify(steps)).toBeLessThan(130);
    // The member holding (count - 10) shards pays per shard held: about one command each.
    expect(at(10_000).big, JSON.stringify(steps)).toBeGreaterThan(9_990);
    expect(at(10_000).big, JSON.stringify(steps)).toBeLessThan(10_100);
  }, 60_000);

  const supervisors: FleetSupervisor[] = [];
  afterEach(async () => {
    await Promise.all(supervisors.splice(0).map((supervisor) => supervisor.close(async () => undefined)));
  });

  it("50 supervisors share 1,000 shards, each held once and at most 20 each; a member's death is rebalanced within leaseMs + 5 s", async () => {
    const leaseMs = 3000;
    const count = 1000;
    const redisCoordinator = createRedisShardCoordinator({ client: redis.connection, key: 'scale-fleet', leaseMs });
    const failures: string[] = [];
    let dead = '';
    /** The Redis coordinator, but a dead member's every call fails (it is gone: its membership and leases expire). */
    const coordinatorOf = (member: string): ShardCoordinator => {
      const gone = () => Promise.reject(new Error(`${member} is dead`));
      return {
        leaseMs,
        tick: (...args) => (member === dead ? gone() : redisCoordinator.tick(...args)),
        release: (...args) => (member === dead ? gone() : redisCoordinator.release(...args)),
        leave: (...args) => (member === dead ? gone() : redisCoordinator.leave(...args)),
        claimInteraction: (...args) => redisCoordinator.claimInteraction(...args),
        answered: (id) => redisCoordinator.answered(id),
      };
    };
    const host = (member: string): FleetHost => ({
      start: async () => undefined,
      stop: async () => undefined,
      ready: () => true,
      debug: () => undefined,
      failed: (error) => {
        if (member !== dead) failures.push(`${member}: ${String(error)}`);
      },
    });
    const members = Array.from({ length: 50 }, (_, i) => `m${i}`);
    for (const member of members) supervisors.push(new FleetSupervisor(coordinatorOf(member), count, member, host(member)));
    await Promise.all(supervisors.map((supervisor) => supervisor.start()));

    /** Whether the live supervisors hold every shard exactly once, none more than `most`. */
    const shared = (live: FleetSupervisor[], most: number) => {
      const held = live.flatMap((supervisor) => supervisor.shardIds);
      return held.length === count && new Set(held).size === count && live.every((supervisor) => supervisor.shardIds.length <= most);
    };
    await until(() => shared(supervisors, 20), { what: '1,000 shards held once by 50 members, 20 each at most', timeoutMs: 30_000 });
    expect(failures).toEqual([]);

    const victim = supervisors[17] as FleetSupervisor;
    dead = victim.member;
    const orphaned = victim.shardIds;
    expect(orphaned).toHaveLength(20);
    const live = supervisors.filter((supervisor) => supervisor !== victim);
    const killedAt = performance.now();
    await until(() => shared(live, 21), { what: `the dead member's 20 shards taken by the 49 others within ${leaseMs} + 5000 ms`, timeoutMs: leaseMs + 5000 });
    const rebalancedMs = performance.now() - killedAt;
    expect(rebalancedMs).toBeLessThanOrEqual(leaseMs + 5000);
    expect(failures).toEqual([]);
    supervisors.splice(supervisors.indexOf(victim), 1);
  }, 60_000);
});
