/**
 * Errors about answering an interaction; each carries the interaction's age.
 *
 * @module
 */

import { CommunityChatError, type CommunityChatErrorOptions, describeThrown, brand } from './base.js';

/** Facts every interaction error carries. */
export interface InteractionErrorInit {
  /** The interaction's id. */
  interactionId: string;
  /** How old the interaction was when the error happened, in milliseconds. */
  ageMs: number;
}

function formatAge(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  return seconds >= 60 ? `${Math.floor(seconds / 60)} min ${seconds % 60} s` : `${seconds} s`;
}

/** Base class of errors about answering an interaction; every one carries the interaction's age. */
export class InteractionError extends CommunityChatError {
  /** The interaction's id. */
  readonly interactionId: string;
  /** The interaction's age when the error happened, in milliseconds. */
  readonly ageMs: number;
  constructor(init: InteractionErrorInit, message: string, options?: CommunityChatErrorOptions) {
    super(`Interaction ${init.interactionId} (age ${formatAge(init.ageMs)}): ${message}`, options);
    this.interactionId = init.interactionId;
    this.ageMs = init.ageMs;
  }
}

/** A second acknowledgement (other than autocomplete results) was refused locally; nothing was sent. */
export class InteractionAlreadyAcknowledgedError extends InteractionError {
  /** The `interaction_type` of the earlier acknowledgement. */
  readonly previousType: number;
  constructor(init: InteractionErrorInit, previousType: number, attemptedType: number) {
    super(
      init,
      `already acknowledged with interaction_type ${previousType}; an interaction is acknowledged only once (autocomplete results excepted), so interaction_type ${attemptedType} was not sent`,
    );
    this.previousType = previousType;
  }
}

/** The interaction's 15-minute token has expired; nothing was sent. */
export class InteractionExpiredError extends InteractionError {
  /** When it expired, epoch milliseconds. */
  readonly expiredAt: number;
  constructor(init: InteractionErrorInit, expiredAt: number) {
    super(init, `expired at ${new Date(expiredAt).toISOString()}: interaction tokens are valid for 15 minutes from creation; nothing was sent`);
    this.expiredAt = expiredAt;
  }
}

/** The callback failed. `mayHaveBeenDelivered` says whether the answer may still have reached the service. */
export class InteractionResponseError extends InteractionError {
  /** HTTP status, when the service answered. */
  readonly status: number | undefined;
  /** Whether the answer may have been delivered (a transport failure after sending). When `true`, the interaction stays acknowledged. */
  readonly mayHaveBeenDelivered: boolean;
  constructor(init: InteractionErrorInit, cause: unknown, status: number | undefined, mayHaveBeenDelivered: boolean) {
    const what =
      status !== undefined
        ? `the service rejected the answer with ${status}; the interaction is pending again`
        : mayHaveBeenDelivered
          ? 'the answer may have been delivered: the connection failed after it was sent, so it was not retried'
          : 'the answer was not delivered; the interaction is pending again';
    super(init, `${what} (${describeThrown(cause)})`, { cause });
    this.status = status;
    this.mayHaveBeenDelivered = mayHaveBeenDelivered;
  }
}

/** What an `awaitComponent` or `awaitModalSubmit` call was waiting for. */
export type InteractionWaitKind = 'component' | 'modalSubmit';

function waitedForText(waitedFor: InteractionWaitKind): string {
  return waitedFor === 'component' ? 'a component interaction (awaitComponent)' : 'a modal submit (awaitModalSubmit)';
}

/**
 * No matching interaction arrived within `timeoutMs` of `awaitComponent` or
 * `awaitModalSubmit`. The service never reports a dismissed modal or an
 * ignored button, so every wait ends this way when the user does nothing.
 * `interactionId` is the interaction that waited (the original).
 */
export class InteractionTimeoutError extends InteractionError {
  /** What was awaited. */
  readonly waitedFor: InteractionWaitKind;
  /** The timeout that elapsed, in milliseconds. */
  readonly timeoutMs: number;
  constructor(init: InteractionErrorInit, waitedFor: InteractionWaitKind, timeoutMs: number) {
    super(
      init,
      `no matching interaction arrived within ${timeoutMs} ms while waiting for ${waitedForText(waitedFor)}; the service does not report a dismissed modal or an ignored message`,
    );
    this.waitedFor = waitedFor;
    this.timeoutMs = timeoutMs;
  }
}

/**
 * A wait of `awaitComponent` or `awaitModalSubmit` ended before its timeout:
 * the caller's signal aborted (the signal's reason is the `cause`), or the
 * router was closed (as `gateway.close()` does).
 */
export class InteractionWaitAbortedError extends InteractionError {
  /** What was awaited. */
  readonly waitedFor: InteractionWaitKind;
  constructor(init: InteractionErrorInit, waitedFor: InteractionWaitKind, why: string, options?: CommunityChatErrorOptions) {
    super(init, `stopped waiting for ${waitedForText(waitedFor)}: ${why}`, options);
    this.waitedFor = waitedFor;
  }
}

brand({
  InteractionError,
  InteractionAlreadyAcknowledgedError,
  InteractionExpiredError,
  InteractionResponseError,
  InteractionTimeoutError,
  InteractionWaitAbortedError,
});
