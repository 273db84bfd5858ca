// A Gateway server for the benchmark, in its own process: after Identify it floods COUNT INTERACTION_CREATE frames of
// about 800 bytes as fast as the socket drains (corked batches of 256 frames, one write each; above 1 MiB buffered it
// waits for the socket's drain). COUNT comes from `?count=N` or a `/flood/N` path (a client that adds its own query
// string, such as @discordjs/ws, uses the path). With `compress=zlib-stream` (or `zstd-stream` where node:zlib has it)
// every message goes through one compression context for the connection, flushed per message, as Discord sends it.
// A `/mix/M` path segment makes it the mixed flood: M MESSAGE_CREATE (about 1.3 KB, Discord's key order) before each
// INTERACTION_CREATE, COUNT frames in all. Prints its port.
import zlib from 'node:zlib';
import { WebSocketServer } from 'ws';

const BATCH = 256;
const HIGH_WATER = 1024 * 1024;

const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false });
const payload = {
  id: '__ID__',
  application_id: '1100000000000000001',
  type: 2,
  token: 'aW50ZXJhY3Rpb246MTMwMDAwMDAwMDAwMDAwMDAwMDpzZWNyZXQtdG9rZW4tZm9yLWJlbmNobWFya3MtMDEyMzQ1Njc4OQ',
  version: 1,
  locale: 'en-GB',
  guild_locale: 'en-US',
  guild_id: '1200000000000000001',
  channel_id: '1200000000000000002',
  member: {
    user: { id: '1000000000000000001', username: 'ada', global_name: 'Ada Lovelace', discriminator: '0', avatar: 'a1b2c3d4e5f60718293a4b5c6d7e8f90' },
    roles: ['1200000000000000010', '1200000000000000011'],
    joined_at: '2025-01-02T03:04:05.000Z',
    permissions: '2147483647',
    nick: null,
  },
  data: {
    id: '1100000000000000002',
    name: 'quiz',
    type: 1,
    options: [
      { name: 'topic', type: 3, value: 'the history of computing' },
      { name: 'rounds', type: 4, value: 5 },
      { name: 'hard', type: 5, value: true },
    ],
  },
  entitlements: [],
  app_permissions: '2147483647',
};
// The frame is serialized once; each one differs by its sequence, interaction id (a fresh snowflake) and token, as on Discord.
const [head, tail] = JSON.stringify({ op: 0, s: 0, t: 'INTERACTION_CREATE', d: payload }).split('"s":0');
const [middle, rest] = tail.split('__ID__');
const [between, end] = rest.split('MDEyMzQ1Njc4OQ');
const interactionFrame = (s, i) => `${head}"s":${s}${middle}${1_300_000_000_000_000_000n + BigInt(i)}${between}${String(i).padStart(14, '0')}${end}`;

// A MESSAGE_CREATE as Discord sends it (its keys in Discord's order, t first), about 1.3 KB: the traffic a slash-command
// bot does not listen to. Each differs by its sequence and message id.
const message = {
  type: 0,
  tts: false,
  timestamp: '2025-01-02T03:04:05.678000+00:00',
  pinned: false,
  nonce: '1300000000000000123',
  mentions: [{ id: '1000000000000000002', username: 'grace', global_name: 'Grace Hopper', discriminator: '0', avatar: null, public_flags: 0 }],
  mention_roles: [],
  mention_everyone: false,
  member: {
    roles: ['1200000000000000010'],
    premium_since: null,
    pending: false,
    nick: null,
    mute: false,
    joined_at: '2025-01-02T03:04:05.000000+00:00',
    flags: 0,
    deaf: false,
    communication_disabled_until: null,
    avatar: null,
  },
  id: '__ID__',
  flags: 0,
  embeds: [],
  edited_timestamp: null,
  content: 'Has anyone read the notes on the analytical engine? Section G has the first published program, the Bernoulli numbers.',
  components: [],
  channel_id: '1200000000000000002',
  author: {
    username: 'ada',
    public_flags: 0,
    id: '1000000000000000001',
    global_name: 'Ada Lovelace',
    discriminator: '0',
    clan: null,
    avatar_decoration_data: null,
    avatar: 'a1b2c3d4e5f60718293a4b5c6d7e8f90',
  },
  attachments: [],
  guild_id: '1200000000000000001',
};
const [messageHead, messageTail] = JSON.stringify({ t: 'MESSAGE_CREATE', s: 0, op: 0, d: message }).split('"s":0');
const [messageMiddle, messageEnd] = messageTail.split('__ID__');
const messageFrame = (s, i) => `${messageHead}"s":${s}${messageMiddle}${1_310_000_000_000_000_000n + BigInt(i)}${messageEnd}`;

