/**
 * The Identify throttle shared through Redis: every process and host using
 * one Redis (and prefix) takes its Identify turns from the same buckets.
 * Each attempt is one atomic Lua step on Redis `TIME`, so the hosts' clocks
 * never matter.
 *
 * Keys under the prefix `P`: `P<maxConcurrency>:<bucket>` holds the Redis
 * time (ms) of the bucket's last turn, and expires with its interval.
 *
 * @module
 */

import { DEFAULT_IDENTIFY_INTERVAL_MS, identifyBucket, sleepUnlessAborted, type IdentifyRequest, type IdentifyThrottle } from '../gateway/identify-throttle.js';
import { KeyedQueue } from '../core/wait.js';
import { GatewayError } from '../errors/index.js';
import { clampNumber, optionNames } from '../core/bounds.js';
import {
  checkStoreOptions,
  RedisScript,
  replicated,
  withinTime,
  type RedisClientLike,
  type ReplicaAcknowledgement,
  type StoreFailure,
  DEFAULT_COMMAND_TIMEOUT_MS,
} from './connection.js';

/** The throttle's failure names it (not the rate-limit store, whose advice would not apply). */
const throttleFailure: StoreFailure = (detail, cause) =>
  new GatewayError(`The Identify throttle (Redis) failed: ${detail}`, undefined, cause === undefined ? undefined : { cause });

/** Options of {@link createRedisIdentifyThrottle}. */
export interface RedisIdentifyThrottleOptions {
  /** A connected node-redis v6 client, or anything with `isReady` and `sendCommand`. */
  client: RedisClientLike;
  /** Prefix of the keys; processes share turns when they share Redis and prefix (use one prefix per bot token). @default "ccsdk:gw:identify:" */
  prefix?: string | undefined;
  /** Time between two Identify of one bucket, milliseconds. @default 5500 (Discord's 5 s plus 500 ms) */
  intervalMs?: number | undefined;
  /** Longest pause between two attempts while another process holds the bucket. @default 1000 */
  pollMs?: number | undefined;
  /** How long a Redis command may take before the wait fails (the shard then reconnects and asks again). @default 2000 */
  commandTimeoutMs?: number | undefined;
  /**
   * Replicas that must hold a turn before the shard identifies. A turn they
   * did not acknowledge in time is not used: the shard waits a whole
   * interval and asks again, so a failover cannot let the next Identify go
   * early. @default undefined (rely on the master alone)
   */
  waitForReplicas?: ReplicaAcknowledgement | undefined;
}

/** The names of every {@link RedisIdentifyThrottleOptions} option. */
const IDENTIFY_THROTTLE_OPTIONS = optionNames<RedisIdentifyThrottleOptions>({
  ...{ client: true, prefix: true, intervalMs: true, pollMs: true, commandTimeoutMs: true, waitForReplicas: true },
});

/**
 * ARGV: key, interval (ms). Takes the turn and returns 0 when the bucket's
 * last turn is at least an interval old on Redis `TIME`; otherwise returns
 * the milliseconds left.
 */
const IDENTIFY_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local interval = tonumber(ARGV[1])
local last = tonumber(redis.call('GET', KEYS[1]))
-- What the key holds is hostile input: a turn in the future (or not a number) was not written by a throttle; take the turn.
if last and last <= now and now - last < interval then return interval - (now - last) end
redis.call('SET', KEYS[1], now, 'PX', interval)
return 0
`;

/** The Redis Identify throttle. Create it with {@link createRedisIdentifyThrottle}. */
export class RedisIdentifyThrottle implements IdentifyThrottle {
  readonly #client: RedisClientLike;
  readonly #prefix: string;
  readonly #intervalMs: number;
  readonly #pollMs: number;
  readonly #timeoutMs: number;
  readonly #acks: ReplicaAcknowledgement | undefined;
  readonly #script = new RedisScript(IDENTIFY_SCRIPT);
  /** Per bucket, this process's queue: its shards ask Redis one at a time. */
  readonly #queue = new KeyedQueue<string>();

  constructor(options: RedisIdentifyThrottleOptions) {
    checkStoreOptions('createRedisIdentifyThrottle', options, IDENTIFY_THROTTLE_OPTIONS, { intervalMs: {}, pollMs: { min: 1 } });
    this.#client = options.client;
    this.#prefix = options.prefix ?? 'ccsdk:gw:identify:';
    this.#intervalMs = options.intervalMs ?? DEFAULT_IDENTIFY_INTERVAL_MS;
    this.#pollMs = options.pollMs ?? 1000;
    this.#timeoutMs = options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
    this.#acks = options.waitForReplicas;
  }

  /** Resolves once this shard holds its bucket's turn in Redis; rejects with a `GatewayError` naming the Identify throttle when Redis cannot answer, or when `signal` aborts. */
  wait(request: IdentifyRequest): Promise<void> {
    const key = `${this.#prefix}${request.maxConcurrency}:${identifyBucket(request.shardId, request.maxConcurrency)}`;
    return this.#queue.run(key, () => this.#take(key, request.signal));
  }

  async #take(key: string, signal: AbortSignal | undefined): Promise<void> {
    for (;;) {
      if (signal?.aborted) await sleepUnlessAborted(0, signal);
      const reply = await withinTime(this.#client, this.#timeoutMs, () => this.#script.run(this.#client, [key], [String(this.#intervalMs)]), throttleFailure);
      // What Redis answers is bounded: at most an interval; anything but a number waits a poll and asks again.
      const left = clampNumber(reply, 0, this.#intervalMs, this.#pollMs);
      if (left <= 0) {
        if (await withinTime(this.#client, this.#timeoutMs, () => replicated(this.#client, key, this.#acks), throttleFailure)) return;
        // A turn no replica holds yet could be lost to a failover, and the next shard's Identify would go early: not used.
        await sleepUnlessAborted(Math.min(this.#intervalMs, this.#pollMs), signal);
        continue;
      }
      await sleepUnlessAborted(Math.min(left, this.#pollMs), signal);
    }
  }
}

/**
 * Creates an Identify throttle shared through Redis: pass it as
 * `gateway.identifyThrottle` in every process running shards of one bot.
 *
 * @example
 * ```ts
 * const redis = await createClient({ url: process.env.REDIS_URL }).connect();
 * const client = new Client({
 *   auth: { botToken },
 *   gateway: { shards: [0, 1], shardCount: 4, identifyThrottle: createRedisIdentifyThrottle({ client: redis }) },
 * });
 * ```
 */
export function createRedisIdentifyThrottle(options: RedisIdentifyThrottleOptions): RedisIdentifyThrottle {
  return new RedisIdentifyThrottle(options);
}
