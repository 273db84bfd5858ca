/**
 * Gateway transport compression on the client: the option's rules, and the
 * client inflating what a scripted server compressed by hand (a message split
 * over several frames, a corrupt stream, a message inflating past the limit,
 * a new context on each connection).
 */
import { randomBytes } from 'node:crypto';
import zlib from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { Client, GatewayError, ValidationError, type GatewayOptions, type GatewayReconnectingEvent } from '../../src/index.js';
import { compressedUrl, resolveCompression, zstdAvailable } from '../../src/gateway/compression.js';
import { GatewayServer } from '../../src/testing/gateway-server.js';
import { SECRETS } from '../helpers/index.js';
import { frames, startWsServer, until, type WsPeer } from '../helpers/ws-server.js';

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** One connection's zlib-stream as Discord writes it: one deflate context, a sync flush (ending in 00 00 ff ff) per message. */
function zlibStream() {
  const deflate = zlib.createDeflate({ flush: zlib.constants.Z_SYNC_FLUSH });
  const chunks: Buffer[] = [];
  deflate.on('data', (chunk: Buffer) => chunks.push(chunk));
  return (frame: unknown): Promise<Buffer> =>
    new Promise((resolve) => {
      deflate.write(typeof frame === 'string' ? frame : JSON.stringify(frame), () => resolve(Buffer.concat(chunks.splice(0))));
    });
}

/** A peer that speaks zlib-stream: Hello, then READY on Identify (session `sess-1`), RESUMED on Resume. Returns its compressor. */
function compressedPeer(peer: WsPeer): (frame: unknown) => Promise<Buffer> {
  const compress = zlibStream();
  const send = async (frame: unknown) => peer.sendBinary(await compress(frame));
  void send(frames.hello(45_000));
  peer.socket.on('message', (data) => {
    const op = (JSON.parse(String(data)) as { op: number }).op;
    if (op === 2) void send(frames.ready(1));
    if (op === 6) void send(frames.resumed(2));
  });
  return compress;
}

/** A scripted server running `handler` for each connection, and a Gateway (zlib-stream unless `options` say otherwise) on it, with what it reported. */
async function scripted(handler: (peer: WsPeer) => void, options: GatewayOptions = {}) {
  const ws = await startWsServer(handler);
  cleanups.push(() => ws.close());
  const client = new Client({
    baseUrl: 'http://127.0.0.1:9',
    auth: { botToken: SECRETS.botToken },
    gateway: { url: ws.url, reconnectBaseDelayMs: 5, reconnectMaxDelayMs: 20, compression: 'zlib-stream', ...options },
  });
  cleanups.push(() => client.close());
  const gateway = client.gateway;
  const errors: Error[] = [];
  const reconnecting: GatewayReconnectingEvent[] = [];
  const dispatches: { t: string; d: unknown }[] = [];
  gateway.on('error', (error) => errors.push(error));
  gateway.on('reconnecting', (event) => reconnecting.push(event));
  gateway.on('dispatch', (event) => dispatches.push({ t: event.t, d: event.d }));
  return { ws, gateway, errors, reconnecting, dispatches };
}

/** A scripted zlib-stream server (see {@link compressedPeer}) and a Gateway on it; `compress` is the latest connection's context, `send` sends through it. */
async function compressedServer() {
  let latest: ((frame: unknown) => Promise<Buffer>) | undefined;
  const started = await scripted((peer) => {
    latest = compressedPeer(peer);
  });
  const compress = (frame: unknown) => (latest as (frame: unknown) => Promise<Buffer>)(frame);
  const send = async (frame: unknown) => (started.ws.peers.at(-1) as WsPeer).sendBinary(await compress(frame));
  return { ...started, compress, send };
}

