import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  Client,
  GatewayError,
  GatewayFatalError,
  type CommandInteraction,
  type GatewayOptions,
  type GatewayReconnectingEvent,
  type Interaction,
  isCommunityChatError,
} from '../../src/index.js';
import { GatewayOpcode } from '../../src/testing/index.js';
import { GatewayServer } from '../../src/testing/gateway-server.js';
import type { GatewayServerOptions } from '../../src/testing/gateway-server-options.js';
import { SECRETS, activeTimers } from '../helpers/index.js';
import { until } from '../helpers/ws-server.js';

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(serverOptions: GatewayServerOptions = {}, gateway: GatewayOptions = {}) {
  const server = new GatewayServer({ heartbeatIntervalMs: 1000, ...serverOptions });
  await server.listening();
  const client = new Client({
    baseUrl: 'http://127.0.0.1:9',
    auth: { botToken: SECRETS.botToken },
    // Tests run heartbeats of tens of milliseconds, below the 1 s floor a real server is held to.
    gateway: { url: server.url, reconnectBaseDelayMs: 5, reconnectMaxDelayMs: 20, minHeartbeatIntervalMs: 1, ...gateway },
  });
  cleanups.push(
    () => server.close(),
    () => client.close(),
  );
  return { server, client, gateway: client.gateway };
}

const commandPayload = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  type: 2,
  token: `interaction-token-${id}`,
  application_id: 'app1',
  channel_id: 'ch1',
  guild_id: 'g1',
  member: { user: { id: 'u1', username: 'ada' } },
  data: { id: 'cmd1', name: 'quiz', options: [{ name: 'topic', type: 3, value: 'space' }] },
  ...extra,
});

describe('handshake and heartbeats', () => {
  it('identifies with the bot token, resolves connect() on READY and keeps heartbeating', async () => {
    const { server, gateway } = await setup({ heartbeatIntervalMs: 60 });
    const ready: string[] = [];
    gateway.on('ready', (event) => ready.push(event.sessionId));
    expect(gateway.status).toBe('idle');
    await gateway.connect();
    expect(gateway.status).toBe('ready');
    expect(ready).toEqual([expect.stringMatching(/^session-[0-9a-f]+-1$/)]);
    expect(gateway.sessionId).toMatch(/^session-[0-9a-f]+-1$/);
    const identify = server.received.find((frame) => frame.op === GatewayOpcode.Identify);
    expect(identify?.d).toMatchObject({ token: SECRETS.botToken, intents: 0, properties: { browser: 'community-chat-sdk' } });
    await until(() => server.stats.heartbeats >= 3);
    expect(gateway.latency).toBeGreaterThanOrEqual(0);
    expect(gateway.lastAckAt).toBeGreaterThan(0);
    const beats = server.received.filter((frame) => frame.op === GatewayOpcode.Heartbeat);
    expect(beats.at(-1)?.d).toBe(1);
  });

  // The first-beat jitter test moved to heartbeat.test.ts (fake timers instead of wall-clock bounds).

  it('answers a heartbeat request from the server at once', async () => {
    const { server, gateway } = await setup({ heartbeatIntervalMs: 60_000 }, { random: () => 0.99 });
    await gateway.connect();
    server.sendToAll({ op: GatewayOpcode.Heartbeat, d: null });
    await until(() => server.stats.heartbeats === 1);
  });
});

