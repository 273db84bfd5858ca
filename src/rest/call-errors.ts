/**
 * The typed errors of a call that ended without an error response: a failed
 * or timed-out attempt, a wait cut short by the deadline or the caller, and a
 * rate-limit wait the SDK refused to start.
 *
 * @module
 */

import {
  AbortError,
  NetworkError,
  RateLimitError,
  ResponseTooLargeError,
  TimeoutError,
  isCommunityChatError,
  type RequestDescription,
} from '../errors/index.js';
import type { CallLifecycle } from '../observe/call.js';
import type { RequestEventBase } from '../observe/events.js';
import type { RestClientConfig } from './config.js';
import { DeadlineReached, type CallDeadline } from './deadline.js';
import type { RateLimitInfo } from './options.js';
import type { WaitGuard } from './rate-limit-store.js';
import { refuseRateLimitWait, rejectsOnRateLimit } from './retry.js';
import type { TransportFailure } from '../errors/transport.js';

/** What the call knew when it failed. */
export interface CallState {
  /** Whether the call's overall deadline has passed. */
  readonly deadlineHit: boolean;
  /** The deadline's length, milliseconds. */
  readonly deadlineMs: number;
  /** Whether the caller's signal has aborted. */
  readonly callerAborted: boolean;
}

/** The error of an attempt that got no usable response: its own timeout (or the deadline), the caller's abort, a body over the size limit, or a network failure. */
export function attemptFailureError(
  base: RequestEventBase,
  failure: TransportFailure | 'timeout',
  timeoutMs: number,
  maxResponseBytes: number,
  state: CallState,
): Error {
  const timedOut = failure === 'timeout';
  const init = {
    method: base.method,
    path: base.path,
    operation: base.operation,
    attempt: base.attempt,
    mayHaveReachedServer: timedOut || failure.mayHaveReachedServer,
    cause: timedOut ? undefined : failure.cause,
  };
  if (timedOut) return new TimeoutError(init, state.deadlineHit ? state.deadlineMs : timeoutMs);
  if (failure.kind === 'aborted' || state.callerAborted) return new AbortError(init);
  if (failure.kind === 'tooLarge') return new ResponseTooLargeError(init, maxResponseBytes);
  return new NetworkError(init, failure.detail);
}

/** Maps what ended a wait (queue, rate limit, session, backoff): the deadline becomes a `TimeoutError`, the caller's abort an `AbortError`; SDK errors pass through. */
export function waitError(request: RequestDescription, error: unknown, state: CallState): unknown {
  const description = { ...request, mayHaveReachedServer: false, cause: error };
  if (error instanceof DeadlineReached || (state.deadlineHit && !(error instanceof Error && 'status' in error)))
    return new TimeoutError(description, state.deadlineMs);
  if (state.callerAborted && !isCommunityChatError(error)) return new AbortError(description);
  return error;
}

/** The `RateLimitError` of a wait the SDK refused to start; nothing was sent. */
function refusedWaitError(base: RequestEventBase, delayMs: number, reason: 'global' | 'bucket' | 'webhook', why: string): RateLimitError {
  return new RateLimitError(
    {
      method: base.method,
      path: base.path,
      operation: base.operation,
      status: 429,
      body: undefined,
      headers: {},
      credential: 'none',
      attempt: base.attempt,
      retryAfterMs: delayMs,
      global: reason === 'global',
      sent: false,
      heldBy: reason,
    },
    why,
  );
}

/**
 * The limiter's check before each wait of a call: refuses one that cannot end in time.
 * Waits the service asked for (a bucket or global pause) are also capped by
 * `maxRateLimitWaitMs` and `rejectOnRateLimit`; the SDK's own webhook
 * pacing only by the deadline.
 */
export function waitGuard(
  config: Pick<RestClientConfig, 'retry' | 'rejectOnRateLimit'>,
  call: { readonly operation: string; readonly deadline: CallDeadline },
  base: RequestEventBase,
  obs: CallLifecycle | undefined,
): WaitGuard {
  return (delayMs, reason) => {
    const ownPacing = reason === 'webhook';
    const info: RateLimitInfo = { operation: call.operation, method: base.method, path: base.path, retryAfterMs: delayMs, global: reason === 'global' };
    const why =
      refuseRateLimitWait(config.retry, delayMs, call.deadline.remaining(), ownPacing) ??
      (!ownPacing && rejectsOnRateLimit(config.rejectOnRateLimit, info) ? 'rejected without waiting' : undefined);
    if (why !== undefined) throw refusedWaitError(base, delayMs, reason, why);
    obs?.wait(base, delayMs, reason);
  };
}
