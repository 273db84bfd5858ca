/**
 * The connection's protocol behaviour against a scripted loopback WebSocket
 * server: hostile frames, Hello validation, the upgrade headers, Identify
 * failures, resume_gateway_url, close code 4006 and Reconnect delays.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Client, GatewayError, GatewayFatalError, SDK_VERSION, ValidationError, type GatewayOptions, type GatewayReconnectingEvent } from '../../src/index.js';
import { SECRETS } from '../helpers/index.js';
import { behaveWell, frames, startWsServer, type WsPeer, type WsTestServer, until, opsOf } from '../helpers/ws-server.js';
import { MAX_PACED_REFUSALS } from '../../src/gateway/connection-host.js';

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function server(handler?: (peer: WsPeer) => void): Promise<WsTestServer> {
  const started = await startWsServer(handler);
  cleanups.push(() => started.close());
  return started;
}

function gatewayFor(url: string, options: GatewayOptions = {}, clientOptions: { allowInsecureHttp?: boolean } = {}) {
  const client = new Client({
    baseUrl: 'http://127.0.0.1:9',
    auth: { botToken: SECRETS.botToken },
    gateway: { url, reconnectBaseDelayMs: 5, reconnectMaxDelayMs: 20, ...options },
    ...clientOptions,
  });
  cleanups.push(() => client.close());
  const gateway = client.gateway;
  const errors: Error[] = [];
  const reconnecting: GatewayReconnectingEvent[] = [];
  const dispatches: string[] = [];
  gateway.on('error', (error) => errors.push(error));
  gateway.on('reconnecting', (event) => reconnecting.push(event));
  gateway.on('dispatch', (event) => dispatches.push(event.t));
  return { client, gateway, errors, reconnecting, dispatches };
}

describe('hostile frames (point 1)', () => {
  it('turns JSON that is not an object, non-JSON and binary frames into error events, and goes on', async () => {
    const ws = await server((peer) => behaveWell(peer));
    // Without transport compression: a binary frame is read as JSON (with it, binary frames are the compressed stream).
    const { gateway, errors, dispatches } = gatewayFor(ws.url, { compression: 'none' });
    await gateway.connect();
    const peer = await ws.peer(0);
    for (const text of ['null', '3', '"x"', '[]', 'true', '{"op":"zero"}', 'not json {']) peer.sendRaw(text);
    peer.sendBinary(Buffer.from([0x78, 0x9c, 0x00, 0xff]));
    peer.send(frames.dispatch('AFTER_GARBAGE', 2, { ok: true }));
    await until(() => dispatches.includes('AFTER_GARBAGE'));
    expect(errors).toHaveLength(8);
    for (const error of errors) expect(error).toBeInstanceOf(GatewayError);
    expect(gateway.status).toBe('ready');
    // The connection still answers the server.
    peer.send({ op: 1, d: null });
    await peer.nextFrame((frame) => frame['op'] === 1);
    expect(ws.peers).toHaveLength(1);
  });

  it('a throwing event listener does not escape the socket handler', async () => {
    const ws = await server((peer) => behaveWell(peer));
    const { gateway, errors } = gatewayFor(ws.url);
    gateway.on('dispatch', (event) => {
      if (event.t === 'BOOM') throw new Error('listener bug');
    });
    await gateway.connect();
    const peer = await ws.peer(0);
    peer.send(frames.dispatch('BOOM', 2, {}));
    await until(() => errors.length === 1);
    expect(errors[0]?.message).toMatch(/listener bug/);
    expect(gateway.status).toBe('ready');
  });
});

describe('Hello validation (point 9)', () => {
  const bad: [string, string][] = [
    ['1e10 (overflows a timer)', JSON.stringify(frames.hello(1e10))],
    ['1e999 (parses to Infinity)', '{"op":10,"d":{"heartbeat_interval":1e999}}'],
    ['more than 10 minutes', JSON.stringify(frames.hello(600_001))],
    ['0', JSON.stringify(frames.hello(0))],
    ['negative', JSON.stringify(frames.hello(-5))],
    ['missing', '{"op":10,"d":{}}'],
    ['a string', JSON.stringify(frames.hello('41250'))],
    ['d null', '{"op":10,"d":null}'],
  ];
  for (const [name, hello] of bad) {
    it(`a heartbeat_interval that is ${name} is a protocol error: no heartbeat, no Identify, a reconnect with backoff`, async () => {
      const ws = await server((peer) => peer.sendRaw(hello));
      ws.onConnection((peer) => (ws.peers.length === 1 ? peer.sendRaw(hello) : behaveWell(peer)));
      const { gateway, errors, reconnecting } = gatewayFor(ws.url, { random: () => 0.999, reconnectBaseDelayMs: 40, reconnectMaxDelayMs: 1000 });
      await gateway.connect();
      const first = await ws.peer(0);
      expect(opsOf(first)).toEqual([]);
      expect(errors.some((error) => /heartbeat_interval/.test(error.message))).toBe(true);
      expect(reconnecting[0]).toMatchObject({ attempt: 1, delayMs: 39 });
      expect(reconnecting[0]?.reason).toMatch(/Hello/);
      expect(ws.peers).toHaveLength(2);
    });
  }

  it('with every Hello bad, reconnects follow the growing backoff (no hot loop)', async () => {
    const ws = await server((peer) => peer.send(frames.hello(1e10)));
    const { gateway, reconnecting } = gatewayFor(ws.url, { random: () => 0.999, reconnectBaseDelayMs: 10, reconnectMaxDelayMs: 80, connectTimeoutMs: 60_000 });
    const connecting = gateway.connect().catch((error: unknown) => error);
    await until(() => reconnecting.length >= 5);
    expect(reconnecting.slice(0, 5).map((event) => event.delayMs)).toEqual([9, 19, 39, 79, 79]);
    for (const peer of ws.peers) expect(opsOf(peer)).not.toContain(1);
    await gateway.close();
    expect(await connecting).toBeInstanceOf(GatewayError);
  });
});

describe('the upgrade request (point 13)', () => {
  it('sends User-Agent: community-chat-sdk/<version>, as REST does', async () => {
    const ws = await server((peer) => behaveWell(peer));
    await gatewayFor(ws.url).gateway.connect();
    expect((await ws.peer(0)).headers['user-agent']).toBe(`community-chat-sdk/${SDK_VERSION}`);
  });

  it('a server that closes 4002 without a User-Agent lets the SDK in', async () => {
    const ws = await server((peer) => (peer.headers['user-agent'] ? behaveWell(peer) : peer.close(4002, 'decode error')));
    const { gateway } = gatewayFor(ws.url, { connectTimeoutMs: 3000 });
    await gateway.connect();
    expect(ws.peers).toHaveLength(1);
  });

  it('gateway.headers adds headers; a User-Agent there is appended after the SDK product token', async () => {
    const ws = await server((peer) => behaveWell(peer));
    await gatewayFor(ws.url, { headers: { 'User-Agent': 'my-bot/2.0', 'X-Shard': '1' } }).gateway.connect();
    const { headers } = await ws.peer(0);
    expect(headers['user-agent']).toBe(`community-chat-sdk/${SDK_VERSION} my-bot/2.0`);
    expect(headers['x-shard']).toBe('1');
  });

  it('refuses handshake headers in gateway.headers before connecting', async () => {
    const ws = await server((peer) => behaveWell(peer));
    const { gateway } = gatewayFor(ws.url, { headers: { 'Sec-WebSocket-Key': 'x' } });
    await expect(gateway.connect()).rejects.toBeInstanceOf(ValidationError);
    expect(ws.peers).toHaveLength(0);
  });
});

/** A server that closes each connection after Identify with the next code of `script` ('ready' answers READY, 'early' Invalid Session). */
function identifyScript(script: (number | 'ready' | 'early')[]) {
  return (peer: WsPeer, index: number) => {
    peer.send(frames.hello(45_000));
    peer.socket.on('message', (data) => {
      const frame = JSON.parse(data.toString()) as { op: number };
      if (frame.op === 1) peer.send({ op: 11, d: null });
      if (frame.op !== 2) return;
      const step = script[index] ?? 'ready';
      if (step === 'ready') peer.send(frames.ready(1));
      else if (step === 'early') peer.send({ op: 9, d: false });
      else peer.close(step, `scripted ${step}`);
    });
  };
}

