/**
 * Gateway sessions shared through Redis: one key per shard
 * (`<prefix><shardId>/<shardCount>`, JSON `{ sessionId, sequence, resumeUrl }`),
 * so that a shard restarted in another process or host resumes it.
 *
 * @module
 */

import { isSessionRecord, restores, type GatewaySessionRecord, type GatewaySessionStore } from '../gateway/gateway-session-store.js';
import { checkStoreOptions, RedisScript, sendCommand, sessionFailure, withinTime, type RedisClientLike, DEFAULT_COMMAND_TIMEOUT_MS } from './connection.js';
import { optionNames } from '../core/bounds.js';

/**
 * A fleet member's write-back of a kept session (see `GatewaySessionStore.restore`): the record is written only if the key
 * still holds what the decision was made on (compare and set). KEYS: the shard's key. ARGV: the value read ('' for none), the
 * record's JSON, the ttl (ms). Answers 1 when written, 0 when the key changed meanwhile.
 */
const RESTORE_SCRIPT = new RedisScript(`
if (redis.call('GET', KEYS[1]) or '') ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1
`);

/** How many times a write-back reads and decides again when another process changed the key in between. */
const RESTORE_TRIES = 3;

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
    return recordOf(await this.#run(['GET', this.#key(shardId, shardCount)]));
  }

  /** Saves a shard's session (for `ttlMs`), or deletes it. */
  async save(shardId: number, shardCount: number, record: GatewaySessionRecord | undefined): Promise<void> {
    const key = this.#key(shardId, shardCount);
    await this.#run(record === undefined ? ['DEL', key] : ['SET', key, JSON.stringify(record), 'PX', String(this.#ttlMs)]);
  }

  /**
   * Writes a fleet member's kept session back where `restores` says so (none stored, anything `load` does not read as a
   * session, or one saved under an earlier fence), on the value it read: a key changed meanwhile is read and decided again.
   */
  async restore(shardId: number, shardCount: number, record: GatewaySessionRecord): Promise<void> {
    const key = this.#key(shardId, shardCount);
    for (let attempt = 0; attempt < RESTORE_TRIES; attempt++) {
      const text = await this.#run(['GET', key]);
      if (!restores(recordOf(text), record)) return;
      const read = typeof text === 'string' ? text : '';
      const args = [read, JSON.stringify(record), String(this.#ttlMs)];
      const written = await withinTime(this.#client, this.#timeoutMs, () => RESTORE_SCRIPT.run(this.#client, [key], args), sessionFailure);
      if (Number(written) === 1) return;
    }
  }

  #key(shardId: number, shardCount: number): string {
    return `${this.#prefix}${shardId}/${shardCount}`;
  }

  #run(command: string[]): Promise<unknown> {
    return withinTime(this.#client, this.#timeoutMs, () => sendCommand(this.#client, command[1], command), sessionFailure);
  }
}

/** A stored value as `load` reads it: a session record, or `undefined` (none, or anything else). */
function recordOf(text: unknown): GatewaySessionRecord | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return isSessionRecord(value) ? value : undefined;
  } catch {
    return undefined;
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
