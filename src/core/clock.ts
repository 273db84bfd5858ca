/**
 * A clock that can jump: the SDK reads time through a plain function
 * (`clock: () => number`), and a test clock (the emulator's) may also say when
 * it moved forward by more than real time, so that timers modelling service
 * time (interaction waits) end when the test advances it, not a real minute
 * later.
 *
 * @module
 */

/** Registers a listener of a clock's jumps; returns a function that removes it. */
type ClockAdvanceSubscriber = (listener: () => void) => () => void;

/** A clock function that may also report its jumps (`onAdvance`). */
type AdvancingClock = (() => number) & {
  /** Calls `listener` after every jump of the clock; returns a function that stops it. @default undefined (a clock that never jumps) */
  readonly onAdvance?: ClockAdvanceSubscriber | undefined;
};

/** Makes `now` a clock whose jumps `subscribe` reports. */
export function advancingClock(now: () => number, subscribe: ClockAdvanceSubscriber): AdvancingClock {
  const clock = () => now();
  return Object.assign(clock, { onAdvance: subscribe });
}

/** The subscriber of a clock's jumps, or `undefined` for a clock that does not report them (`Date.now`). */
export function advanceSubscriber(clock: () => number): ClockAdvanceSubscriber | undefined {
  const subscribe = (clock as AdvancingClock).onAdvance;
  return typeof subscribe === 'function' ? subscribe : undefined;
}

/**
 * A timer on `clock`'s time: `fire` runs once `ms` milliseconds have passed on
 * it (its jumps included), or in real time, whichever comes first, so a clock
 * that stands still (a frozen test clock) or goes back never holds it past
 * `ms` of real time. Returns a function that cancels it (and lets go of its
 * timer and its listener).
 */
export function clockTimer(clock: () => number, ms: number, fire: () => void): () => void {
  const deadline = clock() + ms;
  const realDeadline = performance.now() + ms;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopListening: (() => void) | undefined;
  const cancel = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    stopListening?.();
    stopListening = undefined;
  };
  const arm = () => {
    if (timer !== undefined) clearTimeout(timer);
    const left = Math.min(deadline - clock(), realDeadline - performance.now());
    if (left <= 0) {
      cancel();
      fire();
      return;
    }
    timer = setTimeout(arm, left);
  };
  stopListening = advanceSubscriber(clock)?.(arm);
  arm();
  return cancel;
}
