import { describe, expect, it } from 'vitest';
import { backoffDelay } from '../../src/core/backoff.js';

describe('backoffDelay', () => {
  it('uses full jitter under an exponential ceiling capped at maxDelayMs', () => {
    const policy = { baseDelayMs: 100, maxDelayMs: 1000 };
    expect(backoffDelay(policy, 1, () => 0.999)).toBe(99);
    expect(backoffDelay(policy, 2, () => 0.999)).toBe(199);
    expect(backoffDelay(policy, 4, () => 0.999)).toBe(799);
    expect(backoffDelay(policy, 9, () => 0.999)).toBe(999);
    expect(backoffDelay(policy, 3, () => 0)).toBe(0);
  });

  it('treats attempt 0 or below like the first attempt', () => {
    expect(backoffDelay({ baseDelayMs: 100, maxDelayMs: 1000 }, 0, () => 0.5)).toBe(50);
  });
});
