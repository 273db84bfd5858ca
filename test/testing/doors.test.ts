/**
 * The emulator's doors, on every route and the Gateway: a Host of this
 * machine (no DNS rebinding), no foreign Origin, JSON bodies only, a capped
 * body; and secrets that differ per run unless a seed is given.
 */
import { request as httpRequest } from 'node:http';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { Client } from '../../src/index.js';
import type { Emulator } from '../../src/testing/index.js';
import { useEmulators } from '../helpers/emulators.js';

const start = useEmulators();

/** A raw request with any Host header (fetch will not send a foreign one). */
function raw(
  emulator: Emulator,
  init: { method: string; path: string; headers: Record<string, string>; body?: string },
): Promise<{ status: number; body: string }> {
  const url = new URL(emulator.url);
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: url.hostname, port: url.port, method: init.method, path: `/api/v1${init.path}`, headers: init.headers }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('error', reject);
    request.end(init.body);
  });
}

function upgrade(emulator: Emulator, headers: Record<string, string>): Promise<'open' | number> {
  return new Promise((resolve) => {
    const socket = new WebSocket(`${emulator.gatewayUrl}/?v=10`, { headers });
    socket.on('open', () => {
      socket.close();
      resolve('open');
    });
    socket.on('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
    socket.on('error', () => undefined);
  });
}

describe('the emulator refuses what a hostile page could send', () => {
  it('answers a rebinding Host with 403 on every route: login with the seeded credentials gets no token', async () => {
    const emulator = await start();
    const body = JSON.stringify({ email: emulator.seed.user.email, password: emulator.seed.user.password });
    const port = new URL(emulator.url).port;
    const rebound = await raw(emulator, {
      method: 'POST',
      path: '/auth/login',
      headers: { host: `attacker.example:${port}`, 'content-type': 'application/json' },
      body,
    });
    expect(rebound.status).toBe(403);
    expect(rebound.body).not.toContain('access_token');
    const own = await raw(emulator, { method: 'POST', path: '/auth/login', headers: { host: `localhost:${port}`, 'content-type': 'application/json' }, body });
    expect(own.status).toBe(200);
  });

  it('refuses a cross-site text/plain POST (no preflight) and a foreign Origin: the seeded webhook is not executed', async () => {
    const emulator = await start();
    const { id, token } = emulator.seed.webhook;
    const before = emulator.messages().length;
    const textPlain = await fetch(`${emulator.url}/api/v1/webhooks/${id}/${token}`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: '{"content":"pwned"}',
    });
    expect(textPlain.status).toBe(415);
    const foreign = await fetch(`${emulator.url}/api/v1/webhooks/${id}/${token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'http://evil.example' },
      body: '{"content":"pwned"}',
    });
    expect(foreign.status).toBe(403);
    expect(emulator.messages().length).toBe(before);
    // The SDK sends no Origin, and keeps working.
    const client = new Client({ baseUrl: emulator.url, auth: { botToken: emulator.seed.botToken } });
    await client.webhooks.execute({ id, token }, { content: 'fine' });
    expect(emulator.messages().at(-1)?.content).toBe('fine');
    await client.close();
  });

  it('refuses a Gateway upgrade from a foreign Origin or a rebinding Host, and admits tools that send no Origin', async () => {
    const emulator = await start();
    const port = new URL(emulator.url).port;
    expect(await upgrade(emulator, { origin: 'http://evil.example' })).toBe(403);
    expect(await upgrade(emulator, { host: `attacker.example:${port}` })).toBe(403);
    expect(await upgrade(emulator, {})).toBe('open');
  });

  it('caps request bodies on every route: a streamed body past maxBodyBytes gets 413 and is not kept', async () => {
    const emulator = await start({ maxBodyBytes: 64 * 1024 });
    const { id, token } = emulator.seed.webhook;
    const url = new URL(emulator.url);
    const streamed = await new Promise<number>((resolve, reject) => {
      const request = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          method: 'POST',
          path: `/api/v1/webhooks/${id}/${token}`,
          headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
        },
        (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        },
      );
      request.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' || error.code === 'EPIPE' ? undefined : reject(error)));
      const chunk = Buffer.alloc(16 * 1024, 'a');
      let sent = 0;
      const pump = () => {
        while (sent < 1024 && request.write(chunk)) sent++;
        if (sent < 1024) request.once('drain', pump);
        else request.end();
      };
      pump();
    });
    expect(streamed).toBe(413);
    const declared = await raw(emulator, {
      method: 'POST',
      path: `/webhooks/${id}/${token}`,
      headers: { host: url.host, 'content-type': 'application/json', 'content-length': String(200 * 1024 * 1024) },
    });
    expect(declared.status).toBe(413);
  });

  it('seeds different secrets on every run unless a seed is given', async () => {
    const [a, b] = [await start(), await start()];
    expect(a.seed.botToken).not.toBe(b.seed.botToken);
    expect(a.seed.user.password).not.toBe(b.seed.user.password);
    expect(a.seed.webhook.token).not.toBe(b.seed.webhook.token);
    const [c, d] = [await start({ seed: 42 }), await start({ seed: 42 })];
    // (A bot token starts with its bot's id, a snowflake of the creation time; the secret part follows the seed.)
    expect(c.seed.botToken.split('.').slice(1)).toEqual(d.seed.botToken.split('.').slice(1));
    expect(c.seed.user.password).toBe(d.seed.user.password);
    expect(c.seed.webhook.token).toBe(d.seed.webhook.token);
  });
});

/** A plain TCP proxy on another port, as Docker's port mapping or a latency proxy would be; `target()` is read per connection. */
async function tcpProxy(target: () => URL): Promise<{ url: string; connections: () => number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  let connections = 0;
  const server = net.createServer((inbound) => {
    connections++;
    const outbound = net.connect(Number(target().port), target().hostname);
    for (const socket of [inbound, outbound]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    inbound.pipe(outbound).pipe(inbound);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

describe('the emulator behind a proxy or a port mapping', () => {
  it('answers REST, the Gateway and a bot through a TCP proxy on another port', async () => {
    let emulator: Emulator | undefined;
    const proxy = await tcpProxy(() => new URL(String(emulator?.url)));
    // The public URL is the proxy's: the Gateway URL the bot is told to use goes through it too.
    emulator = await start({ baseUrl: proxy.url });
    const bot = new Client({ baseUrl: proxy.url, auth: { botToken: emulator.seed.botToken } });
    try {
      const admin = new Client({ baseUrl: proxy.url });
      await admin.auth.login({ email: emulator.seed.user.email, password: emulator.seed.user.password });
      await admin.commands.sync(emulator.seed.applicationId, [{ name: 'ping', description: 'ping' }]);
      await admin.close();
      expect(emulator.gatewayUrl).toBe(`${proxy.url.replace('http', 'ws')}/api/v1/gateway`);
      bot.gateway.onCommand('ping', (interaction) => interaction.reply('pong'));
      await bot.gateway.connect();
      expect((await emulator.invokeCommand({ name: 'ping' }).response).data).toEqual({ content: 'pong' });
      // Login, sync, the Gateway lookup, the socket and the reply all went through the proxy.
      expect(proxy.connections()).toBeGreaterThanOrEqual(3);
    } finally {
      await bot.close();
      await proxy.close();
    }
  });

  it('accepts a Host on any port, and names from allowedHosts; other names stay refused', async () => {
    const plain = await start();
    const named = await start({ allowedHosts: ['Emulator'] });
    const login = (emulator: Emulator, host: string) =>
      raw(emulator, {
        method: 'POST',
        path: '/auth/login',
        headers: { host, 'content-type': 'application/json' },
        body: JSON.stringify({ email: emulator.seed.user.email, password: emulator.seed.user.password }),
      });
    expect((await login(plain, 'localhost:9000')).status).toBe(200);
    expect((await login(plain, 'emulator:9000')).status).toBe(403);
    expect((await login(named, 'emulator:9000')).status).toBe(200);
    expect((await login(named, 'attacker.example:9000')).status).toBe(403);
    expect(await upgrade(named, { host: 'emulator:9000' })).toBe('open');
    // Exact names only: no suffix, prefix or sub-domain match.
    for (const host of ['sub.emulator', 'emulator.evil.com', 'xemulator', 'emulatorx'])
      expect({ host, status: (await login(named, `${host}:9000`)).status }).toEqual({ host, status: 403 });
  });

  it('refuses an allowedHosts value that is not a list of plain host names, before it listens', async () => {
    for (const allowedHosts of ['emulator', [5], [''], ['emulator:9000'], ['*.example'], ['a b'], ['http://x/']] as const) {
      const error = await start({ allowedHosts: allowedHosts as never }).catch((caught: unknown) => caught);
      expect({ allowedHosts, error }).toEqual({
        allowedHosts,
        error: expect.objectContaining({ name: 'ValidationError', message: expect.stringContaining('allowedHosts') }),
      });
    }
  });

  it('answers 500 when handling a request throws, and goes on serving: the process does not crash', async () => {
    const emulator = await start();
    const port = new URL(emulator.url).port;
    const login = () =>
      raw(emulator, {
        method: 'POST',
        path: '/auth/login',
        headers: { host: `localhost:${port}`, 'content-type': 'application/json' },
        body: JSON.stringify({ email: emulator.seed.user.email, password: emulator.seed.user.password }),
      });
    // A bug reached by a request, thrown synchronously inside the request's end listener.
    Object.defineProperty(emulator.core, 'handle', {
      configurable: true,
      value: () => {
        throw new TypeError('a bug in a handler');
      },
    });
    expect((await login()).status).toBe(500);
    Reflect.deleteProperty(emulator.core, 'handle');
    expect((await login()).status).toBe(200);
  });

  it('checks baseUrl, answers to its host name and builds playgroundUrl from it', async () => {
    for (const baseUrl of ['not a url', 'ftp://proxy/', 'proxy:9000'])
      await expect(start({ baseUrl }), baseUrl).rejects.toMatchObject({ name: 'ValidationError', message: expect.stringContaining('baseUrl') });
    const proxied = await start({ baseUrl: 'http://Proxy:9000/', playground: true });
    const login = (host: string) =>
      raw(proxied, {
        method: 'POST',
        path: '/auth/login',
        headers: { host, 'content-type': 'application/json' },
        body: JSON.stringify({ email: proxied.seed.user.email, password: proxied.seed.user.password }),
      });
    expect((await login('proxy:9000')).status).toBe(200);
    expect((await login('other:9000')).status).toBe(403);
    expect(proxied.playgroundUrl).toBe('http://proxy:9000/');
    expect(proxied.gatewayUrl.startsWith('ws://proxy:9000/')).toBe(true);
  });
});
