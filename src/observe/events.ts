/**
 * Typed client events and the optional levelled logger.
 *
 * Events and log lines carry only redacted paths and never a header, body,
 * token, cookie or secret.
 *
 * @module
 */

import { SessionStoreError } from '../errors/index.js';
import { scrubText } from '../core/redact.js';
import type { CredentialKind, HttpMethod } from '../core/routes.js';

/** Fields shared by request-level events. */
export interface RequestEventBase {
  /** Operation id, e.g. `channels.get`, or `request` for the escape hatch. */
  operation: string;
  /** HTTP method. */
  method: HttpMethod;
  /** Path with secret segments replaced by `:redacted`. */
  path: string;
  /** Attempt number, starting at 1. */
  attempt: number;
  /** The rate-limit bucket the request belongs to. */
  bucket: string;
}

/** Emitted just before an attempt is sent. */
export interface RequestEvent extends RequestEventBase {
  /** The credential kind sent. */
  credential: CredentialKind;
}

/** Emitted when a response arrives (any status). */
export interface ResponseEvent extends RequestEventBase {
  /** HTTP status. */
  status: number;
  /** Time from sending to the response headers, in milliseconds. */
  durationMs: number;
}

/** Emitted on every 429 response. */
export interface RateLimitedEvent extends RequestEventBase {
  /** How long the service asked to wait, in milliseconds (or the backoff chosen when it did not say). */
  retryAfterMs: number;
  /** Whether it was the global limit. */
  global: boolean;
  /** Whether the SDK will wait and try again (false when it rejects instead). */
  willRetry: boolean;
}

/**
 * Emitted when a request is held before it is sent: by a learned route
 * bucket, a global pause, or the webhook's rolling window. Nothing has been
 * sent yet; the request goes out after `waitMs` unless its deadline or
 * signal ends it first.
 */
export interface RequestHeldEvent extends RequestEventBase {
  /** What holds it: a route `bucket`, a `global` pause, or the incoming webhook's rolling `webhook` window. */
  reason: 'bucket' | 'global' | 'webhook';
  /** How long it will wait, in milliseconds. */
  waitMs: number;
}

/** Emitted before a retry. */
export interface RetryEvent extends RequestEventBase {
  /** Why: `status` (5xx), `network`, `timeout`, `rateLimit` or `unauthorized` (after a session refresh). */
  reason: 'status' | 'network' | 'timeout' | 'rateLimit' | 'unauthorized';
  /** The status that caused it, if any. */
  status?: number;
  /** Milliseconds until the retry. */
  delayMs: number;
}

/** Emitted after the session got a new access token. */
export interface SessionRefreshedEvent {
  /** When the new access token expires, epoch milliseconds. */
  accessTokenExpiresAt: number;
  /** Why the refresh ran: before expiry, after a 401, or on request. */
  trigger: 'expiry' | 'unauthorized' | 'manual';
}

/** Emitted when the session can no longer be used (refresh rejected, or logout). */
export interface SessionExpiredEvent {
  /** Why it ended. */
  reason: 'refreshRejected' | 'loggedOut';
}

/**
 * A shared store failed and the SDK went on without it: the same event on the
 * Client (the user session store), on the Gateway (the Gateway session store)
 * and on the Redis rate-limit store (its fallback to limits in memory). The
 * error names what failed and never quotes a session's secrets.
 */
export interface StoreErrorEvent {
  /** Which store: `auth.sessionStore` (`"session"`), `gateway.sessionStore` (`"gatewaySession"`), or the Redis rate-limit store (`"rateLimit"`). */
  store: 'session' | 'gatewaySession' | 'rateLimit';
  /** What failed. */
  error: Error;
}

/**
 * A component the SDK shares with other processes answers again after an outage. The same event, and the same payload, on the
 * Gateway (its session store, its shard coordinator, its Identify throttle) and on the Redis rate-limit store. An outage is
 * reported once when it starts, by its first failure: a `storeError` for a store the SDK went on without (`"gatewaySession"`,
 * `"rateLimit"`), an `error` event for a component the Gateway cannot go on without (`"shardCoordinator"`: a shard is not
 * held; `"identifyThrottle"`: a shard does not identify). The failures after the first are counted, not reported; this event
 * ends the outage once the component answered and then went 5 s without a failure, so a component that flaps is one outage
 * (the coordinator's: at its next answered step). It comes at the first call after that quiet time: an answer, or a failure,
 * which then starts the next outage (this event first, then that failure's report).
 */