describe('robustness', () => {
  it('detects a zombie connection (no ACK by the next beat), terminates it and resumes', async () => {
    const { server, gateway } = await setup({ heartbeatIntervalMs: 40 });
    await gateway.connect();
    const reconnecting: GatewayReconnectingEvent[] = [];
    const resumed: number[] = [];
    gateway.on('reconnecting', (event) => reconnecting.push(event));
    gateway.on('resumed', (event) => resumed.push(event.replayed));
    server.ackHeartbeats = false;
    await until(() => reconnecting.length > 0);
    server.ackHeartbeats = true;
    expect(reconnecting[0]?.reason).toMatch(/zombie/);
    expect(reconnecting[0]?.resume).toBe(true);
    await until(() => resumed.length > 0);
    expect(server.stats.resumes).toBeGreaterThanOrEqual(1);
    expect(gateway.status).toBe('ready');
    expect(gateway.sessionId).toMatch(/^session-[0-9a-f]+-1$/);
  });

  it('resumes with replay across 50 forced disconnects: no dispatch lost, none delivered twice', async () => {
    const { server, gateway } = await setup({ heartbeatIntervalMs: 1000, replayOverlap: 3 });
    const seen: string[] = [];
    gateway.onInteraction('command', (interaction) => {
      seen.push(interaction.id);
    });
    await gateway.connect();
    let resumes = 0;
    gateway.on('resumed', () => resumes++);
    const total = 300;
    for (let i = 0; i < total; i++) {
      server.dispatch('INTERACTION_CREATE', commandPayload(`i${i}`));
      if (i % 6 === 5 && resumes < 50) {
        server.dropConnections();
        const before = resumes;
        await until(() => resumes > before);
      }
    }
    await until(() => seen.length >= total);
    // One more dispatch after the last resume: dispatches are delivered in order, so a replayed one delivered twice would come before it.
    server.dispatch('INTERACTION_CREATE', commandPayload('last'));
    await until(() => seen.includes('last'), { what: () => `the dispatch after the last resume (seen ${seen.length})` });
    expect(resumes).toBe(50);
    expect(seen).toEqual([...Array.from({ length: total }, (_, i) => `i${i}`), 'last']);
  });

  it('reports how many dispatches a resume replayed', async () => {
    const { server, gateway } = await setup({}, { helloTimeoutMs: 30 });
    await gateway.connect();
    const replayed: number[] = [];
    gateway.on('resumed', (event) => replayed.push(event.replayed));
    // Keep the client from resuming until the missed events are queued.
    server.sendHello = false;
    server.dropConnections();
    await until(() => gateway.status !== 'ready');
    for (let i = 0; i < 4; i++) server.dispatch('SOMETHING', { i });
    server.sendHello = true;
    await until(() => replayed.length === 1);
    expect(replayed).toEqual([4]);
  });

  it('re-identifies after Invalid Session false, and resumes after Invalid Session true', async () => {
    const { server, gateway } = await setup({}, { random: () => 0 });
    await gateway.connect();
    const ready: string[] = [];
    const resumed: number[] = [];
    gateway.on('ready', (event) => ready.push(event.sessionId));
    gateway.on('resumed', (event) => resumed.push(event.replayed));
    server.sendToAll({ op: GatewayOpcode.InvalidSession, d: false });
    await until(() => ready.length === 1);
    expect(ready[0]).toMatch(/^session-[0-9a-f]+-2$/);
    expect(server.stats.identifies).toBe(2);
    server.sendToAll({ op: GatewayOpcode.InvalidSession, d: true });
    await until(() => resumed.length === 1);
    expect(gateway.sessionId).toMatch(/^session-[0-9a-f]+-2$/);
    expect(server.stats.identifies).toBe(2);
  });

  it('reconnects and resumes when the server sends Reconnect', async () => {
    const { server, gateway } = await setup();
    await gateway.connect();
    let resumed = 0;
    gateway.on('resumed', () => resumed++);
    server.sendToAll({ op: GatewayOpcode.Reconnect, d: null });
    await until(() => resumed === 1);
    expect(server.stats.connections).toBe(2);
  });

  it('never reconnects on a fatal close code: connect() rejects with GatewayFatalError and a hint', async () => {
    // The Gateway's timers are fake: past the refusal, every delay it could have scheduled is run out below.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    const { server, gateway } = await setup({ authorize: () => false });
    const error = await gateway.connect().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayFatalError);
    expect(isCommunityChatError(error, 'GatewayFatalError')).toBe(true);
    expect((error as GatewayFatalError).code).toBe(4004);
    expect((error as GatewayFatalError).hint).toMatch(/token/);
    expect(String(error)).not.toContain(SECRETS.botToken);
    // A reconnect would open its socket (status 'connecting') when its delay ran out: a minute later, still idle.
    await vi.advanceTimersByTimeAsync(60_000);
    expect(gateway.status, "the Gateway's status a minute after the fatal close ('connecting': it reconnected)").toBe('idle');
    expect(server.stats.connections).toBe(1);
  });

  it('stops on a fatal close after READY and emits the error instead of crashing', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    const { server, gateway } = await setup();
    await gateway.connect();
    const errors: unknown[] = [];
    gateway.on('error', (error) => errors.push(error));
    server.dropConnections(4014);
    await until(() => errors.length === 1);
    expect(errors[0]).toBeInstanceOf(GatewayFatalError);
    // A reconnect would open its socket (status 'connecting') when its delay ran out: a minute later, still idle.
    await vi.advanceTimersByTimeAsync(60_000);
    expect(gateway.status, "the Gateway's status a minute after the fatal close ('connecting': it reconnected)").toBe('idle');
    expect(server.stats.connections).toBe(1);
  });

  it('times out waiting for Hello and for READY, then reconnects', async () => {
    const { server, gateway } = await setup({}, { helloTimeoutMs: 50, readyTimeoutMs: 50 });
    const reasons: string[] = [];
    gateway.on('reconnecting', (event) => reasons.push(event.reason));
    server.sendHello = false;
    const connecting = gateway.connect();
    await until(() => reasons.length >= 1);
    expect(reasons[0]).toMatch(/no Hello within 50 ms/);
    server.sendHello = true;
    server.answerSessions = false;
    await until(() => reasons.some((reason) => /no READY within 50 ms/.test(reason)));
    server.answerSessions = true;
    await connecting;
    expect(gateway.status).toBe('ready');
  });

  it('connect() rejects after connectTimeoutMs when nothing answers, and stops trying', async () => {
    // The Gateway's timers are fake, moved on 5 ms at a time while its sockets really open (Hello timeouts, reconnect delays,
    // the connect timeout), then run a minute past the refusal.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    const { server, gateway } = await setup({}, { connectTimeoutMs: 150, helloTimeoutMs: 40 });
    server.sendHello = false;
    let error: unknown;
    const connecting = gateway.connect().then(
      () => 'connected',
      (caught: unknown) => (error = caught),
    );
    await until(async () => error !== undefined || void (await vi.advanceTimersByTimeAsync(5)), { what: 'connect() settling' });
    await connecting;
    expect(error).toBeInstanceOf(GatewayError);
    expect(String(error)).toMatch(/connectTimeoutMs/);
    // Another attempt would open its socket (status 'connecting' or 'resuming') when its delay ran out: a minute later, still idle.
    await vi.advanceTimersByTimeAsync(60_000);
    expect(gateway.status, "the Gateway's status a minute after connect() gave up").toBe('idle');
  });

  it('backs off exponentially with full jitter under a cap, and resets only after READY or RESUMED', async () => {
    const { server, gateway } = await setup({}, { random: () => 0.999, reconnectBaseDelayMs: 10, reconnectMaxDelayMs: 40, helloTimeoutMs: 20 });
    await gateway.connect();
    const events: GatewayReconnectingEvent[] = [];
    gateway.on('reconnecting', (event) => events.push(event));
    server.sendHello = false;
    server.dropConnections();
    await until(() => events.length >= 5, 8000);
    // Attempt 1 follows the drop; later ones follow each Hello timeout.
    expect(events.slice(0, 5).map((e) => [e.attempt, e.delayMs])).toEqual([
      [1, 9],
      [2, 19],
      [3, 39],
      [4, 39],
      [5, 39],
    ]);
    server.sendHello = true;
    await until(() => gateway.status === 'ready', 8000);
    events.length = 0;
    server.dropConnections();
    await until(() => events.length >= 1);
    expect(events[0]?.attempt).toBe(1);
  });

  it('destroy() clears every timer and listener, and rejects a pending connect()', async () => {
    const timersBefore = activeTimers();
    // Fake timers, so that every timer the Gateway (and the sockets on both ends) set is counted below.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    const { server, gateway } = await setup({ heartbeatIntervalMs: 30 });
    await gateway.connect();
    await until(async () => server.stats.heartbeats >= 2 || void (await vi.advanceTimersByTimeAsync(5)), { what: 'two heartbeats' });
    await gateway.close();
    const beats = server.stats.heartbeats;
    expect(gateway.status).toBe('destroyed');
    expect(gateway.listenerCount('ready')).toBe(0);
    // Once the server saw the closing handshake end (close 1000 ends the session), its socket's timers are gone too. A minute
    // on, every one-shot timer has run out: a timer left (a heartbeat interval) beats for ever.
    await until(() => server.stats.sessionsEndedByClient === 1, { what: 'the server seeing the session ended' });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(vi.getTimerCount(), 'timers left a minute after close()').toBe(0);
    expect(server.stats.heartbeats, 'heartbeats after close()').toBe(beats);
    vi.useRealTimers();
    expect(activeTimers()).toBeLessThanOrEqual(timersBefore);

    const second = await setup();
    second.server.sendHello = false;
    const pending = second.gateway.connect();
    // Listened to before close(), which rejects it and then waits for the socket's closing handshake.
    const rejected = expect(pending).rejects.toBeInstanceOf(GatewayError);
    await until(() => second.server.stats.connections === 1, { what: 'the pending connect() reaching the server' });
    await second.gateway.close();
    await rejected;
  });

  it('never puts the token in events, errors or inspect output', async () => {
    const { server, gateway } = await setup({ heartbeatIntervalMs: 30 });
    const seen: unknown[] = [];
    for (const name of ['ready', 'resumed', 'reconnecting', 'close', 'debug', 'error', 'dispatch'] as const)
      gateway.on(name, (event: unknown) => seen.push(event));
    await gateway.connect();
    server.dispatch('INTERACTION_CREATE', commandPayload('1'));
    server.dropConnections();
    await until(() => gateway.status === 'ready' && server.stats.resumes === 1);
    const { inspect } = await import('node:util');
    const text = JSON.stringify(seen) + inspect(gateway) + seen.map(String).join();
    expect(text).not.toContain(SECRETS.botToken);
    expect(text).not.toContain('interaction-token-1');
  });

  it('refuses a token over plain ws:// to a non-loopback host', async () => {
    const client = new Client({ auth: { botToken: 'x' }, gateway: { url: 'ws://gateway.example/api/v1/gateway' } });
    await expect(client.gateway.connect()).rejects.toThrow(/plain HTTP/);
    const noToken = new Client({ gateway: { url: 'ws://127.0.0.1:9' } });
    await expect(noToken.gateway.connect()).rejects.toThrow(/bot token/);
  });
});

