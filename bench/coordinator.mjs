// The Redis shard coordinator's step at 100, 1,000 and 10,000 shards: Redis time per step (median of SLOWLOG durations
// with every command logged) and the round trip, for a member of 50 holding its share, and for a member holding 10 shards
// beside one holding the rest (a step costs O(shards held), so this row stays flat). npm run bench runs it when redis-server is installed; it
// starts its own server (persistence off) and stops it. Prints; asserts nothing. Takes a few seconds.
//   node bench/coordinator.mjs
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { createClient } from 'redis';
import { createRedisShardCoordinator } from '../dist/redis/index.js';
import { median } from './measure.mjs';

const STEPS = Number(process.env.BENCH_STEPS ?? 200);

const port = await new Promise((resolve) => {
  const probe = createServer().listen(0, '127.0.0.1', () => {
    const { port } = probe.address();
    probe.close(() => resolve(port));
  });
});
const server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'warning'], {
  stdio: 'ignore',
});
const redis = createClient({ url: `redis://127.0.0.1:${port}` });
redis.on('error', () => undefined);

/** The median Redis time (µs, SLOWLOG with every command logged) and the median round trip (µs) of `STEPS` steps of `step`. */
async function timed(step) {
  await redis.sendCommand(['CONFIG', 'SET', 'slowlog-log-slower-than', '0']);
  await redis.sendCommand(['CONFIG', 'SET', 'slowlog-max-len', String(STEPS * 2)]);
  await redis.sendCommand(['SLOWLOG', 'RESET']);
  const trips = [];
  for (let i = 0; i < STEPS; i++) {
    const started = performance.now();
    await step();
    trips.push((performance.now() - started) * 1000);
  }
  const log = await redis.sendCommand(['SLOWLOG', 'GET', String(STEPS * 2)]);
  await redis.sendCommand(['CONFIG', 'SET', 'slowlog-log-slower-than', '-1']);
  const inRedis = log.filter((entry) => String(entry[3]?.[0]).toUpperCase() === 'EVALSHA').map((entry) => Number(entry[2]));
  return { inRedis: median(inRedis), trip: median(trips) };
}

/** Steps `member` until the fleet's members hold all `count` shards. */
async function share(coordinator, members, count) {
  for (const member of members) await coordinator.tick(member, count, false);
  for (let round = 0; round < 100; round++) {
    const ticks = await Promise.all(members.map((member) => coordinator.tick(member, count, true)));
    if (ticks.reduce((sum, tick) => sum + tick.leases.length, 0) === count) return;
  }
  throw new Error(`the ${members.length} members did not share ${count} shards`);
}

try {
  for (let i = 0; ; i++) {
    try {
      await redis.connect();
      break;
    } catch (error) {
      if (i > 100) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  const members = Array.from({ length: 50 }, (_, i) => `m${i}`);
  console.log(`shard coordinator step (Redis, loopback), ${STEPS} steps each: µs in Redis per step (round trip)`);
  for (const count of [100, 1000, 10_000]) {
    const fleet = createRedisShardCoordinator({ client: redis, key: `bench-fleet-${count}`, leaseMs: 600_000 });
    await share(fleet, members, count);
    const even = await timed(() => fleet.tick('m0', count, true));
    const pair = createRedisShardCoordinator({ client: redis, key: `bench-pair-${count}`, leaseMs: 600_000 });
    await share(pair, ['big'], count);
    for (const lease of (await pair.tick('big', count, true)).leases.slice(0, 10)) await pair.release('big', count, lease);
    await share(pair, ['big', 'small'], count);
    const small = await timed(() => pair.tick('small', count, true));
    console.log(
      `  ${String(count).padStart(6)} shards: 50 members, ${Math.ceil(count / 50)} held: ${even.inRedis.toFixed(0)} µs (${even.trip.toFixed(0)} µs)` +
        `   | 10 held beside one holding ${count - 10}: ${small.inRedis.toFixed(0)} µs (${small.trip.toFixed(0)} µs)`,
    );
  }
} finally {
  await redis.close().catch(() => undefined);
  server.kill('SIGTERM');
}
