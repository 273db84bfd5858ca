/**
 * The timer on a clock that can jump (`core/clock.ts`): the waits of
 * interactions end when a test clock jumps past them, and never later than
 * their length in real time.
 */
import { describe, expect, it } from 'vitest';
import { advanceSubscriber, advancingClock, clockTimer } from '../../src/core/clock.js';
import { activeTimers } from '../helpers/index.js';

/** A test clock as the emulator's: real time plus what `advance` added. */
function testClock() {
  let offset = 0;
  const listeners = new Set<() => void>();
  const clock = advancingClock(
    () => Date.now() + offset,
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  );
  return {
    clock,
    listeners,
    advance(ms: number) {
      offset += ms;
      for (const listener of [...listeners]) listener();
    },
  };
}

describe('clockTimer', () => {
  it('fires at once when the clock jumps past its length, not before, and lets go of its listener and timer', () => {
    const { clock, listeners, advance } = testClock();
    const timersBefore = activeTimers();
    let fired = 0;
    clockTimer(clock, 60_000, () => fired++);
    expect(listeners.size).toBe(1);
    // The clock is real time plus the jumps: a jump short of the length by more than the real time this test can take
    // does not fire it (a loaded machine may spend a few milliseconds between the timer's start and the jump).
    advance(59_000);
    expect(fired).toBe(0);
    advance(1000);
    expect(fired).toBe(1);
    expect(listeners.size).toBe(0);
    expect(activeTimers()).toBe(timersBefore);
    advance(60_000);
    expect(fired).toBe(1);
  });

  it('a clock that stands still never holds it past its length in real time', async () => {
    const frozen = () => 42;
    const started = performance.now();
    await new Promise<void>((resolve) => clockTimer(frozen, 30, resolve));
    expect(performance.now() - started).toBeGreaterThanOrEqual(29);
  });

  it('a partial jump brings the real timer forward', async () => {
    const { clock, advance } = testClock();
    const started = performance.now();
    const fired = new Promise<void>((resolve) => clockTimer(clock, 60_000, resolve));
    advance(59_980);
    await fired;
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('cancel stops it: no listener, no timer, no call', () => {
    const { clock, listeners, advance } = testClock();
    const timersBefore = activeTimers();
    let fired = 0;
    const cancel = clockTimer(clock, 10, () => fired++);
    cancel();
    advance(100);
    expect({ fired, listeners: listeners.size, timers: activeTimers() - timersBefore }).toEqual({ fired: 0, listeners: 0, timers: 0 });
  });

  it('Date.now reports no jumps', () => {
    expect(advanceSubscriber(Date.now)).toBeUndefined();
    expect(typeof advanceSubscriber(testClock().clock)).toBe('function');
  });
});
