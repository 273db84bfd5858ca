/**
 * The SDK's error hierarchy and its type guards.
 *
 * Every error the SDK throws is a {@link CommunityChatError}. The one guard,
 * {@link isCommunityChatError} (`isCommunityChatError(error, 'RateLimitError')`),
 * recognises errors by a brand stored under a global symbol, so it also works
 * when two copies of the package are loaded (for example an ESM and a CJS copy,
 * or two versions in one dependency tree), where `instanceof` would fail.
 *
 * @module
 */

import { ApiError, AuthenticationError, NotFoundError, PermissionError, RateLimitError, ServerError } from './api.js';
import { CommunityChatError, hasKind } from './base.js';
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
import { MultipartStreamError, TransportFailure } from './transport.js';

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
  /** The root of the hierarchy: any error thrown by this SDK. */
  CommunityChatError,
  /** A non-2xx response: `ApiError`. */
  ApiError,
  /** 401: `AuthenticationError`. */
  AuthenticationError,
  /** 403: `PermissionError`. */
  PermissionError,
  /** 404: `NotFoundError`. */
  NotFoundError,
  /** 429: `RateLimitError`. */
  RateLimitError,
  /** 5xx: `ServerError`. */
  ServerError,
  /** `ValidationError`. */
  ValidationError,
  /** `MissingCredentialError`. */
  MissingCredentialError,
  /** `InsecureTransportError`. */
  InsecureTransportError,
  /** `NetworkError`. */
  NetworkError,
  /** `TimeoutError`. */
  TimeoutError,
  /** `AbortError`. */
  AbortError,
  /** `ResponseTooLargeError`. */
  ResponseTooLargeError,
  /** `UnexpectedResponseError`. */
  UnexpectedResponseError,
  /** A request hook threw, or set a credential header: `HookError`. */
  HookError,
  /** `RateLimitStoreError`. */
  RateLimitStoreError,
  /** A user or Gateway session store failed, or holds something that is not a session: `SessionStoreError`. */
  SessionStoreError,
  /** The Redis stream of Gateway events failed: `EventStreamError`. */
  EventStreamError,
  /** The fleet's coordinator failed, refused a member of another bot, or found a planted value: `ShardCoordinatorError`. */
  ShardCoordinatorError,
  /** `GatewayError`. */
  GatewayError,
  /** `GatewayFatalError`. */
  GatewayFatalError,
  /** An Identify held back to keep the session start budget's reserve: `SessionBudgetError`. */
  SessionBudgetError,
  /** `InteractionError`. */
  InteractionError,
  /** `InteractionAlreadyAcknowledgedError`. */
  InteractionAlreadyAcknowledgedError,
  /** `InteractionExpiredError`. */
  InteractionExpiredError,
  /** `InteractionResponseError`. */
  InteractionResponseError,
  /** An `awaitComponent` / `awaitModalSubmit` that timed out: `InteractionTimeoutError`. */
  InteractionTimeoutError,
  /** A wait ended by its signal or by clearing the router: `InteractionWaitAbortedError`. */
  InteractionWaitAbortedError,
  /** `WebhookVerificationError`. */
  WebhookVerificationError,
  /** The in-memory replay store is full of live keys: `ReplayStoreFullError`. */
  ReplayStoreFullError,
  /** An upload body that cannot be sent (a one-shot stream read twice, a size mismatch): `MultipartStreamError`. */
  MultipartStreamError,
  /** A transport got no response (what a custom transport rejects with; the pipeline turns it into a `NetworkError` and the like): `TransportFailure`. */
  TransportFailure,
} as const;

/** The name of each SDK error class: the `kind` {@link isCommunityChatError} asks about. */
export type ErrorKind = keyof typeof ERROR_CLASSES;

/** The error of a kind: `ErrorOfKind<'RateLimitError'>` is {@link RateLimitError}; what `isCommunityChatError(value, kind)` narrows to. */
export type ErrorOfKind<K extends ErrorKind> = InstanceType<(typeof ERROR_CLASSES)[K]>;

/**
 * Whether `value` is an error this SDK threw (from any copy of the package), and with `kind`, an error of that class
 * or of a subclass of it: `isCommunityChatError(error, 'RateLimitError')` narrows `error` to {@link RateLimitError}.
 * Errors are recognised by a brand stored under a global symbol, so an error of another copy of the package (an ESM
 * and a CJS copy, two versions in one tree) answers too, where `instanceof` would not.
 *
 * @param value - Anything caught.
 * @param kind - The class asked about, by name (an {@link ErrorKind}). @default 'CommunityChatError'
 * @throws {@link ValidationError} when `kind` names no error class of the SDK (a typo would otherwise answer `false` forever).
 */
export function isCommunityChatError<K extends ErrorKind = 'CommunityChatError'>(value: unknown, kind?: K): value is ErrorOfKind<K> {
  if (kind === undefined) return hasKind(value, 'CommunityChatError');
  if (!Object.hasOwn(ERROR_CLASSES, kind)) {
    // The value being asked about goes along as the cause: in a catch block, the error caught is not lost behind the typo.
    throw new ValidationError(
      'isCommunityChatError',
      [{ path: 'kind', message: `names no error class of the SDK (one of ${Object.keys(ERROR_CLASSES).join(', ')})` }],
      { cause: value },
    );
  }
  return hasKind(value, kind);
}
