/**
 * Identify pacing in one process, on fake timers: one Identify per bucket
 * (`shard_id % max_concurrency`) per interval, first come first served, and
 * a wait that is given up takes no turn.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_IDENTIFY_INTERVAL_MS } from '../../src/gateway/identify-throttle.js';
import { MemoryIdentifyThrottle, identifyBucket } from '../../src/stores.js';

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

/** Starts waits for these shards, and records when each got its turn (fake clock). */
function track(throttle: MemoryIdentifyThrottle, shards: number[], maxConcurrency: number) {
  const turns = new Map<number, number>();
  const waits = shards.map((shardId) =>
    throttle.wait({ shardId, shardCount: shards.length, maxConcurrency }).then(() => void turns.set(shardId, Date.now() - 1_000_000)),
  );
  return { turns, all: Promise.all(waits) };
}

describe('the in-memory Identify throttle', () => {
  it('buckets by shard id % max_concurrency', () => {
    expect([0, 1, 2, 3, 4, 5].map((id) => identifyBucket(id, 2))).toEqual([0, 1, 0, 1, 0, 1]);
    expect([0, 1, 2].map((id) => identifyBucket(id, 1))).toEqual([0, 0, 0]);
  });

  it("keeps Discord's 5 s plus a 500 ms margin by default", () => {
    expect(DEFAULT_IDENTIFY_INTERVAL_MS).toBe(5500);
  });

  it('max_concurrency 2, 6 shards: two at once, then two more every interval, never two of one bucket within it', async () => {
    const throttle = new MemoryIdentifyThrottle();
    const { turns, all } = track(throttle, [0, 1, 2, 3, 4, 5], 2);
    await vi.advanceTimersByTimeAsync(0);
    expect([...turns.keys()].sort()).toEqual([0, 1]);
    await vi.advanceTimersByTimeAsync(5499);
    expect(turns.size).toBe(2);
    await vi.advanceTimersByTimeAsync(1);
    expect([...turns.keys()].sort()).toEqual([0, 1, 2, 3]);
    await vi.advanceTimersByTimeAsync(5500);
    await all;
    expect(Object.fromEntries(turns)).toEqual({ 0: 0, 1: 0, 2: 5500, 3: 5500, 4: 11000, 5: 11000 });
  });

  it('max_concurrency 1: strictly one after another, in order of asking', async () => {
    const throttle = new MemoryIdentifyThrottle({ intervalMs: 5000 });
    const order: number[] = [];
    const waits = [2, 0, 1].map((shardId) => throttle.wait({ shardId, shardCount: 3, maxConcurrency: 1 }).then(() => void order.push(shardId)));
    await vi.advanceTimersByTimeAsync(10_000);
    await Promise.all(waits);
    expect(order).toEqual([2, 0, 1]);
  });

  it('a turn long past does not delay the next one', async () => {
    const throttle = new MemoryIdentifyThrottle({ intervalMs: 5000 });
    await throttle.wait({ shardId: 0, shardCount: 1, maxConcurrency: 1 });
    await vi.advanceTimersByTimeAsync(7000);
    let done = false;
    void throttle.wait({ shardId: 0, shardCount: 1, maxConcurrency: 1 }).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(done).toBe(true);
  });

  it('an aborted wait rejects and takes no turn: the next shard goes one interval after the last real turn', async () => {
    const throttle = new MemoryIdentifyThrottle({ intervalMs: 5000 });
    await throttle.wait({ shardId: 0, shardCount: 3, maxConcurrency: 1 });
    const controller = new AbortController();
    const aborted = throttle.wait({ shardId: 1, shardCount: 3, maxConcurrency: 1, signal: controller.signal });
    const rejection = expect(aborted).rejects.toThrow(/aborted/);
    let at: number | undefined;
    void throttle.wait({ shardId: 2, shardCount: 3, maxConcurrency: 1 }).then(() => (at = Date.now() - 1_000_000));
    await vi.advanceTimersByTimeAsync(1000);
    controller.abort();
    await rejection;
    await vi.advanceTimersByTimeAsync(4000);
    expect(at).toBe(5000);
  });
});

describe('MemoryIdentifyThrottle options', () => {
  it('refuses now (renamed clock), unknown names and an intervalMs past 2^31 - 1 ms, naming each', () => {
    expect(() => new MemoryIdentifyThrottle({ now: () => 0 } as never)).toThrow(/now: was renamed or removed: use clock/);
    expect(() => new MemoryIdentifyThrottle({ interval: 10 } as never)).toThrow(/interval: is not an option of MemoryIdentifyThrottle/);
    for (const intervalMs of [3e9, Number.POSITIVE_INFINITY, -1]) expect(() => new MemoryIdentifyThrottle({ intervalMs })).toThrow(/intervalMs: must/);
    expect(() => new MemoryIdentifyThrottle({ intervalMs: 0, clock: () => 0 })).not.toThrow();
  });
});
