/**
 * `withinTime`: every Redis command of the stores runs through it, on the one
 * abortable wait; a client not ready, a command that fails, throws or hangs
 * each becomes the store's own typed error, and no timer outlives the command.
 */
import { afterEach, expect, it, vi } from 'vitest';
import { EventStreamError, RateLimitStoreError, SessionStoreError } from '../../src/errors/index.js';
import { sessionFailure, withinTime, type RedisClientLike } from '../../src/redis/connection.js';

const ready = { isReady: true } as unknown as RedisClientLike;

afterEach(() => {
  vi.useRealTimers();
});

it('answers with the command, and leaves no timer behind', async () => {
  vi.useFakeTimers();
  await expect(withinTime(ready, 2000, async () => 'OK')).resolves.toBe('OK');
  expect(vi.getTimerCount()).toBe(0);
});

it('a client that is not ready fails at once, without sending', async () => {
  const command = vi.fn(async () => 'OK');
  const error = await withinTime({ isReady: false } as unknown as RedisClientLike, 2000, command).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(RateLimitStoreError);
  expect((error as Error).message).toContain('the Redis client is not connected');
  expect(command).not.toHaveBeenCalled();
});

it('a command that hangs fails at the timeout with the store’s error, naming the time', async () => {
  vi.useFakeTimers();
  const hanging = withinTime(ready, 2000, () => new Promise<never>(() => undefined), sessionFailure).catch((caught: unknown) => caught);
  await vi.advanceTimersByTimeAsync(1999);
  await vi.advanceTimersByTimeAsync(1);
  const error = await hanging;
  expect(error).toBeInstanceOf(SessionStoreError);
  expect((error as Error).message).toContain('Redis did not answer within 2000 ms');
});

it('a failure (rejected or thrown) becomes the store’s error with the cause; a store error passes as it is', async () => {
  vi.useFakeTimers();
  const cause = new Error('ECONNRESET');
  const rejected = await withinTime(ready, 2000, () => Promise.reject(cause)).catch((caught: unknown) => caught);
  expect(rejected).toBeInstanceOf(RateLimitStoreError);
  expect((rejected as Error).message).toContain('Redis failed: ECONNRESET');
  expect((rejected as Error).cause).toBe(cause);
  const thrown = await withinTime(ready, 2000, () => {
    throw cause;
  }).catch((caught: unknown) => caught);
  expect(thrown, 'a client that throws instead of rejecting').toBeInstanceOf(RateLimitStoreError);
  const own = new EventStreamError('stream gone');
  await expect(withinTime(ready, 2000, () => Promise.reject(own))).rejects.toBe(own);
  expect(vi.getTimerCount(), 'timers left after the failures').toBe(0);
});

it('a rejection String() cannot convert, or an Error whose message cannot be read, still becomes the store’s error, the value as its cause', async () => {
  vi.useFakeTimers();
  const unreadable = new Error('hidden');
  Object.defineProperty(unreadable, 'message', {
    get() {
      throw new Error('message getter broke');
    },
  });
  for (const [what, cause] of [
    ['Object.create(null)', Object.create(null) as object],
    ['an Error whose message getter throws', unreadable],
  ] as const) {
    const rejected = await withinTime(ready, 2000, () => Promise.reject(cause)).catch((caught: unknown) => caught);
    expect(rejected, what).toBeInstanceOf(RateLimitStoreError);
    expect((rejected as Error).message, what).toContain('Redis failed: a thrown object that cannot be read as text');
    expect((rejected as Error).cause, what).toBe(cause);
  }
  expect(vi.getTimerCount(), 'timers left after the failures').toBe(0);
});
