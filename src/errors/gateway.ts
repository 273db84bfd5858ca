/**
 * Errors of the Gateway connection.
 *
 * @module
 */

import { CommunityChatError, type CommunityChatErrorOptions, brand } from './base.js';

/** The Gateway could not connect (timed out, aborted, or destroyed before READY). */
export class GatewayError extends CommunityChatError {
  /** Close code, when the connection closed with one. */
  readonly code: number | undefined;
  constructor(message: string, code?: number, options?: CommunityChatErrorOptions) {
    super(message, options);
    this.code = code;
  }
}

/** The service closed the Gateway with a code that must not be retried (e.g. 4004 authentication failed). */
export class GatewayFatalError extends GatewayError {
  /** What to do about it. */
  readonly hint: string;
  constructor(code: number, name: string, hint: string) {
    super(`Gateway closed with ${code} (${name}): ${hint}. Not reconnecting.`, code);
    this.hint = hint;
  }
}

/**
 * An Identify was not sent: the bot's daily session start budget
 * (`session_start_limit` of `GET /gateway/bot`) is down to the reserve the
 * Gateway keeps (`gateway.sessionStartReserve`). Identifying past the limit
 * gets a bot's token reset (Discord); resumes do not count. The Gateway tries
 * again once the budget resets.
 */
export class SessionBudgetError extends GatewayError {
  /** Session starts left today, as the service last said. */
  readonly remaining: number;
  /** Session starts per day. */
  readonly total: number;
  /** The reserve that is not spent. */
  readonly reserve: number;
  /** Milliseconds until the budget resets. */
  readonly resetAfterMs: number;
  constructor(budget: { remaining: number; total: number; reserve: number; resetAfterMs: number }) {
    super(
      `not identifying: ${budget.remaining} of ${budget.total} session starts are left today, and ${budget.reserve} are kept in reserve (identifying past the limit gets the token reset); the budget resets in ${Math.ceil(budget.resetAfterMs / 1000)} s`,
    );
    this.remaining = budget.remaining;
    this.total = budget.total;
    this.reserve = budget.reserve;
    this.resetAfterMs = budget.resetAfterMs;
  }
}

brand({ GatewayError, GatewayFatalError, SessionBudgetError });
