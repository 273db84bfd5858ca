/**
 * What the Redis stores need of a node-redis client, and running a script
 * on it: `EVALSHA`, with `EVAL` when the server does not hold the script
 * yet; failing fast, with a {@link RateLimitStoreError}, when the client is
 * not connected or Redis does not answer in time.
 *
 * @module
 */

import { createHash } from 'node:crypto';
import { RateLimitStoreError, SessionStoreError } from '../errors.js';

/**
 * The part of a connected node-redis v6 client (`createClient()` after
 * `await client.connect()`) the stores use. Any client with these two
 * members works.
 */
export interface RedisClientLike {
  /** Whether the client is connected and ready for commands. */
  readonly isReady: boolean;
  /** Sends one raw command, e.g. `['GET', 'key']`. */
  sendCommand(args: string[]): Promise<unknown>;
}

/** A Lua script with its SHA-1, run by `EVALSHA`. */
export class RedisScript {
  readonly #source: string;
  readonly #sha: string;

  constructor(source: string) {
    this.#source = source;
    this.#sha = createHash('sha1').update(source).digest('hex');
  }

  /** Runs the script with no keys and these arguments. */
  async run(client: RedisClientLike, args: string[]): Promise<unknown> {
    try {
      return await client.sendCommand(['EVALSHA', this.#sha, '0', ...args]);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      // EVAL also caches the script, so the next step is an EVALSHA again.
      return client.sendCommand(['EVAL', this.#source, '0', ...args]);
    }
  }
}

/** The error a store's failed command becomes: each store names its own kind. */
export type StoreFailure = (detail: string, cause?: unknown) => Error;

/** A rate-limit store's failure. */
export const rateLimitFailure: StoreFailure = (detail, cause) => new RateLimitStoreError(detail, cause === undefined ? undefined : { cause });

/** A session store's failure (the user session's or the Gateway's). */
export const sessionFailure: StoreFailure = (detail, cause) => new SessionStoreError(detail, cause === undefined ? undefined : { cause });

/** How long a Redis command may take unless a store's `commandTimeoutMs` says otherwise. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 2000;

/**
 * Runs `command` unless the client is not ready, and gives up after
 * `timeoutMs`: either way with a {@link RateLimitStoreError}.
 */
export function withinTime<T>(client: RedisClientLike, timeoutMs: number, command: () => Promise<T>, failure: StoreFailure = rateLimitFailure): Promise<T> {
  if (!client.isReady) return Promise.reject(failure('the Redis client is not connected'));
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(failure(`Redis did not answer within ${timeoutMs} ms`)), timeoutMs);
    command().then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(
          error instanceof RateLimitStoreError || error instanceof SessionStoreError
            ? error
            : failure(`Redis failed: ${error instanceof Error ? error.message : String(error)}`, error),
        );
      },
    );
  });
}
