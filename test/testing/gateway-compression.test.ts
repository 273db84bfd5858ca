/**
 * The test Gateway server's transport compression: what it sends to a raw
 * client that asks with `compress=`, round trips with the SDK's client
 * (READY, dispatches, a resume with replay), a close that waits for the
 * messages before it, and the real @discordjs/ws with its compression on.
 */
import zlib from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { Client, type GatewayCompression } from '../../src/index.js';
import { zstdAvailable } from '../../src/gateway/compression.js';
import { GatewayServer } from '../../src/testing/gateway-server.js';
import { SECRETS } from '../helpers/index.js';
import { until } from '../helpers/until.js';

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startServer(): Promise<GatewayServer> {
  const server = new GatewayServer({ heartbeatIntervalMs: 45_000 });
  await server.listening();
  cleanups.push(() => server.close());
  return server;
}

type Method = Exclude<GatewayCompression, 'none'>;

function decompressor(method: Method): zlib.Inflate {
  if (method === 'zlib-stream') return zlib.createInflate({ flush: zlib.constants.Z_SYNC_FLUSH });
  return (zlib as unknown as { createZstdDecompress: () => zlib.Inflate }).createZstdDecompress();
}

/** A raw `ws` client asking for `compress`: every frame it received, raw, and each message inflated through one context. */
async function rawClient(url: string, compress: string) {
  const ws = new WebSocket(`${url}/?v=10&compress=${compress}`);
  cleanups.push(() => ws.terminate());
  const raw: { binary: boolean; data: Buffer }[] = [];
  ws.on('message', (data: Buffer, binary) => raw.push({ binary, data }));
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  return { ws, raw };
}

/** Inflates `frames` in order through one context (each frame one whole message). */
async function inflateAll(method: Method, frames: Buffer[]): Promise<Record<string, unknown>[]> {
  const stream = decompressor(method);
  const out: Record<string, unknown>[] = [];
  let chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  for (const frame of frames) {
    await new Promise<void>((resolve) => stream.write(frame, () => resolve()));
    out.push(JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown>);
    chunks = [];
  }
  stream.destroy();
  return out;
}

function clientOf(url: string, compression: GatewayCompression) {
  const client = new Client({
    baseUrl: 'http://127.0.0.1:9',
    auth: { botToken: SECRETS.botToken },
    gateway: { url, compression, reconnectBaseDelayMs: 5, reconnectMaxDelayMs: 20 },
  });
  cleanups.push(() => client.close());
  const seen: { t: string; s: number | null }[] = [];
  const errors: Error[] = [];
  client.gateway.on('dispatch', (event) => seen.push({ t: event.t, s: event.s }));
  client.gateway.on('error', (error) => errors.push(error));
  return { gateway: client.gateway, seen, errors };
}

// node:zlib has zstd from Node 22.15 on (a runtime capability, not a missing binary): the zstd round trips are declared
// where it has it (CI's Node 24 run); on Node 20 the refusal below is what the emulator does instead.
const methods: Method[] = zstdAvailable() ? ['zlib-stream', 'zstd-stream'] : ['zlib-stream'];

for (const method of methods) {
  describe(`the emulator's ${method}`, () => {
    it('sends each message as one binary frame through one context for the connection', async () => {
      const server = await startServer();
      const { ws, raw } = await rawClient(server.url, method);
      await until(() => raw.length === 1, { what: 'the Hello' });
      ws.send(JSON.stringify({ op: 2, d: { token: SECRETS.botToken, intents: 0, properties: {} } }));
      await until(() => raw.length === 2, { what: 'READY' });
      server.dispatch('MESSAGE_CREATE', { content: 'same words' });
      server.dispatch('MESSAGE_CREATE', { content: 'same words' });
      await until(() => raw.length === 4, { what: 'two dispatches' });
      expect(raw.map((frame) => frame.binary)).toEqual([true, true, true, true]);
      if (method === 'zlib-stream') for (const frame of raw) expect(frame.data.subarray(-4)).toEqual(Buffer.from([0, 0, 0xff, 0xff]));
      const messages = await inflateAll(
        method,
        raw.map((frame) => frame.data),
      );
      expect(messages.map((message) => [message['op'], message['t'] ?? null])).toEqual([
        [10, null],
        [0, 'READY'],
        [0, 'MESSAGE_CREATE'],
        [0, 'MESSAGE_CREATE'],
      ]);
      // The second, identical dispatch is smaller: it refers back into the connection's one context.
      expect(raw[3]?.data.length).toBeLessThan(raw[2]?.data.length ?? 0);
    });

    it("round trips with the SDK's client: READY, dispatches, and a resume with its replay on a new context", async () => {
      const server = await startServer();
      const { gateway, seen, errors } = clientOf(server.url, method);
      let resumed = 0;
      gateway.on('resumed', () => resumed++);
      await gateway.connect();
      server.dispatch('FIRST', { n: 1 });
      await until(() => seen.some((event) => event.t === 'FIRST'), { what: 'FIRST' });
      // Dropped like a network failure; the session goes on on the server, and the next dispatch waits for the replay.
      server.dropConnections('terminate');
      server.dispatch('WHILE_AWAY', { n: 2 });
      await until(() => resumed === 1, { what: 'RESUMED on the second connection' });
      expect(seen.map((event) => event.t)).toEqual(['READY', 'FIRST', 'WHILE_AWAY', 'RESUMED']);
      expect(server.stats).toMatchObject({ connections: 2, identifies: 1, resumes: 1 });
      expect(errors).toEqual([]);
    });

    it('closes after the messages sent before the close, and the client reads them before the close', async () => {
      const server = await startServer();
      const { gateway, seen } = clientOf(server.url, method);
      gateway.on('close', (event) => seen.push({ t: `close ${event.code}`, s: null }));
      await gateway.connect();
      server.dispatch('LAST_BEFORE_CLOSE', { text: 'x'.repeat(100_000) });
      server.dropConnections(4000);
      await until(() => seen.some((event) => event.t.startsWith('close')), { what: 'the close' });
      // A resume may follow at once; what matters is the order up to the close.
      expect(seen.slice(0, 3).map((event) => event.t)).toEqual(['READY', 'LAST_BEFORE_CLOSE', 'close 4000']);
    });
  });
}

describe('what the emulator does not compress', () => {
  // An unknown method, and zstd-stream where the emulator's node:zlib has no zstd (Node 20).
  const refused = ['gzip', ...(zstdAvailable() ? [] : ['zstd-stream'])];
  it(`answers text frames to a client asking for ${refused.join(' or ')}`, async () => {
    const server = await startServer();
    for (const asked of refused) {
      const { raw } = await rawClient(server.url, asked);
      await until(() => raw.length === 1, { what: `the Hello to compress=${asked}` });
      expect(raw[0]?.binary, asked).toBe(false);
      expect(JSON.parse(String(raw[0]?.data))).toMatchObject({ op: 10 });
    }
  });
});
