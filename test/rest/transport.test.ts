import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AbortError, Client, NetworkError, ResponseTooLargeError, TimeoutError, UnexpectedResponseError, isCommunityChatError } from '../../src/index.js';
import { SECRETS, findLeakedSecrets, startLoopbackServer, startRawLoopbackServer, type LoopbackServer } from '../helpers/index.js';
import { AttemptSignal } from '../../src/rest/transport.js';
import { UndiciTransport } from '../../src/rest/undici-transport.js';

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());

for (const transport of ['undici', 'fetch'] as const) {
  describe(`${transport} transport on a real loopback server`, () => {
    const client = () => new Client({ baseUrl: server.url, transport, auth: { botToken: SECRETS.botToken }, timeoutMs: 500, retries: 0 });

    it('sends JSON with credentials and parses JSON, keeping unknown fields', async () => {
      server.setHandler((request, response, body) => {
        response.setHeader('content-type', 'application/json; charset=utf-8');
        response.end(
          JSON.stringify({ id: 'ch1', seen: { method: request.method, url: request.url, auth: request.headers.authorization, body }, future: true }),
        );
      });
      const result = await client().channels.update('ch1', { name: 'général' });
      expect(result).toEqual({
        id: 'ch1',
        future: true,
        seen: { method: 'PATCH', url: '/api/v1/channels/ch1', auth: `Bot ${SECRETS.botToken}`, body: JSON.stringify({ name: 'général' }) },
      });
      const sent = server.requests.at(-1);
      expect(sent?.headers['user-agent']).toMatch(/^community-chat-sdk\//);
    });

    it('refuses a body over maxResponseBytes, declared or streamed, without buffering it', async () => {
      const big = 'x'.repeat(11 * 1024 * 1024);
      server.setHandler((_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(big.length + 2) });
        response.end(`"${big}"`);
      });
      const before = server.requests.length;
      const declared = await client()
        .channels.get('ch1')
        .catch((e: unknown) => e);
      expect(declared).toBeInstanceOf(ResponseTooLargeError);
      expect((declared as ResponseTooLargeError).message).toMatch(/exceeds maxResponseBytes \(10485760 bytes\).*raise maxResponseBytes/);
      expect(server.requests.length - before).toBe(1);

      // An endless chunked body: the call rejects once 64 KiB have arrived, and the server sees the connection go.
      let serverSawClose = false;
      server.setHandler((_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        const chunk = 'y'.repeat(16 * 1024);
        const timer = setInterval(() => response.write(chunk), 1);
        response.on('close', () => {
          serverSawClose = true;
          clearInterval(timer);
        });
      });
      const limited = new Client({ baseUrl: server.url, transport, auth: { botToken: SECRETS.botToken }, maxResponseBytes: 64 * 1024, timeoutMs: 10_000 });
      const streamed = await limited.channels.get('ch1').catch((e: unknown) => e);
      expect(isCommunityChatError(streamed, 'ResponseTooLargeError')).toBe(true);
      expect((streamed as ResponseTooLargeError).limitBytes).toBe(64 * 1024);
      await limited.close();
      await expect.poll(() => serverSawClose, { timeout: 5_000 }).toBe(true);

      // A per-call limit lets a large answer through.
      server.setHandler((_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(`"${big}"`);
      });
      await expect(
        client().request({ method: 'GET', path: '/channels/{channel_id}' }, { params: { channel_id: 'ch1' }, maxResponseBytes: 12 * 1024 * 1024 }),
      ).resolves.toHaveLength(big.length);
    });

    it('resolves a 204 to undefined', async () => {
      server.setHandler((_request, response) => {
        response.statusCode = 204;
        response.end();
      });
      await expect(client().channels.ack('ch1')).resolves.toBeUndefined();
    });

    it('uploads multipart attachments', async () => {
      server.setHandler((request, response, body) => {
        response.setHeader('content-type', 'application/json');
        response.end(JSON.stringify({ type: request.headers['content-type'], body }));
      });
      const result = (await client().channels.uploadAttachment('ch1', { data: new Uint8Array([104, 105]), filename: 'hi.txt', contentType: 'text/plain' })) as {
        type: string;
        body: string;
      };
      expect(result.type).toMatch(/^multipart\/form-data; boundary=/);
      expect(result.body).toContain('filename="hi.txt"');
      expect(result.body).toContain('Content-Type: text/plain');
      expect(result.body).toContain('\r\n\r\nhi\r\n');
    });

    it('times out a slow response with TimeoutError, without leaking the token', async () => {
      server.setHandler(() => {
        // never answers
      });
      const error = await client()
        .channels.get('ch1')
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TimeoutError);
      expect(isCommunityChatError(error, 'TimeoutError')).toBe(true);
      expect((error as TimeoutError).timeoutMs).toBe(500);
      expect(findLeakedSecrets(String(error))).toEqual([]);
    });

    it('times out a body that stalls halfway', async () => {
      server.setHandler((_request, response) => {
        response.setHeader('content-type', 'application/json');
        response.write('{"partial":');
      });
      await expect(client().channels.get('ch1')).rejects.toBeInstanceOf(TimeoutError);
    });

    it('aborts with the caller signal, before and during the request', async () => {
      server.setHandler(() => {
        // never answers
      });
      const before = new AbortController();
      before.abort();
      const early = (await client()
        .channels.get('ch1', { signal: before.signal })
        .catch((e: unknown) => e)) as AbortError;
      expect(early).toBeInstanceOf(AbortError);
      expect(early.mayHaveReachedServer).toBe(false);

      const during = new AbortController();
      setTimeout(() => during.abort(), 50);
      await expect(client().channels.get('ch1', { signal: during.signal })).rejects.toBeInstanceOf(AbortError);
    });

    it('reports a reset connection as a NetworkError that may have reached the server', async () => {
      server.setHandler((request) => {
        request.socket.destroy();
      });
      const error = (await client()
        .channels.get('ch1')
        .catch((e: unknown) => e)) as NetworkError;
      expect(isCommunityChatError(error, 'NetworkError')).toBe(true);
      expect(error.mayHaveReachedServer).toBe(true);
    });

    it('reports invalid JSON on a 2xx as UnexpectedResponseError', async () => {
      server.setHandler((_request, response) => {
        response.setHeader('content-type', 'application/json');
        response.end('{not json');
      });
      await expect(client().channels.get('ch1')).rejects.toBeInstanceOf(UnexpectedResponseError);
    });
  });
}

