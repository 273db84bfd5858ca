/**
 * The tests' one poll, for what says nothing when it happens (a server's
 * counter, a store written by another process, an external process getting
 * ready). Anything that emits an event is waited for through the event.
 *
 * It runs on the real timers and clock, taken when this module loads, so it
 * also lets real I/O progress while a test fakes timers (and gives up after
 * real time, not fake time).
 */

const realSetTimeout = globalThis.setTimeout;
const realSetImmediate = globalThis.setImmediate;
const realNow = performance.now.bind(performance);

/** Options of {@link until}. */
export interface UntilOptions {
  /** How long to keep polling before failing. @default 5000 */
  timeoutMs?: number;
  /** What is waited for, named in the failure (a function is asked at the failure, to say what was seen instead). @default 'the condition' */
  what?: string | (() => string);
}

/**
 * Polls `check` (sync or async) after each turn of the event loop, and every
 * 5 ms once a turn was not enough, until it returns a truthy value; resolves with
 * that value. Fails after
 * `timeoutMs`, naming `what`.
 */
export async function until<T>(check: () => T | Promise<T>, options: UntilOptions | number = {}): Promise<Exclude<T, false | undefined | null | 0 | ''>> {
  const { timeoutMs = 5000, what = 'the condition' } = typeof options === 'number' ? { timeoutMs: options } : options;
  const started = realNow();
  for (let turn = 0; ; turn++) {
    const value = await check();
    if (value) return value as Exclude<T, false | undefined | null | 0 | ''>;
    if (realNow() - started > timeoutMs) throw new Error(`${typeof what === 'function' ? what() : what} did not happen within ${timeoutMs} ms`);
    await new Promise((resolve) => (turn === 0 ? realSetImmediate(resolve) : realSetTimeout(resolve, 5)));
  }
}
