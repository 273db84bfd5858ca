/**
 * The one claim on an interaction, for the worker pool and the fleet's shard coordinator: a lease with a fencing token,
 * taken before a handler runs, renewed while it runs, and turned into `answered` once the service accepted an answer, so a
 * replayed or republished interaction runs once and a slow but live handler is never run again elsewhere.
 *
 * One script ({@link CLAIM}) on Redis `TIME` does every step on one key (`KEYS[1]`, the interaction's claim), and, when a
 * fleet passes it, checks the holder's membership in the same script (`KEYS[2]`, a sorted set of member ids scored by their
 * expiry in Redis milliseconds): both keys must share one hash tag (see the slot plan in docs/architecture.md). The key
 * holds `holder|fence|expiry` while claimed, `|fence|0` once released (the fence survives, so it only grows) and `answered`
 * once answered, for {@link CLAIM_TTL_MS}.
 *
 * On this side, {@link HeldClaim} knows whether the claim is still valid on the monotonic clock: a lease counts from when
 * its acquire or renewal was *sent*, never from the reply, so a reply that arrives late (a paused process, a slow Redis)
 * never extends it.
 *
 * @module
 */

import { INTERACTION_LIFETIME_MS } from '../core/constants.js';
import { wait } from '../core/wait.js';
import { RedisScript } from './connection.js';

/** How long a claim key lives: an interaction's token lasts 15 minutes, a minute more for clocks apart. */
export const CLAIM_TTL_MS = INTERACTION_LIFETIME_MS + 60_000;

/** The share of a lease this side relies on: the rest covers clocks running at slightly different rates. */
const LEASE_SHARE = 0.8;

/**
 * ARGV: operation (`acquire`, `renew`, `release`, `answered`), holder, fence (renew, release), lease (ms), key TTL (ms).
 * KEYS[1]: the claim; KEYS[2] (optional): the members whose holders count only while live.
 * Replies: acquire `{1, fence}` (taken), `{0}` (answered), `{-1, holder}` (held by another live holder); renew `{1, fence}`
 * or `{0}` (lapsed or taken by another); release and answered `{1}`.
 */
const CLAIM = new RedisScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local op, holder = ARGV[1], ARGV[2]
if op == 'answered' then
  redis.call('SET', KEYS[1], 'answered', 'PX', ARGV[5])
  return { 1 }
end
local value = redis.call('GET', KEYS[1])
if value == 'answered' then return { 0 } end
local owner, fence, expires
if value then owner, fence, expires = string.match(value, '^(.*)|(%d+)|(%d+)$') end
fence = tonumber(fence or '0')
local live = owner ~= nil and owner ~= '' and tonumber(expires) > now
if live and KEYS[2] then live = tonumber(redis.call('ZSCORE', KEYS[2], owner) or '0') > now end
if op == 'acquire' then
  if live and owner ~= holder then return { -1, owner } end
  fence = fence + 1
  redis.call('SET', KEYS[1], holder .. '|' .. fence .. '|' .. (now + tonumber(ARGV[4])), 'PX', ARGV[5])
  return { 1, fence }
end
local mine = owner == holder and fence == tonumber(ARGV[3])
if op == 'renew' then
  if not (live and mine) then return { 0 } end
  redis.call('SET', KEYS[1], holder .. '|' .. fence .. '|' .. (now + tonumber(ARGV[4])), 'PX', ARGV[5])
  return { 1, fence }
end
if op == 'release' then
  if mine then redis.call('SET', KEYS[1], '|' .. fence .. '|0', 'KEEPTTL') end
  return { 1 }
