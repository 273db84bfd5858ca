import { describe, expect, it, vi } from 'vitest';
import { EVICTION_GRACE_MS, IDLE_EVICTION_MS, PendingBodies } from '../../src/receive/pending-bodies.js';

describe('PendingBodies', () => {
  it('when full, evicts the body silent the longest among those with no byte for IDLE_EVICTION_MS, never one fed just now', () => {
    let now = 0;
    const bodies = new PendingBodies(3, () => now);
    const evicted: string[] = [];
    const slots = (['a', 'b', 'c'] as const).map((name) => {
      const slot = bodies.start(`10.0.0.${name}`);
      slot?.onEvict(() => evicted.push(name));
      return slot;
    });
    now = 50;
    slots[0]?.received(10);
    now = 60;
    slots[2]?.received(10);
    now = IDLE_EVICTION_MS - 1;
    expect(bodies.start('10.0.0.d'), 'every body had a byte within IDLE_EVICTION_MS: no place').toBeUndefined();
    expect(evicted).toEqual([]);
    now = IDLE_EVICTION_MS;
    expect(bodies.start('10.0.0.d'), 'b has been silent IDLE_EVICTION_MS').toBeDefined();
    expect(evicted, 'b, silent since it started').toEqual(['b']);
    expect(bodies.size).toBe(3);
    now = 60 + IDLE_EVICTION_MS;
    expect(bodies.start('10.0.0.e')).toBeDefined();
    expect(evicted, 'a (last byte at 50) before c (at 60)').toEqual(['b', 'a']);
    // A body done gives its place back without being evicted; done twice changes nothing.
    slots[2]?.done();
    slots[2]?.done();
    expect(bodies.size).toBe(2);
    expect(bodies.start('10.0.0.f')).toBeDefined();
    expect(evicted).toEqual(['b', 'a']);
  });

  it('evicts a body pending for EVICTION_GRACE_MS even if it trickles a byte more often than IDLE_EVICTION_MS', () => {
    let now = 0;
    const bodies = new PendingBodies(2, () => now);
    const evicted: number[] = [];
    const first = bodies.start('10.0.0.1');
    first?.onEvict(() => evicted.push(1));
    now = 1;
    const second = bodies.start('10.0.0.2');
    second?.onEvict(() => evicted.push(2));
    for (now = 0; now < EVICTION_GRACE_MS; now += IDLE_EVICTION_MS / 2) {
      first?.received(1);
      second?.received(1);
    }
    now = EVICTION_GRACE_MS - 1;
    second?.received(1);
    first?.received(1);
    expect(bodies.start('10.0.0.3'), 'both fed and younger than the grace').toBeUndefined();
    now = EVICTION_GRACE_MS;
    expect(bodies.start('10.0.0.3')).toBeDefined();
    expect(evicted, 'the first, past its grace').toEqual([1]);
  });

  it('when none is evictable, the address holding more than a quarter of the places gives up its stalest one; no address at or under its share does', () => {
    let now = 0;
    const bodies = new PendingBodies(8, () => now);
    const evicted: string[] = [];
    const take = (source: string, name: string) => bodies.start(source)?.onEvict(() => evicted.push(name));
    // Share: 8 / 4 = 2 places per address. The attacker holds 3, each of the others 1 or 2.
    for (const [source, name] of [
      ['10.0.0.9', 'attacker-1'],
      ['10.0.0.9', 'attacker-2'],
      ['10.0.0.9', 'attacker-3'],
      ['10.0.0.1', 'one'],
      ['10.0.0.2', 'two-1'],
      ['10.0.0.2', 'two-2'],
      ['10.0.0.3', 'three'],
      ['10.0.0.4', 'four'],
    ] as const) {
      take(source, name);
      now += 1;
    }
    expect(bodies.size).toBe(8);
    expect(bodies.start('10.0.0.5'), 'the attacker holds 3 of a share of 2').toBeDefined();
    expect(evicted).toEqual(['attacker-1']);
    expect(bodies.start('10.0.0.5'), 'the attacker holds 2 of its share of 2: nobody is over').toBeUndefined();
    expect(evicted).toEqual(['attacker-1']);
  });

  it('ages on performance.now() when given no clock', () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    try {
      const bodies = new PendingBodies(1);
      let evicted = false;
      bodies.start('a')?.onEvict(() => void (evicted = true));
      expect(bodies.start('b'), 'a body just started is not evicted').toBeUndefined();
      vi.advanceTimersByTime(IDLE_EVICTION_MS - 1);
      expect(bodies.start('b'), 'idle for less than IDLE_EVICTION_MS: kept').toBeUndefined();
      expect(evicted).toBe(false);
      vi.advanceTimersByTime(1);
      expect(bodies.start('b'), 'idle for IDLE_EVICTION_MS on performance.now(): evicted for the newcomer').toBeDefined();
      expect(evicted).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });
});
