/**
 * One contract of the `RateLimitStore` behaviour, run against every store
 * (the in-memory one and the Redis one): the rate-limit algorithm exists in
 * TypeScript and in Lua, and this is what keeps the two from diverging.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { GlobalRateLimitOptions, RateLimitStore, WebhookWindowOptions } from '../../src/stores.js';

/** Makes a fresh store (its own state) with these settings. */
export type StoreFactory = (settings: {
  webhookWindow?: WebhookWindowOptions;
  globalRateLimit?: GlobalRateLimitOptions;
}) => Promise<RateLimitStore> | RateLimitStore;

const ROUTE = 'GET /channels/{channel_id}';

/** Takes a place, recording every wait the store announces (reason and length). */
async function take(store: RateLimitStore, key: string, waits: { reason: string; ms: number }[] = []): Promise<void> {
  await store.acquire(key, 'normal', undefined, (ms, reason) => void waits.push({ reason, ms }));
}

/** Runs the shared contract against the stores `make` creates. */
export function rateLimitStoreContract(name: string, make: StoreFactory, teardown: () => Promise<void> = async () => undefined): void {
  describe(`the RateLimitStore contract: ${name}`, () => {
    afterAll(teardown);

    it('serves the settings it was attached with: a client with others is refused, naming them, and the store keeps its own', async () => {
      const store = await make({ webhookWindow: { limit: 1, windowMs: 300 } });
      const other = { now: Date.now, webhookWindow: { limit: 30, windowMs: 300 }, maxPauseMs: 600_000, globalRateLimit: undefined };
      expect(() => store.attach(other)).toThrow(/webhookRateLimit: 30 per 300 ms, but the store already serves 1 per 300 ms/);
      // Still one execution per window: the refused settings changed nothing.
      const waits: { reason: string; ms: number }[] = [];
      for (let i = 0; i < 2; i++) {
        await store.webhookTurn('hook-attach', undefined, (ms, reason) => void waits.push({ reason, ms }));
        store.webhookDone('hook-attach');
      }
      expect(waits.map((wait) => wait.reason)).toEqual(['webhook']);
    });

    it('discovers an unknown bucket with one request: the next waits for its answer, announcing no rate limit', async () => {
      const store = await make({});
      const key = store.bucketKey(ROUTE, 'discover');
      const order: string[] = [];
      await take(store, key);
      order.push('first');
      const waits: { reason: string; ms: number }[] = [];
      const second = take(store, key, waits).then(() => void order.push('second'));
      await new Promise((resolve) => setImmediate(resolve));
      order.push('answered');
      store.learn(ROUTE, 'discover', { limit: 5, remaining: 4, resetAfterMs: 1000, bucket: undefined });
      store.release(key);
      await second;
      expect(order).toEqual(['first', 'answered', 'second']);
      expect(waits).toEqual([]);
    });

    it('makes a request wait, announced as bucket, while a learned bucket has no place, until its reset', async () => {
      const store = await make({});
      const key = store.bucketKey(ROUTE, 'full');
      await take(store, key);
      store.learn(ROUTE, 'full', { limit: 1, remaining: 0, resetAfterMs: 300, bucket: undefined });
      store.release(key);
      const waits: { reason: string; ms: number }[] = [];
      const started = Date.now();
      await take(store, key, waits);
      expect(waits.length).toBeGreaterThan(0);
      expect(waits[0]?.reason).toBe('bucket');
      expect(waits[0]?.ms).toBeLessThanOrEqual(400);
      expect(Date.now() - started).toBeGreaterThanOrEqual((waits[0]?.ms ?? 1) - 5);
    });

    it('follows X-RateLimit-Reset for answers that overtake each other: an older answer of the same window never widens it, one of a new window replaces it', async () => {
      const store = await make({});
      const key = store.bucketKey(ROUTE, 'overtake');
      await take(store, key);
      const window = Date.now() + 60_000;
      // The later answer (1 left) arrives first, then the earlier one (4 left) of the same window.
      store.learn(ROUTE, 'overtake', { limit: 5, remaining: 1, resetAfterMs: 60_000, bucket: undefined, resetAtMs: window });
      store.learn(ROUTE, 'overtake', { limit: 5, remaining: 4, resetAfterMs: 60_000, bucket: undefined, resetAtMs: window });
      store.release(key);
      await take(store, key);
      const refused = await store
        .acquire(key, 'normal', AbortSignal.timeout(300), () => undefined)
        .then(
          () => 'took a place',
          () => 'waited',
        );
      expect(refused).toBe('waited');
      // A new window (a later X-RateLimit-Reset) replaces what was learned: places again.
      store.learn(ROUTE, 'overtake', { limit: 5, remaining: 4, resetAfterMs: 60_000, bucket: undefined, resetAtMs: window + 60_000 });
      store.release(key);
      const waits: { reason: string; ms: number }[] = [];
      await take(store, key, waits);
      await take(store, key, waits);
      expect(waits).toEqual([]);
    });

    it('pauses a bucket after a 429 (reason bucket) and every bucket after a global one (reason global)', async () => {
      const store = await make({});
      const paused = store.bucketKey(ROUTE, 'paused');
      const other = store.bucketKey(ROUTE, 'other');
      store.pause(paused, 200, false);
      const waits: { reason: string; ms: number }[] = [];
      await take(store, paused, waits);
      store.release(paused);
      expect(waits.map((wait) => wait.reason)).toContain('bucket');
      store.pause(other, 200, true);
      const globalWaits: { reason: string; ms: number }[] = [];
      await take(store, store.bucketKey(ROUTE, 'third'), globalWaits);
      expect(globalWaits.map((wait) => wait.reason)).toContain('global');
    });

    it('keeps the proactive global cap: past its limit in the window, a request waits (reason global)', async () => {
      const store = await make({ globalRateLimit: { limit: 2, windowMs: 400 } });
      for (const major of ['g1', 'g2']) {
        const key = store.bucketKey(ROUTE, major);
        await take(store, key);
        store.learn(ROUTE, major, undefined);
        store.release(key);
      }
      const waits: { reason: string; ms: number }[] = [];
      await take(store, store.bucketKey(ROUTE, 'g3'), waits);
      expect(waits.map((wait) => wait.reason)).toContain('global');
    });

    it("keeps a webhook's rolling window: past its limit, the next execution waits (reason webhook)", async () => {
      const store = await make({ webhookWindow: { limit: 1, windowMs: 300 } });
      const waits: { reason: string; ms: number }[] = [];
      // As the pipeline runs an execution: its window's place, then done.
      const execute = async () => {
        await store.webhookTurn('hook-1', undefined, (ms, reason) => void waits.push({ reason, ms }));
        store.webhookDone('hook-1');
      };
      await execute();
      await execute();
      expect(waits.map((wait) => wait.reason)).toEqual(['webhook']);
      expect(waits[0]?.ms).toBeLessThanOrEqual(350);
    });
  });
}
