import { describe, expect, it } from 'vitest';
import { Client, isValidationError } from '../src/index.js';
import { SECRETS, createMswClient, useMswRecorder } from './helpers/index.js';

const recorder = useMswRecorder();

describe('Client', () => {
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
  });  it('validates the base URL', () => {
    expect(() => new Client({ baseUrl: 'not a url' })).toThrow(/baseUrl/);
    expect(() => new Client({ baseUrl: 'ftp://x' })).toThrow(/http/);
    expect(() => new Client({ baseUrl: 'https://user:pw@x' })).toThrow(/credentials/);
  });  it('honours a base path and custom prefixes', async () => {
    recorder.respond(() => ({ json: { access_token: 'a' } }));
    const client = new Client({ baseUrl: 'https://chat.test/gateway/', transport: 'fetch', authPrefix: '', auth: { botToken: 'x' } });
    await client.channels.get('ch1');
    await client.auth.login({ email: 'a@b.c', password: 'p' });
    expect(recorder.requests.map((r) => r.url)).toEqual(['/gateway/api/v1/channels/ch1', '/gateway/auth/login']);
  });});
