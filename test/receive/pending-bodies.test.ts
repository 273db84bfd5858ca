import { describe, expect, it } from 'vitest';
import { EVICTION_GRACE_MS, PendingBodies } from '../../src/receive/pending-bodies.js';

describe('PendingBodies', () => {
  it('when full, evicts the slowest body (bytes per ms) among those past the grace, never a body that has just started', () => {
    let now = 0;
    const bodies = new PendingBodies(3, () => now);
    const evicted: string[] = [];
    const fast = bodies.start();
    const slow = bodies.start();
    const slower = bodies.start();
    for (const [name, slot] of [
      ['fast', fast],
      ['slow', slow],
      ['slower', slower],
    ] as const)
      slot?.onEvict(() => evicted.push(name));
    fast?.received(5000);
    slow?.received(10);
    slower?.received(1);
    now = EVICTION_GRACE_MS - 1;
    expect(bodies.start(), 'every body is within its grace: no place').toBeUndefined();
    now = EVICTION_GRACE_MS;
    const newcomer = bodies.start();
    expect(newcomer).toBeDefined();
    expect(evicted).toEqual(['slower']);
    expect(bodies.size).toBe(3);
    // The newcomer has just started: the next eviction takes the slowest of the others.
    expect(bodies.start()).toBeDefined();
    expect(evicted).toEqual(['slower', 'slow']);
    // A body done gives its place back without being evicted; done twice changes nothing.
    fast?.done();
    fast?.done();
    expect(bodies.size).toBe(2);
    expect(bodies.start()).toBeDefined();
    expect(evicted).toEqual(['slower', 'slow']);
  });
});
