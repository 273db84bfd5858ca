/**
 * Gateway sessions shared through Redis: one key per shard
 * (`<prefix><shardId>/<shardCount>`, JSON `{ sessionId, sequence, resumeUrl }`),
 * so that a shard restarted in another process or host resumes it.
 *
 * @module
 */

import { isSessionRecord, type GatewaySessionRecord, type GatewaySessionStore } from '../gateway/gateway-session-store.js';
import { checkStoreOptions, sendCommand, sessionFailure, withinTime, type RedisClientLike, DEFAULT_COMMAND_TIMEOUT_MS } from './connection.js';
import { optionNames } from '../core/bounds.js';

/** Options of {@link createRedisGatewaySessionStore}. */
export interface RedisGatewaySessionStoreOptions {
  /** A connected node-redis v6 client, or anything with `isReady` and `sendCommand`. */
  client: RedisClientLike;
  /** Prefix of the keys (use one prefix per bot token). @default "ccsdk:gw:session:" */
  prefix?: string | undefined;
  /** How long a saved session is kept after its last save: a session older than this cannot be resumed anyway. @default 600000 */
  ttlMs?: number | undefined;
  /** How long a Redis command may take. @default 2000 */
  commandTimeoutMs?: number | undefined;
}

/** The names of every {@link RedisGatewaySessionStoreOptions} option. */
const GATEWAY_SESSION_STORE_OPTIONS = optionNames<RedisGatewaySessionStoreOptions>({ client: true, prefix: true, ttlMs: true, commandTimeoutMs: true });

/** The Redis Gateway session store. Create it with {@link createRedisGatewaySessionStore}. */
export class RedisGatewaySessionStore implements GatewaySessionStore {
  readonly #client: RedisClientLike;
  readonly #prefix: string;
  readonly #ttlMs: number;
  readonly #timeoutMs: number;

  constructor(options: RedisGatewaySessionStoreOptions) {
    checkStoreOptions('createRedisGatewaySessionStore', options, GATEWAY_SESSION_STORE_OPTIONS, { ttlMs: { min: 1 } });
    this.#client = options.client;
    this.#prefix = options.prefix ?? 'ccsdk:gw:session:';
    this.#ttlMs = options.ttlMs ?? 600_000;
    this.#timeoutMs = options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
  }

  /** The saved session of a shard; a value that is not a session record reads as none. */
  async load(shardId: number, shardCount: number): Promise<GatewaySessionRecord | undefined> {
    const text = await this.#run(['GET', this.#key(shardId, shardCount)]);
    if (typeof text !== 'string') return undefined;
    try {
      const value: unknown = JSON.parse(text);
      return isSessionRecord(value) ? value : undefined;
    } catch {
      return undefined;
    }
  }

  /** Saves a shard's session (for `ttlMs`), or deletes it. */
  async save(shardId: number, shardCount: number, record: GatewaySessionRecord | undefined): Promise<void> {
    const key = this.#key(shardId, shardCount);
    await this.#run(record === undefined ? ['DEL', key] : ['SET', key, JSON.stringify(record), 'PX', String(this.#ttlMs)]);
  }

  #key(shardId: number, shardCount: number): string {
    return `${this.#prefix}${shardId}/${shardCount}`;
  }

  #run(command: string[]): Promise<unknown> {
    return withinTime(this.#client, this.#timeoutMs, () => sendCommand(this.#client, command[1], command), sessionFailure);
  }
}

/**
 * Creates a Gateway session store shared through Redis: pass it as
 * `gateway.sessionStore`, so that a shard restarted elsewhere resumes its
 * session. The record holds no token.
 */
export function createRedisGatewaySessionStore(options: RedisGatewaySessionStoreOptions): RedisGatewaySessionStore {
  return new RedisGatewaySessionStore(options);
}
