/**
 * The contracts of the replay store and the Gateway session store, run
 * against the in-memory and the Redis versions of each.
 */
import { describe, expect, it } from 'vitest';
import type { GatewaySessionStore, ReplayStore } from '../../src/index.js';

/** The replay store contract: a key is claimed once until its time to live passes. */
export function replayStoreContract(
  name: string,
  make: () => Promise<ReplayStore> | ReplayStore,
  expire: (store: ReplayStore, key: string) => Promise<void>,
): void {
  describe(`the ReplayStore contract: ${name}`, () => {
    it('claims a key once; another key is free; the key is free again once it expires', async () => {
      const store = await make();
      expect(await store.claim('delivery:a', 60_000)).toBe(true);
      expect(await store.claim('delivery:a', 60_000)).toBe(false);
      expect(await store.claim('delivery:b', 60_000)).toBe(true);
      await expire(store, 'delivery:a');
      expect(await store.claim('delivery:a', 60_000)).toBe(true);
      expect(await store.claim('delivery:a', 60_000)).toBe(false);
    });
  });
}

/** The Gateway session store contract: per shard and shard count, saved, loaded, forgotten. */
export function gatewaySessionStoreContract(name: string, make: () => Promise<GatewaySessionStore> | GatewaySessionStore): void {
  describe(`the GatewaySessionStore contract: ${name}`, () => {
    it('keeps one record per shard and shard count, and forgets it', async () => {
      const store = await make();
      const record = { sessionId: 'session-a', sequence: 42, resumeUrl: 'wss://gateway.example/resume' };
      await store.save(0, 2, record);
      await store.save(1, 2, { sessionId: 'session-b', sequence: null });
      expect(await store.load(0, 2)).toEqual(record);
      expect(await store.load(1, 2)).toEqual({ sessionId: 'session-b', sequence: null });
      expect(await store.load(0, 4)).toBeUndefined();
      await store.save(0, 2, undefined);
      expect(await store.load(0, 2)).toBeUndefined();
      expect(await store.load(1, 2)).toEqual({ sessionId: 'session-b', sequence: null });
    });
  });
}
