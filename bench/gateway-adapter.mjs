// One Gateway adapter alone in a fresh process, as a bot runs it: it connects to the bench Gateway server
// (bench/gateway-server.mjs), which floods WARMUP + COUNT INTERACTION_CREATE frames of about 800 bytes. The first
// WARMUP events warm the adapter up (JIT, heap); the client CPU (process.cpuUsage) is taken from the last of them to the
// last of the COUNT events that follow, and printed as one JSON line of microseconds per event. `npm run bench` starts
// one per adapter per round.
//
//   ADAPTER=sdk|ws|native|discordjs COUNT=20000 WARMUP=5000 PORT=1234 [MIX=3] [COMPRESS=zlib-stream|zstd-stream] node bench/gateway-adapter.mjs
//
// MIX=3: the mixed flood, 3 MESSAGE_CREATE the bot does not listen to before each INTERACTION_CREATE; COUNT and WARMUP
// count frames, the CPU is per frame.
// COMPRESS: the transport compression every adapter asks for (default none); raw ws then inflates through one context
// for the connection (a message whole at 00 00 ff ff, or per frame for zstd) before JSON.parse. Raw ws reports the bytes
// received per event (WebSocket payloads, the frame headers not counted), compressed or not.
// ws: raw `ws` + JSON.parse + an EventEmitter emit of `d`, the floor any Gateway client pays.
// native: the same over the runtime's own WebSocket (Bun, Deno, Node 22+; bench/runtimes-ws.mjs runs it on Bun and Deno).
// sdk: the SDK's Client, its Gateway on the bench server, an `interactionCreate` listener receiving typed, validated
// interactions (as the README shows).
// discordjs: @discordjs/ws's WebSocketManager (JSON, no compression), its GET /gateway/bot answered by a stub REST.
import { EventEmitter } from 'node:events';
import zlib from 'node:zlib';

const { ADAPTER = 'sdk', PORT, COMPRESS = 'none' } = process.env;
/** Ignored MESSAGE_CREATE frames before each interaction (the mixed flood); 0: interactions only. */
const MIX = Number(process.env.MIX ?? 0);
const COUNT = Number(process.env.COUNT ?? 20000);
const WARMUP = Number(process.env.WARMUP ?? 5000);
const TOTAL = WARMUP + COUNT;
if (WARMUP % (MIX + 1) !== 0 || COUNT % (MIX + 1) !== 0) throw new Error(`WARMUP and COUNT must be multiples of MIX + 1 (${MIX + 1})`);
// The count goes in the path: @discordjs/ws appends its own query string (?v=10&encoding=json) to the URL.
const url = `ws://127.0.0.1:${PORT}${MIX > 0 ? `/mix/${MIX}` : ''}/flood/${TOTAL}`;

let received = 0;
/** Payload bytes received by raw ws. */
let bytes = 0;
let start = process.cpuUsage();
let finish;
const finished = new Promise((resolve) => {
  finish = resolve;
});
/** Counts one interaction; starts the clock after the warm-up's frames, stops it at the last frame (every frame counts, listened to or not). */
function counted() {
  received++;
  if (received === WARMUP / (MIX + 1)) start = process.cpuUsage();
  else if (received === TOTAL / (MIX + 1)) finish(process.cpuUsage(start));
}

