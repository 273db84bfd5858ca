import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiError,
  AuthenticationError,
  NotFoundError,
  PermissionError,
  RateLimitError,
  ServerError,
  isCommunityChatError,
  Client,
  type UnexpectedResponseError,
} from '../../src/index.js';
import { createMswClient, startLoopbackServer, useMswRecorder, type CannedResponse, type LoopbackServer } from '../helpers/index.js';

const recorder = useMswRecorder();

const statuses = [
  { status: 401, type: AuthenticationError, kind: 'AuthenticationError' as const },
  { status: 403, type: PermissionError, kind: 'PermissionError' as const },
  { status: 404, type: NotFoundError, kind: 'NotFoundError' as const },
  { status: 429, type: RateLimitError, kind: 'RateLimitError' as const },
  { status: 500, type: ServerError, kind: 'ServerError' as const },
] as const;

const bodies: { kind: string; response: (status: number) => CannedResponse; expectInMessage?: RegExp; code?: string | number }[] = [
  {
    kind: 'JSON with message and code',
    response: (status) => ({ status, json: { message: 'Missing access', code: 50001 } }),
    expectInMessage: /Missing access; code 50001/,
    code: 50001,
  },
  { kind: 'JSON with field errors', response: (status) => ({ status, json: { errors: { content: 'too long' } } }), expectInMessage: /content: too long/ },
  {
    kind: 'plain text',
    response: (status) => ({ status, text: 'upstream said no', headers: { 'content-type': 'text/plain' } }),
    expectInMessage: /upstream said no/,
  },
  {
    kind: 'HTML page',
    response: (status) => ({
      status,
      text: '<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>',
      headers: { 'content-type': 'text/html' },
    }),
    expectInMessage: /502 Bad Gateway: Bad Gateway/,
  },
  { kind: 'empty body', response: (status) => ({ status }) },
];

describe('error mapping', () => {
  for (const { status, type, kind } of statuses) {
    describe(`status ${status}`, () => {
      it.each(bodies)('$kind', async ({ response, expectInMessage, code }) => {
        recorder.respond(() => response(status));
        const client = createMswClient({ retries: 0, rejectOnRateLimit: true });
        const error = await client.channels.get('ch1').catch((e: unknown) => e);
        expect(error).toBeInstanceOf(type);
        expect(error).toBeInstanceOf(ApiError);
        expect(isCommunityChatError(error, kind)).toBe(true);
        expect(isCommunityChatError(error, 'ApiError')).toBe(true);
        expect(isCommunityChatError(error)).toBe(true);
        expect(isCommunityChatError(error, 'ValidationError')).toBe(false);
        const apiError = error as ApiError;
        expect(apiError.status).toBe(status);
        expect(apiError.method).toBe('GET');
        expect(apiError.path).toBe('/api/v1/channels/ch1');
        expect(apiError.operation).toBe('channels.get');
        expect(apiError.credential).toBe('bot');
        expect(apiError.message).toContain(`GET /api/v1/channels/ch1 failed with ${status}`);
        if (expectInMessage) expect(apiError.message).toMatch(expectInMessage);
        expect(apiError.code).toBe(code);
        expect(apiError.name).toBe(type.name);
      });
    });
  }

  it('names the credential kind that failed on a 401', async () => {
    recorder.respond(() => ({ status: 401, json: { message: 'bad token' } }));
    const client = createMswClient({ retries: 0, rejectOnRateLimit: true });
    const botError = (await client.channels.get('ch1').catch((e: unknown) => e)) as AuthenticationError;
    expect(botError.credential).toBe('bot');
    expect(botError.message).toMatch(/bot token was rejected/);
    const userError = (await client.applications.list().catch((e: unknown) => e)) as AuthenticationError;
    expect(userError.credential).toBe('user');
    expect(userError.message).toMatch(/user session was rejected/);
    const hookError = (await client.webhooks.execute('wh1', { content: 'x' }).catch((e: unknown) => e)) as AuthenticationError;
    expect(hookError.credential).toBe('webhook');
  });

  it('reads Retry-After in seconds, as an HTTP date, and the global flag', async () => {
    // A fresh client per call: each 429 pauses the client's bucket (or every bucket, when global).
    const client = () => createMswClient({ retries: 0, rejectOnRateLimit: true });
    recorder.respond(() => ({ status: 429, json: { message: 'slow down' }, headers: { 'retry-after': '1.5' } }));
    const seconds = (await client()
      .channels.get('ch1')
      .catch((e: unknown) => e)) as RateLimitError;
    expect(seconds.retryAfterMs).toBe(1500);
    expect(seconds.global).toBe(false);

    const date = new Date(Date.now() + 10_000).toUTCString();
    recorder.respond(() => ({ status: 429, headers: { 'retry-after': date, 'x-ratelimit-global': 'true' } }));
    const dated = (await client()
      .channels.get('ch1')
      .catch((e: unknown) => e)) as RateLimitError;
    expect(dated.retryAfterMs).toBeGreaterThan(7_000);
    expect(dated.retryAfterMs).toBeLessThanOrEqual(10_000);
    expect(dated.global).toBe(true);

    recorder.respond(() => ({ status: 429 }));
    const unknown = (await client()
      .channels.get('ch1')
      .catch((e: unknown) => e)) as RateLimitError;
    expect(unknown.retryAfterMs).toBeUndefined();
    expect(unknown.message).toMatch(/no Retry-After given/);
  });

  it('maps other 4xx to a plain ApiError and keeps the body', async () => {
    recorder.respond(() => ({ status: 409, json: { message: 'conflict', detail: { a: 1 } } }));
    const error = (await createMswClient({ retries: 0 })
      .channels.get('ch1')
      .catch((e: unknown) => e)) as ApiError;
    expect(error.constructor).toBe(ApiError);
    expect(error.body).toEqual({ message: 'conflict', detail: { a: 1 } });
  });
});