describe('connection refused', () => {
  it.each(['undici', 'fetch'] as const)('%s: NetworkError that provably never reached the server', async (transport) => {
    const closed = await startLoopbackServer();
    const url = closed.url;
    await closed.close();
    const error = (await new Client({ baseUrl: url, transport, auth: { botToken: SECRETS.botToken } }).channels
      .get('ch1')
      .catch((e: unknown) => e)) as NetworkError;
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.mayHaveReachedServer).toBe(false);
    expect(error.message).toContain('ECONNREFUSED');
  });
});

describe('a transport failure without an error code (fetch on Deno, Bun, browsers, workers)', () => {
  it('counts as "may have reached the server": a POST failing that way is sent once, never again', async () => {
    server.setHandler((_request, response) => {
      response.statusCode = 204;
      response.end();
    });
    // The request really reaches the server, then the runtime reports only `TypeError('Failed to fetch')`, with no code.
    const realFetch = globalThis.fetch;
    vi.stubGlobal('fetch', async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
      await (await realFetch(input, init)).arrayBuffer();
      throw new TypeError('Failed to fetch');
    });
    try {
      const before = server.requests.length;
      const client = new Client({ baseUrl: server.url, transport: 'fetch', auth: { botToken: SECRETS.botToken }, retries: 3 });
      const error = (await client.channels.ack('ch1').catch((e: unknown) => e)) as NetworkError;
      expect(error).toBeInstanceOf(NetworkError);
      expect(error.mayHaveReachedServer).toBe(true);
      expect(server.requests.slice(before).filter((r) => r.method === 'POST')).toHaveLength(1);
    } finally {
      vi.unstubAllGlobals();
    }
  });
});

describe('the undici transport over a dispatcher of the caller', () => {
  it('works through an undici Agent: a body split in many chunks, with a byte-order mark and multi-byte characters', async () => {
    const { Agent } = await import('undici');
    const agent = new Agent();
    server.setHandler((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('\ufeff{"id":"ch1","parts":[');
      let i = 0;
      const timer = setInterval(() => {
        response.write(i === 0 ? '"é"' : ',"é"');
        if (++i === 20) {
          clearInterval(timer);
          response.end(']}');
        }
      }, 1);
    });
    const client = new Client({ baseUrl: server.url, dispatcher: agent, auth: { botToken: SECRETS.botToken }, retries: 0 });
    const result = (await client.channels.get('ch1')) as unknown as { id: string; parts: string[] };
    expect(result.id).toBe('ch1');
    expect(result.parts).toEqual(Array.from({ length: 20 }, () => 'é'));
    await client.close();
    await agent.close();
  });

  it('works through an undici MockAgent, with no network', async () => {
    const { MockAgent } = await import('undici');
    const mock = new MockAgent();
    mock.disableNetConnect();
    mock
      .get('http://chat.test')
      .intercept({ path: '/api/v1/channels/ch9', method: 'GET' })
      .reply(200, { id: 'ch9', from: 'mock' }, { headers: { 'content-type': 'application/json' } });
    mock
      .get('http://chat.test')
      .intercept({ path: '/api/v1/channels/ch8', method: 'GET' })
      .reply(404, { message: 'Unknown Channel' }, { headers: { 'content-type': 'application/json' } });
    const client = new Client({ baseUrl: 'http://chat.test', dispatcher: mock, auth: { botToken: SECRETS.botToken }, retries: 0, allowInsecureHttp: true });
    await expect(client.channels.get('ch9')).resolves.toEqual({ id: 'ch9', from: 'mock' });
    await expect(client.channels.get('ch8')).rejects.toMatchObject({ status: 404 });
    await client.close();
    await mock.close();
  });
});

