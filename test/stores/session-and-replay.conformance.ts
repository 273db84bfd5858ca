/**
 * The contracts of the replay store and the Gateway session store, run
 * against the in-memory and the Redis versions of each.
 */
import { describe, expect, it } from 'vitest';
import type { GatewaySessionStore, ReplayStore } from '../../src/stores.js';

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

    it("a fleet's write-back keeps the latest holder's record: it fills a gap and replaces an earlier fence, never the same or a later one, nor one without a fence", async () => {
      const store = await make();
      if (store.restore === undefined) throw new Error(`${name} has no restore(): a store shared by processes must write back in one step`);
      const mine = { sessionId: 'mine', sequence: 20, fence: 50 };
      await store.save(0, 8, { sessionId: 'later', sequence: 30, fence: 60 });
      await store.save(1, 8, { sessionId: 'same', sequence: 10, fence: 50 });
      await store.save(2, 8, { sessionId: 'earlier', sequence: 10, fence: 40 });
      await store.save(3, 8, { sessionId: 'unfenced', sequence: 10 });
      for (const shardId of [0, 1, 2, 3, 4]) await store.restore(shardId, 8, mine);
      const kept = await Promise.all([0, 1, 2, 3, 4].map(async (shardId) => (await store.load(shardId, 8))?.sessionId));
      expect(kept, 'per shard: later, same, earlier, unfenced, none').toEqual(['later', 'same', 'mine', 'unfenced', 'mine']);
    });
  });
}