describe('hostile error bodies, over a real loopback server', () => {
  let server: LoopbackServer;
  beforeAll(async () => {
    server = await startLoopbackServer();
  });
  afterAll(() => server.close());

  it('summarises a 2 MB HTML body of unclosed tags at once (no backtracking scan)', async () => {
    const body = `<html><title${'<title'.repeat(200_000)}${'<'.repeat(800_000)}`;
    server.setHandler((_request, response) => {
      response.writeHead(400, { 'content-type': 'text/html' });
      response.end(body);
    });
    const client = new Client({ baseUrl: server.url, auth: { botToken: 'hostile-bot-token' }, retries: 0 });
    const error = await client.channels.get('c1').catch((e: unknown) => e);
    expect(isCommunityChatError(error, 'ApiError')).toBe(true);
    expect((error as ApiError).message.length).toBeLessThan(500);
    await client.close();
  });

  it('keeps a "__proto__" key of an error body as a plain field, never as the prototype', async () => {
    server.setHandler((_request, response) => {
      response.writeHead(409, { 'content-type': 'application/json' });
      response.end('{"__proto__":{"message":"inherited","polluted":true},"code":1}');
    });
    const client = new Client({ baseUrl: server.url, auth: { botToken: 'hostile-bot-token' } });
    const error = (await client.channels.get('c1').catch((e: unknown) => e)) as ApiError;
    expect(Object.getPrototypeOf(error.body)).toBe(Object.prototype);
    expect((error.body as { polluted?: unknown }).polluted).toBeUndefined();
    expect(error.message).not.toContain('inherited');
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
    await client.close();
  });

  it('does not keep the JSON parser error, which quotes the body, as the cause', async () => {
    const secret = 'echoed-Secret-Token-4711';
    server.setHandler((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(`[1,1,1,1,1,${secret}`);
    });
    const client = new Client({ baseUrl: server.url, auth: { botToken: secret } });
    const error = (await client.channels.get('c1').catch((e: unknown) => e)) as UnexpectedResponseError;
    expect(isCommunityChatError(error, 'UnexpectedResponseError')).toBe(true);
    expect(error.cause).toBeUndefined();
    expect(inspect(error, { depth: 10 })).not.toMatch(/Secret-Token|1,1,1/);
    await client.close();
  });

  it('reports no wait longer than a day, whatever the server says', async () => {
    server.setHandler((_request, response) => {
      response.writeHead(429, { 'content-type': 'application/json' });
      response.end('{"retry_after":1e300}');
    });
    const client = new Client({ baseUrl: server.url, auth: { botToken: 'hostile-bot-token' } });
    const error = (await client.channels.get('c1').catch((e: unknown) => e)) as RateLimitError;
    expect(error.retryAfterMs).toBe(24 * 60 * 60 * 1000);
    await client.close();
  });
});
