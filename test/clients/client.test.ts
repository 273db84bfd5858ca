import { describe, expect, it } from 'vitest';
import type { Socket } from 'node:net';
import { Client } from '../../src/index.js';
import { SECRETS, createMswClient, startLoopbackServer, useMswRecorder } from '../helpers/index.js';

const recorder = useMswRecorder();

describe('Client', () => {
  it('setBotToken replaces the token and rejects malformed ones', async () => {
    recorder.respond(() => ({ json: { id: 'ch1' } }));
    const client = createMswClient();
    client.setBotToken('rotated-token');
    await client.channels.get('ch1');
    expect(recorder.requests[0]?.headers['authorization']).toBe('Bot rotated-token');
    expect(() => client.setBotToken('Bot abc')).toThrow(/without "Bot "/);
    client.clearBotToken();
    await client.channels.get('ch1');
    expect(recorder.requests[1]?.headers['authorization']).toMatch(/^Bearer /);
  });
  it('validates the base URL', () => {
    expect(() => new Client({ baseUrl: 'not a url' })).toThrow(/baseUrl/);
    expect(() => new Client({ baseUrl: 'ftp://x' })).toThrow(/http/);
    expect(() => new Client({ baseUrl: 'https://user:pw@x' })).toThrow(/credentials/);
  });
  it('honours a base path and custom prefixes', async () => {
    recorder.respond(() => ({ json: { id: 'ch1', access_token: 'a' } }));
    const client = new Client({ baseUrl: 'https://chat.test/gateway/', transport: 'fetch', authPrefix: '', auth: { botToken: 'x' } });
    await client.channels.get('ch1');
    await client.auth.login({ email: 'a@b.c', password: 'p' });
    expect(recorder.requests.map((r) => r.url)).toEqual(['/gateway/api/v1/channels/ch1', '/gateway/auth/login']);
  });
  it('closes its connections with close() (twice) or at the end of an await using scope, and still works after', async () => {
    const server = await startLoopbackServer((_request, response) => {
      response.setHeader('content-type', 'application/json');
      response.end('{"id":"ch1"}');
    });
    const open = new Set<Socket>();
    server.server.on('connection', (socket: Socket) => {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
    });
    try {
      {
        await using scoped = new Client({ baseUrl: server.url, auth: { botToken: SECRETS.botToken } });
        await scoped.channels.get('ch1');
        expect(open.size).toBe(1);
      }
      await expect.poll(() => open.size).toBe(0);

      const client = new Client({ baseUrl: server.url, auth: { botToken: SECRETS.botToken } });
      await client.channels.get('ch1');
      expect(open.size).toBe(1);
      await client.close();
      await expect.poll(() => open.size).toBe(0);
      await client.close();
      await expect(client.channels.get('ch1')).resolves.toEqual({ id: 'ch1' });
      await client[Symbol.asyncDispose]();
      await expect.poll(() => open.size).toBe(0);
    } finally {
      await server.close();
    }
  });
});
