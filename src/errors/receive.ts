/**
 * Errors of receiving events over HTTP.
 *
 * @module
 */

import { CommunityChatError, brand } from './base.js';

/** Why a webhook delivery was refused. */
export type WebhookVerificationReason = 'missing-header' | 'malformed' | 'bad-signature' | 'stale' | 'replayed';

/**
 * A webhook delivery failed verification: a header is missing or malformed,
 * the signature matches no secret, the signing time is outside the tolerance,
 * or the delivery was already received. Receivers answer it with 401. Its
 * message never holds a secret or a signature.
 */
export class WebhookVerificationError extends CommunityChatError {
  /** Why the delivery was refused. */
  readonly reason: WebhookVerificationReason;
  /** The status a receiver answers with: always 401. */
  readonly status = 401;

  constructor(reason: WebhookVerificationReason, detail: string) {
    super(`Webhook delivery refused (${reason}): ${detail}`);
    this.reason = reason;
  }
}

/**
 * The in-memory replay store holds its `maxEntries` live keys and will not
 * forget one before its time (that would let a captured delivery be replayed
 * again): the delivery is refused for now (the receiver answers 503, which
 * the sender retries later). Raise `maxEntries`, or use a shared store.
 */
export class ReplayStoreFullError extends CommunityChatError {
  /** The store's `maxEntries`. */
  readonly maxEntries: number;

  constructor(maxEntries: number) {
    super(
      `the replay store holds ${maxEntries} live keys (maxEntries), none expired; refusing a new one rather than forgetting a live one (raise maxEntries, or use a shared store)`,
    );
    this.maxEntries = maxEntries;
  }
}

brand({ WebhookVerificationError, ReplayStoreFullError });