describe('the undici transport reads a body once, and settles what it is asked to', () => {
  const request = (url: string, signal = new AttemptSignal()) => ({
    method: 'GET' as const,
    origin: url,
    path: '/x',
    headers: {},
    body: undefined,
    signal,
    maxResponseBytes: 10 * 1024 * 1024,
  });

  it('discard() of an endless body settles at once instead of reading it to the end, and the server sees the connection go', async () => {
    let closed = false;
    const endless = await startRawLoopbackServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/octet-stream' });
      const timer = setInterval(() => response.write(Buffer.alloc(64 * 1024)), 1);
      response.on('close', () => {
        closed = true;
        clearInterval(timer);
      });
    });
    const transport = new UndiciTransport();
    try {
      const response = await transport.send(request(endless.url));
      const started = Date.now();
      await response.discard();
      expect(Date.now() - started).toBeLessThan(1_000);
      await expect.poll(() => closed, { timeout: 5_000 }).toBe(true);
      await expect(response.text()).rejects.toThrow(/already read/);
    } finally {
      await transport.close();
      await endless.close();
    }
  });

  it('a body read twice rejects the second read instead of leaving it pending', async () => {
    const once = await startRawLoopbackServer((_request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end('{"id":"1"}'));
    const transport = new UndiciTransport();
    try {
      const response = await transport.send(request(once.url));
      await expect(response.text()).resolves.toBe('{"id":"1"}');
      await expect(response.text()).rejects.toBeInstanceOf(TypeError);
    } finally {
      await transport.close();
      await once.close();
    }
  });

  it('a call waiting for a socket of a full pool times out on time (the pool gives it none while another request holds the only one)', async () => {
    const { Pool } = await import('undici');
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const slow = await startRawLoopbackServer(
      (_request, response) => void held.then(() => response.writeHead(200, { 'content-type': 'application/json' }).end('{"id":"c"}')),
    );
    const pool = new Pool(slow.url, { connections: 1 });
    const client = new Client({ baseUrl: slow.url, dispatcher: pool, auth: { botToken: SECRETS.botToken }, retries: 0, requireResponseIds: false });
    try {
      const first = client.channels.get('c1', { timeoutMs: 10_000 });
      await new Promise((resolve) => setTimeout(resolve, 50));
      const started = Date.now();
      const queued = await client.channels.get('c2', { timeoutMs: 200 }).catch((error: unknown) => error);
      expect(queued).toBeInstanceOf(TimeoutError);
      expect(Date.now() - started).toBeLessThan(1_500);
      release();
      await expect(first).resolves.toEqual({ id: 'c' });
    } finally {
      release();
      await client.close();
      await pool.close();
      await slow.close();
    }
  });
});

describe('UndiciTransport options', () => {
  it('refuses unknown names, a connections count that is not whole and a keepAliveTimeoutMs past 2^31 - 1 ms, naming each', () => {
    expect(() => new UndiciTransport({ keepAliveMs: 5 } as never)).toThrow(/keepAliveMs: is not an option of UndiciTransport/);
    expect(() => new UndiciTransport({ connections: 1.5 })).toThrow(/connections: must be a whole number/);
    expect(() => new UndiciTransport({ keepAliveTimeoutMs: 3e9 })).toThrow(/keepAliveTimeoutMs: must be at most 2147483647/);
    expect(() => new UndiciTransport({ connections: 4, keepAliveTimeoutMs: 1000 })).not.toThrow();
  });
});

describe('a custom transport built on another copy of the package (its TransportFailure another class)', () => {
  it('its failure is still recognised: the pipeline retries it and the caller gets a NetworkError, not the raw failure', async () => {
    // What `require('community-chat-sdk/transport')` beside an ESM `import` of the root gives: the same brand, another class.
    class OtherCopyFailure extends Error {
      readonly kind = 'network' as const;
      readonly mayHaveReachedServer = false;
      readonly detail = 'ECONNREFUSED';
    }
    Object.defineProperty(OtherCopyFailure.prototype, Symbol.for('community-chat-sdk.error.kind'), { value: 'TransportFailure' });
    let sends = 0;
    const client = new Client({
      baseUrl: 'http://127.0.0.1:9',
      auth: { botToken: 'a-bot-token' },
      ...{ retries: 2, baseDelayMs: 1, maxDelayMs: 2 },
      transport: {
        send: async () => {
          sends++;
          throw new OtherCopyFailure('ECONNREFUSED');
        },
        close: async () => undefined,
      },
    });
    try {
      const error = await client.channels.get('1').then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(isCommunityChatError(error, 'NetworkError'), `the caller's error: ${String(error)}`).toBe(true);
      expect(sends, 'sent, then retried twice').toBe(3);
    } finally {
      await client.close();
    }
  });

  it('the one guard names the transport errors too', async () => {
    const { MultipartStreamError, TransportFailure } = await import('../../src/errors/transport.js');
    expect(isCommunityChatError(new TransportFailure('network', 'ECONNRESET', true, undefined), 'TransportFailure')).toBe(true);
    expect(isCommunityChatError(new MultipartStreamError('ERR_UPLOAD_SIZE_MISMATCH', 'size mismatch'), 'MultipartStreamError')).toBe(true);
  });
});
