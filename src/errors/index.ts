/**
 * The SDK's error hierarchy and its type guards.
 *
 * Every error the SDK throws is a {@link CommunityChatError}. Guards such as
 * {@link isApiError} recognise errors by a brand stored under a global symbol,
 * so they also work when two copies of the package are loaded (for example an
 * ESM and a CJS copy, or two versions in one dependency tree), where
 * `instanceof` would fail.
 *
 * @module
 */

import { ApiError, AuthenticationError, NotFoundError, PermissionError, RateLimitError, ServerError } from './api.js';
import { CommunityChatError, hasKind, KIND } from './base.js';
import { GatewayError, GatewayFatalError, SessionBudgetError } from './gateway.js';
import {
  InteractionAlreadyAcknowledgedError,
  InteractionError,
  InteractionExpiredError,
  InteractionResponseError,
  InteractionTimeoutError,
  InteractionWaitAbortedError,
} from './interaction.js';
import {
  InsecureTransportError,
  MissingCredentialError,
  RateLimitStoreError,
  SessionStoreError,
  EventStreamError,
  ShardCoordinatorError,
  ValidationError,
} from './local.js';
import { ReplayStoreFullError, WebhookVerificationError } from './receive.js';
import { AbortError, HookError, NetworkError, ResponseTooLargeError, TimeoutError, UnexpectedResponseError } from './request.js';

export * from './api.js';
export { CommunityChatError, type CommunityChatErrorOptions } from './base.js';
export * from './gateway.js';
export * from './interaction.js';
export * from './local.js';
export * from './receive.js';
export * from './request.js';

/**
 * Every SDK error class by its kind: the one list the brands and the guards
 * come from. A class's ancestry is its prototype chain, so it is stated once,
 * in its `extends` clause.
 */
const ERROR_CLASSES = {
  CommunityChatError,
  ApiError,
  AuthenticationError,
  PermissionError,
  NotFoundError,
  RateLimitError,
  ServerError,
  ValidationError,
  MissingCredentialError,
  InsecureTransportError,
  NetworkError,
  TimeoutError,
  AbortError,
  ResponseTooLargeError,
  UnexpectedResponseError,
  HookError,
  RateLimitStoreError,
  SessionStoreError,
  EventStreamError,
  ShardCoordinatorError,
  GatewayError,
  GatewayFatalError,
  SessionBudgetError,
  InteractionError,
  InteractionAlreadyAcknowledgedError,
  InteractionExpiredError,
  InteractionResponseError,
  InteractionTimeoutError,
  InteractionWaitAbortedError,
  WebhookVerificationError,
  ReplayStoreFullError,
} as const;

/** Names of every error class, used by the cross-copy guards. */
export type ErrorKind = keyof typeof ERROR_CLASSES;

for (const [kind, errorClass] of Object.entries(ERROR_CLASSES)) {
  Object.defineProperty(errorClass.prototype, KIND, { value: kind, enumerable: false });
}

/** A guard that recognises an error of `kind` (or a subclass) from any copy of the package. */
function guard<K extends ErrorKind>(kind: K): (value: unknown) => value is InstanceType<(typeof ERROR_CLASSES)[K]> {
  return (value: unknown): value is InstanceType<(typeof ERROR_CLASSES)[K]> => hasKind(value, kind);
}

/** Whether `value` is any error thrown by this SDK (any copy of it). */
export const isCommunityChatError = guard('CommunityChatError');
/** Whether `value` is an {@link ApiError} (a non-2xx response). */
export const isApiError = guard('ApiError');
/** Whether `value` is an {@link AuthenticationError} (401). */
export const isAuthenticationError = guard('AuthenticationError');
/** Whether `value` is a {@link PermissionError} (403). */
export const isPermissionError = guard('PermissionError');
/** Whether `value` is a {@link NotFoundError} (404). */
export const isNotFoundError = guard('NotFoundError');
/** Whether `value` is a {@link RateLimitError} (429). */
export const isRateLimitError = guard('RateLimitError');
/** Whether `value` is a {@link ServerError} (5xx). */
export const isServerError = guard('ServerError');
/** Whether `value` is a {@link ValidationError}. */
export const isValidationError = guard('ValidationError');
/** Whether `value` is a {@link MissingCredentialError}. */
export const isMissingCredentialError = guard('MissingCredentialError');
/** Whether `value` is an {@link InsecureTransportError}. */
export const isInsecureTransportError = guard('InsecureTransportError');
/** Whether `value` is a {@link NetworkError}. */
export const isNetworkError = guard('NetworkError');
/** Whether `value` is a {@link TimeoutError}. */
export const isTimeoutError = guard('TimeoutError');
/** Whether `value` is an {@link AbortError}. */
export const isAbortError = guard('AbortError');
/** Whether `value` is a {@link ResponseTooLargeError}. */
export const isResponseTooLargeError = guard('ResponseTooLargeError');
/** Whether `value` is an {@link UnexpectedResponseError}. */
export const isUnexpectedResponseError = guard('UnexpectedResponseError');
/** Whether `value` is a {@link HookError} (a request hook threw, or set a credential header). */
export const isHookError = guard('HookError');
/** Whether `value` is a {@link RateLimitStoreError}. */
export const isRateLimitStoreError = guard('RateLimitStoreError');
/** Whether `value` is a {@link SessionStoreError} (a user or Gateway session store failed, or holds something that is not a session). */
export const isSessionStoreError = guard('SessionStoreError');
/** Whether `value` is an {@link EventStreamError} (the Redis stream of Gateway events failed). */
export const isEventStreamError = guard('EventStreamError');
/** Whether `value` is a {@link ShardCoordinatorError} (the fleet's coordinator failed, refused a member of another bot, or found a planted value). */
export const isShardCoordinatorError = guard('ShardCoordinatorError');
/** Whether `value` is a {@link GatewayError}. */
export const isGatewayError = guard('GatewayError');
/** Whether `value` is a {@link GatewayFatalError}. */
export const isGatewayFatalError = guard('GatewayFatalError');
/** Whether `value` is a {@link SessionBudgetError} (an Identify held back to keep the session start budget's reserve). */
export const isSessionBudgetError = guard('SessionBudgetError');
/** Whether `value` is an {@link InteractionError}. */
export const isInteractionError = guard('InteractionError');
/** Whether `value` is an {@link InteractionAlreadyAcknowledgedError}. */
export const isInteractionAlreadyAcknowledgedError = guard('InteractionAlreadyAcknowledgedError');
/** Whether `value` is an {@link InteractionExpiredError}. */
export const isInteractionExpiredError = guard('InteractionExpiredError');
/** Whether `value` is an {@link InteractionResponseError}. */
export const isInteractionResponseError = guard('InteractionResponseError');
/** Whether `value` is an {@link InteractionTimeoutError} (an `awaitComponent` / `awaitModalSubmit` that timed out). */
export const isInteractionTimeoutError = guard('InteractionTimeoutError');
/** Whether `value` is an {@link InteractionWaitAbortedError} (a wait ended by its signal or by clearing the router). */
export const isInteractionWaitAbortedError = guard('InteractionWaitAbortedError');
/** Whether `value` is a {@link WebhookVerificationError}. */
export const isWebhookVerificationError = guard('WebhookVerificationError');
/** Whether `value` is a {@link ReplayStoreFullError} (the in-memory replay store is full of live keys). */
export const isReplayStoreFullError = guard('ReplayStoreFullError');
