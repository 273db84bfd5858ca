import { describe, expect, it } from 'vitest';
import { Client, InsecureTransportError, MissingCredentialError, WebhookClient, isMissingCredentialError, isValidationError } from '../../src/index.js';
import { SECRETS, createMswClient, useMswRecorder } from '../helpers/index.js';

const recorder = useMswRecorder();

describe('credential selection', () => {
  it('rejects locally when the client holds no accepted credential', async () => {
    const client = new Client({ baseUrl: 'https://chat.test', transport: 'fetch' });
    const error = await client.applications.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MissingCredentialError);
    expect((error as MissingCredentialError).accepted).toEqual(['user']);
    await expect(client.channels.get('ch1')).rejects.toSatisfy(isMissingCredentialError);
    await expect(client.interactions.respond('i1', { interaction_type: 1 })).rejects.toThrow(/needs one of these credentials: bot/);
    await expect(client.webhooks.execute('unknown-hook', { content: 'x' })).rejects.toThrow(/webhook/);
    await expect(client.auth.refresh()).rejects.toThrow(/refreshCookie/);
    expect(recorder.requests).toHaveLength(0);
  });

  it('a bot-only client cannot reach user-only routes, and a user-only client falls back to Bearer on shared routes', async () => {
    recorder.respond(() => ({ json: {} }));
    const botOnly = new Client({ baseUrl: 'https://chat.test', transport: 'fetch', auth: { botToken: SECRETS.botToken } });
    await expect(botOnly.bots.get('app1')).rejects.toBeInstanceOf(MissingCredentialError);
    const userOnly = new Client({ baseUrl: 'https://chat.test', transport: 'fetch', auth: { session: { accessToken: SECRETS.accessToken, cookies: [] } } });
    await userOnly.channels.get('ch1');
    expect(recorder.requests[0]?.headers['authorization']).toBe(`Bearer ${SECRETS.accessToken}`);
  });

  it('honours preferredCredential and a per-call credential', async () => {
    recorder.respond(() => ({ json: {} }));
    await createMswClient({ preferredCredential: 'user' }).channels.get('ch1');
    await createMswClient().channels.get('ch1', { credential: 'user' });
    await createMswClient().channels.get('ch1');
    expect(recorder.requests.map((r) => r.headers['authorization']?.split(' ')[0])).toEqual(['Bearer', 'Bearer', 'Bot']);
  });

  it('sends no credentials at all to public routes', async () => {
    recorder.respond(() => ({ json: { id: 'app1' } }));
    await createMswClient().applications.getPublic('app1');
    expect(recorder.requests[0]?.headers['authorization']).toBeUndefined();
    expect(recorder.requests[0]?.headers['cookie']).toBeUndefined();
  });

  it('community-command routes try the user session first unless the client prefers the bot', async () => {
    recorder.respond(() => ({ json: [] }));
    await createMswClient().commands.listVisibleInGuild('g1');
    await createMswClient({ preferredCredential: 'bot' }).commands.listVisibleInGuild('g1');
    await new Client({ baseUrl: 'https://chat.test', transport: 'fetch', auth: { botToken: SECRETS.botToken } }).commands.listVisibleInGuild('g1');
    expect(recorder.requests.map((r) => r.headers['authorization']?.split(' ')[0])).toEqual(['Bearer', 'Bot', 'Bot']);
  });

  it('routeOverrides change which credentials a route accepts', async () => {
    recorder.respond(() => ({ json: [] }));
    const client = createMswClient({ routeOverrides: { 'commands.listForGuild': { auth: ['user'] } } });
    await client.commands.list({ guildId: 'g1' });
    expect(recorder.requests[0]?.headers['authorization']).toBe(`Bearer ${SECRETS.accessToken}`);
  });

  it('setBotToken replaces the token and rejects malformed ones', async () => {
    recorder.respond(() => ({ json: {} }));
    const client = createMswClient();
    client.setBotToken('rotated-token');
    await client.channels.get('ch1');
    expect(recorder.requests[0]?.headers['authorization']).toBe('Bot rotated-token');
    expect(() => client.setBotToken('Bot abc')).toThrow(/without "Bot "/);
    client.clearBotToken();
    await client.channels.get('ch1');
    expect(recorder.requests[1]?.headers['authorization']).toMatch(/^Bearer /);
  });
});

