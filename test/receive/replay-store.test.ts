import { describe, expect, it } from 'vitest';
import { MemoryReplayStore } from '../../src/stores.js';
import { isCommunityChatError } from '../../src/index.js';

describe('MemoryReplayStore', () => {
  it('claims a key once until its time to live passes', () => {
    let now = 1_000;
    const store = new MemoryReplayStore({ clock: () => now });
    expect(store.claim('a', 100)).toBe(true);
    expect(store.claim('a', 100)).toBe(false);
    now += 99;
    expect(store.claim('a', 100)).toBe(false);
    now += 1;
    expect(store.claim('a', 100)).toBe(true);
    expect(store.claim('b', 100)).toBe(true);
  });

  it('stays bounded without forgetting a live key: past maxEntries a new claim fails until keys expire', () => {
    let now = 0;
    const store = new MemoryReplayStore({ maxEntries: 3, clock: () => now });
    for (const key of ['k1', 'k2', 'k3']) expect(store.claim(key, 1_000)).toBe(true);
    expect(() => store.claim('k4', 1_000)).toThrow(/maxEntries/);
    // The live keys are all still remembered: a replay of any of them is refused.
    for (const key of ['k1', 'k2', 'k3']) expect(store.claim(key, 1_000)).toBe(false);
    expect(store.size).toBe(3);
    now = 1_000;
    expect(store.claim('k4', 1_000)).toBe(true);
    expect(store.size).toBe(1);
    now = 5_000;
    expect(store.size).toBe(0);
  });

  it('expires keys of different lifetimes before counting: a long-lived key at the front does not hold expired ones behind it', () => {
    let now = 0;
    const store = new MemoryReplayStore({ maxEntries: 10, clock: () => now });
    expect(store.claim('long', 60_000)).toBe(true);
    for (let i = 0; i < 9; i++) expect(store.claim(`short${i}`, 1_000)).toBe(true);
    now = 1_000;
    expect(store.size).toBe(1);
    for (let i = 0; i < 9; i++) expect(store.claim(`next${i}`, 1_000)).toBe(true);
    // Full of live keys: refused with an error that says so.
    const full = (() => {
      try {
        store.claim('one-more', 1_000);
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(isCommunityChatError(full, 'ReplayStoreFullError')).toBe(true);
    expect((full as Error).message).toMatch(/10 live keys.*raise maxEntries/);
  });

  it('refuses a maxEntries that is not a whole number of at least 1', () => {
    for (const maxEntries of [0, -1, 1.5, Number.NaN]) {
      let error: unknown;
      try {
        new MemoryReplayStore({ maxEntries });
      } catch (caught) {
        error = caught;
      }
      expect(isCommunityChatError(error, 'ValidationError')).toBe(true);
    }
  });
});
