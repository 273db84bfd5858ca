// npm run bench: client CPU per request of the SDK against raw undici on the
// same server in the same run, cold import time against undici alone, and the
// Gateway flood against raw ws (bench/gateway.mjs).
// Prints ratios; it asserts nothing (timings do not belong in tests).
import { spawn, spawnSync, execFileSync } from 'node:child_process';
import { once } from 'node:events';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { Client } from '../dist/index.js';
import { installed, measure, summary } from './measure.mjs';
import { gatewayBenchmark } from './gateway.mjs';
import { workerBundleSize } from './worker-size.mjs';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
/** The targets of the performance issue: every REST hot path, cold import and peak RSS at most this ratio (the Gateway's are its own). */
const TARGET = 1.1;
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 4000);
const CONCURRENCY = [1, 16, 64];

async function startServer(script = './server.mjs') {
  // Pin the server to the last core and this process to the others when taskset exists (Linux), so the
  // two do not trade places on one core mid-round; otherwise run unpinned.
  const cores = os.cpus().length;
  let pinned = false;
  if (cores >= 2) {
    try {
      execFileSync('taskset', ['-p', '-c', `0-${cores - 2}`, String(process.pid)], { stdio: 'ignore' });
      pinned = true;
    } catch {
      pinned = false;
    }
  }
  const command = pinned ? 'taskset' : process.execPath;
  const args = pinned ? ['-c', String(cores - 1), process.execPath, here(script)] : [here(script)];
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const [chunk] = await once(child.stdout, 'data');
  return { child, port: Number(String(chunk).trim()), pinned };
}

async function restBenchmark(port) {
  const origin = `http://127.0.0.1:${port}`;
  const pool = new Pool(origin, { connections: 128, keepAliveTimeout: 4000 });
  const client = new Client({ baseUrl: origin, auth: { botToken: 'bench-token' } });
  const authorized = { authorization: 'Bot bench-token', accept: 'application/json' };
  const json = { ...authorized, 'content-type': 'application/json' };
  const rawCall = async (method, path, headers, body) => {
    const response = await pool.request({ method, path, headers, body });
    return response.body.json();
  };
  // Interaction ids and webhook ids change with every call, as in a real bot: callbacks are one bucket
  // for the route, and each webhook has its own 30-per-minute window, so spreading executions over
  // 50,000 webhooks keeps the window on without ever binding.
  let interaction = 0;
  let hook = 0;
  const nextInteraction = () => String(900_000 + (interaction++ % 1_000_000));
  const nextHook = () => String(100_000 + (hook++ % 50_000));
  const callback = { interaction_type: 4, data: { content: 'Quiz about space' } };
  const message = { content: 'Build 1234 passed' };
  const operations = [
    ['GET  channels.get', () => client.channels.get('123'), () => rawCall('GET', '/api/v1/channels/123', authorized)],
    [
      'PATCH channels.update (validated)',
      () => client.channels.update('123', { name: 'general' }),
      () => rawCall('PATCH', '/api/v1/channels/123', json, JSON.stringify({ name: 'general' })),
    ],
    [
      'POST interactions.respond (validated)',
      () => client.interactions.respond(nextInteraction(), callback),
      () => rawCall('POST', `/api/v1/interactions/${nextInteraction()}/callback`, json, JSON.stringify(callback)),
    ],
    [
      'POST webhooks.execute (window on)',
      () => {
        const id = nextHook();
        return client.webhooks.execute({ id, token: `token-${id}` }, message);
      },
      () => {
        const id = nextHook();
        return rawCall(
          'POST',
          `/api/v1/webhooks/${id}/token-${id}`,
          { accept: 'application/json', 'content-type': 'application/json' },
          JSON.stringify(message),
        );
      },
    ],
  ];
  // Warm up both paths of every operation (JIT, sockets, lazily loaded schemas).
  for (const [, sdkFn, rawFn] of operations) {
    await measure(rawFn, 1500, 16);
    await measure(sdkFn, 1500, 16);
  }

  const rows = [];
  for (const [label, sdkFn, rawFn] of operations) {
    for (const concurrency of CONCURRENCY) {
      const sdkTimes = [];
      const rawTimes = [];
      for (let round = 0; round < ROUNDS; round++) {
        // Alternate which side goes first, so drift in the machine's state hits both.
        if (round % 2 === 0) {
          rawTimes.push(await measure(rawFn, REQUESTS, concurrency));
          sdkTimes.push(await measure(sdkFn, REQUESTS, concurrency));
        } else {
          sdkTimes.push(await measure(sdkFn, REQUESTS, concurrency));
          rawTimes.push(await measure(rawFn, REQUESTS, concurrency));
        }
      }
      const sdk = summary(sdkTimes);
      const raw = summary(rawTimes);
      rows.push({ label, concurrency, sdk, raw, ratio: sdk.median / raw.median });
    }
  }
  await client.close();
  await pool.close();
  return rows;
}