describe('plain HTTP policy', () => {
  it('refuses to send credentials over http:// to a non-loopback host', async () => {
    const client = new Client({ baseUrl: 'http://chat.example', transport: 'fetch', auth: { botToken: SECRETS.botToken, webhookTokens: { wh1: SECRETS.webhookToken } } });
    await expect(client.channels.get('ch1')).rejects.toBeInstanceOf(InsecureTransportError);
    await expect(client.webhooks.execute('wh1', { content: 'x' })).rejects.toBeInstanceOf(InsecureTransportError);
    await expect(client.auth.login({ email: 'a@b.c', password: 'pw' })).rejects.toBeInstanceOf(InsecureTransportError);
    await expect(new WebhookClient(`http://chat.example/api/v1/webhooks/wh1/${SECRETS.webhookToken}`, { transport: 'fetch' }).execute({ content: 'x' })).rejects.toBeInstanceOf(
      InsecureTransportError,
    );
    expect(recorder.requests).toHaveLength(0);
  });

  it('still sends credential-free public calls, and everything when allowed', async () => {
    recorder.respond(() => ({ json: {} }));
    const client = new Client({ baseUrl: 'http://chat.example', transport: 'fetch', auth: { botToken: SECRETS.botToken } });
    await client.applications.getPublic('app1');
    const allowed = new Client({ baseUrl: 'http://chat.example', transport: 'fetch', auth: { botToken: SECRETS.botToken }, allowInsecureHttp: true });
    await allowed.channels.get('ch1');
    expect(recorder.requests).toHaveLength(2);
  });

  it('treats localhost, 127.0.0.0/8 and [::1] as loopback', async () => {
    recorder.respond(() => ({ json: {} }));
    for (const host of ['localhost', '127.0.0.9', '[::1]']) {
      await new Client({ baseUrl: `http://${host}:8080`, transport: 'fetch', auth: { botToken: SECRETS.botToken } }).channels.get('ch1');
    }
    expect(recorder.requests).toHaveLength(3);
  });

  it('validates the base URL', () => {
    expect(() => new Client({ baseUrl: 'not a url' })).toThrow(/baseUrl/);
    expect(() => new Client({ baseUrl: 'ftp://x' })).toThrow(/http/);
    expect(() => new Client({ baseUrl: 'https://user:pw@x' })).toThrow(/credentials/);
  });

  it('honours a base path and custom prefixes', async () => {
    recorder.respond(() => ({ json: { access_token: 'a' } }));
    const client = new Client({ baseUrl: 'https://chat.test/gateway/', transport: 'fetch', authPrefix: '', auth: { botToken: 'x' } });
    await client.channels.get('ch1');
    await client.auth.login({ email: 'a@b.c', password: 'p' });
    expect(recorder.requests.map((r) => r.url)).toEqual(['/gateway/api/v1/channels/ch1', '/gateway/auth/login']);
  });
});

describe('WebhookClient', () => {
  it('executes, updates and deletes its one webhook with the path token', async () => {
    recorder.respond((request) => (request.method === 'PATCH' ? { json: { name: 'n' } } : { status: 204 }));
    const hook = new WebhookClient(`https://chat.test/api/v1/webhooks/wh7/${SECRETS.webhookToken}`, { transport: 'fetch' });
    expect(hook.id).toBe('wh7');
    await hook.execute({ content: 'hello', username: 'Deploy' });
    await hook.update({ name: 'n' });
    await hook.delete();
    expect(recorder.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      `POST /api/v1/webhooks/wh7/${SECRETS.webhookToken}`,
      `PATCH /api/v1/webhooks/wh7/${SECRETS.webhookToken}`,
      `DELETE /api/v1/webhooks/wh7/${SECRETS.webhookToken}`,
    ]);
    expect(recorder.requests.every((r) => r.headers['authorization'] === undefined)).toBe(true);
    await expect(hook.execute({ content: '' })).rejects.toSatisfy(isValidationError);
    expect(recorder.requests).toHaveLength(3);
  });

  it('rejects URLs that are not webhook URLs', () => {
    expect(() => new WebhookClient('https://chat.test/api/v1/channels/1')).toThrow(/webhooks/);
    expect(() => new WebhookClient('nope')).toThrow(/absolute/);
  });
});
