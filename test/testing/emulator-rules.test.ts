import { afterEach, describe, expect, it, vi } from 'vitest';
import { Client } from '../../src/index.js';
import type { RateLimitedEvent } from '../../src/diagnostics.js';
import type { Emulator } from '../../src/testing/index.js';
import { useEmulators } from '../helpers/emulators.js';

const start = useEmulators();

/** Raw HTTP, to reach the service without the SDK's own checks. */
async function raw(emulator: Emulator, method: string, path: string, init: { auth?: string; body?: unknown; cookie?: string } = {}) {
  const headers: Record<string, string> = {};
  if (init.auth) headers['authorization'] = init.auth;
  if (init.cookie) headers['cookie'] = init.cookie;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${emulator.url}/api/v1${path}`, { method, headers, ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
}

async function login(emulator: Emulator, who: 'user' | 'member' = 'user') {
  const response = await fetch(`${emulator.url}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: emulator.seed[who].email, password: emulator.seed[who].password }),
  });
  const body = (await response.json()) as { access_token: string; expires_in: number };
  return { access: body.access_token, expiresIn: body.expires_in, cookie: response.headers.getSetCookie()[0] ?? '' };
}

describe('the emulator enforces the contract', () => {
  it('answers 401 to missing, malformed, expired and revoked credentials', async () => {
    const emulator = await start();
    expect((await raw(emulator, 'GET', `/channels/${emulator.seed.channelId}`)).status).toBe(401);
    expect((await raw(emulator, 'GET', `/channels/${emulator.seed.channelId}`, { auth: 'Token abc' })).status).toBe(401);
    expect((await raw(emulator, 'GET', `/channels/${emulator.seed.channelId}`, { auth: 'Bot wrong' })).status).toBe(401);
    const session = await login(emulator);
    expect(session.expiresIn).toBe(900);
    expect((await raw(emulator, 'GET', '/users/@me', { auth: `Bearer ${session.access}` })).status).toBe(200);
    emulator.advanceTime(15 * 60_000);
    expect((await raw(emulator, 'GET', '/users/@me', { auth: `Bearer ${session.access}` })).status).toBe(401);
    const cookie = session.cookie.split(';')[0] ?? '';
    expect((await raw(emulator, 'POST', '/auth/logout', { cookie })).status).toBe(204);
    expect((await raw(emulator, 'POST', '/auth/refresh', { cookie })).status).toBe(401);
  });

  it('sets the refresh token in an HTTP-only cookie, and refresh rotates it', async () => {
    const emulator = await start();
    const session = await login(emulator);
    expect(session.cookie).toMatch(/^refresh_token=[^;]+; Path=\/api\/v1\/auth; HttpOnly/);
    const cookie = session.cookie.split(';')[0] ?? '';
    const refreshed = await fetch(`${emulator.url}/api/v1/auth/refresh`, { method: 'POST', headers: { cookie } });
    expect(refreshed.status).toBe(200);
    expect(refreshed.headers.getSetCookie()[0]).not.toContain(cookie);
    expect((await raw(emulator, 'POST', '/auth/refresh', { cookie })).status).toBe(401);
  });

  it('answers 403 on application routes for bot credentials, and on community webhooks without MANAGE_WEBHOOKS', async () => {
    const emulator = await start();
    expect((await raw(emulator, 'GET', '/applications', { auth: `Bot ${emulator.seed.botToken}` })).status).toBe(403);
    const member = await login(emulator, 'member');
    expect((await raw(emulator, 'GET', `/guilds/${emulator.seed.guildId}/webhooks`, { auth: `Bearer ${member.access}` })).status).toBe(403);
    const owner = await login(emulator);
    expect((await raw(emulator, 'GET', `/guilds/${emulator.seed.guildId}/webhooks`, { auth: `Bearer ${owner.access}` })).status).toBe(200);
  });

  it('limits each webhook to 30 executions a minute with 429 and Retry-After, and checks content is 1 to 2000 characters', async () => {
    const emulator = await start();
    const path = `/webhooks/${emulator.seed.webhook.id}/${emulator.seed.webhook.token}`;
    expect((await raw(emulator, 'POST', path, { body: { content: '' } })).status).toBe(400);
    expect((await raw(emulator, 'POST', path, { body: { content: 'x'.repeat(2001) } })).status).toBe(400);
    expect((await raw(emulator, 'POST', path, { body: {} })).status).toBe(400);
    for (let i = 0; i < 30; i++) expect((await raw(emulator, 'POST', path, { body: { content: `m${i}` } })).status).toBe(204);
    const limited = await raw(emulator, 'POST', path, { body: { content: 'one too many' } });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(50);
    expect(limited.body).toMatchObject({ global: false });
    emulator.advanceTime(60_000);
    expect((await raw(emulator, 'POST', path, { body: { content: 'a minute later' } })).status).toBe(204);
  });

  it('the SDK sends a burst to one webhook without drawing a 429', async () => {
    const emulator = await start({ webhookRateLimit: { limit: 5, windowMs: 400 } });
    const client = new Client({
      baseUrl: emulator.url,
      webhookRateLimit: { limit: 5, windowMs: 400 },
      auth: { webhookTokens: { [emulator.seed.webhook.id]: emulator.seed.webhook.token } },
    });
    const limited: RateLimitedEvent[] = [];
    client.on('rateLimited', (event) => limited.push(event));
    await Promise.all(Array.from({ length: 14 }, (_, i) => client.webhooks.execute(emulator.seed.webhook.id, { content: `burst ${i}` })));
    expect(limited).toHaveLength(0);
    expect(emulator.messages().map((m) => m.content)).toEqual(Array.from({ length: 14 }, (_, i) => `burst ${i}`));
    await client.close();
  });

  it('has a configurable global rate limit answered with a global 429', async () => {
    const emulator = await start({ globalRateLimit: { limit: 3, windowMs: 1000 } });
    const auth = `Bot ${emulator.seed.botToken}`;
    for (let i = 0; i < 3; i++) expect((await raw(emulator, 'GET', '/users/@me', { auth })).status).toBe(200);
    const limited = await raw(emulator, 'GET', '/users/@me', { auth });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('x-ratelimit-global')).toBe('true');
  });

  it('invalidates the old bot token, webhook token and webhook secret when they are replaced', async () => {
    const emulator = await start();
    const owner = await login(emulator);
    const user = `Bearer ${owner.access}`;
    const appId = emulator.seed.applicationId;
    expect((await raw(emulator, 'POST', `/applications/${appId}/bot/reset-token`, { auth: user })).status).toBe(200);
    expect((await raw(emulator, 'GET', '/users/@me', { auth: `Bot ${emulator.seed.botToken}` })).status).toBe(401);
    const { id, token } = emulator.seed.webhook;
    const reset = await raw(emulator, 'POST', `/guilds/${emulator.seed.guildId}/webhooks/${id}/reset-token`, { auth: user });
    expect(reset.body?.['token']).not.toBe(token);
    expect((await raw(emulator, 'POST', `/webhooks/${id}/${token}`, { body: { content: 'old' } })).status).toBe(401);
    const hook = await raw(emulator, 'POST', `/applications/${appId}/webhooks`, { auth: user, body: { url: 'https://hooks.test/x' } });
    const regenerated = await raw(emulator, 'POST', `/applications/${appId}/webhooks/${String(hook.body?.['id'])}/regenerate-secret`, { auth: user });
    expect(regenerated.body?.['secret']).not.toBe(hook.body?.['secret']);
  });

  it('lowercases command names, rejects names over 32 characters, acknowledges an interaction once and expires it after 15 minutes', async () => {
    const emulator = await start();
    const owner = await login(emulator);
    const user = `Bearer ${owner.access}`;
    const appId = emulator.seed.applicationId;
    const created = await raw(emulator, 'POST', `/applications/${appId}/commands`, {
      auth: user,
      body: { name: 'QuIz', description: 'q', options: [{ type: 3, name: 'topic', description: 't', autocomplete: true }] },
    });
    expect(created).toMatchObject({ status: 201, body: { name: 'quiz', dm_permission: true } });
    expect((await raw(emulator, 'POST', `/applications/${appId}/commands`, { auth: user, body: { name: 'x'.repeat(33), description: 'q' } })).status).toBe(400);
    const bot = `Bot ${emulator.seed.botToken}`;
    const interaction = emulator.invokeCommand({ name: 'quiz' });
    const callback = `/interactions/${interaction.id}/callback`;
    expect((await raw(emulator, 'POST', callback, { auth: bot, body: { interaction_type: 7 } })).status).toBe(400);
    expect((await raw(emulator, 'POST', callback, { auth: bot, body: { interaction_type: 4, data: { content: 'hi' } } })).status).toBe(204);
    expect((await raw(emulator, 'POST', callback, { auth: bot, body: { interaction_type: 4, data: { content: 'again' } } })).status).toBe(400);
    const autocomplete = emulator.invokeCommand({ name: 'quiz', options: { topic: 's' }, focused: 'topic' });
    for (let i = 0; i < 3; i++)
      expect(
        (await raw(emulator, 'POST', `/interactions/${autocomplete.id}/callback`, { auth: bot, body: { interaction_type: 8, data: { choices: [] } } })).status,
      ).toBe(204);
    const late = emulator.invokeCommand({ name: 'quiz' });
    emulator.advanceTime(15 * 60_000);
    expect((await raw(emulator, 'POST', `/interactions/${late.id}/callback`, { auth: bot, body: { interaction_type: 5 } })).status).toBe(404);
  });
});

