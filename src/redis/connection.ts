/**
 * What the Redis stores need of a node-redis client, and running a script
 * on it: `EVALSHA`, with `EVAL` when the server does not hold the script
 * yet; failing fast, with a {@link RateLimitStoreError}, when the client is
 * not connected or Redis does not answer in time.
 *
 * @module
 */

import { createHash } from 'node:crypto';
import { EventStreamError, RateLimitStoreError, SessionStoreError } from '../errors/index.js';
import { describeThrown } from '../errors/base.js';
import { wait } from '../core/wait.js';
import { checkCount, checkDuration, optionNames, refuseUnknownOptions, type NumberBounds } from '../core/bounds.js';

/**
 * A connected node-redis v6 client of one Redis node (`createClient()` after
 * `await client.connect()`).
 */
export interface RedisNodeClientLike {
  /** Whether the client is connected and ready for commands. */
  readonly isReady: boolean;
  /** Sends one raw command, e.g. `['GET', 'key']`. */
  sendCommand(args: string[]): Promise<unknown>;
}

/**
 * A connected node-redis v6 Redis Cluster client (`createCluster()` after
 * `await cluster.connect()`): commands go to the master of their first key's
 * slot, and follow MOVED and ASK redirections.
 */
export interface RedisClusterClientLike {
  /** Whether the client is connected and ready for commands. */
  readonly isReady: boolean;
  /** The cluster's masters (how the stores tell a cluster client from the others). */
  readonly masters: readonly unknown[];
  /** Sends one raw command to the master of `firstKey`'s slot. */
  sendCommand(firstKey: string | undefined, isReadonly: boolean | undefined, args: string[]): Promise<unknown>;
}

/**
 * A connected node-redis v6 Sentinel client (`createSentinel()` after
 * `await sentinel.connect()`): commands go to the current master, whichever
 * node Sentinel promoted.
 */
export interface RedisSentinelClientLike {
  /** Whether the client is connected and ready for commands. */
  readonly isReady: boolean;
  /** The current master (how the stores tell a Sentinel client from the others). */
  getMasterNode(): unknown;
  /** Sends one raw command to the master (`isReadonly` false). */
  sendCommand(isReadonly: boolean | undefined, args: string[]): Promise<unknown>;
}

/**
 * What the Redis stores accept: a node-redis v6 client of one node, of a
 * Redis Cluster, or of a Sentinel-managed master. Every command a store
 * sends names its keys, so a cluster client routes it to the right node.
 */
export type RedisClientLike = RedisNodeClientLike | RedisClusterClientLike | RedisSentinelClientLike;

/** Sends one command whose first key is `key` (or that has none), whichever kind of client `client` is. */
export function sendCommand(client: RedisClientLike, key: string | undefined, args: string[]): Promise<unknown> {
  if ('masters' in client) return client.sendCommand(key, false, args);
  if ('getMasterNode' in client) return client.sendCommand(false, args);
  return client.sendCommand(args);
}

/** A Lua script with its SHA-1, run by `EVALSHA` with the keys it touches declared in `KEYS`. */
export class RedisScript {
  readonly #source: string;
  readonly #sha: string;

  constructor(source: string) {
    this.#source = source;
    this.#sha = createHash('sha1').update(source).digest('hex');
  }