describe('Identify that never becomes READY (point 14)', () => {
  it('stops after 3 Identify attempts in a row without READY, whatever the close code, naming the likely cause', async () => {
    const script = identifyScript([4000, 4002, 1000, 4000, 4000]);
    const ws = await server();
    ws.onConnection((peer) => script(peer, ws.peers.length - 1));
    const { gateway, errors } = gatewayFor(ws.url, { connectTimeoutMs: 10_000 });
    const error = await gateway.connect().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayFatalError);
    expect((error as GatewayFatalError).message).toMatch(/3 Identify attempts/);
    expect((error as GatewayFatalError).hint).toMatch(/token.*intents/);
    expect(errors).toContain(error);
    expect(ws.peers).toHaveLength(3);
    expect(gateway.status).toBe('idle');
  });

  it('maxIdentifyFailures sets the count; READY resets it and nothing else does', async () => {
    // Two failures, READY, a 4009 (re-identify), two failures, READY: never three in a row.
    const script = identifyScript([4000, 4000, 'ready', 4000, 4000, 'ready']);
    const ws = await server();
    ws.onConnection((peer) => script(peer, ws.peers.length - 1));
    const { gateway, errors } = gatewayFor(ws.url);
    const ready: string[] = [];
    gateway.on('ready', (event) => ready.push(event.sessionId));
    await gateway.connect();
    (await ws.peer(2)).close(4009, 'session timed out');
    await until(() => ready.length === 2);
    expect(ws.peers).toHaveLength(6);
    expect(errors).toEqual([]);

    const strict = await server();
    const strictScript = identifyScript([4000, 4000]);
    strict.onConnection((peer) => strictScript(peer, strict.peers.length - 1));
    const error = await gatewayFor(strict.url, { maxIdentifyFailures: 2 })
      .gateway.connect()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayFatalError);
    expect(strict.peers).toHaveLength(2);
  });

  it('does not count an Identify refused for pacing (Invalid Session before READY, or 4008), and says it was pacing', async () => {
    const script = identifyScript(['early', 'early', 4008, 'early', 'ready']);
    const ws = await server();
    ws.onConnection((peer) => script(peer, ws.peers.length - 1));
    const { gateway, errors, reconnecting } = gatewayFor(ws.url, { connectTimeoutMs: 20_000, random: () => 0 });
    await gateway.connect();
    expect(ws.peers, 'five Identify, four refused for pacing, then READY').toHaveLength(5);
    expect(errors).toEqual([]);
    const reasons = reconnecting.map((event) => event.reason);
    expect(
      reasons.filter((reason) =>
        /^invalid session \(not resumable\) before READY: the Identify came too early \(pacing\), not counted toward maxIdentifyFailures$/.test(reason),
      ),
    ).toHaveLength(3);
    expect(reasons.join()).not.toMatch(/token/);
  }, 15_000);

  it('still connects after four 4008 (rate limited) closes before READY in a row: 4008 is pacing, not a bad token', async () => {
    const script = identifyScript([4008, 4008, 4008, 4008, 'ready']);
    const ws = await server();
    ws.onConnection((peer) => script(peer, ws.peers.length - 1));
    const { gateway, errors } = gatewayFor(ws.url, { connectTimeoutMs: 10_000 });
    const connected = await gateway.connect().then(
      () => 'connected',
      (error: unknown) => `rejected: ${String(error)}`,
    );
    expect(connected, 'connect() after four 4008 closes, then READY').toBe('connected');
    expect(ws.peers, 'five Identify, four closed with 4008').toHaveLength(5);
    expect(errors).toEqual([]);
  });

  it(`gives up with a GatewayFatalError after ${MAX_PACED_REFUSALS} Identify attempts in a row refused with Invalid Session, not forever`, async () => {
    const ws = await server();
    ws.onConnection((peer) => identifyScript(Array(100).fill('early'))(peer, ws.peers.length - 1));
    const { gateway, errors } = gatewayFor(ws.url, { connectTimeoutMs: 25_000, random: () => 0 });
    const error = await gateway.connect().catch((e: unknown) => e);
    expect(error, 'what connect() settles with when every Identify is refused as too early').toBeInstanceOf(GatewayFatalError);
    expect((error as GatewayFatalError).message).toMatch(new RegExp(`every Identify was refused as too early: ${MAX_PACED_REFUSALS} in a row`));
    expect((error as GatewayFatalError).message).not.toMatch(/token is likely invalid/);
    expect(errors).toContain(error);
    expect(ws.peers, 'one Identify per connection, each refused').toHaveLength(MAX_PACED_REFUSALS);
    expect(gateway.status).toBe('idle');
  }, 30_000);

  it('counts a READY timeout after Identify as a failed attempt too', async () => {
    const ws = await server((peer) => peer.send(frames.hello(45_000)));
    const { gateway } = gatewayFor(ws.url, { readyTimeoutMs: 30, connectTimeoutMs: 10_000 });
    const error = await gateway.connect().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayFatalError);
    expect(ws.peers).toHaveLength(3);
  });
});

