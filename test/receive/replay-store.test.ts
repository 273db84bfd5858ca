import { describe, expect, it } from 'vitest';
import { isValidationError, MemoryReplayStore } from '../../src/index.js';

describe('MemoryReplayStore', () => {
  it('claims a key once until its time to live passes', () => {
    let now = 1_000;
    const store = new MemoryReplayStore({ now: () => now });
    expect(store.claim('a', 100)).toBe(true);
    expect(store.claim('a', 100)).toBe(false);
    now += 99;
    expect(store.claim('a', 100)).toBe(false);
    now += 1;
    expect(store.claim('a', 100)).toBe(true);
    expect(store.claim('b', 100)).toBe(true);
  });

  it('stays bounded: past maxEntries the oldest key is forgotten first, and expired keys are dropped', () => {
    let now = 0;
    const store = new MemoryReplayStore({ maxEntries: 3, now: () => now });
    for (const key of ['k1', 'k2', 'k3', 'k4']) expect(store.claim(key, 1_000)).toBe(true);
    expect(store.size).toBe(3);
    expect(store.claim('k1', 1_000)).toBe(true); // forgotten to make room
    expect(store.claim('k4', 1_000)).toBe(false);
    now = 5_000;
    expect(store.size).toBe(0);
  });

  it('refuses a maxEntries that is not a whole number of at least 1', () => {
    for (const maxEntries of [0, -1, 1.5, Number.NaN]) {
      let error: unknown;
      try {
        new MemoryReplayStore({ maxEntries });
      } catch (caught) {
        error = caught;
      }
      expect(isValidationError(error)).toBe(true);
    }
  });
});
