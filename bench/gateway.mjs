// The Gateway flood of `npm run bench`: INTERACTION_CREATE frames of about 800 bytes from bench/gateway-server.mjs (a
// process of its own), client CPU microseconds per event. By default each adapter runs alone in a fresh child process
// per round (bench/gateway-adapter.mjs), adapters rotated every round, as a bot runs the SDK; BENCH_MODE=inprocess
// alternates raw ws and the SDK in this one process instead (they share its JIT, heap and GC).
import { execFileSync } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { fileURLToPath } from 'node:url';
import { installed, summary } from './measure.mjs';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const EVENTS = Number(process.env.BENCH_EVENTS ?? 20000);
const WARMUP = Number(process.env.BENCH_GATEWAY_WARMUP ?? 5000);
/** The mixed flood's ignored MESSAGE_CREATE per interaction. */
const MIX = 3;

const range = (s) => `${s.median.toFixed(2)} (${s.min.toFixed(2)}-${s.max.toFixed(2)})`;

/**
 * Each adapter alone in a fresh child per round, rotated every round; the medians of each (`bytes`: raw ws's payload
 * bytes per event; `rss`: each adapter's peak RSS in MB). `mix`: ignored MESSAGE_CREATE per interaction (0: interactions only).
 */
function perProcess(port, rounds, compress = 'none', withPeer = true, mix = 0) {
  // The mixed flood sends (mix + 1) frames per interaction: as many interactions warm each adapter up as in the plain flood.
  const [count, warmup] = [EVENTS * (mix + 1), WARMUP * (mix + 1)];
  const adapters = ['ws', 'sdk', ...(withPeer && installed('@discordjs/ws') ? ['discordjs'] : [])];
  const times = Object.fromEntries(adapters.map((name) => [name, []]));
  const rss = Object.fromEntries(adapters.map((name) => [name, []]));
  let bytes;
  for (let round = 0; round < rounds; round++) {
    const order = adapters.map((_, i) => adapters[(i + round) % adapters.length]);
    for (const name of order) {
      const out = execFileSync(process.execPath, [here('./gateway-adapter.mjs')], {
        env: { ...process.env, ADAPTER: name, COUNT: String(count), WARMUP: String(warmup), PORT: String(port), COMPRESS: compress, MIX: String(mix) },
        encoding: 'utf8',
        timeout: 120_000,
      });
      const measured = JSON.parse(out.trim().split('\n').at(-1));
      times[name].push(measured.cpuUsPerEvent);
      rss[name].push(measured.maxRssMb);
      if (measured.bytesPerEvent !== undefined) bytes = measured.bytesPerEvent;
    }
  }
  return {
    ...Object.fromEntries(adapters.map((name) => [name, summary(times[name])])),
    rss: Object.fromEntries(adapters.map((name) => [name, summary(rss[name])])),
    bytes,
  };
}

/** Prints the uncompressed flood's table: each adapter's µs per `unit` (event or frame) and its ratio to raw ws. */
function printFlood(of, unit) {
  console.log(`adapter                                            µs/${unit.padEnd(18)}vs raw ws`);
  const rows = [
    ['raw ws + JSON.parse + emit', of.ws],
    ['@discordjs/ws WebSocketManager (dispatch payloads)', of.discordjs],
    ['SDK (typed, validated interactions)', of.sdk],
  ];
  for (const [label, s] of rows) {
    if (s !== undefined) console.log(`${label.padEnd(51)}${range(s).padEnd(21)}${(s.median / of.ws.median).toFixed(2)}x`);
  }
}

/**
 * The mixed flood: 3 MESSAGE_CREATE the bot does not listen to before each INTERACTION_CREATE (most of a slash-command
 * bot's traffic), client CPU per frame; the SDK parses only what something consumes. Returns its target row.
 */
function mixedRows(port, rounds) {
  const of = perProcess(port, rounds, 'none', true, MIX);
  console.log(
    `\nGateway mixed flood (process-per-adapter mode, as above): ${MIX} MESSAGE_CREATE of about 1.3 KB nobody listens to per ` +
      'INTERACTION_CREATE, client CPU µs per frame (every frame counted); raw ws parses every frame, the SDK reads an ignored ' +
      "one's head only\n",
  );
  printFlood(of, 'frame');
  return [[`Gateway mixed flood (${MIX} ignored per interaction) vs raw ws`, of.sdk.median / of.ws.median, 0.7]];
}

/**
 * The flood again with transport compression (`compress`): bytes on the wire per event against the uncompressed run,
 * and client CPU against raw ws + inflate + JSON.parse and @discordjs/ws with the same compression. Returns its targets.
 */
