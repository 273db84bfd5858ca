/**
 * The webhook receiver's replay store shared through Redis: one atomic
 * `SET key 1 NX PX ttl` per claim, so receivers in several processes (behind
 * a load balancer) handle each delivery once and refuse each replay.
 *
 * @module
 */

import { randomBytes } from 'node:crypto';
import { RateLimitStoreError } from '../errors/index.js';
import { optionNames } from '../core/bounds.js';
import type { ReplayStore } from '../receive/replay-store.js';
import {
  RedisScript,
  replicated,
  sendCommand,
  withinTime,
  type RedisClientLike,
  type ReplicaAcknowledgement,
  DEFAULT_COMMAND_TIMEOUT_MS,
  checkStoreOptions,
} from './connection.js';

/** Deletes a claim only if it is still the one this process wrote (its owner value). */
const ABANDON = new RedisScript(`if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`);

/** Options of {@link createRedisReplayStore}. */
export interface RedisReplayStoreOptions {
  /** A connected node-redis v6 client, or anything with `isReady` and `sendCommand`. */
  client: RedisClientLike;
  /** Prefix of every key: `<prefix>delivery:<id>`, `<prefix>signed:<id>:<signing time>` and `<prefix>interaction:<id>`. @default 'ccsdk:replay:' */
  prefix?: string | undefined;
  /** How long a Redis command may take. @default 2000 */
  commandTimeoutMs?: number | undefined;
  /**
   * Replicas that must hold a claim before the delivery is handled. A claim
   * they did not acknowledge in time is given back and the receiver answers
   * 503 (the sender retries), so a failover cannot lose a claim whose
   * delivery was handled. @default undefined (rely on the master alone)
   */
  waitForReplicas?: ReplicaAcknowledgement | undefined;
}

/** The names of every {@link RedisReplayStoreOptions} option. */
const REPLAY_STORE_OPTIONS = optionNames<RedisReplayStoreOptions>({ client: true, prefix: true, commandTimeoutMs: true, waitForReplicas: true });

/** The Redis replay store. Create it with {@link createRedisReplayStore}. */
export class RedisReplayStore implements ReplayStore {
  readonly #client: RedisClientLike;
  readonly #prefix: string;
  readonly #timeoutMs: number;
  readonly #acks: ReplicaAcknowledgement | undefined;

  constructor(options: RedisReplayStoreOptions) {
    checkStoreOptions('createRedisReplayStore', options, REPLAY_STORE_OPTIONS);
    this.#client = options.client;
    this.#acks = options.waitForReplicas;
    this.#prefix = options.prefix ?? 'ccsdk:replay:';
    this.#timeoutMs = options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
  }

  /**
   * Claims `key` for `ttlMs` (`SET NX PX`, atomic across processes): `true` if
   * it was free. Rejects with a `RateLimitStoreError` when the client is not
   * connected or Redis does not answer in time; the receiver answers 503.
   */
  async claim(key: string, ttlMs: number): Promise<boolean> {
    const ttl = String(Math.max(1, Math.ceil(ttlMs)));
    const full = `${this.#prefix}${key}`;
    // Each claim writes its own owner value, so one given up on can be told apart from every other.
    const owner = randomBytes(9).toString('base64url');
    try {
      const reply = await withinTime(this.#client, this.#timeoutMs, () => sendCommand(this.#client, full, ['SET', full, owner, 'NX', 'PX', ttl]));
      if (reply !== 'OK') return false;
      if (await withinTime(this.#client, this.#timeoutMs, () => replicated(this.#client, full, this.#acks))) return true;
      // No replica holds the claim yet: a failover could lose it after the delivery was handled. Given back before answering 503.
      await withinTime(this.#client, this.#timeoutMs, () => ABANDON.run(this.#client, [full], [owner]));
      throw new RateLimitStoreError(`the claim was not acknowledged by ${this.#acks?.replicas} replica(s) in time; given back`);
    } catch (error) {
      // Given up on locally, the SET may still run when Redis answers (a stalled server): the receiver answered 503, so a claim
      // left behind would turn the sender's retry into a "duplicate" never handled. Undo it, queued behind it on the same connection.
      if (this.#client.isReady) void ABANDON.run(this.#client, [full], [owner]).catch(() => undefined);
      throw error;
    }
  }
}

/**
 * Creates a replay store shared through Redis: pass it as the receiver's
 * `replayStore` in every process that receives the same webhook.
 *
 * @example
 * ```ts
 * const receiver = createWebhookReceiver({ secret, replayStore: createRedisReplayStore({ client: redis }) });
 * ```
 */
export function createRedisReplayStore(options: RedisReplayStoreOptions): RedisReplayStore {
  return new RedisReplayStore(options);
}
