// The Redis rate-limit store against the in-memory default: client CPU per request on the same loopback
// server at concurrency 16, and Redis round trips per request (INFO commandstats deltas); then the same store
// on one node against a 3-master Redis Cluster (throughput and round trips). npm run bench runs it when
// redis-server is installed; it starts its own servers (persistence off) and stops them. Prints; asserts nothing.
//   node bench/redis.mjs
import { spawn, execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, createCluster } from 'redis';
import { Client } from '../dist/index.js';
import { createRedisRateLimitStore } from '../dist/redis/index.js';
import { measure } from './measure.mjs';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 4000);
const CONCURRENCY = 16;

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const freePort = () =>
  new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });

/** Requests per second of wall time at concurrency 16. */
async function throughput(fn, total) {
  let next = 0;
  const worker = async () => {
    while (next < total) {
      next++;
      await fn();
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return (total / (performance.now() - started)) * 1000;
}

/** Starts three cluster-enabled masters and joins them; resolves with their ports and a stop function. */
async function startCluster() {
  const dir = mkdtempSync(join(tmpdir(), 'ccsdk-bench-cluster-'));
  const ports = [await freePort(), await freePort(), await freePort()];
  const children = ports.map((port) =>
    spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        join(dir, `n-${port}.conf`),
        '--dir',
        dir,
        '--save',
        '',
        '--appendonly',
        'no',
        '--loglevel',
        'warning',
      ],
      { stdio: 'ignore' },
    ),
  );
  const cli = (port, ...args) => execFileSync('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8' });
  for (const port of ports) {
    for (let i = 0; ; i++) {
      try {
        if (cli(port, 'PING').trim() === 'PONG') break;
      } catch {}
      if (i > 200) throw new Error(`cluster node ${port} did not start`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  execFileSync('redis-cli', ['--cluster', 'create', ...ports.map((port) => `127.0.0.1:${port}`), '--cluster-replicas', '0', '--cluster-yes'], {
    stdio: 'ignore',
  });
  for (const port of ports) {
    for (let i = 0; !cli(port, 'CLUSTER', 'INFO').includes('cluster_state:ok'); i++) {
      if (i > 300) throw new Error('the cluster did not get ready');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return {
    ports,
    stop() {
      for (const child of children) child.kill('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Commands Redis has run so far (every command but INFO itself, those run inside scripts included), and how many of them were scripts. */
async function commandCounts(redis) {
  const info = await redis.info('commandstats');
  let all = 0;
  let scripts = 0;
  for (const [, name, calls] of info.matchAll(/cmdstat_([a-z|]+):calls=(\d+)/g)) {
    if (name === 'info') continue;
    all += Number(calls);
    if (name === 'evalsha' || name === 'eval') scripts += Number(calls);
  }
  return { all, scripts };
}

const redisPort = await freePort();
const redisServer = spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'warning'], {
  stdio: 'ignore',
});
const httpServer = spawn(process.execPath, [fileURLToPath(new URL('./server.mjs', import.meta.url))], { stdio: ['ignore', 'pipe', 'inherit'] });
try {
  const [chunk] = await once(httpServer.stdout, 'data');
  const baseUrl = `http://127.0.0.1:${Number(String(chunk).trim())}`;
  let redis;
  for (let i = 0; ; i++) {
    try {
      redis = createClient({ url: `redis://127.0.0.1:${redisPort}` });
      redis.on('error', () => undefined);
      await redis.connect();
      break;
    } catch (error) {
      if (i > 100) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  const memory = new Client({ baseUrl, auth: { botToken: 'bench-token' } });
  const shared = new Client({ baseUrl, auth: { botToken: 'bench-token' }, rateLimitStore: createRedisRateLimitStore({ client: redis, prefix: 'bench:' }) });
  const memoryGet = () => memory.channels.get('123');
  const redisGet = () => shared.channels.get('123');
  // The floor of any shared store: one plain node-redis round trip (PING) before each in-memory request.
  const pingThenGet = async () => {
    await redis.sendCommand(['PING']);
    return memory.channels.get('123');
  };
  await measure(memoryGet, 2000, CONCURRENCY);
  await measure(redisGet, 2000, CONCURRENCY);
  await measure(pingThenGet, 2000, CONCURRENCY);
  const memoryTimes = [];
  const redisTimes = [];
  let trips = { all: 0, scripts: 0, requests: 0 };
  for (let round = 0; round < ROUNDS; round++) {
    const before = await commandCounts(redis);
    if (round % 2 === 0) {
      memoryTimes.push(await measure(memoryGet, REQUESTS, CONCURRENCY));
      redisTimes.push(await measure(redisGet, REQUESTS, CONCURRENCY));
    } else {
      redisTimes.push(await measure(redisGet, REQUESTS, CONCURRENCY));
      memoryTimes.push(await measure(memoryGet, REQUESTS, CONCURRENCY));
    }
    await new Promise((resolve) => setImmediate(resolve));
    const after = await commandCounts(redis);
    trips = { all: trips.all + after.all - before.all, scripts: trips.scripts + after.scripts - before.scripts, requests: trips.requests + REQUESTS };
  }
  const floorTimes = [];
  for (let round = 0; round < ROUNDS; round++) floorTimes.push(await measure(pingThenGet, REQUESTS, CONCURRENCY));
  const memoryUs = median(memoryTimes);
  const redisUs = median(redisTimes);
  console.log(
    `Redis rate-limit store (redis-server ${execFileSync('redis-server', ['--version'], { encoding: 'utf8' }).match(/v=(\S+)/)?.[1] ?? '?'} on loopback), GET channels.get at concurrency ${CONCURRENCY}, median of ${ROUNDS} rounds of ${REQUESTS}:`,
  );
  console.log(
    `  client CPU per request: Redis store ${redisUs.toFixed(1)} µs vs in-memory ${memoryUs.toFixed(1)} µs: ratio ${(redisUs / memoryUs).toFixed(2)}x; a plain PING round trip + in-memory request ${median(floorTimes).toFixed(1)} µs`,
  );
  // The store sends nothing but EVALSHA (EVAL once per script cache miss), so scripts are its round trips; commandstats also counts the commands the scripts run inside Redis.
  console.log(
    `  Redis round trips per request: ${(trips.scripts / trips.requests).toFixed(3)} (EVALSHA; target 1), running ${((trips.all - trips.scripts) / trips.requests).toFixed(1)} commands inside the script`,
  );
  // One node against a 3-master cluster: the same store (its keys share one hash tag, so a bot's steps go to one master).
  const cluster = await startCluster();
  const clustered = createCluster({ rootNodes: cluster.ports.map((port) => ({ url: `redis://127.0.0.1:${port}` })) });
  clustered.on('error', () => undefined);
  await clustered.connect();
  try {
    const onCluster = new Client({
      baseUrl,
      auth: { botToken: 'bench-token' },
      rateLimitStore: createRedisRateLimitStore({ client: clustered, prefix: 'bench-cluster:' }),
    });
    const clusterGet = () => onCluster.channels.get('123');
    const clusterCounts = async () => {
      let all = 0;
      let scripts = 0;
      for (const master of clustered.masters) {
        const node = await clustered.nodeClient(master);
        const counts = await commandCounts(node);
        all += counts.all;
        scripts += counts.scripts;
      }
      return { all, scripts };
    };
    await throughput(redisGet, 2000);
    await throughput(clusterGet, 2000);
    const nodeRates = [];
    const clusterRates = [];
    let clusterTrips = { scripts: 0, requests: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      const before = await clusterCounts();
      if (round % 2 === 0) {
        nodeRates.push(await throughput(redisGet, REQUESTS));
        clusterRates.push(await throughput(clusterGet, REQUESTS));
      } else {
        clusterRates.push(await throughput(clusterGet, REQUESTS));
        nodeRates.push(await throughput(redisGet, REQUESTS));
      }
      await new Promise((resolve) => setImmediate(resolve));
      const after = await clusterCounts();
      clusterTrips = { scripts: clusterTrips.scripts + after.scripts - before.scripts, requests: clusterTrips.requests + REQUESTS };
    }
    const nodeRate = median(nodeRates);
    const clusterRate = median(clusterRates);
    console.log(
      `  one node vs a 3-master cluster (node-redis createCluster): ${nodeRate.toFixed(0)} vs ${clusterRate.toFixed(0)} requests/s (ratio ${(clusterRate / nodeRate).toFixed(2)}x); Redis round trips per request on the cluster: ${(clusterTrips.scripts / clusterTrips.requests).toFixed(3)}`,
    );
    await onCluster.close();
  } finally {
    await clustered.close().catch(() => undefined);
    cluster.stop();
  }
  await Promise.all([memory.close(), shared.close()]);
  await redis.quit();
} finally {
  httpServer.kill('SIGTERM');
  redisServer.kill('SIGTERM');
}
