/**
 * Waiting for an emitter's typed event, the way a test waits for something
 * that says when it happens (`until` is for what says nothing).
 */

import type { EventEmitter } from 'eventemitter3';

// Real timers, taken when this module loads: a test that fakes timers still fails on real time.
const realSetTimeout = globalThis.setTimeout;
const realClearTimeout = globalThis.clearTimeout;

/** Options of {@link nextEvent}. */
export interface NextEventOptions<A extends unknown[]> {
  /** Only an event for which this holds counts. @default every event of the name */
  match?: (...args: A) => boolean;
  /** How long to wait before failing. @default 5000 */
  timeoutMs?: number;
  /** What is waited for, named in the failure (a function is asked at the failure, to say what was seen instead). @default the event's name */
  what?: string | (() => string);
}

/**
 * Resolves with the arguments of the next `name` event of `emitter` that
 * `match` accepts (listening from this call on); fails after `timeoutMs`,
 * naming `what`. Its listener and timer are gone once it settles.
 */
export function nextEvent<E extends EventEmitter.ValidEventTypes, K extends EventEmitter.EventNames<E>>(
  emitter: EventEmitter<E>,
  name: K,
  options: NextEventOptions<EventEmitter.EventArgs<E, K>> = {},
): Promise<EventEmitter.EventArgs<E, K>> {
  const { match, timeoutMs = 5000, what = `a '${String(name)}' event` } = options;
  return new Promise((resolve, reject) => {
    const listener = ((...args: EventEmitter.EventArgs<E, K>) => {
      if (match !== undefined && !match(...args)) return;
      realClearTimeout(timer);
      emitter.off(name, listener);
      resolve(args);
    }) as EventEmitter.EventListener<E, K>;
    const timer = realSetTimeout(() => {
      emitter.off(name, listener);
      reject(new Error(`${typeof what === 'function' ? what() : what} did not happen within ${timeoutMs} ms`));
    }, timeoutMs);
    emitter.on(name, listener);
  });
}
