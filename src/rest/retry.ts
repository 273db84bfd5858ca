/**
 * The retry policy: the one decision of whether, and after how long, a failed
 * attempt is tried again.
 *
 * @module
 */

import { backoffDelay, type BackoffPolicy } from '../core/backoff.js';
import type { HttpMethod } from '../core/routes.js';
import type { PipelineOptions, RateLimitInfo, RejectOnRateLimit } from './options.js';

/** Resolved retry settings. */
export interface RetryPolicy extends BackoffPolicy {
  /** Retries of 5xx, network failures and timeouts. */
  readonly retries: number;
  /** The longest single rate-limit wait before the call rejects with `RateLimitError`. */
  readonly maxRateLimitWaitMs: number;
  /** The longest pause the SDK learns from any server value (Retry-After, retry_after, reset-after). */
  readonly maxRateLimitPauseMs: number;
}

/** The default cap on any pause learned from the server: 10 minutes. */
const DEFAULT_MAX_RATE_LIMIT_PAUSE_MS = 10 * 60 * 1000;

/**
 * The default `maxRateLimitWaitMs`: the contract's webhook window (30 messages
 * per minute) plus 5 s, so that a 429 asking for the rest of a full
 * one-minute window (rounded up, plus clock skew) is waited out, not refused.
 */
const DEFAULT_MAX_RATE_LIMIT_WAIT_MS = 65_000;

/** Fills in the defaults. */
export function resolveRetryPolicy(
  options: Pick<PipelineOptions, 'retries' | 'baseDelayMs' | 'maxDelayMs' | 'maxRateLimitWaitMs' | 'maxRateLimitPauseMs'> | undefined,
): RetryPolicy {
  return {
    retries: Math.max(0, Math.floor(options?.retries ?? 3)),
    baseDelayMs: Math.max(0, options?.baseDelayMs ?? 250),
    maxDelayMs: Math.max(0, options?.maxDelayMs ?? 10_000),
    maxRateLimitWaitMs: options?.maxRateLimitWaitMs ?? DEFAULT_MAX_RATE_LIMIT_WAIT_MS,
    maxRateLimitPauseMs: Math.max(0, options?.maxRateLimitPauseMs ?? DEFAULT_MAX_RATE_LIMIT_PAUSE_MS),
  };
}

const IDEMPOTENT = new Set<HttpMethod>(['GET', 'PUT', 'DELETE']);

/** Whether repeating the request cannot change its effect (GET, PUT, DELETE). */
export function isIdempotent(method: HttpMethod): boolean {
  return IDEMPOTENT.has(method);
}

/** The most 429s one call waits out before it gives up. */
export const MAX_RATE_LIMIT_RETRIES = 10;

/** How an attempt failed. */
export type AttemptOutcome =
  /** The service answered with an error status other than 429. */
  | { readonly kind: 'status'; readonly status: number }
  /** No response: the connection failed. */
  | { readonly kind: 'network'; readonly mayHaveReachedServer: boolean }
  /** No response within the attempt's timeout. */
  | { readonly kind: 'timeout' }
  /** 429; `count` is how many 429s this call has met so far, this one included. */
  | { readonly kind: 'rateLimit'; readonly retryAfterMs: number | undefined; readonly count: number };

/** Why a call is retried, as the `retry` event reports it. */
type RetryReason = 'status' | 'network' | 'timeout' | 'rateLimit';

/** The decision on a failed attempt. `why` explains a refusal that a caller could act on. */
type RetryDecision =
  | { readonly retry: true; readonly delayMs: number; readonly reason: RetryReason }
  | { readonly retry: false; readonly delayMs?: number; readonly why?: string };

/** What the decision looks at besides the outcome. */
interface RetryContext {
  /** The attempt that failed, starting at 1. */
  readonly attempt: number;
  /** The request's method. */
  readonly method: HttpMethod;
  /** Retries allowed for this call. */
  readonly retries: number;
  /** Milliseconds left before the call's deadline. */
  readonly remainingMs: number;
  /** A source of numbers in [0, 1) for jitter. @default Math.random */
  readonly random?: () => number;
}

/**
 * Decides whether and when to retry a failed attempt:
 * - 5xx: idempotent methods only, within `retries`, after a full-jitter backoff;
 * - network failures: idempotent methods, or any method when the request provably never reached the server;
 * - timeouts: idempotent methods only (a timed-out POST may have been executed);
 * - 429: wait what the service asked (or 1 s, 2 s, 4 s… up to 30 s when it did not say), at most
 *   {@link MAX_RATE_LIMIT_RETRIES} times and never longer than `maxRateLimitWaitMs`;
 * and never past the call's deadline.
 */
export function decideRetry(policy: RetryPolicy, outcome: AttemptOutcome, context: RetryContext): RetryDecision {
  if (outcome.kind === 'rateLimit') {
    // A hostile or broken value (1e308 seconds) is clamped, so the pause it causes expires and the client recovers.
    // A 429 that says "retry now" (0, a past date) again and again still backs off a little: 0, 250, 500, 1000 ms...
    const floor = outcome.retryAfterMs === 0 && outcome.count > 1 ? Math.min(30_000, 125 * 2 ** (outcome.count - 1)) : 0;
    const delayMs = Math.min(policy.maxRateLimitPauseMs, Math.max(floor, outcome.retryAfterMs ?? Math.min(30_000, 1000 * 2 ** (outcome.count - 1))));
    const why = refuseRateLimitWait(policy, delayMs, context.remainingMs, false);
    if (why !== undefined) return { retry: false, delayMs, why };
    if (outcome.count > MAX_RATE_LIMIT_RETRIES) return { retry: false, delayMs, why: `rate limited ${outcome.count} times in a row` };
    return { retry: true, delayMs, reason: 'rateLimit' };
  }
  const idempotent = isIdempotent(context.method);
  const retryable =
    outcome.kind === 'status' ? idempotent && outcome.status >= 500 : outcome.kind === 'timeout' ? idempotent : idempotent || !outcome.mayHaveReachedServer;
  if (!retryable || context.attempt > context.retries || context.remainingMs <= 0) return { retry: false };
  const delayMs = backoffDelay(policy, context.attempt, context.random);
  if (delayMs > context.remainingMs) return { retry: false };
  return { retry: true, delayMs, reason: outcome.kind };
}

/** Whether the `rejectOnRateLimit` option refuses to wait for this rate limit. */
export function rejectsOnRateLimit(rule: RejectOnRateLimit, info: RateLimitInfo): boolean {
  if (typeof rule === 'boolean') return rule;
  if (typeof rule === 'function') return rule(info);
  return rule.some((entry) => entry === info.operation || (entry.startsWith('/') && info.path.includes(entry)));
}

/**
 * Why a rate-limit wait must not start, or `undefined` when it may: a wait the
 * service asked for may not exceed `maxRateLimitWaitMs`, and no wait (the
 * SDK's own webhook pacing included) may outlast the call's deadline.
 */
export function refuseRateLimitWait(policy: RetryPolicy, delayMs: number, remainingMs: number, ownPacing: boolean): string | undefined {
  if (!ownPacing && delayMs > policy.maxRateLimitWaitMs) return `the wait exceeds maxRateLimitWaitMs (${policy.maxRateLimitWaitMs} ms)`;
  if (delayMs > remainingMs) return 'the wait would outlast the call deadline';
  return undefined;
}
