/**
 * The emulator's rate-limit headers, as Discord sends them: the bucket
 * headers on successes and 429s alike, with Discord's scopes on 429s.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '../../src/index.js';
import type { RateLimitedEvent } from '../../src/diagnostics.js';
import { createEmulator, type Emulator, type EmulatorOptions } from '../../src/testing/index.js';

const running: Emulator[] = [];
const bots: Client[] = [];
afterEach(async () => {
  for (const bot of bots.splice(0)) await bot.close();
  for (const emulator of running.splice(0)) await emulator.close();
});

/** A bot on the emulator, and the 429s it draws. */
function botOf(emulator: Emulator): { bot: Client; limited: RateLimitedEvent[] } {
  const bot = new Client({ baseUrl: emulator.url, auth: { botToken: emulator.seed.botToken } });
  bots.push(bot);
  const limited: RateLimitedEvent[] = [];
  bot.on('rateLimited', (event) => limited.push(event));
  return { bot, limited };
}

async function start(options: EmulatorOptions = {}): Promise<Emulator> {
  const emulator = await createEmulator(options);
  running.push(emulator);
  return emulator;
}

describe('rate-limit headers', () => {
  const bucketHeaders = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'x-ratelimit-reset-after', 'x-ratelimit-bucket'];

  async function execute(emulator: Emulator) {
    const response = await fetch(`${emulator.url}/api/v1/webhooks/${emulator.seed.webhook.id}/${emulator.seed.webhook.token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'hello' }),
    });
    return { status: response.status, headers: Object.fromEntries(response.headers) };
  }

  it('a webhook’s 429 carries the bucket headers of its successes, with scope shared', async () => {
    const emulator = await start({ webhookRateLimit: { limit: 2, windowMs: 60_000 } });
    const first = await execute(emulator);
    expect(first.status).toBe(204);
    for (const name of bucketHeaders) expect(first.headers).toHaveProperty(name);
    expect(first.headers).toMatchObject({ 'x-ratelimit-limit': '2', 'x-ratelimit-remaining': '1' });
    expect(Number(first.headers['x-ratelimit-reset'])).toBeCloseTo((emulator.core.now() + 60_000) / 1000, -1);
    expect((await execute(emulator)).headers['x-ratelimit-remaining']).toBe('0');
    const limited = await execute(emulator);
    expect(limited.status).toBe(429);
    for (const name of bucketHeaders) expect(limited.headers).toHaveProperty(name);
    expect(limited.headers).toMatchObject({
      'x-ratelimit-limit': '2',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-bucket': first.headers['x-ratelimit-bucket'],
      'x-ratelimit-scope': 'shared',
    });
    expect(limited.headers).not.toHaveProperty('x-ratelimit-global');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(50);
  });

  it('a global 429 says so with X-RateLimit-Global and scope global, and keeps the route’s bucket headers', async () => {
    const emulator = await start({ globalRateLimit: { limit: 1, windowMs: 60_000 } });
    expect((await execute(emulator)).status).toBe(204);
    const limited = await execute(emulator);
    expect(limited.status).toBe(429);
    expect(limited.headers).toMatchObject({ 'x-ratelimit-global': 'true', 'x-ratelimit-scope': 'global', 'x-ratelimit-remaining': '29' });
    for (const name of bucketHeaders) expect(limited.headers).toHaveProperty(name);
  });

  it('routeRateLimit: each caller has a window per route and major parameter; past it, a 429 with scope user and the bucket headers', async () => {
    const emulator = await start({ routeRateLimit: { limit: 2, windowMs: 60_000 } });
    const get = async (channelId: string, token = emulator.seed.botToken) => {
      const response = await fetch(`${emulator.url}/api/v1/channels/${channelId}`, { headers: { authorization: `Bot ${token}` } });
      return { status: response.status, headers: Object.fromEntries(response.headers) };
    };
    const first = await get(emulator.seed.channelId);
    expect(first.status).toBe(200);
    expect(first.headers).toMatchObject({ 'x-ratelimit-limit': '2', 'x-ratelimit-remaining': '1' });
    expect((await get(emulator.seed.channelId)).headers['x-ratelimit-remaining']).toBe('0');
    const limited = await get(emulator.seed.channelId);
    expect(limited.status).toBe(429);
    expect(limited.headers).toMatchObject({
      'x-ratelimit-scope': 'user',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-bucket': first.headers['x-ratelimit-bucket'],
    });
    expect(limited.headers).not.toHaveProperty('x-ratelimit-global');
    for (const name of bucketHeaders) expect(limited.headers).toHaveProperty(name);
    // Another major parameter is another window (its 404 carries its own bucket headers).
    expect((await get('another-channel')).headers['x-ratelimit-remaining']).toBe('1');
  });

  it('routeRateLimit: the SDK learns the bucket from the headers and draws no 429', async () => {
    const emulator = await start({ routeRateLimit: { limit: 3, windowMs: 400 } });
    const { bot, limited } = botOf(emulator);
    const started = Date.now();
    for (let i = 0; i < 7; i++) await bot.channels.get(emulator.seed.channelId);
    expect(limited).toEqual([]);
    // Seven calls at three per 400 ms wait out at least two windows.
    expect(Date.now() - started).toBeGreaterThanOrEqual(700);
  });

  it('routeRateLimit windows are fixed, as Discord’s: the SDK refilling the whole bucket at X-RateLimit-Reset draws no 429, spaced or in a burst', async () => {
    const emulator = await start({ routeRateLimit: { limit: 3, windowMs: 600 } });
    const { bot, limited } = botOf(emulator);
    for (let i = 0; i < 3; i++) {
      await bot.channels.get(emulator.seed.channelId);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await Promise.all(Array.from({ length: 3 }, () => bot.channels.get(emulator.seed.channelId)));
    await Promise.all(Array.from({ length: 4 }, () => bot.channels.get(emulator.seed.channelId)));
    expect(limited).toEqual([]);
  });
});
