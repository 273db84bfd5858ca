/**
 * Errors of the Gateway connection.
 *
 * @module
 */

import { CommunityChatError, type CommunityChatErrorOptions } from './base.js';

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