/**
 * The default mode, as a bot runs: each adapter alone in a fresh child process per round (warm-up, then the measured
 * calls, client CPU from process.cpuUsage), adapters rotated every round, medians over the rounds.
 */
function restPerProcess(port) {
  const adapters = ['undici', 'sdk', ...(installed('@discordjs/rest') ? ['discordjs'] : [])];
  const operations = [
    ['GET  channels.get', 'get'],
    ['PATCH channels.update (validated)', 'patch'],
    ['POST interactions.respond (validated)', 'respond'],
    ['POST webhooks.execute (window on)', 'execute'],
  ];
  const rows = [];
  for (const [label, op] of operations) {
    for (const concurrency of CONCURRENCY) {
      const times = Object.fromEntries(adapters.map((name) => [name, []]));
      for (let round = 0; round < ROUNDS; round++) {
        const order = adapters.map((_, i) => adapters[(i + round) % adapters.length]);
        for (const name of order) {
          const out = execFileSync(process.execPath, [here('./rest-adapter.mjs')], {
            env: { ...process.env, ADAPTER: name, OP: op, CONCURRENCY: String(concurrency), REQUESTS: String(REQUESTS), PORT: String(port) },
            encoding: 'utf8',
          });
          times[name].push(JSON.parse(out.trim().split('\n').at(-1)).cpuUsPerCall);
        }
      }
      const of = Object.fromEntries(adapters.map((name) => [name, summary(times[name])]));
      rows.push({ label, concurrency, sdk: of.sdk, raw: of.undici, peer: of.discordjs, ratio: of.sdk.median / of.undici.median });
    }
  }
  return rows;
}

function coldImport(specifier) {
  const script = `const t = performance.now(); await import(${JSON.stringify(specifier)}); process.stdout.write(String(performance.now() - t));`;
  return Number(execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: here('..'), encoding: 'utf8' }));
}

function importBenchmark() {
  const sdkTimes = [];
  const undiciTimes = [];
  const sdkEntry = new URL('../dist/index.js', import.meta.url).href;
  for (let i = 0; i < 11; i++) {
    if (i % 2 === 0) {
      undiciTimes.push(coldImport('undici'));
      sdkTimes.push(coldImport(sdkEntry));
    } else {
      sdkTimes.push(coldImport(sdkEntry));
      undiciTimes.push(coldImport('undici'));
    }
  }
  return { sdk: summary(sdkTimes), raw: summary(undiciTimes) };
}

/** Peak RSS of one adapter doing the REST workload in a process of its own (bench/rss.mjs), in MB. */
function peakRss(adapter, port) {
  return Number(execFileSync(process.execPath, [here('./rss.mjs'), adapter, String(port)], { encoding: 'utf8' }).trim()) / 1024;
}

const range = (s, digits = 1) => `${s.median.toFixed(digits)} (${s.min.toFixed(digits)}-${s.max.toFixed(digits)})`;
const verdict = (ratio, target) => (ratio <= target ? 'met' : `NOT MET (over by ${((ratio / target - 1) * 100).toFixed(0)}%)`);

