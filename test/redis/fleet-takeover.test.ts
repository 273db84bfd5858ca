/**
 * Takeover time on a real redis-server: the step that frees a dead member's leases records when it last renewed
 * (`{K}:last:<count>`, `holder|ms`), so the member taking a shard over knows how long ago that was (`sinceRenewalMs`,
 * bounded: a planted value reads as missing), its `shardAcquired` event carries the takeover from that renewal to the
 * session up (`takeoverMs`), and `createOtelMetrics()` records it as `community_chat.fleet.takeover.duration`.
 */
import { afterEach, expect, it } from 'vitest';
import { Client } from '../../src/index.js';
import type { ShardAcquiredEvent } from '../../src/diagnostics.js';
import { createOtelMetrics, type OtelMetrics } from '../../src/otel/index.js';
import { createRedisShardCoordinator } from '../../src/redis/index.js';
import { createEmulator, type Emulator } from '../../src/testing/index.js';
import { MemoryMeterProvider } from '../helpers/memory-meter.js';
import { describeWithRedis, useRedis } from '../helpers/redis-server.js';
import { until } from '../helpers/until.js';

describeWithRedis('takeover time', () => {
  const redis = useRedis();
  let n = 0;
  let emulator: Emulator | undefined;
  let client: Client | undefined;
  let measuring: OtelMetrics | undefined;
  afterEach(async () => {
    measuring?.disable();
    await client?.close();
    await emulator?.close();
  });

  /** Redis's time, ms. */
  async function redisNow(): Promise<number> {
    const [seconds, micros] = (await redis.connection.sendCommand(['TIME'])) as unknown as [string, string];
    return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
  }

  it('a shard taken from a member that died says how long before the acquisition that member last renewed', async () => {
    const key = `takeover-${++n}`;
    const leaseMs = 400;
    const dead = createRedisShardCoordinator({ client: redis.connection, key, leaseMs, name: 'dead' });
    const next = createRedisShardCoordinator({ client: redis.connection, key, leaseMs, name: 'next' });
    await dead.tick('d', 1, false);
    await dead.tick('d', 1, true, true);
    const renewedAt = await redisNow();
    await next.tick('x', 1, false);
    const taken = await until(
      async () => {
        const tick = await next.tick('x', 1, true, true);
        return tick.leases.length === 1 ? tick : undefined;
      },
      { what: "the dead member's shard taken" },
    );
    const since = taken.previous?.get(0)?.sinceRenewalMs;
    const spent = (await redisNow()) - renewedAt;
    expect(taken.previous?.get(0)).toMatchObject({ member: 'd', name: 'dead', live: false, left: false });
    // Its lease had to expire first: at least leaseMs since its last renewal, and no more than the time since the test saw it.
    expect(since, `since its last renewal: ${since} ms, the test measured ${spent} ms`).toBeGreaterThanOrEqual(leaseMs);
    expect(since).toBeLessThanOrEqual(spent + 5);
  });

  it('reads a planted last renewal that is in the future, or older than 40 leases, as missing', async () => {
    const cases: [string, (now: number) => string, boolean][] = [
      ['5 s ago', (now) => String(now - 5000), true],
      ['in the future', (now) => String(now + 60_000), false],
      ['long ago (1970)', () => '1', false],
      ['older than 40 leases', (now) => String(now - 40 * 400 - 5000), false],
    ];
    for (const [what, value, known] of cases) {
      const key = `takeover-${++n}`;
      // A shard never held by this fleet's members, whose last holder is planted: no step freed it, no step overwrites it.
      await redis.connection.hSet(`{${key}}:last:1`, '0', `ghost|${value(await redisNow())}`);
      const c = createRedisShardCoordinator({ client: redis.connection, key, leaseMs: 400 });
      await c.tick('x', 1, false);
      const tick = await c.tick('x', 1, true, true);
      const from = tick.previous?.get(0);
      expect(from, what).toMatchObject({ member: 'ghost', live: false });
      if (known) expect(from?.sinceRenewalMs, what).toBeGreaterThanOrEqual(5000);
      else expect(from?.sinceRenewalMs, what).toBeUndefined();
    }
  });

  it("a Gateway taking over a dead member's shards reports the takeover from its last renewal, and the metrics record it", async () => {
    const key = `takeover-${++n}`;
    const leaseMs = 1500;
    emulator = await createEmulator({ gateway: { shards: 2, maxConcurrency: 2 } });
    const meters = new MemoryMeterProvider();
    measuring = createOtelMetrics({ meterProvider: meters });
    // A member that holds both shards, then dies (steps no more).
    const dead = createRedisShardCoordinator({ client: redis.connection, key, leaseMs, name: 'dead' });
    await dead.shardCount(2);
    await dead.tick('d', 2, false);
    expect((await dead.tick('d', 2, true, true)).leases).toHaveLength(2);
    const coordinator = createRedisShardCoordinator({ client: redis.connection, key, leaseMs, name: 'survivor' });
    client = new Client({ baseUrl: emulator.url, auth: { botToken: emulator.seed.botToken }, gateway: { coordinator } });
    const acquired: ShardAcquiredEvent[] = [];
    client.gateway.on('shardAcquired', (event) => acquired.push(event));
    await client.gateway.connect();
    await until(() => acquired.length === 2, { what: `both shards taken over and up (acquired: ${JSON.stringify(acquired)})`, timeoutMs: 15_000 });
    for (const event of acquired) {
      expect(event.from, `shard ${event.shardId}'s former holder`).toMatchObject({ member: 'd', name: 'dead', live: false });
      // From the dead member's last renewal: at least its lease (it had to expire), more than the acquisition-to-up span.
      expect(event.takeoverMs, `shard ${event.shardId}'s takeover`).toBeGreaterThanOrEqual(leaseMs);
      expect(event.takeoverMs).toBe((event.from?.sinceRenewalMs ?? Number.NaN) + event.durationMs);
    }
    const recorded = meters.values('community_chat.fleet.takeover.duration');
    expect(meters.instruments.get('community_chat.fleet.takeover.duration')).toMatchObject({ unit: 's' });
    expect(recorded.map((value) => value.value).sort()).toEqual(acquired.map((event) => (event.takeoverMs ?? 0) / 1000).sort());
    for (const value of recorded) expect(value.value, 'seconds, from the last renewal').toBeGreaterThanOrEqual(leaseMs / 1000);
  }, 30_000);
});
