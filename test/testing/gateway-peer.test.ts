/**
 * The emulator as a Discord-protocol peer, spoken to as a Discord client
 * library would: raw WebSocket frames and raw HTTP over loopback, no SDK.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { routes } from '../../src/core/routes.js';
import { createEmulator, type Emulator, type EmulatorOptions } from '../../src/testing/index.js';
import { until } from '../helpers/until.js';

interface Frame {
  op: number;
  d: unknown;
  s?: number | null;
  t?: string | null;
}

const running: Emulator[] = [];
const sockets: WebSocket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.terminate();
  for (const emulator of running.splice(0)) await emulator.close();
});

async function start(options: EmulatorOptions = {}): Promise<Emulator> {
  const emulator = await createEmulator(options);
  running.push(emulator);
  return emulator;
}

/** A raw Gateway client: every frame received, and the close code once closed. */
async function open(url: string) {
  const socket = new WebSocket(url);
  sockets.push(socket);
  const frames: Frame[] = [];
  let closed: { code: number } | undefined;
  socket.on('message', (raw) => {
    frames.push(JSON.parse(raw.toString()) as Frame);
  });
  socket.on('close', (code) => {
    closed = { code };
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  /** Waits for `check` to find something in what was received, naming `what` and the frames seen when it fails. */
  const received = <T>(check: () => T | undefined, what: string) =>
    until(check, { timeoutMs: 2000, what: () => `${what} (frames received: ${JSON.stringify(frames.map((f) => f.t ?? f.op))})` });
  return {
    frames,
    send: (frame: { op: number; d: unknown }) => socket.send(JSON.stringify(frame)),
    /** The next frame matching, counting from frame `from`. */
    frame: (match: (frame: Frame) => boolean, what: string) => received(() => frames.find(match), what),
    dispatch: (t: string) => received(() => frames.find((f) => f.op === 0 && f.t === t)?.d as Record<string, unknown> | undefined, t),
    closed: () => received(() => closed, 'close'),
    isOpen: () => socket.readyState === WebSocket.OPEN,
  };
}

async function getJson(emulator: Emulator, path: string, auth?: string) {
  const response = await fetch(`${emulator.url}/api/v1${path}`, { headers: auth ? { authorization: auth } : {} });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Connects and identifies the seeded bot the way Discord libraries do: the Gateway URL plus ?v=10&encoding=json. */
async function identify(emulator: Emulator, extra: Record<string, unknown> = {}, url = emulator.gatewayUrl) {
  const client = await open(`${url}?v=10&encoding=json`);
  await client.frame((f) => f.op === 10, 'Hello');
  client.send({ op: 2, d: { token: emulator.seed.botToken, intents: 0, properties: { os: 'linux', browser: 'test', device: 'test' }, ...extra } });
  const ready = await client.dispatch('READY');
  return { client, ready };
}

describe('Gateway discovery (GET /gateway and /gateway/bot)', () => {
  it('answers /gateway without credentials and /gateway/bot only to a bot token, in Discord’s shapes', async () => {
    const emulator = await start();
    const discovery = await getJson(emulator, '/gateway');
    expect(discovery).toEqual({ status: 200, body: { url: emulator.gatewayUrl } });
    expect((await getJson(emulator, '/gateway/bot')).status).toBe(401);
    expect((await getJson(emulator, '/gateway/bot', 'Bot not-a-token')).status).toBe(401);
    const bot = await getJson(emulator, '/gateway/bot', `Bot ${emulator.seed.botToken}`);
    expect(bot).toEqual({
      status: 200,
      body: { url: emulator.gatewayUrl, shards: 1, session_start_limit: { total: 1000, remaining: 1000, reset_after: 0, max_concurrency: 1 } },
    });
  });

  it('counts each Identify against the session start limit', async () => {
    const emulator = await start();
    await identify(emulator);
    await identify(emulator);
    const { body } = await getJson(emulator, '/gateway/bot', `Bot ${emulator.seed.botToken}`);
    const limit = body['session_start_limit'] as Record<string, number>;
    expect(limit['remaining']).toBe(998);
    expect(limit['reset_after']).toBeGreaterThan(24 * 60 * 60 * 1000 - 60_000);
    expect(limit['reset_after']).toBeLessThanOrEqual(24 * 60 * 60 * 1000);
  });

  it('serves the Gateway at the discovered URL with or without a trailing slash, and refuses other paths', async () => {
    const emulator = await start();
    for (const url of [`${emulator.gatewayUrl}?v=10&encoding=json`, `${emulator.gatewayUrl}/?v=10&encoding=json`]) {
      const client = await open(url);
      expect((await client.frame((f) => f.op === 10, 'Hello')).d).toMatchObject({ heartbeat_interval: expect.any(Number) });
    }
    await expect(open(`${emulator.gatewayUrl}x`)).rejects.toThrow(/400/);
  });

  it('keeps these routes out of the contract’s route table', () => {
    expect(Object.values(routes).filter((route) => route.path.startsWith('/gateway'))).toEqual([]);
  });
});

describe('READY', () => {
  it('carries v 10, the seeded bot user, its communities as unavailable stubs, the session, the resume URL and the application', async () => {
    const emulator = await start();
    const me = await getJson(emulator, '/users/@me', `Bot ${emulator.seed.botToken}`);
    const discovered = await getJson(emulator, '/gateway/bot', `Bot ${emulator.seed.botToken}`);
    const { ready } = await identify(emulator, {}, String(discovered.body['url']));
    expect(ready).toMatchObject({
      v: 10,
      user: { id: emulator.seed.botUserId, username: me.body['username'], bot: true },
      guilds: [{ id: emulator.seed.guildId, unavailable: true }],
      resume_gateway_url: emulator.gatewayUrl,
      application: { id: emulator.seed.applicationId, flags: 0 },
    });
    expect(me.body['username']).not.toBe('bot');
    expect(typeof ready['session_id']).toBe('string');
    expect(ready['private_channels']).toEqual([]);
    expect(ready).not.toHaveProperty('shard');
  });

  it('echoes the shard of Identify, and resumes at resume_gateway_url', async () => {
    const emulator = await start();
    const { client, ready } = await identify(emulator, { shard: [0, 1] });
    expect(ready['shard']).toEqual([0, 1]);
    const sequence = client.frames.at(-1)?.s;
    const again = await open(String(ready['resume_gateway_url']));
    await again.frame((f) => f.op === 10, 'Hello');
    again.send({ op: 6, d: { token: emulator.seed.botToken, session_id: ready['session_id'], seq: sequence } });
    expect(await again.dispatch('RESUMED')).toEqual({});
  });

  it('completes each community with GUILD_CREATE after READY when Identify asks for the GUILDS intent, and not otherwise', async () => {
    const emulator = await start();
    const { client } = await identify(emulator, { intents: 1 });
    const guild = await client.dispatch('GUILD_CREATE');
    expect(guild).toMatchObject({
      id: emulator.seed.guildId,
      unavailable: false,
      members: [{ user: { id: emulator.seed.botUserId } }],
      roles: [{ id: emulator.seed.guildId, name: '@everyone' }],
    });
    expect(guild['channels']).toEqual(expect.arrayContaining([expect.objectContaining({ id: emulator.seed.channelId, type: 0 })]));
    const without = await identify(emulator, { intents: 0 });
    without.client.send({ op: 1, d: null });
    await without.client.frame((f) => f.op === 11, 'Heartbeat ACK');
    expect(without.client.frames.filter((f) => f.t === 'GUILD_CREATE')).toEqual([]);
  });

  it('closes with 4005 on a second Identify over the same connection', async () => {
    const emulator = await start();
    const { client } = await identify(emulator);
    client.send({ op: 2, d: { token: emulator.seed.botToken, intents: 0, properties: {} } });
    expect(await client.closed()).toEqual({ code: 4005 });
  });

  it('closes with 4010 on a shard it cannot serve', async () => {
    const emulator = await start();
    const client = await open(emulator.gatewayUrl);
    await client.frame((f) => f.op === 10, 'Hello');
    client.send({ op: 2, d: { token: emulator.seed.botToken, intents: 0, properties: {}, shard: [1, 1] } });
    expect(await client.closed()).toEqual({ code: 4010 });
  });
});

/** Registers global commands as the seeded user, over raw HTTP. */
async function registerCommands(emulator: Emulator, commands: Record<string, unknown>[]) {
  const login = await fetch(`${emulator.url}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: emulator.seed.user.email, password: emulator.seed.user.password }),
  });
  const { access_token: access } = (await login.json()) as { access_token: string };
  const replaced = await fetch(`${emulator.url}/api/v1/applications/${emulator.seed.applicationId}/commands`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${access}` },
    body: JSON.stringify(commands),
  });
  expect(replaced.status).toBe(200);
}

/** Answers an interaction with a message, over raw HTTP. */
async function reply(emulator: Emulator, interactionId: string, content: string) {
  const callback = await fetch(`${emulator.url}/api/v1/interactions/${interactionId}/callback`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bot ${emulator.seed.botToken}` },
    body: JSON.stringify({ interaction_type: 4, data: { content } }),
  });
  return callback.status;
}

describe('INTERACTION_CREATE', () => {
  it('carries the fields current Discord clients require', async () => {
    const emulator = await start();
    await registerCommands(emulator, [{ name: 'quiz', description: 'Quiz', options: [{ type: 3, name: 'topic', description: 'Topic' }] }]);
    const { client } = await identify(emulator);
    const invoked = emulator.invokeCommand({ name: 'quiz', options: { topic: 'space' } });
    expect(invoked.delivered).toBe(1);
    const payload = await client.dispatch('INTERACTION_CREATE');
    const { seed } = emulator;
    expect(payload).toMatchObject({
      id: invoked.id,
      application_id: seed.applicationId,
      type: 2,
      data: { name: 'quiz', type: 1, options: [{ name: 'topic', type: 3, value: 'space' }] },
      guild_id: seed.guildId,
      channel: { id: seed.channelId, type: 0 },
      channel_id: seed.channelId,
      member: { user: { id: seed.user.id, username: seed.user.username } },
      version: 1,
      locale: 'en-US',
      guild_locale: 'en-US',
      entitlements: [],
      authorizing_integration_owners: { '0': seed.guildId },
      context: 0,
    });
    expect(payload['token']).toEqual(expect.any(String));
    expect(payload['app_permissions']).toMatch(/^\d+$/);
    expect(payload).not.toHaveProperty('user');
    expect(await reply(emulator, invoked.id, 'ok')).toBe(204);
  });

  it('in a DM (guildId: null) carries user instead of member, a DM channel and context 1, and only for commands allowed in DMs', async () => {
    const emulator = await start();
    await registerCommands(emulator, [
      { name: 'ping', description: 'Ping' },
      { name: 'admin', description: 'Admin', dm_permission: false },
    ]);
    const { client } = await identify(emulator);
    expect(() => emulator.invokeCommand({ name: 'admin', guildId: null })).toThrow(/DMs/);
    const invoked = emulator.invokeCommand({ name: 'ping', guildId: null });
    const payload = await client.dispatch('INTERACTION_CREATE');
    const channelId = String(payload['channel_id']);
    expect(payload).toMatchObject({ id: invoked.id, user: { id: emulator.seed.user.id }, channel: { id: channelId, type: 1 }, context: 1, entitlements: [] });
    for (const field of ['member', 'guild_id', 'guild_locale']) expect(payload).not.toHaveProperty(field);
    expect(channelId).not.toBe(emulator.seed.channelId);
    expect(await reply(emulator, invoked.id, 'pong')).toBe(204);
    expect(emulator.messages(channelId).map((m) => m.content)).toEqual(['pong']);
  });
});

describe('Discord’s interaction callback route', () => {
  it('answers POST /interactions/{id}/{token}/callback with Discord’s body ({ type, data }), once, and only with the right token', async () => {
    const emulator = await start();
    await registerCommands(emulator, [{ name: 'ping', description: 'Ping' }]);
    const invoked = emulator.invokeCommand({ name: 'ping' });
    const token = String(invoked.payload['token']);
    const post = (path: string, body: unknown) =>
      fetch(`${emulator.url}/api/v1/interactions/${invoked.id}/${path}/callback?with_response=false`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await post('not-the-token', { type: 4, data: { content: 'pong' } })).status).toBe(404);
    expect((await post(token, { type: 7, data: {} })).status).toBe(400);
    expect((await post(token, { type: 4, data: { content: 'pong' } })).status).toBe(204);
    expect((await post(token, { type: 4, data: { content: 'again' } })).status).toBe(400);
    expect(invoked.callbacks()).toEqual([expect.objectContaining({ interaction_type: 4, data: { content: 'pong' } })]);
    expect(emulator.messages().map((m) => m.content)).toEqual(['pong']);
  });
});

describe('opcodes', () => {
  it('accepts presence, voice state and member requests without acting, and closes 4001 on an unknown opcode', async () => {
    const emulator = await start();
    const { client } = await identify(emulator);
    client.send({ op: 3, d: { since: null, activities: [], status: 'online', afk: false } });
    client.send({ op: 4, d: { guild_id: emulator.seed.guildId, channel_id: null, self_mute: false, self_deaf: false } });
    client.send({ op: 8, d: { guild_id: emulator.seed.guildId, query: '', limit: 0 } });
    client.send({ op: 1, d: null });
    await client.frame((f) => f.op === 11, 'Heartbeat ACK');
    expect(client.isOpen()).toBe(true);
    client.send({ op: 99, d: null });
    expect(await client.closed()).toEqual({ code: 4001 });
  });
});
