/**
 * What both shard coordinators (the Redis one and the in-memory one of `/testing`) share, written once so a fleet tested
 * with the memory one behaves as production does: the checks of what a caller gives (member and bot ids, shard counts, a
 * proposed count, the bot it joins, a claim's life), and the most shards one step takes. `test/helpers/coordinator-contract.ts`
 * runs one contract on both.
 *
 * @module
 */

import { checkCount, checkDuration, DEFAULT_MAX_SHARDS, MAX_SHARDS_LIMIT, MAX_TIMER_MS } from '../core/bounds.js';
import { ShardCoordinatorError, ValidationError } from '../errors/index.js';
import type { ShardLease } from './coordinator.js';

/** The most free shards one step takes (a member far below its share takes the rest on its next steps). */
export const TAKEN_PER_STEP = 1000;

/** The longest member id or bot id, in characters. */
const MAX_ID_LENGTH = 200;

/** What an id must not hold: `|` (the lease separator) or a control character (C0, DEL, C1); one test, no copy of the id. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses.
const FORBIDDEN_IN_ID = /[\u0000-\u001f\u007f-\u009f|]/;

/**
 * A member or bot id: a string of 1 to 200 characters, without `|` (the lease separator) or a control character (C0, DEL,
 * C1). Every call of a coordinator that takes a member id checks it here: `tick`, `release`, `leave`, `claimInteraction`.
 */
export function checkCoordinatorId(operation: string, name: string, value: unknown): string {
  const ok = typeof value === 'string' && value.length > 0 && value.length <= MAX_ID_LENGTH && !FORBIDDEN_IN_ID.test(value);
  if (!ok)
    throw new ValidationError(operation, [{ path: name, message: `must be a string of 1 to ${MAX_ID_LENGTH} characters without "|" or control characters` }]);
  return value;
}

/** The shortest `leaseMs` a coordinator takes: Redis's steps, a few ms each, every third of a lease, need room. */
const MIN_LEASE_MS = 300;

/**
 * The `leaseMs` option of both coordinators: a whole number of ms from 300 to 2^31 - 1 (`MAX_TIMER_MS`), 10,000 when unset,
 * or a `ValidationError`: a fleet tested on `MemoryShardCoordinator` runs the lease production accepts.
 */
export function leaseMsOption(operation: string, value: number | undefined): number {
  return checkDuration(operation, 'leaseMs', value, { min: MIN_LEASE_MS, integer: true }) ?? 10_000;
}

/** The `maxShards` option: a whole number from 1 to `MAX_SHARDS_LIMIT` (`DEFAULT_MAX_SHARDS` when unset), or a `ValidationError`. */
export function maxShardsOption(operation: string, value: number | undefined): number {
  return checkCount(operation, 'maxShards', value, { min: 1, max: MAX_SHARDS_LIMIT }) ?? DEFAULT_MAX_SHARDS;
}

/** A shard count a call names: a whole number from 1 to `maxShards`, or a `ValidationError` naming `operation`. */
export function checkShardCount(operation: string, count: number, maxShards: number): number {
  return checkCount(operation, 'shardCount', count, { min: 1, max: maxShards });
}

/**
 * The count `shardCount(proposed)` offers (the service's recommendation): one beyond `maxShards` is refused with a
 * `ShardCoordinatorError` (the fleet cannot run it, whatever it runs now), one that is not a count with a `ValidationError`.
 */
export function checkProposedCount(proposed: number | undefined, maxShards: number): number | undefined {
  if (typeof proposed === 'number' && Number.isInteger(proposed) && proposed > maxShards)
    throw new ShardCoordinatorError(
      `the proposed shard count ${proposed} (the service's recommendation) is beyond this fleet's maxShards ${maxShards}: raise maxShards to run it`,
    );
  return proposed === undefined ? undefined : checkShardCount('ShardCoordinator.shardCount', proposed, maxShards);
}

/**
 * What `release(member, shardCount, lease)` names, checked before anything is given back: the member, the count, and a lease of a
 * shard of that count (its id from 0 to `shardCount - 1`) with a fence that is a whole number (a stale one frees nothing).
 */
export function checkRelease(member: string, shardCount: number, lease: ShardLease, maxShards: number): void {
  const operation = 'ShardCoordinator.release';
  checkCoordinatorId(operation, 'member', member);
  checkShardCount(operation, shardCount, maxShards);
  const given: Partial<ShardLease> = typeof lease === 'object' && lease !== null ? lease : {};
  checkCount(operation, 'lease.shardId', given.shardId ?? Number.NaN, { max: shardCount - 1 });
  checkCount(operation, 'lease.fence', given.fence ?? Number.NaN);
}

/** The bot a coordinator serves once `join(bot)` ran: `bot`, checked; another bot than the one it serves is refused. */
export function joinedBot(serving: string | undefined, bot: string): string {
  checkCoordinatorId('ShardCoordinator.join', 'bot', bot);
  if (serving !== undefined && serving !== bot)
    throw new ValidationError('ShardCoordinator.join', [{ path: 'bot', message: 'differs from the bot this coordinator already serves' }]);
  return bot;
}

/** What `shardReady(shardCount, shardId)` names: a shard count, and a shard of it. */
export function checkReadyShard(shardCount: number, shardId: number, maxShards: number): void {
  checkShardCount('ShardCoordinator.shardReady', shardCount, maxShards);
  checkCount('ShardCoordinator.shardReady', 'shardId', shardId, { max: shardCount - 1 });
}

/** Why `requestReshard` was refused: a reshard to `pending` shards is under way. */
export function reshardUnderWay(pending: number): ShardCoordinatorError {
  return new ShardCoordinatorError(`a reshard to ${pending} shards is under way; ask again once it is done`);
}

/** A claim's `ttlMs` (`claimInteraction`): a duration from 1 ms to `MAX_TIMER_MS`, or a `ValidationError`; whole ms, rounded up. */
export function claimTtl(ttlMs: number): number {
  return Math.ceil(checkDuration('ShardCoordinator.claimInteraction', 'ttlMs', ttlMs, { min: 1 }));
}

/**
 * The longest `sinceRenewalMs` a coordinator gives (`PreviousHolder`: how long before an acquisition a dead holder last renewed):
 * 40 leases (its lease is at most 10 times this one's, a step refuses more, and a step frees it within 3 of those), at most
 * `MAX_TIMER_MS`. A longer one is not given: not known.
 */
export function maxSinceRenewalMs(leaseMs: number): number {
  return Math.min(MAX_TIMER_MS, 40 * leaseMs);
}
