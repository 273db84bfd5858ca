/**
 * Options a client cannot honour are refused when it is built, each named in a
 * ValidationError: an unknown or removed name (with its new name where it was
 * renamed), a duration past 2^31 - 1 ms (a timer would fire at once), a count
 * that is not a whole number. Per-call durations are refused the same way.
 */
import { describe, expect, it } from 'vitest';
import { Client, ValidationError, WebhookClient } from '../../src/index.js';
import { SECRETS } from '../helpers/index.js';
import { validationRefusal as refusal } from '../helpers/refusal.js';

const HOOK_URL = `http://127.0.0.1:9/api/v1/webhooks/wh1/${SECRETS.webhookToken}`;

describe('Client and WebhookClient options', () => {
  it('refuse removed, renamed and misspelt options, naming each and its new name', () => {
    const error = refusal(() => new Client({ applicationId: '1', now: () => 0, timeoutMS: 5 } as never));
    expect(error.issues).toEqual([
      {
        path: 'applicationId',
        message: 'was renamed or removed: use the application id as the first argument of client.commands methods (the option was removed)',
      },
      { path: 'now', message: 'was renamed or removed: use clock' },
      { path: 'timeoutMS', message: 'is not an option of Client' },
    ]);
    expect(refusal(() => new Client({ auth: { token: 'x' } } as never)).issues).toEqual([{ path: 'token', message: 'is not an option of Client (auth)' }]);
    expect(refusal(() => new WebhookClient(HOOK_URL, { now: () => 0 } as never)).issues).toEqual([
      { path: 'now', message: 'was renamed or removed: use clock' },
    ]);
    expect(() => new Client({ clock: () => 0, timeoutMs: 5, auth: { botToken: 'a.b' } })).not.toThrow();
  });

  it('refuse every duration past 2^31 - 1 ms and counts that are not whole numbers', () => {
    for (const name of ['timeoutMs', 'deadlineMs', 'baseDelayMs', 'maxDelayMs', 'maxRateLimitWaitMs', 'maxRateLimitPauseMs', 'refreshMarginMs'])
      for (const value of [3e9, Number.POSITIVE_INFINITY, Number.NaN, -5]) {
        expect(refusal(() => new Client({ [name]: value })).issues[0]?.path, `${name}: ${value}`).toBe(name);
        if (name !== 'refreshMarginMs') expect(refusal(() => new WebhookClient(HOOK_URL, { [name]: value })).issues[0]?.path).toBe(name);
      }
    expect(refusal(() => new Client({ webhookRateLimit: { limit: 30, windowMs: 3e9 } })).issues[0]?.path).toBe('webhookRateLimit.windowMs');
    expect(refusal(() => new Client({ globalRateLimit: { limit: 1.5, windowMs: 1000 } })).issues[0]?.path).toBe('globalRateLimit.limit');
    expect(refusal(() => new Client({ retries: Number.POSITIVE_INFINITY })).issues[0]?.path).toBe('retries');
    expect(refusal(() => new Client({ maxResponseBytes: 0 })).issues[0]?.path).toBe('maxResponseBytes');
  });

  it('refuse a per-call timeout or deadline past 2^31 - 1 ms, before anything is sent', async () => {
    const client = new Client({ baseUrl: 'http://127.0.0.1:9', auth: { botToken: 'a.b' } });
    for (const [name, value] of [
      ['timeoutMs', 3e9],
      ['deadlineMs', Number.POSITIVE_INFINITY],
    ] as const) {
      const error = await client.channels.get('1', { [name]: value }).catch((e: unknown) => e);
      expect(error, name).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).issues[0]?.path).toBe(name);
    }
    await client.close();
  });
});

describe('per-call options', () => {
  it('refuse retries and maxResponseBytes that are not whole numbers in range, and unknown keys, before anything is sent', async () => {
    let sent = 0;
    const client = new Client({
      baseUrl: 'http://127.0.0.1:9',
      auth: { botToken: 'a.b' },
      deadlineMs: 2000,
      hooks: { beforeRequest: () => void sent++ },
    });
    for (const [name, value] of [
      ['retries', Number.POSITIVE_INFINITY],
      ['retries', Number.NaN],
      ['retries', -1],
      ['retries', 1.5],
      ['maxResponseBytes', 0],
      ['maxResponseBytes', Number.NaN],
      ['maxResponseBytes', Number.POSITIVE_INFINITY],
      ['maxResponseBytes', '1000'],
    ] as const) {
      const error = await client.channels.get('1', { [name]: value } as never).catch((e: unknown) => e);
      expect(error, `${name}: ${String(value)}`).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).issues[0]?.path, `${name}: ${String(value)}`).toBe(name);
    }
    const misspelt = await client.channels.get('1', { timeout: 5, retry: 2 } as never).catch((e: unknown) => e);
    expect(misspelt).toBeInstanceOf(ValidationError);
    expect((misspelt as ValidationError).issues).toEqual([
      { path: 'timeout', message: 'is not an option of channels.get' },
      { path: 'retry', message: 'is not an option of channels.get' },
    ]);
    expect(sent, 'requests sent for refused calls').toBe(0);
    await client.close();
  });
});

describe('MemoryRateLimitStore settings', () => {
  it('refuses unknown names and durations past 2^31 - 1 ms, naming each', async () => {
    const { MemoryRateLimitStore } = await import('../../src/stores.js');
    expect(refusal(() => new MemoryRateLimitStore({ clock: () => 0 } as never)).issues[0]?.path).toBe('clock');
    expect(refusal(() => new MemoryRateLimitStore({ maxPauseMs: Number.POSITIVE_INFINITY })).issues[0]?.path).toBe('maxPauseMs');
    expect(refusal(() => new MemoryRateLimitStore({ webhookWindow: { limit: 30, windowMs: 3e9 } })).issues[0]?.path).toBe('webhookWindow.windowMs');
    expect(refusal(() => new Client({ webhookRateLimit: { limit: 30, window: 5 } as never })).issues[0]?.path).toBe('window');
    expect(() => new MemoryRateLimitStore({ maxPauseMs: 1000 })).not.toThrow();
  });
});
