/**
 * The SDK's one abortable wait: a sleep, or a wait for a promise, that ends
 * at a timeout or when a signal aborts, and always clears its timer and its
 * abort listener, however it ends.
 *
 * @module
 */

/** How a {@link wait} may end early. */
export interface WaitOptions {
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
export function wait<T>(pending: PromiseLike<T>, options?: WaitOptions): Promise<T | undefined>;
export function wait<T>(what: number | PromiseLike<T>, options: WaitOptions = {}): Promise<T | undefined | void> {
  const { signal, onAbort, onTimeout } = options;
  const sleeping = typeof what === 'number';
  const timeoutMs = sleeping ? what : options.timeoutMs;
  if (signal?.aborted) return Promise.reject(onAbort ? onAbort(signal.reason) : signal.reason);
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
 * Runs tasks one after another per key: a task starts once every earlier
 * task of its key has settled (whatever its outcome), and the key is
 * forgotten once its queue is empty, so idle keys hold no memory.
 */
export class KeyedQueue<K> {
  readonly #tails = new Map<K, Promise<void>>();

  /** Runs `task` after the earlier tasks of `key`; settles as `task` does. */
  run<T>(key: K, task: () => Promise<T>): Promise<T> {
    const result = (this.#tails.get(key) ?? Promise.resolve()).then(task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return result;
  }

  /** How many keys have a task queued or running. */
  get size(): number {
    return this.#tails.size;
  }
}