describe('the compression option', () => {
  it('defaults to the best available: zstd-stream where node:zlib has zstd, else zlib-stream', () => {
    expect(resolveCompression(undefined, true)).toBe('zstd-stream');
    expect(resolveCompression(undefined, false)).toBe('zlib-stream');
    expect(resolveCompression(undefined)).toBe(zstdAvailable() ? 'zstd-stream' : 'zlib-stream');
    expect(resolveCompression('none', false)).toBe('none');
  });

  it('refuses an unknown method, and zstd-stream where node:zlib has no zstd, with a ValidationError naming the option', () => {
    expect(() => resolveCompression('gzip', true)).toThrow(ValidationError);
    expect(() => resolveCompression('gzip', true)).toThrow(/compression: must be one of zstd-stream, zlib-stream, none \(got "gzip"\)/);
    expect(() => resolveCompression('zstd-stream', false)).toThrow(ValidationError);
    expect(() => resolveCompression('zstd-stream', false)).toThrow(/'zstd-stream' needs zstd in node:zlib \(Node 22\.15 or later\).*use 'zlib-stream'/);
  });

  it('a Gateway asking for a compression this runtime cannot serve is a ValidationError when it is built (zstd-stream on Node 20)', () => {
    // Node 20's node:zlib has no zstd: asking for it is refused there; on Node 22.15+ an unknown method stands in.
    const unservable = (zstdAvailable() ? 'gzip' : 'zstd-stream') as GatewayOptions['compression'];
    expect(() => new Client({ baseUrl: 'http://127.0.0.1:9', gateway: { compression: unservable } }).gateway).toThrow(ValidationError);
  });

  it('asks with compress= on the Gateway URL, replacing one the URL had, and asks nothing with none', () => {
    expect(compressedUrl('wss://gw.example/?v=10', 'zlib-stream')).toBe('wss://gw.example/?v=10&compress=zlib-stream');
    expect(compressedUrl('wss://gw.example/?compress=zlib-stream', 'zstd-stream')).toBe('wss://gw.example/?compress=zstd-stream');
    expect(compressedUrl('wss://gw.example/?v=10&compress=zlib-stream', 'none')).toBe('wss://gw.example/?v=10');
    expect(compressedUrl('wss://gw.example/api', 'none')).toBe('wss://gw.example/api');
  });
});

