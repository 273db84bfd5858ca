/**
 * The Redis rate-limit store's outages (`OutageReporter` with `SETTLE_MS`, on this host's `Date.now()`), with a client that
 * fails on demand in front of a real Redis: an outage answered soon after its failure does not swallow the next one, a clock
 * set back gives no negative duration, and on the fallback an outage ends only when the limits are Redis's again.
 */
import { afterEach, expect, it, vi } from 'vitest';
import type { StoreErrorEvent, StoreRecoveredEvent } from '../../src/diagnostics.js';
import { createRedisRateLimitStore } from '../../src/redis/index.js';
import { describeWithRedis, useRedis } from '../helpers/redis-server.js';

afterEach(() => vi.useRealTimers());

describeWithRedis('the Redis rate-limit store: when an outage ends', () => {
  const redis = useRedis();
  let n = 0;
  function subject(onStoreError: 'throw' | 'local' = 'throw') {
    let failing = false;
    const client = {
      get isReady() {
        return true;
      },
      sendCommand: (args: string[]) => (failing ? Promise.reject(new Error('ECONNRESET')) : redis.connection.sendCommand(args)),
    };
    const store = createRedisRateLimitStore({ client, prefix: `outages-${++n}:`, commandTimeoutMs: 500, onStoreError });
    store.attach({ now: Date.now, webhookWindow: undefined, maxPauseMs: 600_000, globalRateLimit: undefined });
    const errors: StoreErrorEvent[] = [];
    const recovered: StoreRecoveredEvent[] = [];
    store.on('storeError', (event) => errors.push(event));
    store.on('storeRecovered', (event) => recovered.push(event));
    const key = store.bucketKey('GET /channels/{channel_id}', 'x');
    const take = async () => {
      try {
        await store.acquire(key, 'normal', undefined, () => undefined);
        store.release(key);
        await store.flushed();
        return 'ok';
      } catch (error) {
        await store.flushed();
        return (error as Error).name;
      }
    };
    return { set: (value: boolean) => void (failing = value), take, errors, recovered, store, key };
  }

  it('an outage answered 1 s after its failure, then quiet, ends when the next outage starts an hour later: each is reported', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const s = subject();
    expect(await s.take()).toBe('ok');
    s.set(true);
    expect(await s.take(), 'first outage: the call rejects').not.toBe('ok');
    s.set(false);
    vi.setSystemTime(Date.now() + 1000);
    expect(await s.take(), 'Redis answers 1 s later').toBe('ok');
    vi.setSystemTime(Date.now() + 3_600_000); // an hour of quiet (or of answers less than 5 s apart ... none here)
    s.set(true);
    expect(await s.take(), 'a new outage an hour later: the call rejects').not.toBe('ok');
    s.set(false);
    vi.setSystemTime(Date.now() + 5000);
    expect(await s.take()).toBe('ok');
    expect(s.errors.length, 'one storeError per outage: two outages an hour apart').toBe(2);
    expect(s.recovered, 'the first ended at its answer 1 s after its failure, the second 5 s after its own').toEqual([
      // Each failed call is two failed steps: its take, and the undo of that take sent with the flush.
      { store: 'rateLimit', durationMs: 1000, failures: 2 },
      { store: 'rateLimit', durationMs: 5000, failures: 2 },
    ]);
  });

  it('the wall clock set back during an outage: its storeRecovered says 0 ms, never a negative duration', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const s = subject();
    expect(await s.take()).toBe('ok');
    s.set(true);
    expect(await s.take()).not.toBe('ok');
    s.set(false);
    vi.setSystemTime(Date.now() - 60_000); // NTP steps the clock back a minute
    expect(await s.take()).toBe('ok');
    expect(s.recovered, 'one outage, its duration 0 ms (the clock went back a minute)').toEqual([{ store: 'rateLimit', durationMs: 0, failures: 2 }]);
  });

  it('"local": finished work answered while the store is on its fallback ends no outage; the first call on Redis again does', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const s = subject('local');
    const turn = new AbortController().signal;
    await s.store.acquire(s.key, 'normal', turn, () => undefined); // a request in flight, its place taken on Redis
    await s.store.flushed();
    s.set(true);
    const local = new AbortController().signal;
    await s.store.acquire(s.key, 'normal', local, () => undefined);
    s.store.release(s.key, local);
    await s.store.flushed();
    expect([s.errors.length, s.store.usingLocalFallback], '[storeErrors, on the fallback]').toEqual([1, true]);
    s.set(false);
    vi.setSystemTime(Date.now() + 6000);
    s.store.release(s.key, turn); // the request that took its place on Redis ends: its release rides on a step of its own
    await s.store.flushed();
    expect([s.recovered.length, s.store.usingLocalFallback], 'a release answered while on the fallback: [storeRecovered, on the fallback]').toEqual([0, true]);
    expect(await s.take(), 'the next call, on Redis again (the fallback is left after 5 s)').toBe('ok');
    expect(s.store.usingLocalFallback).toBe(false);
    expect(
      s.recovered.map((event) => event.store),
      'the outage ends with the limits shared again',
    ).toEqual(['rateLimit']);
  });
});