  /** Runs the script with these keys (every key it touches, all in one cluster slot) and arguments. */
  async run(client: RedisClientLike, keys: readonly string[], args: readonly string[]): Promise<unknown> {
    const tail = [String(keys.length), ...keys, ...args];
    try {
      return await sendCommand(client, keys[0], ['EVALSHA', this.#sha, ...tail]);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      // EVAL also caches the script (on that node), so the next step is an EVALSHA again.
      return sendCommand(client, keys[0], ['EVAL', this.#source, ...tail]);
    }
  }
}

/**
 * How many replicas must hold a claim or a lock before a store relies on it
 * (Redis `WAIT`). Replication is asynchronous: a master that fails over to a
 * replica that had not received a write loses it. With this set, a claim
 * (replay), a turn (Identify) or a lock (refresh) that fewer replicas
 * acknowledged in time is given back and counts as not taken, so a failover
 * can never lose one that was acted on.
 */
export interface ReplicaAcknowledgement {
  /** Replicas that must acknowledge the write. */
  replicas: number;
  /** How long to wait for them, milliseconds. @default 100 */
  timeoutMs?: number | undefined;
}

const ACK_OPTIONS = optionNames<ReplicaAcknowledgement>({ replicas: true, timeoutMs: true });

/**
 * Refuses the options of a Redis store that it cannot honour, each named in a `ValidationError`: an unknown name,
 * `commandTimeoutMs` (at least 1 ms) and each duration in `durations` past `MAX_TIMER_MS` (past it a timer fires at once,
 * and every command would fail "did not answer within"), a `waitForReplicas` with an unknown name, a count that is not
 * a whole number or a timeout out of bounds.
 */
export function checkStoreOptions(operation: string, options: object, names: readonly string[], durations: Readonly<Record<string, NumberBounds>> = {}): void {
  refuseUnknownOptions(operation, options, names);
  const record = options as Readonly<Record<string, unknown>>;
  for (const [name, bounds] of Object.entries({ commandTimeoutMs: { min: 1 }, ...durations }))
    checkDuration(operation, name, record[name] as number | undefined, bounds);
  const acks = record['waitForReplicas'] as ReplicaAcknowledgement | undefined;
  if (acks === undefined) return;
  refuseUnknownOptions(`${operation} (waitForReplicas)`, acks, ACK_OPTIONS);
  checkCount(operation, 'waitForReplicas.replicas', acks.replicas, { max: 100 });
  checkDuration(operation, 'waitForReplicas.timeoutMs', acks.timeoutMs);
}

/** Whether `acks` replicas (if any are asked for) hold the writes made so far on `key`'s master. */
export async function replicated(client: RedisClientLike, key: string, acks: ReplicaAcknowledgement | undefined): Promise<boolean> {
  if (acks === undefined || acks.replicas <= 0) return true;
  const count = Number(await sendCommand(client, key, ['WAIT', String(acks.replicas), String(acks.timeoutMs ?? 100)]));
  return count >= acks.replicas;
}

/** The error a store's failed command becomes: each store names its own kind. */
export type StoreFailure = (detail: string, cause?: unknown) => Error;

/** A rate-limit store's failure. */
const rateLimitFailure: StoreFailure = (detail, cause) => new RateLimitStoreError(detail, cause === undefined ? undefined : { cause });

/** A session store's failure (the user session's or the Gateway's). */
export const sessionFailure: StoreFailure = (detail, cause) => new SessionStoreError(detail, cause === undefined ? undefined : { cause });

/** An event stream's failure. */
export const streamFailure: StoreFailure = (detail, cause) => new EventStreamError(detail, cause === undefined ? undefined : { cause });

/** How long a Redis command may take unless a store's `commandTimeoutMs` says otherwise. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 2000;

/**
 * Runs `command` unless the client is not ready, and gives up after
 * `timeoutMs`: either way with a {@link RateLimitStoreError}.
 */
export function withinTime<T>(client: RedisClientLike, timeoutMs: number, command: () => Promise<T>, failure: StoreFailure = rateLimitFailure): Promise<T> {
  if (!client.isReady) return Promise.reject(failure('the Redis client is not connected'));
  let sent: Promise<T>;
  try {
    sent = command();
  } catch (error) {
    // A client that throws instead of rejecting (bad arguments, a closed client) fails the same way.
    sent = Promise.reject(error);
  }
  const answered = sent.catch((error: unknown) => {
    throw error instanceof RateLimitStoreError || error instanceof SessionStoreError || error instanceof EventStreamError
      ? error
      : failure(`Redis failed: ${describeThrown(error)}`, error);
  });
  return wait(answered, { timeoutMs, onTimeout: () => failure(`Redis did not answer within ${timeoutMs} ms`) });
}
