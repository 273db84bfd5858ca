// npm run bench: client CPU per request of the SDK against raw undici on the
// same server in the same run, and cold import time against undici alone.
// Prints ratios; it asserts nothing (timings do not belong in tests).
import { spawn, spawnSync, execFileSync } from 'node:child_process';
import { once } from 'node:events';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { EventEmitter } from 'node:events';
import { Pool } from 'undici';
import WebSocket from 'ws';
import { Client } from '../dist/index.js';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 4000);
const CONCURRENCY = [1, 16, 64];

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

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

/** Runs `total` calls of `fn` with `concurrency` workers; returns client CPU microseconds per call. */
async function measure(fn, total, concurrency) {
  let next = 0;
  const worker = async () => {
    while (next < total) {
      next++;
      await fn();
    }
  };
  const start = process.cpuUsage();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const used = process.cpuUsage(start);
  return (used.user + used.system) / total;
}

async function restBenchmark(port) {
  const origin = `http://127.0.0.1:${port}`;
  const pool = new Pool(origin, { connections: 128, keepAliveTimeout: 4000 });
  const client = new Client({ baseUrl: origin, auth: { botToken: 'bench-token' } });
  const raw = async () => {
    const { body } = await pool.request({ method: 'GET', path: '/api/v1/channels/123', headers: { authorization: 'Bot bench-token', accept: 'application/json' } });
    return body.json();
  };
  const sdk = () => client.channels.get('123');
  const sdkPost = () => client.channels.update('123', { name: 'general' });
  const rawPost = async () => {
    const { body } = await pool.request({
      method: 'PATCH',
      path: '/api/v1/channels/123',
      headers: { authorization: 'Bot bench-token', accept: 'application/json', 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'general' }),
    });
    return body.json();
  };
  // Warm up both paths (JIT, sockets, lazily loaded schemas).
  await measure(raw, 2000, 16);
  await measure(sdk, 2000, 16);
  await measure(rawPost, 1000, 16);
  await measure(sdkPost, 1000, 16);

  const rows = [];
  for (const [label, sdkFn, rawFn] of [
    ['GET  channels.get', sdk, raw],
    ['PATCH channels.update (validated body)', sdkPost, rawPost],
  ]) {
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
      const sdkUs = median(sdkTimes);
      const rawUs = median(rawTimes);
      rows.push({ label, concurrency, sdkUs, rawUs, ratio: sdkUs / rawUs });
    }
  }
  await client.close();
  await pool.close();
  return rows;
}

const EVENTS = Number(process.env.BENCH_EVENTS ?? 20000);

/** Raw ws + JSON.parse + emit: the floor any Gateway client pays. Returns CPU microseconds per event. */
function rawGateway(port, count) {
  return new Promise((resolve, reject) => {
    const emitter = new EventEmitter();
    let received = 0;
    let start;
    emitter.on('INTERACTION_CREATE', () => {
      if (++received === count) {
        const used = process.cpuUsage(start);
        socket.close();
        resolve((used.user + used.system) / count);
      }
    });
    const socket = new WebSocket(`ws://127.0.0.1:${port}/?count=${count}`, { perMessageDeflate: false });
    socket.on('message', (data) => {
      const frame = JSON.parse(data.toString());
      if (frame.op === 10) {
        start = process.cpuUsage();
        socket.send(JSON.stringify({ op: 2, d: { token: 'bench', intents: 0, properties: {} } }));
      } else if (frame.op === 0) emitter.emit(frame.t, frame.d);
    });
    socket.on('error', reject);
  });
}

/** The SDK's Gateway, building a typed interaction object for every event. */
async function sdkGateway(port, count) {
  const client = new Client({ baseUrl: 'http://127.0.0.1:9', auth: { botToken: 'bench' }, gateway: { url: `ws://127.0.0.1:${port}/?count=${count}` } });
  let received = 0;
  let start;
  const done = new Promise((resolve) => {
    client.gateway.onInteraction('command', (interaction) => {
      if (interaction.options.rounds === undefined) throw new Error('options were not parsed');
      if (++received === count) resolve(process.cpuUsage(start));
    });
  });
  start = process.cpuUsage();
  await client.gateway.connect();
  const used = await done;
  await client.close();
  return (used.user + used.system) / count;
}