describe('resume_gateway_url (point 15)', () => {
  /** Answers Identify with READY carrying `resumeUrl`, Resume with RESUMED. */
  const withResumeUrl = (resumeUrl: string) => (peer: WsPeer) => behaveWell(peer, { ready: { resume_gateway_url: resumeUrl } });

  it('ignores a plain ws:// resume URL to a non-loopback host (the token would travel in clear), with an error event', async () => {
    const ws = await server(withResumeUrl('ws://gateway.example.invalid:1234/gw'));
    const { gateway, errors } = gatewayFor(ws.url);
    let resumed = 0;
    gateway.on('resumed', () => resumed++);
    await gateway.connect();
    expect(errors.some((error) => /resume_gateway_url/.test(error.message))).toBe(true);
    (await ws.peer(0)).close(4000, 'go away');
    await until(() => resumed === 1);
    const second = await ws.peer(1);
    expect(opsOf(second)).toContain(6);
  });

  it('uses a loopback resume URL, and after one failed resume there falls back to the configured URL', async () => {
    const resumeServer = await server((peer) => behaveWell(peer));
    const ws = await server(withResumeUrl(`${resumeServer.url}/resume`));
    const { gateway } = gatewayFor(ws.url);
    let resumed = 0;
    gateway.on('resumed', () => resumed++);
    await gateway.connect();
    (await ws.peer(0)).close(4000, 'move');
    await until(() => resumed === 1);
    // The resume URL asks for the same transport compression as the configured one (the best available by default).
    expect((await resumeServer.peer(0)).url).toMatch(/^\/resume\?compress=(zstd|zlib)-stream$/);
    expect(ws.peers).toHaveLength(1);

    // The resume server goes away: one failed resume there, then the configured URL.
    await resumeServer.close();
    await until(() => resumed === 2);
    expect(ws.peers).toHaveLength(2);
    expect(opsOf(ws.peers[1]!)).toContain(6);
  });
});

