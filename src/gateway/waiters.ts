/**
 * The callers waiting in `connect()`: each settles on READY or RESUMED, on a
 * failure, after its own timeout, or when its signal aborts.
 *
 * @module
 */

import { GatewayError } from '../errors/index.js';
import { wait } from '../core/wait.js';

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
    const aborted = (reason: unknown) => new GatewayError('connect() was aborted', undefined, { cause: reason });
    if (signal?.aborted) return Promise.reject(aborted(signal.reason));
    let settled = false;
    let waiter!: Waiter;
    const told = new Promise<void>((resolve, reject) => {
      waiter = {
        resolve: () => {
          settled = true;
          resolve();
        },
        reject: (error) => {
          settled = true;
          reject(error);
        },
      };
    });
    this.#waiters.add(waiter);
    // The one abortable wait ends it at the timeout or the signal: then this caller gives up alone.
    return wait(told, { signal, timeoutMs, onTimeout: timeoutError, onAbort: aborted }).then(
      () => {
        this.#waiters.delete(waiter);
      },
      (error: unknown) => {
        this.#waiters.delete(waiter);
        if (!settled) onGiveUp();
        throw error;
      },
    );
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
