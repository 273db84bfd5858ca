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

import type { CredentialKind, HttpMethod } from './routes.js';

/** Marks each SDK error class's prototype with its kind; a global symbol, so two copies of the package agree. */
const KIND = Symbol.for('community-chat-sdk.error.kind');

/** How version 0.1 branded its errors (a list of kinds per class), still recognised so that both versions in one tree agree. */
const LEGACY_KINDS = Symbol.for('community-chat-sdk.error.kinds');

/** Whether `value` has `kind` anywhere on its prototype chain: its class or one of its ancestors. */
function hasKind(value: unknown, kind: ErrorKind): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const legacy = (value as Record<symbol, unknown>)[LEGACY_KINDS];
  if (Array.isArray(legacy)) return legacy.includes(kind);
  for (let proto: object | null = Object.getPrototypeOf(value); proto !== null; proto = Object.getPrototypeOf(proto)) {
    if (Object.prototype.hasOwnProperty.call(proto, KIND) && (proto as Record<symbol, unknown>)[KIND] === kind) return true;
  }
  return false;
}

/** Options shared by every SDK error. */
export interface CommunityChatErrorOptions {
  /** The underlying error, if any. */
  cause?: unknown;
}

/** Base class of every error thrown by the SDK. */
export class CommunityChatError extends Error {
  constructor(message: string, options?: CommunityChatErrorOptions) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    // The registered kind survives bundlers that rename classes; a user's own subclass keeps its class name.
    const prototype = new.target.prototype as unknown as Record<symbol, unknown>;
    this.name = Object.prototype.hasOwnProperty.call(prototype, KIND) ? String(prototype[KIND]) : new.target.name;
  }
}

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

  constructor(init: ApiErrorInit, message?: string) {
    const summary = message ?? init.summary;
    super(`${init.method} ${init.path} failed with ${init.status}${summary ? `: ${summary}` : ''}`);
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
}

/** 429: the rate limit was exceeded. */
export class RateLimitError extends ApiError {
  /** Milliseconds the service asked the client to wait, or `undefined` if it did not say. */
  readonly retryAfterMs: number | undefined;
  /** Whether the global (per-IP) limit was hit rather than a route's. */
  readonly global: boolean;

  constructor(init: RateLimitErrorInit, reason?: string) {
    const wait = init.retryAfterMs === undefined ? 'no Retry-After given' : `retry after ${init.retryAfterMs} ms`;
    super(init, `rate limited${init.global ? ' (global)' : ''}, ${wait}${reason ? `; ${reason}` : ''}${init.summary ? ` (${init.summary})` : ''}`);
    this.retryAfterMs = init.retryAfterMs;
    this.global = init.global;
  }
}

/** 5xx: the service failed. */
export class ServerError extends ApiError {}

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

  constructor(operation: string, issues: readonly ValidationIssue[]) {
    const list = issues.map((issue) => `${issue.path || '(input)'}: ${issue.message}`).join('; ');
    super(`Invalid input for ${operation}: ${list}`);
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

  constructor(operation: string, accepted: readonly CredentialKind[], reasons: readonly string[] = []) {
    super(
      `${operation} needs one of these credentials: ${accepted.join(', ')}; the client holds none of them${reasons.length > 0 ? ` (${reasons.join('; ')})` : ''}. Nothing was sent.`,
    );
    this.operation = operation;
    this.accepted = accepted;
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
    super(init, `the response body exceeds maxResponseBytes (${limitBytes} bytes), so it was not read; raise maxResponseBytes on the client or on this call if you expect a body this large`);
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
    super(init, `already acknowledged with interaction_type ${previousType}; an interaction is acknowledged only once (autocomplete results excepted), so interaction_type ${attemptedType} was not sent`);
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
    super(init, `${what} (${cause instanceof Error ? cause.message : String(cause)})`, { cause });
    this.status = status;
    this.mayHaveBeenDelivered = mayHaveBeenDelivered;
  }
}

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
  GatewayError,
  GatewayFatalError,
  InteractionError,
  InteractionAlreadyAcknowledgedError,
  InteractionExpiredError,
  InteractionResponseError,
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
/** Whether `value` is a {@link GatewayError}. */
export const isGatewayError = guard('GatewayError');
/** Whether `value` is a {@link GatewayFatalError}. */
export const isGatewayFatalError = guard('GatewayFatalError');
/** Whether `value` is an {@link InteractionError}. */
export const isInteractionError = guard('InteractionError');
/** Whether `value` is an {@link InteractionAlreadyAcknowledgedError}. */
export const isInteractionAlreadyAcknowledgedError = guard('InteractionAlreadyAcknowledgedError');
/** Whether `value` is an {@link InteractionExpiredError}. */
export const isInteractionExpiredError = guard('InteractionExpiredError');
/** Whether `value` is an {@link InteractionResponseError}. */
export const isInteractionResponseError = guard('InteractionResponseError');
