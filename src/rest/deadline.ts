/**
 * Time limits of a call: the per-attempt timeout (one shared coarse timer for
 * every attempt in flight), the overall deadline of a call, and the link of
 * both to the caller's `AbortSignal`.
 *
 * @module
 */

import { wait } from '../core/wait.js';
import { AttemptSignal } from './transport.js';

/**
 * Subscribes to a caller's signal through one native listener per signal, so
 * that any number of concurrent calls sharing one `AbortSignal` add one
 * listener to it (no `MaxListenersExceededWarning`), each removed when its
 * call ends. Returns the unsubscribe function.
 */
function onAbort(signal: AbortSignal, listener: () => void): () => void {
  let subscribers = fanOut.get(signal);
  if (subscribers === undefined) {
    const set = new Set<() => void>();
    subscribers = set;
    const dispatch = (): void => {
      fanOut.delete(signal);
      for (const subscriber of [...set]) subscriber();
    };
    fanOutListener.set(signal, dispatch);
    fanOut.set(signal, set);
    signal.addEventListener('abort', dispatch, { once: true });
  }
  subscribers.add(listener);
  const set = subscribers;
  return () => {
    if (!set.delete(listener) || set.size > 0) return;
    fanOut.delete(signal);
    const dispatch = fanOutListener.get(signal);
    fanOutListener.delete(signal);
    if (dispatch) signal.removeEventListener('abort', dispatch);
  };
}

const fanOut = new WeakMap<AbortSignal, Set<() => void>>();
const fanOutListener = new WeakMap<AbortSignal, () => void>();

/** The abort reason used when a call's overall deadline passes. */
export class DeadlineReached extends Error {
  constructor() {
    super('deadline reached');
  }
}

/**
 * The overall deadline of one call, and the signal every wait of the call
 * (queue, rate limit, session refresh, backoff) listens to: it fires at the
 * deadline or when the caller aborts. The signal and its timer are created
 * only when the call first has to wait.
 */
export class CallDeadline {
  /** When the call must have settled, on the client's clock. */
  readonly at: number;
  /** The deadline's length, for error messages. */
  readonly budgetMs: number;
  /** Whether the deadline has passed (set by whichever timer noticed first). */
  hit = false;
  readonly #now: () => number;
  readonly #caller: AbortSignal | undefined;
  #signal: AbortSignal | undefined;
  #dispose: (() => void) | undefined;

  constructor(now: () => number, budgetMs: number, caller: AbortSignal | undefined) {
    this.#now = now;
    this.budgetMs = budgetMs;
    this.at = now() + budgetMs;
    this.#caller = caller;
  }

  /** Milliseconds left, never negative. */
  remaining(): number {
    return Math.max(0, this.at - this.#now());
  }

  /** Fires at the deadline (reason {@link DeadlineReached}) or on the caller's abort (its reason). */
  get signal(): AbortSignal {
    if (this.#signal) return this.#signal;
    const controller = new AbortController();
    const timer = setTimeout(() => {
      this.hit = true;
      controller.abort(new DeadlineReached());
    }, this.remaining());
    const caller = this.#caller;
    const unsubscribe = caller ? onAbort(caller, () => controller.abort(caller.reason)) : undefined;
    if (caller?.aborted) controller.abort(caller.reason);
    this.#dispose = () => {
      clearTimeout(timer);
      unsubscribe?.();
    };
    this.#signal = controller.signal;
    return controller.signal;
  }

  /** Settles with `pending`, or rejects with the signal's reason when the deadline passes or the caller aborts first. */
  race<V>(pending: Promise<V>): Promise<V> {
    return wait(pending, { signal: this.signal });
  }

  /** Clears the timer and the caller link. */
  dispose(): void {
    this.#dispose?.();
    this.#dispose = undefined;
  }
}

/**
 * One shared, coarse timer for every attempt in flight: an interval of
 * {@link ATTEMPT_TIMER_RESOLUTION_MS} that runs only while attempts are
 * pending. A `setTimeout` per request costs more CPU than the rest of the
 * SDK's per-request work; timeouts fire at most one resolution late.
 */
const ATTEMPT_TIMER_RESOLUTION_MS = 10;

class AttemptTimers {
  readonly #pending = new Set<AttemptTimer>();
  #interval: ReturnType<typeof setInterval> | undefined;

  add(attempt: AttemptTimer): void {
    this.#pending.add(attempt);
    if (this.#interval === undefined) {
      this.#interval = setInterval(() => this.#tick(), ATTEMPT_TIMER_RESOLUTION_MS);
      // The request's own socket keeps the process alive; the timer must not.
      this.#interval.unref?.();
    }
  }

  delete(attempt: AttemptTimer): void {
    this.#pending.delete(attempt);
  }

  #tick(): void {
    // Stopped lazily, by a tick that finds nothing pending, so a client doing one request at a time
    // does not create and clear an interval per request.
    if (this.#pending.size === 0 && this.#interval !== undefined) {
      clearInterval(this.#interval);
      this.#interval = undefined;
      return;
    }
    for (const attempt of this.#pending) {
      if (attempt.expiresAt <= attempt.now()) {
        this.delete(attempt);
        attempt.expire();
      }
    }
  }
}

const attemptTimers = new AttemptTimers();

/** One attempt's timeout and abort signal, linked to the caller's signal. No closures are allocated per attempt. */
export class AttemptTimer {
  /** Aborts the attempt's request and its body. */
  readonly signal = new AttemptSignal();
  /** Whether the attempt's own timeout fired. */
  timedOut = false;
  /** When the attempt times out, on the client's clock. */
  readonly expiresAt: number;
  /** The client's clock. */
  readonly now: () => number;
  readonly #deadline: CallDeadline;
  readonly #unsubscribe: (() => void) | undefined;

  constructor(deadline: CallDeadline, timeoutMs: number, caller: AbortSignal | undefined, now: () => number) {
    this.#deadline = deadline;
    this.now = now;
    this.expiresAt = now() + Math.max(0, Math.min(timeoutMs, deadline.at - now()));
    attemptTimers.add(this);
    this.#unsubscribe = caller ? onAbort(caller, () => this.signal.abort(caller.reason)) : undefined;
  }

  /** Called by the shared timer when the attempt's time is up. */
  expire(): void {
    this.timedOut = true;
    if (this.#deadline.at <= this.now()) this.#deadline.hit = true;
    this.signal.abort();
  }

  /** Stops the timeout and the caller link. */
  stop(): void {
    attemptTimers.delete(this);
    this.#unsubscribe?.();
  }
}
