/**
 * Where a receiver remembers what it has already accepted, so that a replayed
 * request or a retried delivery is not handled twice. The default is in
 * memory and bounded; a shared store (Redis) implements the same interface
 * for several instances behind a load balancer.
 *
 * @module
 */

import { ReplayStoreFullError, ValidationError } from '../errors/index.js';
import { optionNames, refuseUnknownOptions } from '../core/bounds.js';

/**
 * Remembers keys for a while. `claim` must be atomic across every instance
 * that shares the store (Redis: `SET key 1 NX PX ttlMs`).
 */
export interface ReplayStore {
  /**
   * Claims `key` for `ttlMs` milliseconds: resolves `true` if it was free
   * (now claimed), `false` if it was already claimed and has not expired.
   */
  claim(key: string, ttlMs: number): Promise<boolean> | boolean;
}

/** Options of {@link MemoryReplayStore}. */
export interface MemoryReplayStoreOptions {
  /**
   * Most keys kept at once. A key is never forgotten before its time to live
   * (forgetting it would let a captured delivery be replayed), so when every
   * key is still live a new claim fails and the receiver answers 503, which
   * the sender retries later. @default 100000
   */
  maxEntries?: number | undefined;
  /** The clock, epoch milliseconds. @default Date.now */
  clock?: (() => number) | undefined;
}

/** The names of every {@link MemoryReplayStore} option. */
const MEMORY_REPLAY_STORE_OPTIONS = optionNames<MemoryReplayStoreOptions>({ maxEntries: true, clock: true });

/**
 * The default replay store: a map in this process, bounded by `maxEntries`
 * and by each key's time to live; a key is never forgotten while it lives.
 * Instances behind a load balancer do not share it: use a shared store there.
 */
export class MemoryReplayStore implements ReplayStore {
  /** Key → when it expires; insertion order is claim order. */
  readonly #entries = new Map<string, number>();
  readonly #maxEntries: number;
  readonly #now: () => number;

  /** Refuses an unknown option (`now` is now `clock`) and a `maxEntries` that is not a whole number of at least 1 with a `ValidationError`. */
  constructor(options: MemoryReplayStoreOptions = {}) {
    refuseUnknownOptions('MemoryReplayStore', options, MEMORY_REPLAY_STORE_OPTIONS, { now: 'clock' });
    const maxEntries = options.maxEntries ?? 100_000;
    if (!Number.isInteger(maxEntries) || maxEntries < 1)
      throw new ValidationError('MemoryReplayStore', [{ path: 'maxEntries', message: 'must be a whole number of at least 1' }]);
    this.#maxEntries = maxEntries;
    this.#now = options.clock ?? Date.now;
  }

  /** How many keys are remembered now. */
  get size(): number {
    const now = this.#now();
    for (const [key, expires] of this.#entries) if (expires <= now) this.#entries.delete(key);
    return this.#entries.size;
  }

  /** Claims `key` for `ttlMs`; `false` if it is already claimed. Synchronous, so two claims cannot interleave. */
  claim(key: string, ttlMs: number): boolean {
    const now = this.#now();
    this.#prune(now);
    const until = this.#entries.get(key);
    if (until !== undefined && until > now) return false;
    if (until === undefined && this.#entries.size >= this.#maxEntries) {
      // Keys of different lifetimes interleave, so an expired one may sit behind a live one: look at them all before refusing.
      for (const [other, expires] of this.#entries) if (expires <= now) this.#entries.delete(other);
      if (this.#entries.size >= this.#maxEntries) throw new ReplayStoreFullError(this.#maxEntries);
    }
    this.#entries.delete(key);
    this.#entries.set(key, now + ttlMs);
    return true;
  }

  /** Drops expired keys from the front, cheaply (a full look happens only when the store is full). */
  #prune(now: number): void {
    for (const [key, until] of this.#entries) {
      if (until > now) break;
      this.#entries.delete(key);
    }
  }
}