const { child, port, pinned } = await startServer();
const table = [];
try {
  console.log(
    `community-chat-sdk benchmarks: node ${process.version}, ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, ${new Date().toISOString().slice(0, 10)}`,
  );
  const inProcess = process.env.BENCH_MODE === 'inprocess';
  console.log(
    inProcess
      ? `REST (in-process mode: adapters alternate in one process and share its JIT, heap and GC, which flatters whoever runs second): client CPU microseconds per request, median (min-max) of ${ROUNDS} rounds of ${REQUESTS} requests, server in another process${pinned ? ' pinned to its own core' : ''}\n`
      : `REST (process-per-adapter mode: each adapter alone in a fresh process per round, warmed up, rotated every round): client CPU microseconds per request, median (min-max) of ${ROUNDS} rounds of ${REQUESTS} requests, server in another process${pinned ? ' pinned to its own core' : ''}\n`,
  );
  const rows = inProcess ? await restBenchmark(port) : restPerProcess(port);
  const peers = rows.some((row) => row.peer !== undefined);
  console.log(
    `operation                                conc   SDK µs/req           undici µs/req        ratio${peers ? '    @discordjs/rest µs/req   ratio' : ''}`,
  );
  for (const row of rows) {
    const peer = row.peer === undefined ? '' : `    ${range(row.peer).padEnd(24)} ${(row.peer.median / row.raw.median).toFixed(2)}x`;
    console.log(
      `${row.label.padEnd(40)}${String(row.concurrency).padStart(5)}   ${range(row.sdk).padEnd(20)} ${range(row.raw).padEnd(20)} ${row.ratio.toFixed(2)}x${peer}`,
    );
    table.push([`${row.label.trim()} c=${row.concurrency}`, row.ratio]);
  }
  const imports = importBenchmark();
  console.log(
    `\ncold import() of the main entry, ms: SDK ${range(imports.sdk)} vs undici alone ${range(imports.raw)}: ${(imports.sdk.median / imports.raw.median).toFixed(2)}x`,
  );
  table.push(['cold import', imports.sdk.median / imports.raw.median]);
  table.push(...(await gatewayBenchmark(startServer, ROUNDS, process.env.BENCH_MODE)));
  const rss = { sdk: [], raw: [] };
  for (let i = 0; i < 3; i++) {
    rss.raw.push(peakRss('raw', port));
    rss.sdk.push(peakRss('sdk', port));
  }
  const rssSdk = summary(rss.sdk);
  const rssRaw = summary(rss.raw);
  console.log(
    `\npeak RSS, MB (each adapter alone in a process: 20,000 GETs and 20,000 interaction callbacks at concurrency 64, 3 runs): SDK ${range(rssSdk)} vs raw undici ${range(rssRaw)}: ${(rssSdk.median / rssRaw.median).toFixed(2)}x`,
  );
  table.push(['peak RSS', rssSdk.median / rssRaw.median]);
} finally {
  child.kill('SIGTERM');
}

console.log('\ntargets (medians of this run; each ratio at most its target):');
for (const [label, ratio, target = TARGET, unit] of table) {
  // A row with a unit (MB) is a difference against its limit, not a ratio.
  const said =
    unit === undefined
      ? `${ratio.toFixed(2)}x  (target ${target === 0.999 ? 'below 1.00' : `at most ${target.toFixed(2)}`}x)`
      : `${ratio >= 0 ? '+' : ''}${ratio.toFixed(1)} ${unit}  (target at most +${target} ${unit})`;
  console.log(`  ${label.padEnd(48)} ${said}  ${verdict(ratio, target)}`);
}
const worker = await workerBundleSize();
console.log(
  `  ${'Worker bundle, gzipped (examples/cloudflare-worker)'.padEnd(48)} ${worker.kb.toFixed(1)} KB  (target at most ${worker.targetKb} KB)  ${verdict(worker.kb, worker.targetKb)}`,
);

// The Redis rate-limit store against the in-memory one, when redis-server is installed (bench/redis.mjs starts its own).
console.log('');
if (spawnSync('sh', ['-c', 'command -v redis-server'], { stdio: 'ignore' }).status === 0) {
  execFileSync(process.execPath, [here('./redis.mjs')], { stdio: 'inherit' });
  // The shard coordinator's step at 100, 1,000 and 10,000 shards (bench/coordinator.mjs starts its own server).
  console.log('');
  execFileSync(process.execPath, [here('./coordinator.mjs')], { stdio: 'inherit' });
} else console.log('redis: redis-server is not installed (apt-get install -y redis-server): skipping the Redis store benchmark');

// The soak of long-running state, in a process of its own (it needs --expose-gc to measure the heap after GC).
console.log('');
execFileSync(process.execPath, ['--expose-gc', here('./soak.mjs')], { stdio: 'inherit' });

// Peak memory of a 200 MB streamed attachment upload, in a process of its own (--expose-gc for a settled baseline).
console.log('');
execFileSync(process.execPath, ['--expose-gc', here('./upload.mjs')], { stdio: 'inherit' });