describe('interactions over the Gateway', () => {
  it('delivers INTERACTION_CREATE as typed objects to kind and command handlers; unknown kinds are not dropped', async () => {
    const { server, gateway } = await setup();
    const received: Interaction[] = [];
    const quiz: CommandInteraction[] = [];
    gateway.on('interactionCreate', (interaction) => received.push(interaction));
    gateway.onCommand('Quiz', (interaction) => {
      quiz.push(interaction);
    });
    const errors: unknown[] = [];
    gateway.on('error', (error) => errors.push(error));
    await gateway.connect();
    server.dispatch('INTERACTION_CREATE', commandPayload('c1'));
    server.dispatch('INTERACTION_CREATE', { id: 'p1', type: 1, token: 't' });
    server.dispatch('INTERACTION_CREATE', { id: 'x1', type: 99, token: 't', data: { surprise: true }, brand_new_field: 1 });
    server.dispatch('INTERACTION_CREATE', { id: 'bad', type: 2 });
    await until(() => received.length === 3 && errors.length === 1);
    expect(received.map((i) => i.kind)).toEqual(['command', 'ping', 'unknown']);
    expect(quiz[0]?.options).toEqual({ topic: 'space' });
    expect(quiz[0]?.user?.username).toBe('ada');
    expect(received[2]?.raw['brand_new_field']).toBe(1);
    expect(String(errors[0])).toMatch(/INTERACTION_CREATE.*token/);
  });

  it('catches handler exceptions and rejections as interactionError; the connection lives on', async () => {
    const { server, gateway } = await setup();
    const failures: string[] = [];
    gateway.on('interactionError', ({ error, interaction }) => failures.push(`${interaction.id}: ${(error as Error).message}`));
    gateway.onInteraction('command', () => {
      throw new Error('sync boom');
    });
    gateway.onInteraction('command', async () => {
      throw new Error('async boom');
    });
    const after: string[] = [];
    gateway.onInteraction('command', (interaction) => {
      after.push(interaction.id);
    });
    await gateway.connect();
    server.dispatch('INTERACTION_CREATE', commandPayload('c1'));
    server.dispatch('INTERACTION_CREATE', commandPayload('c2'));
    await until(() => failures.length === 4);
    expect(failures.sort()).toEqual(['c1: async boom', 'c1: sync boom', 'c2: async boom', 'c2: sync boom']);
    expect(after).toEqual(['c1', 'c2']);
    expect(gateway.status).toBe('ready');
  });
});

