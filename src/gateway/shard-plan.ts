/**
 * Which shards a Gateway runs, out of how many, with which Identify
 * concurrency: from the sharding options and, where they leave it open,
 * `GET /gateway/bot` (the recommended shard count and
 * `session_start_limit.max_concurrency`).
 *
 * @module
 */

import { GatewayError, ValidationError } from '../errors/index.js';
import { DEFAULT_MAX_SHARDS } from '../core/bounds.js';
import type { GatewayShardingOptions } from './options.js';

/** The shards this Gateway runs. */
export interface ShardPlan {
  /** Whether Identify carries `shard` (false: today's single connection). */
  sharded: boolean;
  /** The shard ids run here, ascending. */
  ids: number[];
  /** The total number of shards. */
  count: number;
  /** The number of Identify concurrency buckets. */
  maxConcurrency: number;
  /** Shards per worker thread, or `undefined` to run them in this thread. */
  perWorker: number | undefined;
}

const positive = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 1;

function invalid(path: string, message: string): ValidationError {
  return new ValidationError('gateway.connect', [{ path: `gateway.${path}`, message }]);
}

/** Checks the sharding options before any I/O; throws `ValidationError` naming the option. */
export function checkShardingOptions(options: GatewayShardingOptions): void {
  const { shards, shardCount, maxConcurrency, shardsPerWorker } = options;
  const maxShards = options.maxShards ?? DEFAULT_MAX_SHARDS;
  if (shardCount !== undefined && positive(shardCount) && shardCount > maxShards)
    throw invalid('shardCount', `must be at most gateway.maxShards (${maxShards})`);
  if (shards !== undefined && shards !== 'auto') {
    if (!Array.isArray(shards) || shards.length === 0 || !shards.every((id) => Number.isInteger(id) && id >= 0))
      throw invalid('shards', "must be 'auto' or a non-empty array of shard ids (whole numbers from 0)");
    // Checked before anything is sorted or copied: at most maxShards ids, each below it.
    if (shards.length > maxShards || shards.some((id) => id >= maxShards)) throw invalid('shards', `must list ids below gateway.maxShards (${maxShards})`);
    if (new Set(shards).size !== shards.length) throw invalid('shards', 'lists a shard id twice');
    if (shardCount !== undefined && shards.some((id) => id >= shardCount)) throw invalid('shards', `holds an id that is not below shardCount (${shardCount})`);
  }
  if (shardCount !== undefined && !positive(shardCount)) throw invalid('shardCount', 'must be a whole number of at least 1');
  if (maxConcurrency !== undefined && !positive(maxConcurrency)) throw invalid('maxConcurrency', 'must be a whole number of at least 1');
  if (shardsPerWorker !== undefined && !positive(shardsPerWorker)) throw invalid('shardsPerWorker', 'must be a whole number of at least 1');
  if (options.coordinator !== undefined && Array.isArray(shards))
    throw invalid('shards', "is 'auto' (or unset) with a coordinator: the coordinator decides which shards run here");
  if (shardsPerWorker !== undefined && shards === undefined && shardCount === undefined && options.coordinator === undefined)
    throw invalid('shardsPerWorker', "runs shards in workers: set shards ('auto' or ids), shardCount or a coordinator too");
}

/** Reads `GET /gateway/bot`: the recommended shard count and the Identify concurrency (1 when it does not say). */
export function readGatewayBot(body: unknown): { shards: number | undefined; maxConcurrency: number } {
  const record = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const limit = record['session_start_limit'];
  const concurrency = typeof limit === 'object' && limit !== null ? (limit as Record<string, unknown>)['max_concurrency'] : undefined;
  return { shards: positive(record['shards']) ? record['shards'] : undefined, maxConcurrency: positive(concurrency) ? concurrency : 1 };
}

/**
 * The service's recommended shard count, trusted only within `maxShards`: past it, a `GatewayError` (nothing is
 * planned or allocated for it) saying to set `shardCount` or raise `maxShards`.
 */
function trustedShardCount(recommended: number, maxShards: number): number {
  if (recommended <= maxShards) return recommended;
  throw new GatewayError(
    `GET /gateway/bot recommends ${recommended} shards, more than gateway.maxShards (${maxShards}); set gateway.shardCount, or raise gateway.maxShards if the bot really needs that many`,
  );
}

/**
 * Resolves the plan. Sharding is on when `shards` or `shardCount` is given;
 * `GET /gateway/bot` is asked only for what the options leave open.
 */
export async function resolveShardPlan(options: GatewayShardingOptions, gatewayBot: (() => Promise<unknown>) | undefined): Promise<ShardPlan> {
  checkShardingOptions(options);
  const { shards, shardsPerWorker } = options;
  if (shards === undefined && options.shardCount === undefined && options.coordinator === undefined)
    return { sharded: false, ids: [0], count: 1, maxConcurrency: options.maxConcurrency ?? 1, perWorker: undefined };
  let { shardCount: count, maxConcurrency } = options;
  if (count === undefined || maxConcurrency === undefined) {
    if (!gatewayBot) throw invalid(count === undefined ? 'shardCount' : 'maxConcurrency', 'is needed: this Gateway cannot ask GET /gateway/bot');
    let body: unknown;
    try {
      body = await gatewayBot();
    } catch (error) {
      throw new GatewayError(
        `GET /gateway/bot failed, so the shard count is unknown (set gateway.shardCount and gateway.maxConcurrency to skip it): ${error instanceof Error ? error.message : String(error)}`,
        undefined,
        { cause: error },
      );
    }
    const info = readGatewayBot(body);
    maxConcurrency ??= info.maxConcurrency;
    if (count === undefined) {
      if (info.shards === undefined)
        throw new GatewayError('GET /gateway/bot did not say how many shards to run (no whole number in `shards`); set gateway.shardCount');
      count = trustedShardCount(info.shards, options.maxShards ?? DEFAULT_MAX_SHARDS);
    }
  }
  const ids = shards === undefined || shards === 'auto' ? Array.from({ length: count }, (_, id) => id) : [...shards].sort((a, b) => a - b);
  if (ids.some((id) => id >= count)) throw invalid('shards', `holds an id that is not below the shard count (${count})`);
  return { sharded: true, ids, count, maxConcurrency, perWorker: shardsPerWorker };
}
