/**
 * The configuration of the REST client, as `createRestClient` resolves
 * it from the client options, and the hooks a client plugs into it.
 *
 * @module
 */

import type { CredentialStrategy } from '../auth/strategies.js';
import type { CredentialKind } from '../core/routes.js';
import type { EventSink, LogFunction } from '../observe/events.js';
import type { RequestHooks } from '../observe/hooks.js';
import type { RejectOnRateLimit, RouteOverrides } from './options.js';
import type { RateLimitStore } from './rate-limit-store.js';
import type { RetryPolicy } from './retry.js';
import type { Transport } from './transport.js';

/** Hooks into the user session, called around requests that use user credentials. */
interface UserSessionHooks {
  /** Before picking credentials: loads a stored session once; `undefined` when done. */
  ensureLoaded(): Promise<void> | undefined;
  /** Before sending with user credentials (loads and refreshes the session); `undefined` when there is nothing to wait for. */
  prepare(): Promise<void> | undefined;
  /** After a 401 on a request that used `tokenUsed`; resolves whether to retry. */
  onUnauthorized(tokenUsed: string | undefined): Promise<boolean>;
}

/** Configuration of the REST client. */
export interface RestClientConfig {
  /** Scheme, host and port. */
  origin: string;
  /** Path prefix of the API, e.g. `/api/v1`. */
  apiPrefix: string;
  /** Path prefix of login, refresh and logout. */
  authPrefix: string;
  /** The HTTP stack. */
  transport: Transport;
  /** Credential strategies by kind. */
  credentials: Partial<Record<CredentialKind, CredentialStrategy>>;
  /** Which of bot or user to use when an operation accepts both; `undefined` follows the route table's order. */
  preferredCredential: 'bot' | 'user' | undefined;
  /** Whether credentials may go over plain HTTP to a non-loopback host. */
  allowInsecureHttp: boolean;
  /** Per-attempt timeout, milliseconds. */
  timeoutMs: number;
  /** Overall deadline of a call, milliseconds. */
  deadlineMs: number;
  /** The largest response body read, bytes. */
  maxResponseBytes: number;
  /** Retry policy. */
  retry: RetryPolicy;
  /** Which rate-limited calls reject at once. */
  rejectOnRateLimit: RejectOnRateLimit;
  /** Overrides of route rows. */
  routeOverrides: RouteOverrides;
  /** Rate-limit state: the in-memory store, or a shared one. */
  limiter: RateLimitStore;
  /** Whether executions of incoming webhooks are limited (the client's `webhookRateLimit` is on). */
  limitsWebhooks: boolean;
  /** Called with the `Set-Cookie` values of every response. */
  onSetCookie: ((values: string[]) => void) | undefined;
  /** Session hooks, if the client has a user session. */
  session: UserSessionHooks | undefined;
  /** Event sink. */
  events: EventSink | undefined;
  /** Levelled logger. */
  log: LogFunction | undefined;
  /** Clock. */
  now: () => number;
  /** Request hooks, read at each call; `undefined` when none. */
  hooks: RequestHooks | undefined;
}
