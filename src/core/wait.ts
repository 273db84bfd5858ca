/**
 * The SDK's one abortable wait: a sleep, or a wait for a promise, that ends
 * at a timeout or when a signal aborts, and always clears its timer and its
 * abort listener, however it ends.
 *
 * @module
 */

/** How a {@link wait} may end early. */
interface WaitOptions {
  /** Stops waiting when it aborts. @default undefined */
  readonly signal?: AbortSignal | undefined;
  /** The rejection when `signal` aborts. @default the signal's reason */
  readonly onAbort?: ((reason: unknown) => unknown) | undefined;
  /** Stops waiting after this many milliseconds. @default undefined (no timeout; for a sleep, the first argument) */
  readonly timeoutMs?: number | undefined;
  /** The rejection at the timeout. @default undefined (the timeout resolves: a sleep) */
  readonly onTimeout?: (() => unknown) | undefined;
}

/**
 * `wait(ms, options)` sleeps `ms` milliseconds; `wait(promise, options)`
 * waits for `promise`, at most `options.timeoutMs` (rejecting with
 * `onTimeout()`; resolving `undefined` without it). Either rejects with
 * `onAbort(reason)` (the reason itself by default) once `options.signal`
 * aborts, at once when it already has.
 */
export function wait(ms: number, options?: WaitOptions): Promise<void>;
export function wait<T>(pending: PromiseLike<T>, options: WaitOptions & { onTimeout: () => unknown }): Promise<T>;
export function wait<T>(pending: PromiseLike<T>, options: WaitOptions & { timeoutMs?: undefined }): Promise<T>;
export function wait<T>(pending: PromiseLike<T>, options?: WaitOptions): Promise<T | undefined>;
export function wait<T>(what: number | PromiseLike<T>, options: WaitOptions = {}): Promise<T | undefined | void> {
  const { signal, onAbort, onTimeout } = options;
  const sleeping = typeof what === 'number';
  const timeoutMs = sleeping ? what : options.timeoutMs;
  if (signal?.aborted) {
    // The promise it waited for is awaited by no one now: it must not end as an unhandled rejection.
    if (!sleeping) what.then(undefined, () => undefined);
    return Promise.reject(onAbort ? onAbort(signal.reason) : signal.reason);
  }
  if (!sleeping && signal === undefined && timeoutMs === undefined) return Promise.resolve(what);
  return new Promise<T | undefined | void>((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const settle = (finish: () => void): void => {
      if (timer !== undefined) clearTimeout(timer);
      signal?.removeEventListener('abort', aborted);
      finish();
    };
    const aborted = (): void => settle(() => reject(onAbort ? onAbort(signal?.reason) : signal?.reason));
    if (timeoutMs !== undefined) {
      timer = setTimeout(() => settle(() => (onTimeout === undefined ? resolve(undefined) : reject(onTimeout()))), Math.max(0, timeoutMs));
    }
    signal?.addEventListener('abort', aborted, { once: true });
    if (!sleeping) {
      what.then(
        (value) => settle(() => resolve(value)),
        (error: unknown) => settle(() => reject(error)),
      );
    }
  });
}

/**
 * A queue of tasks run one after another: a promise chain rather than a
 * queue object, so that an idle one costs two fields.
 */
export interface Turns {
  /** Settles when the last task queued so far has finished. */
  tail: Promise<void>;
  /** Tasks queued or running. */
  queued: number;
  /** Told each time the lane becomes idle (its last task settled, or its last waiter aborted and handed its turn on). */
  idle?: (() => void) | undefined;
}

/** An already settled promise: the tail of an idle lane. */
export const RESOLVED: Promise<void> = Promise.resolve();

/** One task left the lane; the last one out leaves the shared settled promise, so an idle lane holds nothing of its run. */
function leave(lane: Turns): void {
  if (--lane.queued > 0) return;
  lane.tail = RESOLVED;
  lane.idle?.();
}

/** Starts `task`: a task that throws instead of returning a promise rejects like one, so its turn still ends. */
function start<T>(task: () => Promise<T>): Promise<T> {
  try {
    return task();
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * Runs `task` once every earlier task of the lane has finished. A task whose
 * signal aborts while it waits rejects at once, and hands its turn on when
 * the task before it finishes, so the order of the others holds. Never
 * throws: a task that throws synchronously rejects, and its turn ends.
 */
export function runInTurn<T>(lane: Turns, task: () => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (lane.queued === 0) {
    // Nothing queued: every earlier task has finished, so this one starts now, and the lane's tail
    // is its settling (no promise or closure of the lane's own: this is every webhook's usual case).
    if (signal?.aborted) return Promise.reject(signal.reason);
    lane.queued = 1;
    const result = start(task);
    const settled = (): void => leave(lane);
    lane.tail = result.then(settled, settled);
    return result;
  }
  const previous = lane.tail;
  let finish!: () => void;
  lane.tail = new Promise<void>((resolve) => {
    finish = resolve;
  });
  lane.queued++;
  const done = (): void => {
    leave(lane);
    finish();
  };
  const run = (): Promise<T> => {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return task();
  };
  if (signal === undefined) {
    const result = previous.then(run);
    result.then(done, done);
    return result;
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => {
      reject(signal.reason);
      // Hand the turn on only after the task before this one has finished.
      void previous.then(done);
    };
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    void previous.then(() => {
      if (signal.aborted) return;
      signal.removeEventListener('abort', onAbort);
      const result = start(task);
      result.then(done, done);
      result.then(resolve, reject);
    });
  });
}

/**
 * Runs tasks one after another per key (with {@link runInTurn}): a task
 * starts once every earlier task of its key has settled, whatever its
 * outcome; one whose signal aborts while it waits rejects at once and keeps
 * the order of the others. A key is forgotten as soon as its lane is idle
 * (its tasks settled, its aborted waiters' turns handed on), so idle keys
 * hold no memory.
 */
export class KeyedQueue<K> {
  readonly #lanes = new Map<K, Turns>();

  /** Runs `task` after the earlier tasks of `key`; settles as `task` does (or rejects with the signal's reason when it aborts first). */
  run<T>(key: K, task: () => Promise<T>, signal?: AbortSignal | undefined): Promise<T> {
    let lane = this.#lanes.get(key);
    if (lane === undefined) {
      const created: Turns = { tail: RESOLVED, queued: 0 };
      created.idle = () => {
        if (this.#lanes.get(key) === created) this.#lanes.delete(key);
      };
      this.#lanes.set(key, created);
      lane = created;
    }
    const result = runInTurn(lane, task, signal);
    // Refused at once (its signal already aborted) on a lane with nothing else: it never held a turn.
    if (lane.queued === 0) lane.idle?.();
    return result;
  }

  /** How many keys have a task queued or running. */
  get size(): number {
    return this.#lanes.size;
  }
}
