/**
 * Gateway sessions shared through Redis: one key per shard
 * (`<prefix><shardId>/<shardCount>`, JSON `{ sessionId, sequence, resumeUrl }`),
 * so that a shard restarted in another process or host resumes it.
 *
 * @module
 */

import { isSessionRecord, type GatewaySessionRecord, type GatewaySessionStore } from '../gateway/gateway-session-store.js';
import { checkStoreOptions, RedisScript, sendCommand, sessionFailure, withinTime, type RedisClientLike, DEFAULT_COMMAND_TIMEOUT_MS } from './connection.js';
import { optionNames } from '../core/bounds.js';

/**
 * A fleet member's write-back of a kept session (see `GatewaySessionStore.restore`), one atomic step. KEYS: the shard's key.
 * ARGV: the record's JSON, its fence, the ttl (ms). Keeps a stored record saved under the same or a later fence (or one without a
 * fence, as before fences); anything unreadable (not JSON, not an object, a fence that is not a safe integer) is replaced.
 */
const RESTORE_SCRIPT = new RedisScript(`
local current = redis.call('GET', KEYS[1])
if current then
  local ok, stored = pcall(cjson.decode, current)
  if ok and type(stored) == 'table' then
    local fence = stored['fence']
    if fence == nil then return 0 end
    if type(fence) == 'number' and fence >= 0 and fence <= 9007199254740991 and fence >= tonumber(ARGV[2]) then return 0 end
  end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
return 1
`);

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

  /** Writes a fleet member's kept session back unless the stored one was saved under the same or a later fence (one script). */
  async restore(shardId: number, shardCount: number, record: GatewaySessionRecord): Promise<void> {
    const key = this.#key(shardId, shardCount);
    const text = JSON.stringify(record);
    const ttl = String(this.#ttlMs);
    await withinTime(
      this.#client,
      this.#timeoutMs,
      () =>
        record.fence === undefined
          ? sendCommand(this.#client, key, ['SET', key, text, 'NX', 'PX', ttl])
          : RESTORE_SCRIPT.run(this.#client, [key], [text, String(record.fence), ttl]),
      sessionFailure,
    );
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
