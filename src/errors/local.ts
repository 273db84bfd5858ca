/**
 * Errors raised before any network I/O: bad input, a missing credential, an insecure transport.
 *
 * @module
 */

import type { CredentialKind } from '../core/routes.js';
import { CommunityChatError, type CommunityChatErrorOptions, brand } from './base.js';

/** One problem found while validating input. */
export interface ValidationIssue {
  /** Dotted path of the offending field, e.g. `data.content` or `options.0.name`. */
  path: string;
  /** What is wrong with it. */
  message: string;
}

/** Input was rejected locally, before any network I/O. */
export class ValidationError extends CommunityChatError {
  /** Every offending field. */
  readonly issues: readonly ValidationIssue[];
  /** The operation whose input was rejected. */
  readonly operation: string;

  constructor(operation: string, issues: readonly ValidationIssue[], options?: CommunityChatErrorOptions) {
    const list = issues.map((issue) => `${issue.path || '(input)'}: ${issue.message}`).join('; ');
    super(`Invalid input for ${operation}: ${list}`, options);
    this.operation = operation;
    this.issues = issues;
  }
}

/** The operation needs a credential the client does not hold; nothing was sent. */
export class MissingCredentialError extends CommunityChatError {
  /** Operation id. */
  readonly operation: string;
  /** Credential kinds the operation accepts. */
  readonly accepted: readonly CredentialKind[];
  /** Why each accepted credential could not be used (no secrets in them). */
  readonly reasons: readonly string[];

  constructor(operation: string, accepted: readonly CredentialKind[], reasons: readonly string[] = []) {
    super(
      `${operation} needs one of these credentials: ${accepted.join(', ')}; the client holds none of them${reasons.length > 0 ? ` (${reasons.join('; ')})` : ''}. Nothing was sent.`,
    );
    this.operation = operation;
    this.accepted = accepted;
    this.reasons = reasons;
  }
}

/** Credentials would have gone over plain HTTP to a non-loopback host; nothing was sent. */
export class InsecureTransportError extends CommunityChatError {
  constructor(operation: string, origin: string) {
    super(
      `${operation} refused to send credentials over plain HTTP to ${origin}. Use https://, or pass allowInsecureHttp: true if you really mean it. Nothing was sent.`,
    );
  }
}

/**
 * A shared rate-limit store (such as the Redis one) could not answer in
 * time, so the SDK refused to send without its limits; nothing was sent.
 * Pass `onStoreError: 'local'` to the store to fall back to in-memory limits
 * instead.
 */
export class RateLimitStoreError extends CommunityChatError {
  /** Always `false`: the request was not sent. */
  readonly mayHaveReachedServer = false;

  constructor(detail: string, options?: { cause?: unknown }) {
    super(
      `The shared rate-limit store is unreachable (${detail}); nothing was sent. Pass onStoreError: 'local' to the store to fall back to in-memory limits.`,
      options,
    );
  }
}

/**
 * A session store (the user session's, or the Gateway's) failed: it is
 * unreachable, did not answer in time, or holds a value that is not a session
 * (corrupt or planted). The message never quotes what the store holds.
 */
export class SessionStoreError extends CommunityChatError {
  /** What went wrong, without the "The session store failed" the message starts with (e.g. "the Redis client is not connected"). */
  readonly detail: string;
  constructor(detail: string, options?: { cause?: unknown }) {
    super(`The session store failed: ${detail}`, options);
    this.detail = detail;
  }
}

/**
 * The stream of Gateway events (Redis) failed: it is unreachable or did not
 * answer in time. A publish that fails is tried again in order; a worker
 * tries its step again on its next turn.
 */
export class EventStreamError extends CommunityChatError {
  constructor(detail: string, options?: { cause?: unknown }) {
    super(`The event stream failed: ${detail}`, options);
  }
}

/**
 * The shard coordinator (Redis) failed: it is unreachable or did not answer
 * in time, refused this process (its fleet key belongs to another bot), or
 * found a value it did not write under its keys (planted or corrupt; repaired
 * and named in {@link ShardCoordinatorError.keys}).
 */
export class ShardCoordinatorError extends CommunityChatError {
  /** The Redis keys that held a value the SDK did not write, when that is what happened; otherwise empty. */
  readonly keys: readonly string[];

  constructor(detail: string, options?: { cause?: unknown; keys?: readonly string[] }) {
    super(`The shard coordinator failed: ${detail}`, options?.cause === undefined ? undefined : { cause: options.cause });
    this.keys = options?.keys ?? [];
  }
}

brand({ ValidationError, MissingCredentialError, InsecureTransportError, RateLimitStoreError, SessionStoreError, EventStreamError, ShardCoordinatorError });
