import { describe, expect, it } from 'vitest';
import { Client, MissingCredentialError, isCommunityChatError } from '../../src/index.js';
import { SECRETS, createMswClient, useMswRecorder } from '../helpers/index.js';

const recorder = useMswRecorder();

describe('credential selection', () => {
  it('rejects locally when the client holds no accepted credential', async () => {
    const client = new Client({ baseUrl: 'https://chat.test', transport: 'fetch' });
    const error = await client.applications.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MissingCredentialError);
    expect((error as MissingCredentialError).accepted).toEqual(['user']);
    await expect(client.channels.get('ch1')).rejects.toSatisfy((error) => isCommunityChatError(error, 'MissingCredentialError'));
    await expect(client.interactions.respond('i1', { interaction_type: 1 })).rejects.toThrow(/needs one of these credentials: bot/);
    await expect(client.webhooks.execute('unknown-hook', { content: 'x' })).rejects.toThrow(/webhook/);
    await expect(client.auth.refresh()).rejects.toThrow(/refreshCookie/);
    expect(recorder.requests).toHaveLength(0);
  });

  it('a bot-only client cannot reach user-only routes, and a user-only client falls back to Bearer on shared routes', async () => {
    recorder.respond(() => ({ json: { id: 'ch1' } }));
    const botOnly = new Client({ baseUrl: 'https://chat.test', transport: 'fetch', auth: { botToken: SECRETS.botToken } });
    await expect(botOnly.bots.get('app1')).rejects.toBeInstanceOf(MissingCredentialError);
    const userOnly = new Client({ baseUrl: 'https://chat.test', transport: 'fetch', auth: { session: { accessToken: SECRETS.accessToken, cookies: [] } } });
    await userOnly.channels.get('ch1');
    expect(recorder.requests[0]?.headers['authorization']).toBe(`Bearer ${SECRETS.accessToken}`);
  });

  it('honours preferredCredential and a per-call credential', async () => {
    recorder.respond(() => ({ json: { id: 'ch1' } }));
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
    await createMswClient().commands.listInGuild('g1');
    await createMswClient({ preferredCredential: 'bot' }).commands.listInGuild('g1');
    await new Client({ baseUrl: 'https://chat.test', transport: 'fetch', auth: { botToken: SECRETS.botToken } }).commands.listInGuild('g1');
    expect(recorder.requests.map((r) => r.headers['authorization']?.split(' ')[0])).toEqual(['Bearer', 'Bot', 'Bot']);
  });

  it('routeOverrides change which credentials a route accepts', async () => {
    recorder.respond(() => ({ json: [] }));
    const client = createMswClient({ routeOverrides: { 'commands.listForGuild': { auth: ['user'] } } });
    await client.commands.listForGuild('app1', 'g1');
    expect(recorder.requests[0]?.headers['authorization']).toBe(`Bearer ${SECRETS.accessToken}`);
  });
});
