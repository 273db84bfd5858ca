/**
 * Errors of a request that got no usable response: network failures, timeouts, aborts, oversized or unusable bodies.
 *
 * @module
 */

import type { HttpMethod } from '../core/routes.js';
import type { RequestDescription } from './api.js';
import { CommunityChatError, type CommunityChatErrorOptions, brand } from './base.js';

/** Facts shared by errors raised while a request was under way. */
export interface RequestFailureInit extends RequestDescription {
  /** Attempt number, starting at 1. */
  attempt?: number;
  /** Whether the request may have reached the server (its outcome is unknown). */
  mayHaveReachedServer: boolean;
  /** Underlying error. */
  cause?: unknown;
}

abstract class RequestFailure extends CommunityChatError {
  /** HTTP method. */
  readonly method: HttpMethod;
  /** Redacted path. */
  readonly path: string;
  /** Operation id. */
  readonly operation: string;
  /** Attempt number, starting at 1. */
  readonly attempt: number;
  /** Whether the request may have reached the server, so its effect is unknown. */
  readonly mayHaveReachedServer: boolean;

  constructor(init: RequestFailureInit, message: string) {
    super(`${init.method} ${init.path}: ${message}`, { cause: init.cause });
    this.method = init.method;
    this.path = init.path;
    this.operation = init.operation;
    this.attempt = init.attempt ?? 1;
    this.mayHaveReachedServer = init.mayHaveReachedServer;
  }
}

/** The connection failed (refused, reset, DNS failure...). */
export class NetworkError extends RequestFailure {
  constructor(init: RequestFailureInit, detail: string) {
    super(init, `network error: ${detail}`);
  }
}

/** The request took longer than its timeout. */
export class TimeoutError extends RequestFailure {
  /** The timeout that elapsed, in milliseconds. */
  readonly timeoutMs: number;
  constructor(init: RequestFailureInit, timeoutMs: number) {
    super(init, `timed out after ${timeoutMs} ms${init.mayHaveReachedServer ? ' (the request may have reached the server)' : ''}`);
    this.timeoutMs = timeoutMs;
  }
}

/** The caller aborted the request with its `AbortSignal`. */
export class AbortError extends RequestFailure {
  constructor(init: RequestFailureInit) {
    super(init, `aborted by the caller${init.mayHaveReachedServer ? ' (the request may have reached the server)' : ''}`);
  }
}

/** The response body was longer than `maxResponseBytes`; the SDK stopped reading it. */
export class ResponseTooLargeError extends RequestFailure {
  /** The limit that was exceeded, in bytes. */
  readonly limitBytes: number;
  constructor(init: RequestFailureInit, limitBytes: number) {
    super(
      init,
      `the response body exceeds maxResponseBytes (${limitBytes} bytes), so it was not read; raise maxResponseBytes on the client or on this call if you expect a body this large`,
    );
    this.limitBytes = limitBytes;
  }
}

/** A 2xx response whose body the SDK could not use (e.g. invalid JSON, or a login answer without a token). */
export class UnexpectedResponseError extends CommunityChatError {
  /** Operation id. */
  readonly operation: string;
  /** HTTP status of the response. */
  readonly status: number;

  constructor(operation: string, status: number, message: string, options?: CommunityChatErrorOptions) {
    super(`${operation}: unexpected response (${status}): ${message}`, options);
    this.operation = operation;
    this.status = status;
  }
}

/** The request hooks a client runs around its calls. */
export type RequestHookName = 'beforeRequest' | 'afterResponse' | 'onError';

/** What a {@link HookError} knows of the call. */
export interface HookErrorInit extends RequestDescription {
  /** The hook that failed. */
  hook: RequestHookName;
  /** Attempt number, starting at 1. */
  attempt: number;
  /** Whether the request was sent (`false` for `beforeRequest`). */
  mayHaveReachedServer: boolean;
  /** What the hook threw, or the refused header's problem. */
  cause?: unknown;
  /** For `onError`: the error the call was rejecting with when the hook failed. */
  callError?: unknown;
}

/**
 * A request hook (`beforeRequest`, `afterResponse` or `onError`) threw or
 * rejected, or `beforeRequest` tried to set a credential header or an invalid
 * one. The call rejects with this error; other calls are not affected. The
 * hook's own error is the `cause`.
 */
export class HookError extends CommunityChatError {
  /** The hook that failed. */
  readonly hook: RequestHookName;
  /** HTTP method. */
  readonly method: HttpMethod;
  /** Redacted path. */
  readonly path: string;
  /** Operation id. */
  readonly operation: string;
  /** Attempt number, starting at 1. */
  readonly attempt: number;
  /** Whether the request was sent before the hook failed. */
  readonly mayHaveReachedServer: boolean;
  /** For `onError`: the error the call was rejecting with. @default undefined */
  readonly callError: unknown;

  constructor(init: HookErrorInit, detail: string) {
    super(`${init.method} ${init.path}: the ${init.hook} hook failed: ${detail}`, { cause: init.cause });
    this.hook = init.hook;
    this.method = init.method;
    this.path = init.path;
    this.operation = init.operation;
    this.attempt = init.attempt;
    this.mayHaveReachedServer = init.mayHaveReachedServer;
    this.callError = init.callError;
  }
}

brand({ NetworkError, TimeoutError, AbortError, ResponseTooLargeError, UnexpectedResponseError, HookError });