describe('the 15-minute boundary, on a frozen clock', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('accepts a callback at 15 minutes minus 1 ms and refuses one at exactly 15 minutes (404, code 10062)', async () => {
    const emulator = await start();
    const owner = await login(emulator);
    await raw(emulator, 'POST', `/applications/${emulator.seed.applicationId}/commands`, {
      auth: `Bearer ${owner.access}`,
      body: { name: 'quiz', description: 'q' },
    });
    // Only Date is frozen: sockets and timers run as usual, and both interactions are created at the same instant.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const bot = `Bot ${emulator.seed.botToken}`;
    const first = emulator.invokeCommand({ name: 'quiz' });
    const second = emulator.invokeCommand({ name: 'quiz' });
    emulator.advanceTime(15 * 60_000 - 1);
    expect(
      (await raw(emulator, 'POST', `/interactions/${first.id}/callback`, { auth: bot, body: { interaction_type: 4, data: { content: 'just in time' } } }))
        .status,
    ).toBe(204);
    emulator.advanceTime(1);
    const late = await raw(emulator, 'POST', `/interactions/${second.id}/callback`, {
      auth: bot,
      body: { interaction_type: 4, data: { content: 'too late' } },
    });
    expect(late.status).toBe(404);
    expect(late.body?.['code']).toBe(10062);
  });
});