export interface StoreRecoveredEvent {
  /**
   * Which component: `gateway.sessionStore` (`"gatewaySession"`), the Redis rate-limit store (`"rateLimit"`),
   * `gateway.coordinator` (`"shardCoordinator"`) or `gateway.identifyThrottle` (`"identifyThrottle"`).
   */
  store: 'gatewaySession' | 'rateLimit' | 'shardCoordinator' | 'identifyThrottle';
  /** From the outage's first failure to the answer that ended it (ended by a failure: the first answer after its last failure), milliseconds (0 or more). */
  durationMs: number;
  /** How many calls failed during it, the first one included (1 or more). */
  failures: number;
}

/** Every event the client emits, with its argument list. */
export interface ClientEvents {
  /** An attempt is about to be sent. */
  request: [event: RequestEvent];
  /** A response arrived. */
  response: [event: ResponseEvent];
  /** The service answered 429. */
  rateLimited: [event: RateLimitedEvent];
  /** A request is held by a rate limit (a learned bucket, a global pause or a webhook's window) before it is sent. */
  requestHeld: [event: RequestHeldEvent];
  /** A failed attempt will be retried. */
  retry: [event: RetryEvent];
  /** Diagnostic messages. */
  debug: [message: string];
  /** The session got a new access token. */
  sessionRefreshed: [event: SessionRefreshedEvent];
  /** The session ended. */
  sessionExpired: [event: SessionExpiredEvent];
  /** A store failed: the user session store (the session itself goes on in memory; also a `debug` line), or a rate-limit store of the caller's, or the Redis one, after a request was sent (`store: 'rateLimit'`; the call keeps its outcome). */
  storeError: [event: StoreErrorEvent];
}

/** Log levels used by the SDK. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** A logger such as `console` or a pino logger. Missing levels are skipped. */
export type Logger = Partial<Record<LogLevel, (...args: never[]) => unknown>>;

/** Writes one log line, in the calling convention of the logger given. */
export type LogFunction = (level: LogLevel, message: string, fields: Record<string, unknown>) => void;

/**
 * Adapts `console` (`(message, fields)`) or pino (`(fields, message)`) to one
 * function. Pino is recognised by its `child` and `levels` members.
 */
export function createLogFunction(logger: Logger | undefined): LogFunction | undefined {
  if (!logger) return undefined;
  const isPino = typeof (logger as { child?: unknown }).child === 'function' && typeof (logger as { levels?: unknown }).levels === 'object';
  return (level, message, fields) => {
    const write = logger[level] as ((...args: unknown[]) => unknown) | undefined;
    if (typeof write !== 'function') return;
    if (isPino) write.call(logger, fields, message);
    else write.call(logger, message, fields);
  };
}

/** Where events go: the Client or WebhookClient emitter, as the pipeline sees it. */
export interface EventSink {
  /** Emits an event. */
  emit<K extends keyof ClientEvents>(event: K, ...args: ClientEvents[K]): unknown;
  /** How many listeners an event has. */
  listenerCount(event: keyof ClientEvents): number;
}

/**
 * The error a `storeError` event carries: a `SessionStoreError` as it is (the
 * SDK's stores never quote a secret), anything else as a new
 * `SessionStoreError` naming its class and its message with `secrets`
 * scrubbed out, without the original as `cause` (a store written by the user
 * may have put a cookie in it).
 */
export function storeErrorOf(error: unknown, secrets: readonly string[]): Error {
  if (error instanceof SessionStoreError) return error;
  if (!(error instanceof Error)) return new SessionStoreError(`it threw ${typeof error === 'object' ? 'a non-Error value' : typeof error}`);
  return new SessionStoreError(`${error.name}: ${scrubText(error.message, secrets)}`);
}