function compressedRows(port, rounds, compress, plain, withPeer) {
  const of = perProcess(port, rounds, compress, withPeer);
  console.log(
    `\nGateway flood with ${compress} (process-per-adapter mode, as above; one context per connection, a flush per message): ` +
      `${of.bytes.toFixed(1)} bytes per event on the wire (WebSocket payloads) against ${plain.bytes.toFixed(1)} uncompressed, ` +
      `${(plain.bytes / of.bytes).toFixed(1)}x fewer; client CPU µs per event. The flood's frames differ only by id, token and ` +
      'sequence, so they compress far better than real traffic; on a loaded machine the numbers are indicative.\n',
  );
  console.log(`adapter                                            µs/event             vs raw ws + inflate`);
  const rows = [
    ['raw ws + inflate + JSON.parse + emit', of.ws],
    [`@discordjs/ws WebSocketManager (${compress})`, of.discordjs],
    [`SDK (${compress}, typed, validated interactions)`, of.sdk],
  ];
  for (const [label, s] of rows) {
    if (s !== undefined) console.log(`${label.padEnd(51)}${range(s).padEnd(21)}${(s.median / of.ws.median).toFixed(2)}x`);
  }
  // Bytes: at least 4x fewer, said as the ratio compressed / uncompressed (at most 0.25).
  const targets = [
    [`Gateway ${compress} bytes per event vs uncompressed`, of.bytes / plain.bytes, 0.25],
    [`Gateway flood ${compress} vs raw ws + inflate`, of.sdk.median / of.ws.median, 1.05],
  ];
  if (of.discordjs !== undefined) targets.push([`Gateway flood ${compress} vs @discordjs/ws`, of.sdk.median / of.discordjs.median, 0.999]);
  return targets;
}

/** Raw ws + JSON.parse + emit in this process. Returns CPU microseconds per event. */
async function rawInProcess(port, count) {
  const { default: WebSocket } = await import('ws');
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

/** The SDK's Gateway in this process, a typed interaction for every event. */
async function sdkInProcess(port, count) {
  const { Client } = await import('../dist/index.js');
  const client = new Client({
    baseUrl: 'http://127.0.0.1:9',
    auth: { botToken: 'bench' },
    gateway: { url: `ws://127.0.0.1:${port}/?count=${count}`, compression: 'none' },
  });
  let received = 0;
  const start = process.cpuUsage();
  const done = new Promise((resolve) => {
    client.gateway.on('interactionCreate', (interaction) => {
      if (interaction.kind !== 'command' || interaction.options.rounds === undefined) throw new Error('options were not parsed');
      if (++received === count) resolve(process.cpuUsage(start));
    });
  });
  await client.gateway.connect();
  const used = await done;
  await client.close();
  return (used.user + used.system) / count;
}

async function inProcess(port, rounds) {
  await rawInProcess(port, WARMUP);
  await sdkInProcess(port, WARMUP);
  const sdk = [];
  const ws = [];
  for (let round = 0; round < rounds; round++) {
    const pair = [async () => ws.push(await rawInProcess(port, EVENTS)), async () => sdk.push(await sdkInProcess(port, EVENTS))];
    if (round % 2 === 1) pair.reverse();
    for (const run of pair) await run();
  }
  return { ws: summary(ws), sdk: summary(sdk) };
}

/**
 * Runs the Gateway flood against a server started with `startServer` and prints its table; returns the
 * `[label, ratio, target]` rows of the targets (the SDK against raw ws, and below @discordjs/ws).
 */
export async function gatewayBenchmark(startServer, rounds, mode) {
  const { child, port, pinned } = await startServer('./gateway-server.mjs');
  try {
    const inproc = mode === 'inprocess';
    const of = inproc ? await inProcess(port, rounds) : perProcess(port, rounds);
    const how = inproc
      ? 'in-process mode: raw ws and the SDK alternate in one process and share its JIT, heap and GC'
      : 'process-per-adapter mode: each adapter alone in a fresh process per round, warmed up on its first ' + `${WARMUP} events, rotated every round`;
    console.log(
      `\nGateway flood (${how}): ${EVENTS} INTERACTION_CREATE frames of about 800 bytes per round, sent as fast as the socket ` +
        `drains, client CPU µs per event, median (min-max) of ${rounds} rounds, server in another process${pinned ? ' pinned to its own core' : ''}\n`,
    );
    printFlood(of, 'event');
    if (of.discordjs !== undefined) console.log(`SDK vs @discordjs/ws: ${(of.sdk.median / of.discordjs.median).toFixed(2)}x`);
    const targets = [[`Gateway flood vs raw ws${inproc ? ' (in-process)' : ''}`, of.sdk.median / of.ws.median, 1.05]];
    // Below @discordjs/ws: a ratio under 1.00 in the same run.
    if (of.discordjs !== undefined) targets.push(['Gateway flood vs @discordjs/ws', of.sdk.median / of.discordjs.median, 0.999]);
    if (!inproc) {
      const { rss } = of;
      const peer = rss.discordjs === undefined ? '' : `, @discordjs/ws ${range(rss.discordjs)}`;
      console.log(`peak RSS during the flood, MB (each adapter's process): SDK ${range(rss.sdk)}, raw ws ${range(rss.ws)}${peer}`);
      // At most 20 MB above raw ws: the row's value is the difference, in MB.
      targets.push(['Gateway flood peak RSS above raw ws', rss.sdk.median - rss.ws.median, 20, 'MB']);
      targets.push(...mixedRows(port, rounds));
    }
    // Transport compression: zlib-stream everywhere, zstd-stream where node:zlib has it (the peer's 2.x has no zstd).
    if (!inproc) {
      const zlib = await import('node:zlib');
      for (const compress of ['zlib-stream', ...(typeof zlib.createZstdDecompress === 'function' ? ['zstd-stream'] : [])]) {
        const peerHas = compress === 'zlib-stream';
        targets.push(...compressedRows(port, rounds, compress, of, peerHas));
      }
    }
    return targets;
  } finally {
    child.kill('SIGTERM');
  }
}