describe('zlib-stream on the wire', () => {
  it('connects over a compressed stream, asking with compress=zlib-stream, and reads every message through one context', async () => {
    const { ws, gateway, dispatches, errors, send } = await compressedServer();
    await gateway.connect();
    expect((await ws.peer(0)).url).toBe('/?compress=zlib-stream');
    // Repeated content: the second message refers back to the first (one context for the connection, not one per message).
    await send(frames.dispatch('MESSAGE_CREATE', 2, { content: 'the same words again' }));
    await send(frames.dispatch('MESSAGE_CREATE', 3, { content: 'the same words again' }));
    await until(() => dispatches.length === 3, { what: 'READY and two dispatches' });
    expect(dispatches.map((event) => event.t)).toEqual(['READY', 'MESSAGE_CREATE', 'MESSAGE_CREATE']);
    expect(gateway.sequence).toBe(3);
    expect(errors).toEqual([]);
  });

  it('gathers a message split over several frames until the one ending in 00 00 ff ff', async () => {
    const { ws, gateway, dispatches, errors, compress } = await compressedServer();
    await gateway.connect();
    const peer = await ws.peer(0);
    // Text that does not compress well: each part of the frame inflates to part of the message.
    const text = randomBytes(6000).toString('base64');
    const whole = await compress(frames.dispatch('SPLIT', 2, { text, n: 42 }));
    // Three frames: only the last ends in the suffix (Discord never splits the suffix itself).
    const cuts = [0, 3, Math.floor(whole.length / 2), whole.length];
    for (let i = 0; i + 1 < cuts.length; i++) peer.sendBinary(whole.subarray(cuts[i], cuts[i + 1]));
    await until(() => dispatches.some((event) => event.t === 'SPLIT'), { what: 'the split dispatch' });
    expect(dispatches.find((event) => event.t === 'SPLIT')?.d).toEqual({ text, n: 42 });
    expect(errors).toEqual([]);
  });

  it('a corrupt stream is a GatewayError event, the socket is dropped, and the next connection resumes with a new context', async () => {
    const { ws, gateway, errors, reconnecting } = await compressedServer();
    let resumed = 0;
    gateway.on('resumed', () => resumed++);
    await gateway.connect();
    const first = await ws.peer(0);
    // Not a deflate block: the context fails on it.
    first.sendBinary(Buffer.from([0xff, 0xee, 0xdd, 0xcc, 0x00, 0x00, 0xff, 0xff]));
    await until(() => resumed === 1, { what: 'a resume on a second connection' });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(GatewayError);
    expect(errors[0]?.message).toMatch(/the zlib-stream could not be decompressed .*; closing the connection to reconnect/);
    expect(reconnecting[0]).toMatchObject({ attempt: 1, resume: true });
    // The second connection's stream starts from scratch (its Hello and RESUMED were read): a new context.
    expect(ws.peers).toHaveLength(2);
    expect(gateway.status).toBe('ready');
  });

  it('a message inflating past 16 MiB is a GatewayError and a reconnect, not an out-of-memory', async () => {
    const { gateway, errors, reconnecting, send } = await compressedServer();
    await gateway.connect();
    // 17 MiB of one letter deflates to about 17 KB.
    await send(frames.dispatch('HUGE', 2, { text: 'a'.repeat(17 * 1024 * 1024) }));
    await until(() => reconnecting.length === 1, { what: 'a reconnect after the oversized message' });
    expect(errors.map((error) => error.message)).toEqual([expect.stringMatching(/a zlib-stream message inflated past 16777216 bytes/)]);
    expect(errors[0]).toBeInstanceOf(GatewayError);
    expect(gateway.sequence).toBe(1);
  });

  it('reads a text frame as it is when the server does not compress', async () => {
    const { gateway, errors } = await scripted((peer) => {
      peer.send(frames.hello(45_000));
      peer.socket.on('message', () => peer.send(frames.ready(1)));
    });
    await gateway.connect();
    expect(gateway.status).toBe('ready');
    expect(errors).toEqual([]);
  });

  it('with none, asks for nothing and reads binary frames as JSON', async () => {
    const { ws, gateway } = await scripted(
      (peer) => {
        peer.sendBinary(Buffer.from(JSON.stringify(frames.hello(45_000))));
        peer.socket.on('message', () => peer.sendBinary(Buffer.from(JSON.stringify(frames.ready(1)))));
      },
      { compression: 'none' },
    );
    await gateway.connect();
    expect((await ws.peer(0)).url).toBe('/');
  });
});

describe('in shard workers', () => {
  it('each worker connection asks for the same compression, and its dispatches arrive inflated', async () => {
    const served: (string | undefined)[] = [];
    const server = new GatewayServer({ heartbeatIntervalMs: 45_000, onTraffic: (event) => event.kind === 'open' && served.push(event.compression) });
    await server.listening();
    cleanups.push(() => server.close());
    const client = new Client({
      baseUrl: 'http://127.0.0.1:9',
      auth: { botToken: SECRETS.botToken },
      gateway: {
        url: server.url,
        compression: 'zlib-stream',
        shards: 'auto',
        shardCount: 2,
        maxConcurrency: 2,
        shardsPerWorker: 1,
        sessionStartReserve: false,
      },
    });
    cleanups.push(() => client.close());
    const seen: number[] = [];
    client.gateway.on('dispatch', (event) => event.t === 'WORKER_EVENT' && seen.push(event.shardId));
    await client.gateway.connect();
    expect(served).toEqual(['zlib-stream', 'zlib-stream']);
    expect(server.dispatch('WORKER_EVENT', { n: 1 })).toBe(2);
    await until(() => seen.length === 2, { what: 'the dispatch on both worker shards' });
    expect(seen.sort()).toEqual([0, 1]);
  });
});

describe('zlib-stream on Deno', () => {
  it('is refused, and never the default, where node:zlib ignores the inflate history (Deno)', () => {
    expect(() => resolveCompression('zlib-stream', true, false)).toThrow(/Deno's node:zlib ignores/);
    expect(resolveCompression(undefined, false, false)).toBe('none');
    expect(resolveCompression(undefined, true, false)).toBe('zstd-stream');
    expect(resolveCompression('zlib-stream', false, true)).toBe('zlib-stream');
  });
});
