/**
 * The webhook receiver's replay store shared through Redis: one atomic
 * `SET key 1 NX PX ttl` per claim, so receivers in several processes (behind
 * a load balancer) handle each delivery once and refuse each replay.
 *
 * @module
 */

import { randomBytes } from 'node:crypto';
import type { ReplayStore } from '../receive/replay-store.js';
import { RedisScript, sendCommand, withinTime, type RedisClientLike, DEFAULT_COMMAND_TIMEOUT_MS } from './connection.js';

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
}

/** The Redis replay store. Create it with {@link createRedisReplayStore}. */
export class RedisReplayStore implements ReplayStore {
  readonly #client: RedisClientLike;
  readonly #prefix: string;
  readonly #timeoutMs: number;

  constructor(options: RedisReplayStoreOptions) {
    this.#client = options.client;
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
      return reply === 'OK';
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