describe('fault knobs', () => {
  it('adds latency and 5xx answers that the SDK retries for GET', async () => {
    const emulator = await start({ seed: 7 });
    emulator.faults.latencyMs = 30;
    const client = new Client({ baseUrl: emulator.url, auth: { botToken: emulator.seed.botToken }, retries: 10, baseDelayMs: 1, maxDelayMs: 5 });
    const started = Date.now();
    await client.users.getMe();
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
    emulator.faults.latencyMs = 0;
    emulator.faults.errorRate = 0.5;
    let retries = 0;
    client.on('retry', () => retries++);
    for (let i = 0; i < 10; i++) await client.users.getMe();
    expect(retries).toBeGreaterThan(0);
    await client.close();
  });

  it('drops Gateway connections; the bot resumes without losing an interaction', async () => {
    const emulator = await start();
    const admin = new Client({ baseUrl: emulator.url });
    await admin.auth.login({ email: emulator.seed.user.email, password: emulator.seed.user.password });
    await admin.commands.create(emulator.seed.applicationId, { name: 'ping', description: 'Ping' });
    const bot = new Client({
      baseUrl: emulator.url,
      auth: { botToken: emulator.seed.botToken },
      gateway: { reconnectBaseDelayMs: 5, reconnectMaxDelayMs: 20 },
    });
    bot.gateway.onCommand('ping', (interaction) => interaction.reply('pong'));
    await bot.gateway.connect();
    emulator.dropGatewayConnections();
    const interaction = emulator.invokeCommand({ name: 'ping' });
    expect(await interaction.response).toMatchObject({ interaction_type: 4, data: { content: 'pong' } });
    await Promise.all([bot.close(), admin.close()]);
  });
});
