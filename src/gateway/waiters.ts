/**
 * The callers waiting in `connect()`: each settles on READY or RESUMED, on a
 * failure, after its own timeout, or when its signal aborts.
 *
 * @module
 */

import { GatewayError } from '../errors/index.js';

interface Waiter {
  resolve: () => void;
  reject: (error: Error) => void;
}

/** The pending `connect()` calls. */
export class ConnectWaiters {
  readonly #waiters = new Set<Waiter>();

  /** How many callers are waiting. */
  get size(): number {
    return this.#waiters.size;
  }

  /**
   * Waits for {@link resolveAll} or {@link rejectAll}. After `timeoutMs`, or
   * when `signal` aborts, rejects this caller alone and then calls `onGiveUp`.
   */
  wait(timeoutMs: number, signal: AbortSignal | undefined, timeoutError: () => Error, onGiveUp: () => void): Promise<void> {
    if (signal?.aborted) return Promise.reject(new GatewayError('connect() was aborted', undefined, { cause: signal.reason }));
    return new Promise<void>((resolve, reject) => {
      const settle = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.#waiters.delete(waiter);
      };
      const waiter: Waiter = {
        resolve: () => {
          settle();
          resolve();
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      };
      const giveUp = (error: Error) => {
        waiter.reject(error);
        onGiveUp();
      };
      const onAbort = () => giveUp(new GatewayError('connect() was aborted', undefined, { cause: signal?.reason }));
      const timer = setTimeout(() => giveUp(timeoutError()), timeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters.add(waiter);
    });
  }

  /** Resolves every waiter. */
  resolveAll(): void {
    for (const waiter of [...this.#waiters]) waiter.resolve();
  }

  /** Rejects every waiter. */
  rejectAll(error: Error): void {
    for (const waiter of [...this.#waiters]) waiter.reject(error);
  }
}
