/**
 * Faults on demand and reset() on a real emulator, through a real Client:
 * the answers a bot's error handling meets, in the service's wording.
 */
import { describe, expect, it } from 'vitest';
import { Client, ValidationError, type ApiError, type NetworkError, type RateLimitError, isCommunityChatError } from '../../../src/index.js';
import { EmulatorError, EmulatorFaults, type FaultInput } from '../../../src/testing/index.js';
import { useEmulators } from '../../helpers/emulators.js';

const start = useEmulators();

async function botOf(options: { retries?: number; timeoutMs?: number } = {}) {
  const emulator = await start();
  const bot = new Client({
    baseUrl: emulator.url,
    auth: { botToken: emulator.seed.botToken, webhookTokens: { [emulator.seed.webhook.id]: emulator.seed.webhook.token } },
    retries: 0,
    ...options,
  });
  return { emulator, bot };
}

describe('emulator.faults', () => {
  it('answers the next call of one operation with a 404 worded as the service words it, then serves normally', async () => {
    const { emulator, bot } = await botOf();
    try {
      const fault = emulator.faults.next({ operation: 'channels.get', status: 404 });
      // Another operation is not hit.
      await expect(bot.webhooks.execute(emulator.seed.webhook.id, { content: 'not hit' })).resolves.toBeUndefined();
      expect(fault.remaining).toBe(1);
      const error = await bot.channels.get(emulator.seed.channelId).catch((caught: unknown) => caught);
      expect(isCommunityChatError(error, 'NotFoundError')).toBe(true);
      expect((error as ApiError).code).toBe(10003);
      expect((error as ApiError).message).toContain('Unknown Channel');
      await fault.done;
      expect(fault.remaining).toBe(0);
      await expect(bot.channels.get(emulator.seed.channelId)).resolves.toMatchObject({ id: emulator.seed.channelId });
    } finally {
      await bot.close();
    }
  });

  it('a 429 carries Retry-After, the scope and the body fields; the SDK waits it out and the next attempt succeeds', async () => {
    const { emulator, bot } = await botOf();
    const limited: RateLimitError[] = [];
    try {
      emulator.faults.next({ operation: 'channels.get', status: 429, retryAfterMs: 1000, scope: 'global' });
      const held = new Client({ baseUrl: emulator.url, auth: { botToken: emulator.seed.botToken }, rejectOnRateLimit: true });
      const error = await held.channels.get(emulator.seed.channelId).catch((caught: unknown) => caught);
      await held.close();
      expect(isCommunityChatError(error, 'RateLimitError')).toBe(true);
      limited.push(error as RateLimitError);
      expect(limited[0]?.global).toBe(true);
      expect(limited[0]?.retryAfterMs).toBe(1000);
      expect(limited[0]?.message).toContain('rate limited (global)');
      // Without rejectOnRateLimit, the call waits out the 429 and the next attempt is answered.
      emulator.faults.next({ operation: 'channels.get', status: 429, retryAfterMs: 1000, scope: 'user' });
      await expect(bot.channels.get(emulator.seed.channelId)).resolves.toMatchObject({ id: emulator.seed.channelId });
      expect(emulator.faults.pending).toEqual([]);
    } finally {
      await bot.close();
    }
  });

  it('401, 403, 500 and 503 in the service wording, each on as many calls as asked, in the order injected', async () => {
    const { emulator, bot } = await botOf();
    try {
      emulator.faults.next({ status: 503, times: 2 });
      emulator.faults.next({ status: 403 });
      emulator.faults.next({ status: 500 });
      emulator.faults.next({ status: 401 });
      const seen: [number, string | number | undefined, string][] = [];
      for (let i = 0; i < 5; i++) {
        const error = (await bot.channels.get(emulator.seed.channelId).catch((caught: unknown) => caught)) as ApiError;
        seen.push([error.status, error.code, error.message]);
      }
      expect(seen.map(([status, code]) => [status, code])).toEqual([
        [503, 0],
        [503, 0],
        [403, 50013],
        [500, 0],
        [401, 0],
      ]);
      expect(seen[0]?.[2]).toContain('503: Service Unavailable');
      expect(seen[2]?.[2]).toContain('Missing Permissions');
      expect(seen[3]?.[2]).toContain('500: Internal Server Error');
      expect(seen[4]?.[2]).toContain('401: Unauthorized');
    } finally {
      await bot.close();
    }
  });

  it('a 503 on a webhook execution is retried by nothing and sent once; the SDK retries a GET through two 503s', async () => {
    const { emulator, bot } = await botOf({ retries: 3 });
    try {
      emulator.faults.next({ operation: 'webhooks.execute', status: 503 });
      const error = await bot.webhooks.execute(emulator.seed.webhook.id, { content: 'once' }).catch((caught: unknown) => caught);
      expect(isCommunityChatError(error, 'ServerError')).toBe(true);
      expect(emulator.messages(emulator.seed.channelId).filter((message) => message.content === 'once')).toHaveLength(0);
      emulator.faults.next({ operation: 'channels.get', status: 503, times: 2 });
      await expect(bot.channels.get(emulator.seed.channelId)).resolves.toMatchObject({ id: emulator.seed.channelId });
    } finally {
      await bot.close();
    }
  });

  it('reset: the connection is reset (a NetworkError that may have reached the server); latency makes a short timeout fire', async () => {
    const { emulator, bot } = await botOf({ timeoutMs: 200 });
    try {
      emulator.faults.next({ operation: 'channels.get', reset: true });
      const reset = await bot.channels.get(emulator.seed.channelId).catch((caught: unknown) => caught);
      expect(isCommunityChatError(reset, 'NetworkError')).toBe(true);
      expect((reset as NetworkError).mayHaveReachedServer).toBe(true);
      emulator.faults.next({ operation: 'channels.get', latencyMs: 1000 });
      const slow = await bot.channels.get(emulator.seed.channelId).catch((caught: unknown) => caught);
      expect(isCommunityChatError(slow, 'TimeoutError')).toBe(true);
    } finally {
      await bot.close();
    }
  });

  it('cancel() and clear() drop faults; bad input is refused with a ValidationError', () => {
    const faults = new EmulatorFaults();
    const kept = faults.next({ operation: 'channels.get', status: 404, times: 3 });
    const dropped = faults.next({ status: 500 });
    dropped.cancel();
    expect(faults.pending).toEqual([{ input: { operation: 'channels.get', status: 404, times: 3 }, remaining: 3 }]);
    expect(faults.take('applications.get', '/applications/{application_id}')).toBeUndefined();
    expect(faults.take('channels.get', '/channels/{channel_id}')?.error?.code).toBe(10003);
    expect(kept.remaining).toBe(2);
    faults.latencyMs = 50;
    faults.clear();
    expect(faults.pending).toEqual([]);
    expect(kept.remaining).toBe(0);
    expect(faults.latencyMs).toBe(0);
    expect(() => faults.next({ status: 404, times: 0 })).toThrow(ValidationError);
    expect(() => faults.next({})).toThrow(/needs a status/);
    expect(() => faults.next({ latencyMs: Number.NaN })).toThrow(ValidationError);
  });

  it('refuses at once what would never fire or would answer a 500: an unknown status, scope, operation or field, an unbounded duration', () => {
    const faults = new EmulatorFaults();
    const refused = (input: unknown) => {
      try {
        faults.next(input as FaultInput);
      } catch (error) {
        expect(isCommunityChatError(error, 'ValidationError'), `faults.next(${JSON.stringify(input)}) threw ${String(error)}`).toBe(true);
        return (error as Error).message;
      }
      throw new Error(`faults.next(${JSON.stringify(input)}) was accepted`);
    };
    expect(refused({ status: 418 })).toMatch(/status.*one of the numbers 401, 403, 404, 429, 500, 503 \(got 418\)/);
    expect(refused({ status: '429' })).toMatch(/status.*got "429"/);
    expect(refused({ status: 429, scope: 'user\r\nx-evil: 1' })).toMatch(/scope.*one of 'user', 'global', 'shared'/);
    // The typings' old example, and the id as the contract spells it.
    expect(refused({ operation: 'executeWebhook', status: 500 })).toMatch(/operation.*webhooks\.execute/);
    expect(refused({ status: 500, statuss: 404 })).toMatch(/statuss/);
    expect(refused({ latencyMs: 3e9 })).toMatch(/latencyMs.*at most 2147483647/);
    expect(refused({ status: 429, retryAfterMs: Number.POSITIVE_INFINITY })).toMatch(/retryAfterMs/);
    expect(refused({ status: 500, times: 1.5 })).toMatch(/times.*whole number/);
    expect(faults.pending).toEqual([]);
    expect(faults.next({ operation: 'webhooks.execute', status: 500 }).remaining).toBe(1);
  });

  it('the standing knobs are bounded: latencyMs 3e9 or errorRate 2 is refused and changes nothing', () => {
    const faults = new EmulatorFaults();
    faults.latencyMs = 20;
    expect(() => {
      faults.latencyMs = 3e9;
    }).toThrow(/latencyMs.*at most 2147483647/);
    expect(() => {
      faults.errorRate = 2;
    }).toThrow(/errorRate.*at most 1/);
    expect(() => {
      faults.errorRate = Number.NaN;
    }).toThrow(ValidationError);
    expect({ latencyMs: faults.latencyMs, errorRate: faults.errorRate }).toEqual({ latencyMs: 20, errorRate: 0 });
  });

  it('a 404 names the most specific resource of the route', () => {
    const faults = new EmulatorFaults();
    faults.next({ status: 404, times: 3 });
    expect(faults.take('commands.replace', '/applications/{application_id}/commands/{command_id}')?.error?.message).toBe('Unknown application command');
    expect(faults.take('webhooks.execute', '/webhooks/{webhook_id}/{webhook_token}')?.error?.code).toBe(10015);
    expect(faults.take(undefined, undefined)?.error?.message).toBe('404: Not Found');
  });
});

