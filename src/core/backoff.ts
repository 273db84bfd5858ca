/**
 * The one backoff formula, used by REST retries and Gateway reconnects alike.
 *
 * @module
 */

/** The two numbers that shape a backoff. */
export interface BackoffPolicy {
  /** First ceiling in milliseconds; doubles each attempt. */
  readonly baseDelayMs: number;
  /** Largest ceiling in milliseconds. */
  readonly maxDelayMs: number;
}

/**
 * Exponential backoff with full jitter: a uniform random whole number of
 * milliseconds in `[0, min(maxDelayMs, baseDelayMs * 2^(attempt - 1)))`.
 *
 * @param attempt The attempt that just failed, starting at 1.
 * @param random A source of numbers in [0, 1). @default Math.random
 */
export function backoffDelay(policy: BackoffPolicy, attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor(random() * ceiling);
}