async function gatewayBenchmark() {
  const { child, port } = await startServer('./gateway-server.mjs');
  try {
    await rawGateway(port, 5000);
    await sdkGateway(port, 5000);
    const sdkTimes = [];
    const rawTimes = [];
    for (let round = 0; round < ROUNDS; round++) {
      if (round % 2 === 0) {
        rawTimes.push(await rawGateway(port, EVENTS));
        sdkTimes.push(await sdkGateway(port, EVENTS));
      } else {
        sdkTimes.push(await sdkGateway(port, EVENTS));
        rawTimes.push(await rawGateway(port, EVENTS));
      }
    }
    return { sdkUs: median(sdkTimes), rawUs: median(rawTimes) };
  } finally {
    child.kill('SIGTERM');
  }
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
  return { sdkMs: median(sdkTimes), undiciMs: median(undiciTimes) };
}

const { child, port, pinned } = await startServer();
try {
  console.log(`community-chat-sdk benchmarks: node ${process.version}, ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, ${new Date().toISOString().slice(0, 10)}`);
  console.log(`REST: client CPU microseconds per request, median of ${ROUNDS} alternating rounds of ${REQUESTS} requests, server in another process${pinned ? ' pinned to its own core' : ''}\n`);
  const rows = await restBenchmark(port);
  console.log('operation                               conc   sdk µs/req   undici µs/req   ratio');
  for (const row of rows) {
    console.log(`${row.label.padEnd(40)}${String(row.concurrency).padStart(4)}   ${row.sdkUs.toFixed(1).padStart(10)}   ${row.rawUs.toFixed(1).padStart(13)}   ${row.ratio.toFixed(2)}x`);
  }
  const target = rows.find((row) => row.label.startsWith('GET') && row.concurrency === 16);
  const { sdkMs, undiciMs } = importBenchmark();
  console.log(`\ncold import of the main entry: ${sdkMs.toFixed(1)} ms vs undici alone ${undiciMs.toFixed(1)} ms: ratio ${(sdkMs / undiciMs).toFixed(2)}x (target <= 1.25x)`);
  console.log(`REST ratio at concurrency 16: ${target.ratio.toFixed(2)}x raw undici (target <= 1.25x)`);
  const gateway = await gatewayBenchmark();
  console.log(
    `\nGateway: ${EVENTS} INTERACTION_CREATE frames of about 800 bytes per round, client CPU per event: SDK with typed interactions ${gateway.sdkUs.toFixed(1)} µs vs raw ws + JSON.parse + emit ${gateway.rawUs.toFixed(1)} µs: ratio ${(gateway.sdkUs / gateway.rawUs).toFixed(2)}x (target <= 1.3x)`,
  );
} finally {
  child.kill('SIGTERM');
}

// The Redis rate-limit store against the in-memory one, when redis-server is installed (bench/redis.mjs starts its own).
console.log('');
if (spawnSync('sh', ['-c', 'command -v redis-server'], { stdio: 'ignore' }).status === 0) execFileSync(process.execPath, [here('./redis.mjs')], { stdio: 'inherit' });
else console.log('redis: redis-server is not installed (apt-get install -y redis-server): skipping the Redis store benchmark');

// The soak of long-running state, in a process of its own (it needs --expose-gc to measure the heap after GC).
console.log('');
execFileSync(process.execPath, ['--expose-gc', here('./soak.mjs')], { stdio: 'inherit' });

// Peak memory of a 200 MB streamed attachment upload, in a process of its own (--expose-gc for a settled baseline).
console.log('');
execFileSync(process.execPath, ['--expose-gc', here('./upload.mjs')], { stdio: 'inherit' });
