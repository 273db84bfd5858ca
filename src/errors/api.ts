/**
 * Errors of a non-2xx response from the service.
 *
 * @module
 */

import type { CredentialKind, HttpMethod } from '../core/routes.js';
import { CommunityChatError, brand } from './base.js';

/** Where a failed request was going; paths never contain secrets. */
export interface RequestDescription {
  /** HTTP method of the request. */
  method: HttpMethod;
  /** Request path with every secret path segment replaced by `:redacted`. */
  path: string;
  /** Operation id from the route table, or `'request'` for the low-level escape hatch. */
  operation: string;
}

/** Everything known about a non-2xx response. */
export interface ApiErrorInit extends RequestDescription {
  /** HTTP status code. */
  status: number;
  /** Parsed body: JSON value, text, or `undefined` when empty. Secrets are redacted. */
  body: unknown;
  /** Response headers, lower-cased, with cookies removed. */
  headers: Record<string, string>;
  /** The credential kind the request used. */
  credential: CredentialKind;
  /** Attempt number, starting at 1. */
  attempt?: number;
  /** A short, readable summary of the body for the message (response decoding makes it). @default none */
  summary?: string;
  /** The body's machine-readable error code, if it has one. @default undefined */
  code?: string | number | undefined;
}

/** A non-2xx response from the service. */
export class ApiError extends CommunityChatError {
  /** HTTP status code. */
  readonly status: number;
  /** Machine-readable error code from the body, when the body has one. */
  readonly code: string | number | undefined;
  /** Parsed response body (JSON value or text), with secret-looking fields redacted. */
  readonly body: unknown;
  /** Response headers, lower-cased, without cookies. */
  readonly headers: Record<string, string>;
  /** HTTP method of the failed request. */
  readonly method: HttpMethod;
  /** Path of the failed request, with secret segments replaced by `:redacted`. */
  readonly path: string;
  /** Operation id of the failed request. */
  readonly operation: string;
  /** The credential kind the request used (`none` for public routes). */
  readonly credential: CredentialKind;
  /** Attempt number that produced this error, starting at 1. */
  readonly attempt: number;

  /**
   * @param message What went wrong, after "METHOD path failed with STATUS: ".
   * @param whole Whether `message` is the whole message instead (for a request that was never sent).
   */
  constructor(init: ApiErrorInit, message?: string, whole = false) {
    const summary = message ?? init.summary;
    super(whole && message !== undefined ? message : `${init.method} ${init.path} failed with ${init.status}${summary ? `: ${summary}` : ''}`);
    this.status = init.status;
    this.code = init.code;
    this.body = init.body;
    this.headers = init.headers;
    this.method = init.method;
    this.path = init.path;
    this.operation = init.operation;
    this.credential = init.credential;
    this.attempt = init.attempt ?? 1;
  }
}

/** 401: the credential was missing, malformed, expired or revoked. */
export class AuthenticationError extends ApiError {
  constructor(init: ApiErrorInit) {
    const hint: Partial<Record<CredentialKind, string>> = {
      bot: 'the bot token was rejected; replace it (it may have been reset)',
      user: 'the user session was rejected; log in again or refresh it',
      webhook: 'the webhook token was rejected; it may have been reset',
      refreshCookie: 'the refresh cookie was rejected; the session has ended, log in again',
      none: 'the service asked for credentials on a route the contract lists as public',
    };
    super(init, `${hint[init.credential] ?? 'credential rejected'}${init.summary ? ` (${init.summary})` : ''}`);
  }
}

/** 403: authenticated but not permitted (membership, roles or ownership). */
export class PermissionError extends ApiError {}

/** 404: the addressed resource does not exist. */
export class NotFoundError extends ApiError {}

/** Extra facts about a rate limit. */
export interface RateLimitErrorInit extends ApiErrorInit {
  /** How long the service asked to wait, in milliseconds, if it said. */
  retryAfterMs: number | undefined;
  /** Whether the limit is the global (per-IP) one. */
  global: boolean;
  /**
   * `false` when the SDK refused to wait before sending (the request never
   * left: no 429 was received), with what it would have waited for.
   * @default true
   */
  sent?: boolean | undefined;
  /** What the refused wait was for (a route bucket, a global pause, the webhook window), when `sent` is false. */
  heldBy?: 'bucket' | 'global' | 'webhook' | undefined;
}

/** 429: the rate limit was exceeded. */
export class RateLimitError extends ApiError {
  /** Milliseconds the service asked the client to wait, or `undefined` if it did not say. */
  readonly retryAfterMs: number | undefined;
  /** Whether the global (per-IP) limit was hit rather than a route's. */
  readonly global: boolean;

  /**
   * Whether a request was sent and answered 429 (`true`), or the SDK refused,
   * before sending, a wait it would have had to make (`false`; nothing was sent).
   */
  readonly sent: boolean;

  constructor(init: RateLimitErrorInit, reason?: string) {
    const sent = init.sent ?? true;
    if (sent) {
      const wait = init.retryAfterMs === undefined ? 'no Retry-After given' : `retry after ${init.retryAfterMs} ms`;
      super(init, `rate limited${init.global ? ' (global)' : ''}, ${wait}${reason ? `; ${reason}` : ''}${init.summary ? ` (${init.summary})` : ''}`);
    } else {
      const held = init.heldBy === 'webhook' ? "the webhook's rolling window" : init.heldBy === 'global' ? 'a global rate-limit pause' : 'a route rate limit';
      super(
        init,
        `${init.method} ${init.path} was not sent: it would wait ${init.retryAfterMs ?? 0} ms for ${held}${reason ? ` (${reason})` : ''}; nothing was sent`,
        true,
      );
    }
    this.retryAfterMs = init.retryAfterMs;
    this.global = init.global;
    this.sent = sent;
  }
}

/** 5xx: the service failed. */
export class ServerError extends ApiError {}

brand({ ApiError, AuthenticationError, PermissionError, NotFoundError, RateLimitError, ServerError });