describe('close codes and opcodes (point 16)', () => {
  it('4006 (session no longer valid) identifies anew instead of resuming', async () => {
    const ws = await server((peer) => behaveWell(peer));
    const { gateway, reconnecting } = gatewayFor(ws.url);
    const ready: string[] = [];
    gateway.on('ready', (event) => ready.push(event.sessionId));
    await gateway.connect();
    (await ws.peer(0)).close(4006, 'session no longer valid');
    await until(() => ready.length === 2);
    expect(reconnecting[0]).toMatchObject({ resume: false });
    expect(opsOf(ws.peers[1]!)).toContain(2);
    expect(opsOf(ws.peers[1]!)).not.toContain(6);
  });

  it('a Reconnect with a non-numeric or absurd d falls back to the backoff, or is capped at reconnectMaxDelayMs', async () => {
    const ws = await server((peer) => behaveWell(peer));
    const { gateway, reconnecting } = gatewayFor(ws.url, { random: () => 0.5, reconnectBaseDelayMs: 40, reconnectMaxDelayMs: 100 });
    await gateway.connect();
    (await ws.peer(0)).send({ op: 7, d: 'soon' });
    await until(() => reconnecting.length === 1 && gateway.status === 'ready');
    (await ws.peer(1)).send({ op: 7, d: 1e12 });
    await until(() => reconnecting.length === 2 && gateway.status === 'ready');
    (await ws.peer(2)).send({ op: 7, d: 70 });
    await until(() => reconnecting.length === 3 && gateway.status === 'ready');
    expect(reconnecting.map((event) => event.delayMs)).toEqual([20, 100, 70]);
  });

  it('a Reconnect carrying a delay in d waits that long before reconnecting (fake timers)', async () => {
    const ws = await server((peer) => behaveWell(peer));
    const { gateway, reconnecting } = gatewayFor(ws.url, { random: () => 0, reconnectMaxDelayMs: 30_000 });
    await gateway.connect();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    (await ws.peer(0)).send({ op: 7, d: 2000 });
    await until(() => reconnecting.length === 1, { what: 'the reconnecting event' });
    expect(reconnecting[0]).toMatchObject({ delayMs: 2000, resume: true });
    await vi.advanceTimersByTimeAsync(1999);
    for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(ws.peers).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await until(() => ws.peers.length === 2, { what: 'the second connection at the server' });
  });
});