/** Frame `i` of a flood: with `mix` (ignored MESSAGE_CREATE per interaction), every (mix + 1)th is an INTERACTION_CREATE, the others messages. */
const frameOf = (mix) => (mix === 0 ? interactionFrame : (s, i) => (i % (mix + 1) === mix ? interactionFrame(s, i) : messageFrame(s, i)));

/** The number of frames a connection asks for, and how many ignored MESSAGE_CREATE go before each interaction (`/mix/M`, default 0). */
function countOf(url) {
  const parsed = new URL(url, 'http://x');
  const path = /\/flood\/(\d+)/.exec(parsed.pathname);
  const mix = /\/mix\/(\d+)/.exec(parsed.pathname);
  return { count: Number(path?.[1] ?? parsed.searchParams.get('count') ?? 10000), frame: frameOf(Number(mix?.[1] ?? 0)) };
}

/** The connection's compression context, flushed per message, when the client asked for one. */
function compressorOf(url) {
  const method = new URL(url, 'http://x').searchParams.get('compress');
  if (method === 'zlib-stream') return zlib.createDeflate({ flush: zlib.constants.Z_SYNC_FLUSH });
  if (method === 'zstd-stream' && typeof zlib.createZstdCompress === 'function') return zlib.createZstdCompress({ flush: zlib.constants.ZSTD_e_flush });
  return undefined;
}

/** The flood through a compression context: each frame one binary message; at most a batch in the context at a time. */
function compressedPump(socket, stream, first, count, frame, isClosed) {
  let chunks = [];
  stream.on('data', (chunk) => chunks.push(chunk));
  const send = (text, then) =>
    stream.write(text, () => {
      const message = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
      chunks = [];
      socket.send(message, { binary: true });
      then?.();
    });
  let s = first;
  let sent = 0;
  let inContext = 0;
  const pump = () => {
    while (!isClosed() && sent < count && inContext < BATCH) {
      inContext++;
      send(frame(s++, sent++), () => {
        if (--inContext > 0) return;
        if (socket.bufferedAmount > HIGH_WATER) socket._socket.once('drain', pump);
        else pump();
      });
    }
  };
  return { send, flood: pump };
}

wss.on('connection', (socket, request) => {
  const { count, frame } = countOf(request.url);
  let closed = false;
  socket.on('close', () => {
    closed = true;
  });
  const stream = compressorOf(request.url);
  if (stream !== undefined) {
    const { send, flood } = compressedPump(socket, stream, 2, count, frame, () => closed);
    send(JSON.stringify({ op: 10, d: { heartbeat_interval: 600000 } }));
    socket.on('message', (raw) => {
      const op = JSON.parse(raw.toString()).op;
      if (op === 1) send(JSON.stringify({ op: 11 }));
      if (op === 2) send(JSON.stringify({ op: 0, s: 1, t: 'READY', d: { session_id: 'bench', v: 1 } }), flood);
    });
    socket.on('error', () => undefined);
    return;
  }
  socket.send(JSON.stringify({ op: 10, d: { heartbeat_interval: 600000 } }));
  socket.on('message', (raw) => {
    const op = JSON.parse(raw.toString()).op;
    if (op === 1) socket.send(JSON.stringify({ op: 11 }));
    if (op !== 2) return;
    let s = 1;
    socket.send(JSON.stringify({ op: 0, s: s++, t: 'READY', d: { session_id: 'bench', v: 1 } }));
    let sent = 0;
    const tcp = socket._socket;
    const pump = () => {
      while (!closed && sent < count) {
        tcp.cork();
        for (let i = 0; i < BATCH && sent < count; i++, sent++) socket.send(frame(s++, sent));
        tcp.uncork();
        if (socket.bufferedAmount > HIGH_WATER) {
          tcp.once('drain', pump);
          return;
        }
      }
    };
    pump();
  });
  socket.on('error', () => undefined);
});
wss.on('listening', () => process.stdout.write(`${wss.address().port}\n`));
process.on('SIGTERM', () => process.exit(0));
