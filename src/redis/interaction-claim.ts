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

import { INTERACTION_CLAIM_TTL_MS } from '../core/constants.js';
import { wait } from '../core/wait.js';
import { RedisScript } from './connection.js';

/** How long a claim key lives: an interaction's token lasts 15 minutes, a minute more for clocks apart. */
export const CLAIM_TTL_MS = INTERACTION_CLAIM_TTL_MS;

/** The share of a lease this side relies on: the rest covers clocks running at slightly different rates. */
const LEASE_SHARE = 0.8;

/**
 * ARGV: operation (`acquire`, `renew`, `release`, `answered`), holder, fence (renew, release), lease (ms), key TTL (ms),
 * and for acquire whether the same holder may take its own live claim again (`'1'`) or not (`'0'`).
 * KEYS[1]: the claim; KEYS[2] (optional): the members whose holders count only while live.
 * Replies: acquire `{1, fence, 1 when it lapsed from another holder else 0}` (taken), `{0}` (answered), `{-1, holder}`
 * (held by another live holder, or by this one when it may not take it again); renew `{1, fence}` or `{0}` (lapsed,
 * answered or taken by another); release and answered `{1}`.
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
  if live and (owner ~= holder or ARGV[6] ~= '1') then return { -1, owner } end
  local lapsed = 0
  if owner ~= nil and owner ~= '' and owner ~= holder then lapsed = 1 end
  fence = fence + 1
  redis.call('SET', KEYS[1], holder .. '|' .. fence .. '|' .. (now + tonumber(ARGV[4])), 'PX', ARGV[5])
  return { 1, fence, lapsed }
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

/** What an acquire answered (`lapsed`: taken over from another holder whose lease ran out, not free or released). */
type ClaimAcquired =
  | { readonly status: 'taken'; readonly fence: number; readonly lapsed: boolean }
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
 * live, or, when `retake` (the fleet's members, whose ids are one per process), held by this same holder (taken again,
 * with a new fence). `answered` once an answer was accepted; `held` while another live holder has it (or this one, without
 * `retake`: a worker keeps its own claim only through {@link renewClaim} with its fence).
 */
export async function acquireClaim(
  run: ClaimScriptRunner,
  keys: ClaimKeys,
  holder: string,
  leaseMs: number,
  options: { readonly retake?: boolean | undefined; readonly ttlMs?: number | undefined } = {},
): Promise<ClaimAcquired> {
  const retake = options.retake === false ? '0' : '1';
  const ttl = String(options.ttlMs ?? CLAIM_TTL_MS);
  const [code, detail, lapsed] = replyOf(await run(CLAIM, keysOf(keys), ['acquire', holder, '0', String(leaseMs), ttl, retake]));
  if (Number(code) === 1) return { status: 'taken', fence: Number(detail), lapsed: Number(lapsed) === 1 };
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

/** The longest pause between two attempts of {@link markAnsweredUntilTaken} while the client stays connected. */
export const ANSWERED_RETRY_MAX_PAUSE_MS = 2000;

/** How often a retry looks whether its client is connected again, milliseconds. */
const READY_POLL_MS = 20;

/** What {@link markAnsweredUntilTaken} needs besides the claim. */
interface AnsweredRetry {
  /** Each failed attempt (reported, never dropped). */
  readonly failed: (error: unknown) => void;
  /** The monotonic clock. @default performance.now */
  readonly now?: (() => number) | undefined;
  /** Until when (monotonic) to keep trying: after it, no one can answer the interaction anyway. */
  readonly until: number;
  /** First pause between attempts, doubled up to {@link ANSWERED_RETRY_MAX_PAUSE_MS}. @default 100 */
  readonly firstPauseMs?: number | undefined;
  /** Whether the client is connected: once it comes back after being down, the next attempt goes at once. */
  readonly ready?: (() => boolean) | undefined;
  /** Stops trying (after the attempt under way); resolves `false`. */
  readonly signal?: AbortSignal | undefined;
}

/** Waits `pauseMs`, or less: until the client is connected again after being down, or `signal` aborts. */
async function pauseUntilReady(pauseMs: number, ready: (() => boolean) | undefined, signal: AbortSignal | undefined): Promise<void> {
  if (ready === undefined) return wait(pauseMs, { signal }).catch(() => undefined);
  const end = performance.now() + pauseMs;
  let down = !ready();
  while (performance.now() < end && signal?.aborted !== true) {
    await wait(Math.min(READY_POLL_MS, end - performance.now()), { signal }).catch(() => undefined);
    if (down && ready()) return;
    down = !ready();
  }
}

/**
 * Marks the interaction answered, trying again (100 ms, doubling up to {@link ANSWERED_RETRY_MAX_PAUSE_MS}, and at once
 * when the client is connected again) until Redis takes it, `until` passes or `signal` aborts, each failure reported: a
 * Redis outage must not leave an answered interaction looking unanswered, to be run again. Resolves `true` once stored.
 */
export async function markAnsweredUntilTaken(run: ClaimScriptRunner, keys: ClaimKeys, retry: AnsweredRetry): Promise<boolean> {
  const now = retry.now ?? (() => performance.now());
  const stopped = () => retry.signal?.aborted === true;
  let pause = retry.firstPauseMs ?? 100;
  for (;;) {
    try {
      await markAnswered(run, keys);
      return true;
    } catch (error) {
      retry.failed(error);
    }
    if (stopped() || now() + pause >= retry.until) return false;
    await pauseUntilReady(pause, retry.ready, retry.signal);
    if (stopped()) return false;
    pause = Math.min(pause * 2, ANSWERED_RETRY_MAX_PAUSE_MS);
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
