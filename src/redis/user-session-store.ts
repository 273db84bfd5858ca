/**
 * A user session shared through Redis: persisted under one key, and
 * refreshed by one process at a time under a lock with an expiry.
 *
 * @module
 */

import { randomBytes } from 'node:crypto';
import type { UserSessionStore } from '../auth/refresher.js';
import { snapshotProblem, type SessionSnapshot } from '../auth/session.js';
import { SessionStoreError } from '../errors/index.js';
import { optionNames } from '../core/bounds.js';
import {
  RedisScript,
  replicated,
  sendCommand,
  sessionFailure,
  withinTime,
  type ReplicaAcknowledgement,
  type RedisClientLike,
  DEFAULT_COMMAND_TIMEOUT_MS,
  checkStoreOptions,
} from './connection.js';

/** Options of {@link createRedisUserSessionStore}. */
export interface RedisUserSessionStoreOptions {
  /** A connected node-redis v6 client, or anything with `isReady` and `sendCommand`. */
  client: RedisClientLike;
  /** The key holding the session (JSON with its secrets: protect Redis accordingly); the lock is `<key>:refresh-lock`. */
  key: string;
  /** How long the refresh lock lasts if its holder dies mid-refresh: keep it above the client's `timeoutMs`. @default 30000 */
  lockMs?: number | undefined;
  /** How long a Redis command may take. @default 2000 */
  commandTimeoutMs?: number | undefined;
  /**
   * Replicas that must hold the refresh lock before this process refreshes.
   * A lock they did not acknowledge in time is released and counts as not
   * taken, so a failover cannot let two processes refresh at once (which
   * would revoke one of the refresh cookies). @default undefined (rely on the master alone)
   */
  waitForReplicas?: ReplicaAcknowledgement | undefined;
}

/** The names of every {@link RedisUserSessionStoreOptions} option. */
const USER_SESSION_STORE_OPTIONS = optionNames<RedisUserSessionStoreOptions>({
  client: true,
  key: true,
  lockMs: true,
  commandTimeoutMs: true,
  waitForReplicas: true,
});

/** Deletes the lock only while this process still holds it. */
const UNLOCK = new RedisScript(`if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`);

/** The Redis session store. Create it with {@link createRedisUserSessionStore}. */
export class RedisUserSessionStore implements UserSessionStore {
  readonly #client: RedisClientLike;
  readonly #key: string;
  readonly #lockKey: string;
  readonly #lockMs: number;
  readonly #timeoutMs: number;
  readonly #owner = randomBytes(12).toString('hex');
  readonly #acks: ReplicaAcknowledgement | undefined;

  constructor(options: RedisUserSessionStoreOptions) {
    checkStoreOptions('createRedisUserSessionStore', options, USER_SESSION_STORE_OPTIONS, { lockMs: { min: 1 } });
    this.#client = options.client;
    this.#key = options.key;
    this.#lockKey = `${options.key}:refresh-lock`;
    this.#lockMs = options.lockMs ?? 30_000;
    this.#acks = options.waitForReplicas;
    this.#timeoutMs = options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
  }

  /**
   * Reads the saved session. What Redis holds is hostile input: a value that
   * is not a session (corrupt JSON, a missing cookie list, a planted value)
   * rejects with a `SessionStoreError` that never quotes it.
   */
  async load(): Promise<SessionSnapshot | undefined> {
    const text = await this.#run(['GET', this.#key]);
    if (text === null || text === undefined) return undefined;
    let parsed: unknown;
    try {
      parsed = typeof text === 'string' ? JSON.parse(text) : undefined;
    } catch {
      throw new SessionStoreError(`the value under ${this.#key} is not JSON (corrupt or planted); it was left as it is`);
    }
    const problem = snapshotProblem(parsed);
    if (problem !== undefined) throw new SessionStoreError(`the value under ${this.#key} is not a session: ${problem}; it was left as it is`);
    return parsed as SessionSnapshot;
  }

  /** Saves the session, or deletes it after logout or expiry. */
  async save(snapshot: SessionSnapshot | undefined): Promise<void> {
    await this.#run(snapshot === undefined ? ['DEL', this.#key] : ['SET', this.#key, JSON.stringify(snapshot)]);
  }

  /** Takes the refresh lock (`SET NX PX`); resolves whether this process holds it. */
  async lockRefresh(): Promise<boolean> {
    try {
      if ((await this.#run(['SET', this.#lockKey, this.#owner, 'NX', 'PX', String(this.#lockMs)])) !== 'OK') return false;
      if (await withinTime(this.#client, this.#timeoutMs, () => replicated(this.#client, this.#lockKey, this.#acks), sessionFailure)) return true;
      // No replica holds the lock yet: a failover could lose it while this process refreshes. Given back, not taken.
      await this.unlockRefresh();
      return false;
    } catch (error) {
      // Given up on locally, the SET may still run when Redis answers (a stalled server) and leave a lock nobody holds for lockMs:
      // release it, queued behind the SET on the same connection (it deletes only this process's lock).
      if (this.#client.isReady) void UNLOCK.run(this.#client, [this.#lockKey], [this.#owner]).catch(() => undefined);
      throw error;
    }
  }

  /** Releases the refresh lock if this process still holds it. */
  async unlockRefresh(): Promise<void> {
    await withinTime(this.#client, this.#timeoutMs, () => UNLOCK.run(this.#client, [this.#lockKey], [this.#owner]), sessionFailure);
  }

  #run(command: string[]): Promise<unknown> {
    return withinTime(this.#client, this.#timeoutMs, () => sendCommand(this.#client, command[1], command), sessionFailure);
  }
}

/**
 * Creates a session store shared through Redis: pass it as the client's
 * `sessionStore`. Every process using the same key shares one session, and
 * only one of them refreshes it at a time.
 *
 * @example
 * ```ts
 * const client = new Client({ sessionStore: createRedisUserSessionStore({ client: redis, key: 'bot:session' }) });
 * ```
 */
export function createRedisUserSessionStore(options: RedisUserSessionStoreOptions): RedisUserSessionStore {
  return new RedisUserSessionStore(options);
}
