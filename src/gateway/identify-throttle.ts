/**
 * Identify pacing (Discord's session start rule): shard `id` identifies in
 * bucket `id % max_concurrency`, and each bucket admits one Identify per
 * interval. The in-memory throttle paces the shards of one process; the
 * Redis one (`community-chat-sdk/redis`) paces every process sharing it.
 *
 * @module
 */

import { GatewayError } from '../errors/index.js';
import { KeyedQueue, wait } from '../core/wait.js';
import { checkDuration, optionNames, refuseUnknownOptions } from '../core/bounds.js';

/** Discord's minimum time between two Identify of one concurrency bucket. */
const DISCORD_IDENTIFY_INTERVAL_MS = 5000;

/**
 * The interval the throttles keep by default: Discord's 5 s plus 500 ms, so
 * that the time between a permission and the Identify's arrival at the
 * service (event loop, network) never makes two Identify look closer than 5 s.
 */
export const DEFAULT_IDENTIFY_INTERVAL_MS = DISCORD_IDENTIFY_INTERVAL_MS + 500;

/** What a shard asks the throttle for. */
export interface IdentifyRequest {
  /** The shard about to identify (0 without sharding). */
  shardId: number;
  /** The total number of shards (1 without sharding). */
  shardCount: number;
  /** `session_start_limit.max_concurrency`: the number of buckets. */
  maxConcurrency: number;
  /** Stops waiting: the promise rejects and no turn is taken. @default undefined */
  signal?: AbortSignal | undefined;
}

/**
 * Paces Identify. `wait()` resolves when the shard may send its Identify now,
 * and counts that turn: the next shard of the same bucket waits a full
 * interval from then.
 */
export interface IdentifyThrottle {
  /** Resolves when the shard may identify; rejects when `signal` aborts or the throttle cannot answer. */
  wait(request: IdentifyRequest): Promise<void>;
}

/** The concurrency bucket of a shard: `shardId % maxConcurrency`. */
export function identifyBucket(shardId: number, maxConcurrency: number): number {
  return shardId % Math.max(1, Math.floor(maxConcurrency));
}

/** Resolves after `ms`, or rejects when `signal` aborts. */
export function sleepUnlessAborted(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return wait(ms, { signal, onAbort: () => abortError(signal) });
}

function abortError(signal: AbortSignal | undefined): GatewayError {
  return new GatewayError('the wait for an Identify turn was aborted', undefined, { cause: signal?.reason });
}

/** Options of {@link MemoryIdentifyThrottle}. */
export interface MemoryIdentifyThrottleOptions {
  /** Time between two Identify of one bucket, milliseconds. @default 5500 (Discord's 5 s plus 500 ms) */
  intervalMs?: number | undefined;
  /** The clock. @default Date.now */
  clock?: (() => number) | undefined;
}

/** The names of every {@link MemoryIdentifyThrottleOptions} option. */
const MEMORY_THROTTLE_OPTIONS = optionNames<MemoryIdentifyThrottleOptions>({ intervalMs: true, clock: true });

/**
 * The in-memory Identify throttle (the Gateway's default): one Identify per bucket per `intervalMs` in this process (every
 * thread of it, when the shards run in workers). Turns are first come, first served per bucket.
 */
export class MemoryIdentifyThrottle implements IdentifyThrottle {
  readonly #intervalMs: number;
  readonly #now: () => number;
  /** Per bucket: when its next turn may start. */
  readonly #next = new Map<number, number>();
  /** Per bucket: its shards, one at a time. */
  readonly #queue = new KeyedQueue<number>();

  /** Refuses an unknown option (`now` is now `clock`) and an `intervalMs` past 2^31 - 1 ms with a `ValidationError`. */
  constructor(options: MemoryIdentifyThrottleOptions = {}) {
    refuseUnknownOptions('MemoryIdentifyThrottle', options, MEMORY_THROTTLE_OPTIONS, { now: 'clock' });
    this.#intervalMs = checkDuration('MemoryIdentifyThrottle', 'intervalMs', options.intervalMs) ?? DEFAULT_IDENTIFY_INTERVAL_MS;
    this.#now = options.clock ?? Date.now;
  }

  wait(request: IdentifyRequest): Promise<void> {
    const { signal } = request;
    if (signal?.aborted) return Promise.reject(abortError(signal));
    const bucket = identifyBucket(request.shardId, request.maxConcurrency);
    return this.#queue.run(bucket, async () => {
      // Whoever gave up while queued takes no turn.
      if (signal?.aborted) throw abortError(signal);
      const delay = (this.#next.get(bucket) ?? 0) - this.#now();
      if (delay > 0) await sleepUnlessAborted(delay, signal);
      this.#next.set(bucket, this.#now() + this.#intervalMs);
    });
  }
}