end
return redis.error_reply('unknown claim operation ' .. op)`);

/** Runs the claim script on Redis (a store's runner: its client, its command timeout, its error kind). */
export type ClaimScriptRunner = (script: RedisScript, keys: readonly string[], args: readonly string[]) => Promise<unknown>;

/** Where a claim lives: its key and, for a fleet, the members key its holders must be live in (same hash tag). */
export interface ClaimKeys {
  /** The interaction's claim key. */
  readonly claim: string;
  /** The members sorted set (member id → expiry, Redis ms) a holder must be live in; omitted: the lease alone counts. */
  readonly members?: string | undefined;
}

/** What an acquire answered. */
export type ClaimAcquired =
  | { readonly status: 'taken'; readonly fence: number }
  | { readonly status: 'answered' }
  | { readonly status: 'held'; readonly holder: string };

function keysOf(keys: ClaimKeys): string[] {
  return keys.members === undefined ? [keys.claim] : [keys.claim, keys.members];
}

function replyOf(reply: unknown): unknown[] {
  return Array.isArray(reply) ? reply : [];
}

/**
 * Takes the claim for `holder` with a lease of `leaseMs` (Redis time): free, released, lapsed, held by a member no longer
 * live, or held by this same holder (taken again, with a new fence). `answered` once an answer was accepted; `held` while
 * another live holder has it.
 */
export async function acquireClaim(run: ClaimScriptRunner, keys: ClaimKeys, holder: string, leaseMs: number): Promise<ClaimAcquired> {
  const [code, detail] = replyOf(await run(CLAIM, keysOf(keys), ['acquire', holder, '0', String(leaseMs), String(CLAIM_TTL_MS)]));
  if (Number(code) === 1) return { status: 'taken', fence: Number(detail) };
  if (Number(code) === 0) return { status: 'answered' };
  return { status: 'held', holder: String(detail) };
}

/** Renews `holder`'s claim with this fence for another `leaseMs`; `false` once it lapsed or another took it. */
export async function renewClaim(run: ClaimScriptRunner, keys: ClaimKeys, holder: string, fence: number, leaseMs: number): Promise<boolean> {
  const [code] = replyOf(await run(CLAIM, keysOf(keys), ['renew', holder, String(fence), String(leaseMs), String(CLAIM_TTL_MS)]));
  return Number(code) === 1;
}

/** Gives the claim up if `holder` still has it with this fence (its fence is kept, so a later claim's is higher). */
export async function releaseClaim(run: ClaimScriptRunner, keys: ClaimKeys, holder: string, fence: number): Promise<void> {
  await run(CLAIM, keysOf(keys), ['release', holder, String(fence), '0', String(CLAIM_TTL_MS)]);
}

/** Marks the interaction answered (for {@link CLAIM_TTL_MS}): whoever claims it next is told `answered`. */
export async function markAnswered(run: ClaimScriptRunner, keys: ClaimKeys): Promise<void> {
  await run(CLAIM, keysOf(keys), ['answered', '', '0', '0', String(CLAIM_TTL_MS)]);
}

/** What {@link markAnsweredUntilTaken} needs besides the claim. */
export interface AnsweredRetry {
  /** Each failed attempt (reported, never dropped). */
  readonly failed: (error: unknown) => void;
  /** The monotonic clock. @default performance.now */
  readonly now?: (() => number) | undefined;
  /** Until when (monotonic) to keep trying: after it, no one can answer the interaction anyway. */
  readonly until: number;
  /** First pause between attempts, doubled up to 2 s. @default 100 */
  readonly firstPauseMs?: number | undefined;
}

/**
 * Marks the interaction answered, trying again (100 ms, doubling up to 2 s) until Redis takes it or `until` passes, each
 * failure reported: a Redis outage must not leave an answered interaction looking unanswered, to be run again. Resolves
 * `true` once stored.
 */
export async function markAnsweredUntilTaken(run: ClaimScriptRunner, keys: ClaimKeys, retry: AnsweredRetry): Promise<boolean> {
  const now = retry.now ?? (() => performance.now());
  let pause = retry.firstPauseMs ?? 100;
  for (;;) {
    try {
      await markAnswered(run, keys);
      return true;
    } catch (error) {
      retry.failed(error);
    }
    if (now() + pause >= retry.until) return false;
    await wait(pause);
    pause = Math.min(pause * 2, 2000);
  }
}

/**
 * A claim this process holds, as this side knows it: valid until {@link LEASE_SHARE} of the lease after the last acquire or
 * renewal that Redis accepted was *sent*, on the monotonic clock; lost for good once Redis says another has it.
 */
export class HeldClaim {
  /** The fencing token Redis gave this claim. */
  readonly fence: number;
  readonly #leaseMs: number;
  readonly #now: () => number;
  #validUntil: number;
  #lost = false;

  /** A claim taken with `fence` by an acquire sent at `sentAt` (monotonic). */
  constructor(fence: number, leaseMs: number, sentAt: number, now: () => number = () => performance.now()) {
    this.fence = fence;
    this.#leaseMs = leaseMs;
    this.#now = now;
    this.#validUntil = sentAt + leaseMs * LEASE_SHARE;
  }

  /** Whether the claim is still known valid now. */
  get valid(): boolean {
    return !this.#lost && this.#now() < this.#validUntil;
  }

  /** Whether Redis said another holder has it, or it lapsed there. */
  get lost(): boolean {
    return this.#lost;
  }

  /** Redis accepted a renewal sent at `sentAt` (monotonic): valid again for {@link LEASE_SHARE} of the lease from then. */
  confirm(sentAt: number): void {
    if (!this.#lost) this.#validUntil = Math.max(this.#validUntil, sentAt + this.#leaseMs * LEASE_SHARE);
  }

  /** Redis said another holder has it, or that it lapsed there: never valid again. */
  lose(): void {
    this.#lost = true;
  }

  /**
   * Renews it through `renew` (which sends the renewal and says whether Redis accepted it): confirmed from when it was
   * sent, or lost; a renewal that fails leaves the validity as it was (it runs out on its own). Resolves whether it is
   * still valid.
   */
  async renew(renew: () => Promise<boolean>): Promise<boolean> {
    if (this.#lost) return false;
    const sentAt = this.#now();
    if (await renew()) this.confirm(sentAt);
    else this.lose();
    return this.valid;
  }
}
