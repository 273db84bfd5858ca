import { describe, expect, it } from 'vitest';
import { MAX_RATE_LIMIT_RETRIES, decideRetry, isIdempotent, resolveRetryPolicy } from '../../src/rest/retry.js';

const policy = resolveRetryPolicy({ baseDelayMs: 100, maxDelayMs: 1000, maxRateLimitWaitMs: 5_000 });
const context = (overrides: Partial<Parameters<typeof decideRetry>[2]> = {}) => ({
  attempt: 1,
  method: 'GET' as const,
  retries: 3,
  remainingMs: 60_000,
  random: () => 0.5,
  ...overrides,
});

describe('resolveRetryPolicy', () => {
  it('defaults to 3 retries, 250 ms to 10 s backoff and a 65 s rate-limit wait (a one-minute webhook window and 5 s), and accepts 0 retries', () => {
    expect(resolveRetryPolicy(undefined)).toEqual({
      retries: 3,
      baseDelayMs: 250,
      maxDelayMs: 10_000,
      maxRateLimitWaitMs: 65_000,
      maxRateLimitPauseMs: 600_000,
    });
    expect(resolveRetryPolicy({ retries: 0 }).retries).toBe(0);
    expect(resolveRetryPolicy({ retries: -2.5 }).retries).toBe(0);
  });
});

describe('decideRetry', () => {
  it('retries 5xx on idempotent methods only, within the retry budget', () => {
    expect(decideRetry(policy, { kind: 'status', status: 503 }, context())).toEqual({ retry: true, delayMs: 50, reason: 'status' });
    expect(decideRetry(policy, { kind: 'status', status: 503 }, context({ method: 'POST' })).retry).toBe(false);
    expect(decideRetry(policy, { kind: 'status', status: 503 }, context({ attempt: 4 })).retry).toBe(false);
    expect(decideRetry(policy, { kind: 'status', status: 400 }, context()).retry).toBe(false);
  });

  it('retries a POST after a network failure only when the request provably never reached the server', () => {
    expect(decideRetry(policy, { kind: 'network', mayHaveReachedServer: false }, context({ method: 'POST' })).retry).toBe(true);
    expect(decideRetry(policy, { kind: 'network', mayHaveReachedServer: true }, context({ method: 'POST' })).retry).toBe(false);
    expect(decideRetry(policy, { kind: 'network', mayHaveReachedServer: true }, context({ method: 'DELETE' })).retry).toBe(true);
  });

  it('retries a timeout on idempotent methods only', () => {
    expect(decideRetry(policy, { kind: 'timeout' }, context({ method: 'PUT' }))).toMatchObject({ retry: true, reason: 'timeout' });
    expect(decideRetry(policy, { kind: 'timeout' }, context({ method: 'PATCH' })).retry).toBe(false);
  });

  it('never backs off past the deadline', () => {
    expect(decideRetry(policy, { kind: 'status', status: 500 }, context({ remainingMs: 10 })).retry).toBe(false);
    expect(decideRetry(policy, { kind: 'status', status: 500 }, context({ remainingMs: 0 })).retry).toBe(false);
  });

  it('waits out a 429 for what the service asked, or 1 s, 2 s, 4 s… capped at 30 s when it did not say', () => {
    expect(decideRetry(policy, { kind: 'rateLimit', retryAfterMs: 1234, count: 1 }, context({ method: 'POST' }))).toEqual({
      retry: true,
      delayMs: 1234,
      reason: 'rateLimit',
    });
    expect(decideRetry(policy, { kind: 'rateLimit', retryAfterMs: undefined, count: 3 }, context()).delayMs).toBe(4000);
    const long = resolveRetryPolicy({ maxRateLimitWaitMs: 120_000 });
    expect(decideRetry(long, { kind: 'rateLimit', retryAfterMs: undefined, count: 9 }, context()).delayMs).toBe(30_000);
  });

  it('refuses a 429 wait beyond maxRateLimitWaitMs, beyond the deadline, or after too many 429s, saying why', () => {
    expect(decideRetry(policy, { kind: 'rateLimit', retryAfterMs: 6000, count: 1 }, context())).toMatchObject({
      retry: false,
      delayMs: 6000,
      why: expect.stringContaining('maxRateLimitWaitMs'),
    });
    expect(decideRetry(policy, { kind: 'rateLimit', retryAfterMs: 2000, count: 1 }, context({ remainingMs: 1000 }))).toMatchObject({
      retry: false,
      why: expect.stringContaining('deadline'),
    });
    expect(decideRetry(policy, { kind: 'rateLimit', retryAfterMs: 10, count: MAX_RATE_LIMIT_RETRIES + 1 }, context()).retry).toBe(false);
  });

  it('calls GET, PUT and DELETE idempotent, POST and PATCH not', () => {
    expect(['GET', 'PUT', 'DELETE', 'POST', 'PATCH'].map((method) => isIdempotent(method as 'GET'))).toEqual([true, true, true, false, false]);
  });

  it('backs off a little from a 429 that keeps saying "retry now"', () => {
    expect(decideRetry(policy, { kind: 'rateLimit', retryAfterMs: 0, count: 1 }, context()).delayMs).toBe(0);
    expect(decideRetry(policy, { kind: 'rateLimit', retryAfterMs: 0, count: 2 }, context()).delayMs).toBe(250);
    expect(decideRetry(policy, { kind: 'rateLimit', retryAfterMs: 0, count: 4 }, context()).delayMs).toBe(1000);
  });
});
