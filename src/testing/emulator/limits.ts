/**
 * Rate limits: the contract's per-webhook execution limit and the optional
 * global limit.
 *
 * @module
 */

import { HttpError } from './responses.js';
import type { EmulatorState, GuildWebhook } from './state.js';
import type { WindowLimit } from './types.js';

/** The contract's webhook limit: 30 executions a minute per webhook. */
export const DEFAULT_WEBHOOK_RATE_LIMIT: WindowLimit = { limit: 30, windowMs: 60_000 };

function seconds(ms: number): string {
  return (Math.max(0, ms) / 1000).toFixed(3);
}

/** Drops hits older than the window and describes what is left. */
function windowState(hits: number[], limit: WindowLimit, now: number): { remaining: number; resetAt: number } {
  while (hits.length > 0 && (hits[0] as number) <= now - limit.windowMs) hits.shift();
  const oldest = hits[0] ?? now;
  return { remaining: Math.max(0, limit.limit - hits.length), resetAt: oldest + limit.windowMs };
}

function tooManyRequests(retryAfterMs: number, global: boolean, headers: Record<string, string>): HttpError {
  const retryAfter = Math.max(0.001, retryAfterMs / 1000);
  return new HttpError(429, 'You are being rate limited.', 0, { retry_after: retryAfter, global }, { 'retry-after': retryAfter.toFixed(3), ...headers });
}

function webhookWindow(state: EmulatorState): WindowLimit {
  return state.options.webhookRateLimit ?? DEFAULT_WEBHOOK_RATE_LIMIT;
}

/** The limit headers of a webhook's executions, without counting one. */
export function webhookBucketHeaders(state: EmulatorState, webhook: GuildWebhook): Record<string, string> {
  const now = state.now();
  const limit = webhookWindow(state);
  const { remaining, resetAt } = windowState(webhook.executions, limit, now);
  return { 'x-ratelimit-limit': String(limit.limit), 'x-ratelimit-remaining': String(remaining), 'x-ratelimit-reset-after': seconds(resetAt - now) };
}

/** Counts one execution of a webhook, or answers 429. */
export function takeWebhookExecution(state: EmulatorState, webhook: GuildWebhook): void {
  const now = state.now();
  const limit = webhookWindow(state);
  const { remaining, resetAt } = windowState(webhook.executions, limit, now);
  if (remaining === 0) throw tooManyRequests(resetAt - now, false, { 'x-ratelimit-scope': 'webhook' });
  webhook.executions.push(now);
}

/** Counts one request against the global limit, if there is one, or answers a global 429. */
export function takeGlobal(state: EmulatorState, _routeHeaders: () => Record<string, string>): void {
  const limit = state.options.globalRateLimit;
  if (!limit) return;
  const now = state.now();
  const { remaining, resetAt } = windowState(state.globalHits, limit, now);
  if (remaining === 0) throw tooManyRequests(resetAt - now, true, { 'x-ratelimit-global': 'true', 'x-ratelimit-scope': 'global' });
  state.globalHits.push(now);
}