describe('gateway.router.handle', () => {
  it('resolves once every handler has settled, with its own router alone and with use() routers, and never rejects', async () => {
    const { createInteraction, createInteractionRouter } = await import('../../src/index.js');
    const client = new Client({ baseUrl: 'http://127.0.0.1:9', auth: { botToken: SECRETS.botToken } });
    cleanups.push(() => client.close());
    const gateway = client.gateway;
    const errors: unknown[] = [];
    gateway.on('interactionError', (event) => errors.push(event.error));
    const settled: string[] = [];
    let release: () => void = () => undefined;
    gateway.onCommand('slow', () => new Promise<void>((resolve) => (release = resolve)).then(() => void settled.push('own')));
    gateway.onCommand('fails', () => Promise.reject(new Error('handler failed')));
    const payload = (id: string, name: string) => ({ id, type: 2, token: `tok-${id}`, data: { name } });

    let done = false;
    const alone = gateway.router.handle(createInteraction(payload('d1', 'slow'), async () => undefined)).then(() => (done = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(done).toBe(false);
    release();
    await alone;
    expect(settled).toEqual(['own']);
    await expect(gateway.router.handle(createInteraction(payload('d2', 'fails'), async () => undefined))).resolves.toBeUndefined();
    expect(errors.map((error) => (error as Error).message)).toEqual(['handler failed']);

    const router = createInteractionRouter();
    let releaseShared: () => void = () => undefined;
    router.onCommand('slow', () => new Promise<void>((resolve) => (releaseShared = resolve)).then(() => void settled.push('shared')));
    gateway.use(router);
    done = false;
    const both = gateway.router.handle(createInteraction(payload('d3', 'slow'), async () => undefined)).then(() => (done = true));
    await new Promise((resolve) => setImmediate(resolve));
    release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(done).toBe(false);
    releaseShared();
    await both;
    expect(settled).toEqual(['own', 'own', 'shared']);
  });
});
