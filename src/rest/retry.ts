/**
 * The retry policy: which failures are retried, and how long to wait.
 *
 * @module
 */

import type { BackoffPolicy } from '../backoff.js';
import type { HttpMethod } from '../routes.js';

/** Retry settings. */
export interface RetryOptions {
  /** How many times a failed attempt may be retried (5xx, network errors, timeouts on idempotent methods). `0` disables retries. @default 3 */
  retries?: number | undefined;
  /** First backoff ceiling in milliseconds; doubles each attempt. @default 250 */
  baseDelayMs?: number | undefined;
  /** Largest backoff ceiling in milliseconds. @default 10000 */
  maxDelayMs?: number | undefined;
}

/** Resolved retry settings. */
export interface RetryPolicy extends BackoffPolicy {
  retries: number;
}

/** Fills in the defaults. */
export function resolveRetryPolicy(options: RetryOptions | undefined): RetryPolicy {
  return {
    retries: Math.max(0, Math.floor(options?.retries ?? 3)),
    baseDelayMs: Math.max(0, options?.baseDelayMs ?? 250),
    maxDelayMs: Math.max(0, options?.maxDelayMs ?? 10_000),
  };
}

const IDEMPOTENT = new Set<HttpMethod>(['GET', 'PUT', 'DELETE']);

/** Whether repeating the request cannot change its effect (GET, PUT, DELETE). */
export function isIdempotent(method: HttpMethod): boolean {
  return IDEMPOTENT.has(method);
}

export { backoffDelay } from '../backoff.js';
