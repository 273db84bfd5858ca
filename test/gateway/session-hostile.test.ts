/**
 * A hostile or broken Gateway peer against the session state: a second Hello,
 * READY without a session id, absurd sequence numbers, a new session after an
 * old one, a heartbeat interval below the floor, resume URLs carrying
 * credentials, and INTERACTION_CREATE payloads nested too deep to validate.
 * Each against a scripted loopback WebSocket server.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Client, type GatewayOptions } from '../../src/index.js';
import { SECRETS } from '../helpers/index.js';
import { behaveWell, frames, startWsServer, type WsPeer, type WsTestServer, until, opsOf } from '../helpers/ws-server.js';

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function server(handler?: (peer: WsPeer) => void): Promise<WsTestServer> {
  const started = await startWsServer(handler);
  cleanups.push(() => started.close());
  return started;
}

function gatewayFor(url: string, options: GatewayOptions = {}) {
  const client = new Client({
    baseUrl: 'http://127.0.0.1:9',
    auth: { botToken: SECRETS.botToken },
    gateway: { url, reconnectBaseDelayMs: 5, reconnectMaxDelayMs: 20, ...options },
  });
  cleanups.push(() => client.close());
  const gateway = client.gateway;
  const errors: Error[] = [];
  const dispatches: { t: string; s: number | null }[] = [];
  gateway.on('error', (error) => errors.push(error));
  gateway.on('dispatch', (event) => dispatches.push({ t: event.t, s: event.s }));
  return { gateway, errors, dispatches };
}

describe('Hello', () => {
  it('a second Hello on the same connection is ignored: one Identify, one READY wait', async () => {
    const ws = await server((peer) => {
      behaveWell(peer);
      peer.send(frames.hello(45_000));
      peer.send(frames.hello(45_000));
    });
    const { gateway } = gatewayFor(ws.url);
    await gateway.connect();
    const peer = await ws.peer(0);
    // A heartbeat asked for now is answered after the Hellos were handled: once it arrived, so had any Identify they sent.
    const beats = () => opsOf(peer).filter((op) => op === 1).length;
    const before = beats();
    peer.send({ op: 1, d: null });
    await until(() => beats() > before, { what: 'the heartbeat asked for' });
    expect(
      opsOf(peer).filter((op) => op === 2),
      'Identify frames on the connection',
    ).toHaveLength(1);
    expect(ws.peers).toHaveLength(1);
  });

  it('a heartbeat_interval below the 1 s floor is a protocol error by default; minHeartbeatIntervalMs lowers the floor', async () => {
    const fast = await server((peer) => (fast.peers.length === 1 ? peer.send(frames.hello(1)) : behaveWell(peer)));
    const strict = gatewayFor(fast.url);
    await strict.gateway.connect();
    expect(strict.errors.some((error) => /heartbeat_interval \(1; expected at least 1000 ms/.test(error.message))).toBe(true);
    expect(opsOf(fast.peers[0]!)).toEqual([]);

    const lenient = await server((peer) => behaveWell(peer, { heartbeatInterval: 50 }));
    const relaxed = gatewayFor(lenient.url, { minHeartbeatIntervalMs: 10 });
    await relaxed.gateway.connect();
    const peer = await lenient.peer(0);
    await until(() => opsOf(peer).filter((op) => op === 1).length >= 2);
    expect(relaxed.errors).toEqual([]);
  });
});

describe('READY and sequences', () => {
  it('READY without a session_id is an error event, and the next connection identifies anew instead of resuming', async () => {
    const ws = await server((peer) => {
      if (ws.peers.length > 1) return behaveWell(peer);
      peer.socket.on('message', (data) => {
        const op = (JSON.parse(data.toString()) as { op: number }).op;
        if (op === 2) peer.send({ op: 0, t: 'READY', s: 1, d: { v: 10, user: { id: 'bot' } } });
      });
      peer.send(frames.hello());
    });
    const { gateway, errors } = gatewayFor(ws.url);
    await gateway.connect();
    expect(errors.some((error) => /READY without a session_id/.test(error.message))).toBe(true);
    (await ws.peer(0)).close(4000, 'bye');
    const second = await ws.peer(1);
    await second.nextFrame((frame) => frame['op'] === 2);
    expect(opsOf(second)).not.toContain(6);
  });

  it('a dispatch with an absurd sequence is delivered and reported, and does not make later events look delivered', async () => {
    const ws = await server((peer) => behaveWell(peer));
    const { gateway, errors, dispatches } = gatewayFor(ws.url);
    await gateway.connect();
    const peer = await ws.peer(0);
    peer.send(frames.dispatch('HUGE', 1e15, {}));
    peer.sendRaw('{"op":0,"t":"FRACTION","s":2.5,"d":{}}');
    peer.sendRaw('{"op":0,"t":"NEGATIVE","s":-4,"d":{}}');
    peer.send(frames.dispatch('NEXT', 2, {}));
    peer.send(frames.dispatch('AGAIN', 2, {}));
    // Dispatches are handled in order: once the one after AGAIN arrived, AGAIN was dropped or delivered.
    peer.send(frames.dispatch('LAST', 3, {}));
    await until(() => dispatches.some((event) => event.t === 'LAST'), { what: () => `LAST delivered (got ${dispatches.map((event) => event.t).join(', ')})` });
    expect(dispatches.map((event) => event.t)).toEqual(['READY', 'HUGE', 'FRACTION', 'NEGATIVE', 'NEXT', 'LAST']);
    expect(dispatches.find((event) => event.t === 'HUGE')?.s).toBeNull();
    expect(errors.filter((error) => /sequence/.test(error.message))).toHaveLength(3);
  });

  it('a new session (the old one could not be resumed) numbers its dispatches from the start: none dropped as already delivered', async () => {
    let identifies = 0;
    const ws = await server((peer) => {
      peer.socket.on('message', (data) => {
        const op = (JSON.parse(data.toString()) as { op: number }).op;
        if (op !== 2) return;
        identifies++;
        if (identifies === 1) {
          // No session_id: nothing to resume, so the next connection identifies while the old sequence is 500.
          peer.send({ op: 0, t: 'READY', s: 1, d: { v: 10, user: { id: 'bot' } } });
          peer.send(frames.dispatch('OLD', 500, {}));
          setTimeout(() => peer.close(4000, 'bye'), 20);
        } else {
          peer.send(frames.ready(1, { session_id: 'sess-2' }));
          peer.send(frames.dispatch('FRESH', 2, {}));
        }
      });
      peer.send(frames.hello());
    });
    const { gateway, dispatches } = gatewayFor(ws.url);
    await gateway.connect();
    await until(() => dispatches.some((event) => event.t === 'FRESH'));
    expect(dispatches.map((event) => `${event.t}:${String(event.s)}`)).toEqual(['READY:1', 'OLD:500', 'READY:1', 'FRESH:2']);
  });
});

describe('resume_gateway_url', () => {
  it('refuses a resume URL carrying credentials (error event) and resumes on the configured URL', async () => {
    const ws = await server((peer) => behaveWell(peer, { ready: { resume_gateway_url: `ws://user:${SECRETS.botToken}@127.0.0.1:9/gw` } }));
    const { gateway, errors } = gatewayFor(ws.url);
    let resumed = 0;
    gateway.on('resumed', () => resumed++);
    await gateway.connect();
    const refusal = errors.find((error) => /resume_gateway_url/.test(error.message));
    expect(refusal?.message).toMatch(/credentials/);
    expect(`${refusal?.message} ${refusal?.stack}`).not.toContain(SECRETS.botToken);
    (await ws.peer(0)).close(4000, 'move');
    await until(() => resumed === 1);
    expect(opsOf(ws.peers[1]!)).toContain(6);
  });

  it('trustResumeUrl: false resumes on the configured URL even when the READY names a usable one', async () => {
    const other = await server((peer) => behaveWell(peer));
    const ws = await server((peer) => behaveWell(peer, { ready: { resume_gateway_url: other.url } }));
    const { gateway, errors } = gatewayFor(ws.url, { trustResumeUrl: false });
    let resumed = 0;
    gateway.on('resumed', () => resumed++);
    await gateway.connect();
    (await ws.peer(0)).close(4000, 'move');
    await until(() => resumed === 1);
    expect(other.peers).toHaveLength(0);
    expect(opsOf(ws.peers[1]!)).toContain(6);
    expect(errors).toEqual([]);
  });
});

describe('INTERACTION_CREATE nested too deep', () => {
  it('becomes an error event and the raw dispatch; the connection goes on', async () => {
    const ws = await server((peer) => behaveWell(peer));
    const { gateway, errors, dispatches } = gatewayFor(ws.url);
    let interactions = 0;
    gateway.on('interactionCreate', () => interactions++);
    await gateway.connect();
    const peer = await ws.peer(0);
    // Subcommand options nest three levels at most; 20,000 fail validation (and would overflow a recursive validator's stack).
    const depth = 20_000;
    const deep = `${'{"name":"x","type":1,"options":['.repeat(depth)}{"name":"leaf","type":3,"value":"v"}${']}'.repeat(depth)}`;
    peer.sendRaw(
      `{"op":0,"t":"INTERACTION_CREATE","s":2,"d":{"id":"1","application_id":"2","type":2,"token":"tok-deep-Zz99","version":1,"data":{"id":"3","name":"cmd","type":1,"options":[${deep}]}}}`,
    );
    peer.send(frames.dispatch('AFTER', 3, {}));
    await until(() => dispatches.some((event) => event.t === 'AFTER'));
    expect(dispatches.map((event) => event.t)).toContain('INTERACTION_CREATE');
    expect(interactions).toBe(0);
    expect(errors.some((error) => /INTERACTION_CREATE/.test(error.message))).toBe(true);
    expect(gateway.status).toBe('ready');
  });
});
