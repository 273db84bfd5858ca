import { describe, expect, it } from 'vitest';
import type { ClientEvents } from '../../src/index.js';
import { observing } from '../../src/observe/call.js';
import { SECRETS, createMswClient, findLeakedSecrets, useMswRecorder } from '../helpers/index.js';

const recorder = useMswRecorder();

function captureEvents(client: ReturnType<typeof createMswClient>) {
  const seen: { name: keyof ClientEvents; args: unknown[] }[] = [];
  for (const name of ['request', 'response', 'rateLimited', 'retry', 'debug', 'sessionRefreshed', 'sessionExpired'] as const) {
    client.on(name, (...args: unknown[]) => seen.push({ name, args }));
  }
  return seen;
}

describe('one call lifecycle for every observer', () => {
  it('is started when one listener of one call event, or a logger alone, is there, and not when nobody listens', () => {
    const client = createMswClient();
    const sink = { events: client, log: undefined, hooks: undefined };
    expect(observing(sink)).toBe(false);
    for (const name of ['request', 'response', 'requestHeld', 'rateLimited', 'retry', 'debug'] as const) {
      const listener = () => undefined;
      client.on(name, listener);
      expect(observing(sink), name).toBe(true);
      client.off(name, listener);
    }
    client.on('sessionExpired', () => undefined);
    expect(observing(sink)).toBe(false);
    expect(observing({ ...sink, log: () => undefined })).toBe(true);
  });

  it('reaches a logger on a client with no event listener: the retry and the rate limit are logged', async () => {
    let n = 0;
    recorder.respond(() => {
      n++;
      if (n === 1) return { status: 503 };
      if (n === 2) return { status: 429, headers: { 'retry-after': '0.01' } };
      return { json: { id: 'ch1' } };
    });
    const lines: string[] = [];
    const logger = {
      debug: (m: string) => lines.push(`debug ${m}`),
      info: (m: string) => lines.push(`info ${m}`),
      warn: (m: string) => lines.push(`warn ${m}`),
      error: (m: string) => lines.push(`error ${m}`),
    };
    await createMswClient({ logger, baseDelayMs: 1, maxDelayMs: 2 }).channels.get('ch1');
    expect(lines.filter((line) => line.startsWith('warn'))).toEqual([
      expect.stringMatching(/^warn retrying GET \/api\/v1\/channels\/ch1 in \d+ ms after status 503 \(attempt 1\)$/),
      expect.stringMatching(/^warn rate limited on GET \/api\/v1\/channels\/ch1; waiting \d+ ms$/),
    ]);
    expect(lines.filter((line) => line.startsWith('debug GET'))).toHaveLength(3);
  });
});

describe('events and logs', () => {
  it('emit request, response with timing, retry and rateLimited, with the attempt', async () => {
    let n = 0;
    recorder.respond(() => {
      n++;
      if (n === 1) return { status: 503 };
      if (n === 2) return { status: 429, headers: { 'retry-after': '0.01' } };
      return { json: { id: 'ch1', ok: true } };
    });
    const client = createMswClient({ baseDelayMs: 1, maxDelayMs: 2 });
    const seen = captureEvents(client);
    await client.channels.get('ch1');
    expect(seen.filter((e) => e.name !== 'debug').map((e) => e.name)).toEqual([
      'request',
      'response',
      'retry',
      'request',
      'response',
      'rateLimited',
      'retry',
      'request',
      'response',
    ]);
    expect(
      seen.filter((e) => e.name === 'rateLimited').map((e) => e.args[0]),
      'the 429 as a rateLimited event',
    ).toEqual([expect.objectContaining({ operation: 'channels.get', attempt: 2, retryAfterMs: 10, global: false, willRetry: true })]);
    const responses = seen.filter((e) => e.name === 'response').map((e) => e.args[0] as { status: number; attempt: number; durationMs: number });
    expect(responses.map((r) => [r.status, r.attempt])).toEqual([
      [503, 1],
      [429, 2],
      [200, 3],
    ]);
    expect(responses.every((r) => r.durationMs >= 0)).toBe(true);
    expect(seen[0]?.args[0]).toMatchObject({ operation: 'channels.get', method: 'GET', path: '/api/v1/channels/ch1', credential: 'bot', attempt: 1 });
  });

  it('never carry tokens, cookies, path tokens or secrets returned by reset-token and regenerate-secret', async () => {
    const newBotToken = 'fresh-bot-token-4471';
    const newSecret = 'fresh-webhook-secret-8812';
    recorder.respond((request) => {
      if (request.url.endsWith('/reset-token')) return { json: { token: newBotToken } };
      if (request.url.endsWith('/regenerate-secret')) return { json: { secret: newSecret } };
      return { status: 500, json: { message: 'boom', token: SECRETS.webhookToken } };
    });
    const lines: unknown[][] = [];
    const consoleLike = {
      debug: (...args: unknown[]) => lines.push(args),
      info: (...args: unknown[]) => lines.push(args),
      warn: (...args: unknown[]) => lines.push(args),
      error: (...args: unknown[]) => lines.push(args),
    };
    const client = createMswClient({ logger: consoleLike, baseDelayMs: 1, maxDelayMs: 2 });
    const seen = captureEvents(client);
    await client.bots.resetToken('app1');
    await client.applicationWebhooks.regenerateSecret('app1', 'wh9');
    await client.webhooks.execute('wh1', { content: 'hi' }).catch(() => undefined);
    await client.webhooks.deleteWithToken('wh1').catch(() => undefined);
    const text = JSON.stringify(seen) + JSON.stringify(lines);
    expect(findLeakedSecrets(text, [newBotToken, newSecret])).toEqual([]);
    expect(lines.length).toBeGreaterThan(0);
    expect(typeof lines[0]?.[0]).toBe('string');
  });

  it('calls a pino-style logger with (fields, message)', async () => {
    recorder.respond(() => ({ status: 503 }));
    const calls: unknown[][] = [];
    const pinoLike = {
      levels: { values: {} },
      child: () => pinoLike,
      debug: (...args: unknown[]) => calls.push(['debug', ...args]),
      info: (...args: unknown[]) => calls.push(['info', ...args]),
      warn: (...args: unknown[]) => calls.push(['warn', ...args]),
      error: (...args: unknown[]) => calls.push(['error', ...args]),
    };
    await createMswClient({ logger: pinoLike, retries: 1, baseDelayMs: 1, maxDelayMs: 1 })
      .channels.get('ch1')
      .catch(() => undefined);
    const warn = calls.find((call) => call[0] === 'warn');
    expect(warn?.[1]).toMatchObject({ operation: 'channels.get', attempt: 1 });
    expect(warn?.[2]).toMatch(/retrying GET \/api\/v1\/channels\/ch1/);
  });
});