/** Connects the adapter; returns how it closes. */
async function adapter() {
  if (ADAPTER === 'ws') {
    const { default: WebSocket } = await import('ws');
    const emitter = new EventEmitter();
    emitter.on('INTERACTION_CREATE', (d) => {
      if (typeof d.id !== 'string') throw new Error('no interaction id');
      counted();
    });
    const socket = new WebSocket(COMPRESS === 'none' ? url : `${url}?compress=${COMPRESS}`, { perMessageDeflate: false });
    const handle = (text) => {
      const frame = JSON.parse(text);
      if (frame.op === 10) socket.send(JSON.stringify({ op: 2, d: { token: 'bench', intents: 0, properties: {} } }));
      else if (frame.op === 0) emitter.emit(frame.t, frame.d);
    };
    if (COMPRESS === 'none')
      socket.on('message', (data) => {
        bytes += data.length;
        handle(data.toString());
      });
    else {
      const inflate = COMPRESS === 'zstd-stream' ? zlib.createZstdDecompress() : zlib.createInflate({ flush: zlib.constants.Z_SYNC_FLUSH });
      let chunks = [];
      inflate.on('data', (chunk) => chunks.push(chunk));
      socket.on('message', (data) => {
        bytes += data.length;
        if (COMPRESS === 'zlib-stream' && data.readUInt32BE(data.length - 4) !== 0xffff) return void inflate.write(data);
        inflate.write(data, () => {
          const message = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
          chunks = [];
          handle(message.toString());
        });
      });
    }
    socket.on('error', (error) => {
      throw error;
    });
    return () => socket.terminate();
  }
  if (ADAPTER === 'native') {
    // The runtime's own WebSocket (Bun, Deno, Node 22+), with the same parse and emit as raw ws.
    const emitter = new EventEmitter();
    emitter.on('INTERACTION_CREATE', (d) => {
      if (typeof d.id !== 'string') throw new Error('no interaction id');
      counted();
    });
    const socket = new globalThis.WebSocket(url);
    socket.addEventListener('message', ({ data }) => {
      const frame = JSON.parse(data);
      if (frame.op === 10) socket.send(JSON.stringify({ op: 2, d: { token: 'bench', intents: 0, properties: {} } }));
      else if (frame.op === 0) emitter.emit(frame.t, frame.d);
    });
    socket.addEventListener('error', () => {
      throw new Error('the native WebSocket failed');
    });
    return () => socket.close();
  }
  if (ADAPTER === 'sdk') {
    const { Client } = await import('../dist/index.js');
    const client = new Client({ baseUrl: 'http://127.0.0.1:9', auth: { botToken: 'bench' }, gateway: { url, compression: COMPRESS } });
    client.gateway.on('interactionCreate', (interaction) => {
      // A typed interaction, as users get it: its id, and the command's parsed options.
      if (typeof interaction.id !== 'string' || interaction.kind !== 'command' || interaction.options.rounds !== 5)
        throw new Error('the interaction was not built');
      counted();
    });
    client.gateway.on('error', (error) => {
      throw error;
    });
    await client.gateway.connect();
    return () => client.close();
  }
  if (ADAPTER === 'discordjs') {
    const { WebSocketManager, WebSocketShardEvents, CompressionParameterMap } = await import('@discordjs/ws');
    // The method asking for COMPRESS (2.x has zlib-stream only).
    const method = Object.entries(CompressionParameterMap).find(([, value]) => value === COMPRESS)?.[0];
    if (COMPRESS !== 'none' && method === undefined) throw new Error(`@discordjs/ws has no ${COMPRESS}`);
    const gatewayBot = { url, shards: 1, session_start_limit: { total: 1000, remaining: 1000, reset_after: 60_000, max_concurrency: 1 } };
    const manager = new WebSocketManager({
      token: 'bench',
      intents: 0,
      rest: { get: async () => gatewayBot },
      shardCount: 1,
      compression: method === undefined ? null : Number(method),
      useIdentifyCompression: false,
    });
    manager.on(WebSocketShardEvents.Dispatch, (payload) => {
      if (payload.t !== 'INTERACTION_CREATE') return;
      if (typeof payload.d.id !== 'string') throw new Error('no interaction id');
      counted();
    });
    await manager.connect();
    return () => manager.destroy();
  }
  throw new Error(`unknown ADAPTER ${ADAPTER}`);
}

const close = await adapter();
const used = await finished;
// cpuUsPerEvent: per frame; maxRssMb: the process's peak resident set size over the whole flood.
const measured = { adapter: ADAPTER, events: COUNT, cpuUsPerEvent: (used.user + used.system) / COUNT, maxRssMb: process.resourceUsage().maxRSS / 1024 };
process.stdout.write(`${JSON.stringify(bytes > 0 ? { ...measured, bytesPerEvent: bytes / TOTAL } : measured)}\n`);
await Promise.race([close(), new Promise((resolve) => setTimeout(resolve, 1000))]);
process.exit(0);