describe('emulator.dropGatewayConnections(code)', () => {
  it('closes every Gateway connection with the chosen code: 4000 makes the bot resume its session', async () => {
    const emulator = await start();
    const bot = new Client({ baseUrl: emulator.url, auth: { botToken: emulator.seed.botToken } });
    try {
      await bot.gateway.connect();
      const closed = new Promise<number>((resolve) => bot.gateway.once('close', (event) => resolve(event.code)));
      const resumed = new Promise<void>((resolve) => bot.gateway.once('resumed', () => resolve()));
      emulator.dropGatewayConnections(4000);
      expect(await closed).toBe(4000);
      await resumed;
      expect(emulator.gatewayStats.identifies).toHaveLength(1);
    } finally {
      await bot.close();
    }
  });
});

describe('emulator.reset()', () => {
  it('clears what happened (messages, pending interactions, faults, rate-limit windows, clock) and keeps what was set up (commands)', async () => {
    const emulator = await start();
    const closers: Client[] = [];
    const admin = new Client({ baseUrl: emulator.url, auth: { webhookTokens: { [emulator.seed.webhook.id]: emulator.seed.webhook.token } } });
    try {
      await admin.auth.login({ email: emulator.seed.user.email, password: emulator.seed.user.password });
      await admin.commands.sync(emulator.seed.applicationId, [{ name: 'ping', description: 'Ping' }]);
      await admin.webhooks.execute(emulator.seed.webhook.id, { content: 'before' });
      expect(emulator.messages(emulator.seed.channelId)).toHaveLength(1);
      emulator.faults.next({ status: 500, times: 5 });
      emulator.advanceTime(60_000);
      // A command delivered to a bot that never answers stays pending until the reset.
      const bot = new Client({ baseUrl: emulator.url, auth: { botToken: emulator.seed.botToken } });
      closers.push(bot);
      await bot.gateway.connect();
      const pending = emulator.invokeCommand({ name: 'ping' });
      const ended = pending.response.catch((caught: unknown) => caught);

      emulator.reset();

      const error = await ended;
      expect(error).toBeInstanceOf(EmulatorError);
      expect(String(error)).toContain('the emulator was reset');
      expect(emulator.messages(emulator.seed.channelId)).toEqual([]);
      expect(emulator.faults.pending).toEqual([]);
      expect(Math.abs(emulator.clock() - Date.now())).toBeLessThan(30_000);
      await expect(emulator.waitForIdle({ timeoutMs: 1000 })).resolves.toBeUndefined();
      expect((await admin.commands.list(emulator.seed.applicationId)).map((command) => command.name)).toEqual(['ping']);
    } finally {
      for (const client of closers) await client.close();
      await admin.close();
    }
  });
});
