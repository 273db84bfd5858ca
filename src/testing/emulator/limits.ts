/**
 * Rate limits: the contract's per-webhook execution limit, the optional
 * global limit and the optional per-route limit of each caller, answered with Discord's headers (`X-RateLimit-Limit`,
 * `-Remaining`, `-Reset`, `-Reset-After`, `-Bucket` on successes and 429s;
 * `-Scope`, `-Global` and `Retry-After` on 429s).
 *
 * @module
 */

import { HttpError } from './responses.js';
import type { EmulatorState, GuildWebhook } from './state.js';
import type { WindowLimit } from './types.js';

/** The contract's webhook limit: 30 executions a minute per webhook. */
const DEFAULT_WEBHOOK_RATE_LIMIT: WindowLimit = { limit: 30, windowMs: 60_000 };

/** The bucket id of webhook executions (one bucket per route; the webhook id is its major parameter). */
const WEBHOOK_EXECUTION_BUCKET = 'webhook-execute';

/** Discord's `X-RateLimit-Scope` values. */
export type RateLimitScope = 'user' | 'global' | 'shared';

function seconds(ms: number): string {
  return (Math.max(0, ms) / 1000).toFixed(3);
}

/** Drops hits older than the window and describes what is left. */
function windowState(hits: number[], limit: WindowLimit, now: number): { remaining: number; resetAt: number } {
  while (hits.length > 0 && (hits[0] as number) <= now - limit.windowMs) hits.shift();
  const oldest = hits[0] ?? now;
  return { remaining: Math.max(0, limit.limit - hits.length), resetAt: oldest + limit.windowMs };
}

/** The bucket headers of a window (what successes carry, and 429s too). */
function bucketHeaders(limit: WindowLimit, remaining: number, resetAt: number, now: number, bucket: string): Record<string, string> {
  return {
    'x-ratelimit-limit': String(limit.limit),
    'x-ratelimit-remaining': String(remaining),
    'x-ratelimit-reset': seconds(resetAt),
    'x-ratelimit-reset-after': seconds(resetAt - now),
    'x-ratelimit-bucket': bucket,
  };
}

function tooManyRequests(retryAfterMs: number, scope: RateLimitScope, headers: Record<string, string>): HttpError {
  const retryAfter = Math.max(0.001, retryAfterMs / 1000);
  const global = scope === 'global';
  return new HttpError(
    429,
    'You are being rate limited.',
    0,
    { retry_after: retryAfter, global },
    {
      ...headers,
      'retry-after': retryAfter.toFixed(3),
      'x-ratelimit-scope': scope,
      ...(global ? { 'x-ratelimit-global': 'true' } : {}),
    },
  );
}

function webhookWindow(state: EmulatorState): WindowLimit {
  return state.options.webhookRateLimit ?? DEFAULT_WEBHOOK_RATE_LIMIT;
}

/** The bucket headers of a webhook's executions, without counting one. */
export function webhookBucketHeaders(state: EmulatorState, webhook: GuildWebhook): Record<string, string> {
  const now = state.now();
  const limit = webhookWindow(state);
  const { remaining, resetAt } = windowState(webhook.executions, limit, now);
  return bucketHeaders(limit, remaining, resetAt, now, WEBHOOK_EXECUTION_BUCKET);
}

/** Counts one execution of a webhook, or answers 429 (scope `shared`: every caller of the webhook shares it). */
export function takeWebhookExecution(state: EmulatorState, webhook: GuildWebhook): void {
  const now = state.now();
  const limit = webhookWindow(state);
  const { remaining, resetAt } = windowState(webhook.executions, limit, now);
  if (remaining === 0) throw tooManyRequests(resetAt - now, 'shared', bucketHeaders(limit, 0, resetAt, now, WEBHOOK_EXECUTION_BUCKET));
  webhook.executions.push(now);
}

/** Counts one request against the global limit, if there is one, or answers a global 429 carrying the route's own bucket headers. */
export function takeGlobal(state: EmulatorState, routeHeaders: () => Record<string, string>): void {
  const limit = state.globalRateLimit;
  if (!limit) return;
  const now = state.now();
  const { remaining, resetAt } = windowState(state.globalHits, limit, now);
  if (remaining === 0) throw tooManyRequests(resetAt - now, 'global', routeHeaders());
  state.globalHits.push(now);
}

/** The most per-route windows kept; past it, expired windows are forgotten, then the oldest. */
const MAX_ROUTE_WINDOWS = 10_000;

/**
 * Counts one request against the caller's window for the route (when
 * `routeRateLimit` is set) and returns the bucket headers its answer carries,
 * or answers 429 with scope `user`. The window is fixed, as Discord's are: it
 * starts with the first request after the last one ended and holds `limit`
 * requests until `X-RateLimit-Reset`, when it refills whole.
 */
export function takeRoute(state: EmulatorState, caller: string, route: string, major: string): Record<string, string> {
  const limit = state.options.routeRateLimit;
  if (!limit) return {};
  const now = state.now();
  const key = `${caller} ${route} ${major}`;
  let window = state.routeWindows.get(key);
  if (window === undefined || window.start + limit.windowMs <= now) {
    if (window === undefined && state.routeWindows.size >= MAX_ROUTE_WINDOWS) forgetRouteWindows(state, now - limit.windowMs);
    window = { start: now, count: 0 };
    state.routeWindows.set(key, window);
  }
  const bucket = `route-${route.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '')}`;
  const resetAt = window.start + limit.windowMs;
  if (window.count >= limit.limit) throw tooManyRequests(resetAt - now, 'user', bucketHeaders(limit, 0, resetAt, now, bucket));
  window.count++;
  return bucketHeaders(limit, limit.limit - window.count, resetAt, now, bucket);
}

/** Drops the windows that ended before `endedBefore`; if none had, the oldest one. */
function forgetRouteWindows(state: EmulatorState, endedBefore: number): void {
  const before = state.routeWindows.size;
  for (const [key, window] of state.routeWindows) if (window.start <= endedBefore) state.routeWindows.delete(key);
  if (state.routeWindows.size === before) state.routeWindows.delete(state.routeWindows.keys().next().value as string);
}
