/**
 * The public option types of the request pipeline: the client-wide options,
 * the per-call options, and the escape hatch's route description.
 *
 * @module
 */

import type { Dispatcher } from 'undici';
import { optionNames } from '../core/bounds.js';
import type { CredentialKind, HttpMethod, OperationId, RouteDefinition } from '../core/routes.js';
import type { Logger } from '../observe/events.js';
import type { RequestHooks } from '../observe/hooks.js';
import type { GlobalRateLimitOptions, RateLimitStore, WebhookWindowOptions } from './rate-limit-store.js';
import type { Transport } from './transport.js';

/** Retry settings. */
export interface RetryOptions {
  /** How many times a failed attempt may be retried (5xx, network errors, timeouts on idempotent methods). `0` disables retries. @default 3 */
  retries?: number | undefined;
  /** First backoff ceiling in milliseconds; doubles each attempt. @default 250 */
  baseDelayMs?: number | undefined;
  /** Largest backoff ceiling in milliseconds. @default 10000 */
  maxDelayMs?: number | undefined;
}

/** Facts about a 429, given to a `rejectOnRateLimit` predicate. */
export interface RateLimitInfo {
  /** Operation id. */
  operation: string;
  /** HTTP method. */
  method: HttpMethod;
  /** Redacted path. */
  path: string;
  /** Milliseconds to wait. */
  retryAfterMs: number;
  /** Whether it is the global limit. */
  global: boolean;
}

/** Which rate-limited calls reject at once instead of waiting: all, some operation ids or path prefixes, or a predicate. */
export type RejectOnRateLimit = boolean | readonly string[] | ((info: RateLimitInfo) => boolean);

/** Options of the request pipeline, shared by `Client` and `WebhookClient`. */
export interface PipelineOptions extends RetryOptions {
  /**
   * The HTTP stack: `"undici"` (fast, the Node default), `"fetch"` (uses
   * `globalThis.fetch` at each request, so MSW intercepts it in tests), or
   * your own {@link Transport}.
   * @default "undici" on Node; "fetch" on Bun, Deno, Cloudflare Workers and elsewhere (Bun's undici is a partial shim, Workers have none)
   */
  transport?: 'undici' | 'fetch' | Transport | undefined;
  /** An undici dispatcher (e.g. a ProxyAgent) for the undici transport. @default a keep-alive Pool per origin */
  dispatcher?: Dispatcher | undefined;
  /** Per-attempt timeout in milliseconds. @default 30000 */
  timeoutMs?: number | undefined;
  /** Overall deadline of one call in milliseconds, covering queueing, rate-limit waits, backoff and every attempt. @default 300000 */
  deadlineMs?: number | undefined;
  /**
   * The largest response body the SDK reads, in bytes, counted while it
   * streams; a longer one rejects with `ResponseTooLargeError` (not retried).
   * @default 10485760 (10 MiB)
   */
  maxResponseBytes?: number | undefined;
  /** The longest single rate-limit wait; a longer one rejects with `RateLimitError` (its `sent` false: nothing was sent) instead of waiting. The default covers the contract's one-minute webhook window with 5 s to spare. @default 65000 */
  maxRateLimitWaitMs?: number | undefined;
  /**
   * The longest pause the SDK accepts from any server value (`Retry-After`,
   * `retry_after`, `X-RateLimit-Reset-After`): a larger one is cut to this,
   * so that a hostile or broken value cannot block a route, or every route,
   * forever. Calls that would wait longer than `maxRateLimitWaitMs` still
   * reject with `RateLimitError` meanwhile. @default 600000 (10 minutes)
   */
  maxRateLimitPauseMs?: number | undefined;
  /** Calls that reject with `RateLimitError` at once instead of waiting: `true` for all, operation ids or path fragments, or a predicate. @default false */
  rejectOnRateLimit?: RejectOnRateLimit | undefined;
  /** Executions allowed per incoming webhook in a rolling window, or `false` to send without this limit. @default { limit: 30, windowMs: 60000 } */
  webhookRateLimit?: WebhookWindowOptions | false | undefined;
  /**
   * A proactive cap on all requests (per client, or per store when shared):
   * at most `limit` in any rolling `windowMs`, counted until each response
   * arrives. Interaction callbacks and session refresh count but never wait.
   * @default undefined (off: the per-IP global limit is learned from 429s only)
   */
  globalRateLimit?: GlobalRateLimitOptions | undefined;
  /**
   * Where rate-limit state lives: give a shared store (such as
   * `createRedisRateLimitStore` from `community-chat-sdk/redis`) to share
   * buckets, pauses, webhook windows and the global cap between processes.
   * A store serves one client.
   * @default an in-memory store of this client
   */
  rateLimitStore?: RateLimitStore | undefined;
  /** Allow credentials over plain `http://` to a host that is not loopback. @default false */
  allowInsecureHttp?: boolean | undefined;
  /** A levelled logger: `console`, pino, or anything with `debug`/`info`/`warn`/`error`. Lines never contain secrets. @default undefined (silent) */
  logger?: Logger | undefined;
  /**
   * The clock, in epoch milliseconds: session refresh, interaction expiry,
   * rate-limit windows and deadlines follow it. `new Client({ clock:
   * emulator.clock })` makes the SDK follow the emulator's `advanceTime()`.
   * @default Date.now
   */
  clock?: (() => number) | undefined;
  /**
   * Request hooks (`beforeRequest`, `afterResponse`, `onError`), read at each
   * call, so hooks set on this object later apply too (`client.hooks` is this
   * object). A hook that throws rejects its call with `HookError`.
   * @default undefined (no hooks, no cost)
   */
  hooks?: RequestHooks | undefined;
}

/** The names of every pipeline option: `Client` and `WebhookClient` refuse any other. */
export const PIPELINE_OPTIONS = optionNames<PipelineOptions>({
  ...{ retries: true, baseDelayMs: true, maxDelayMs: true, transport: true, dispatcher: true, timeoutMs: true, deadlineMs: true },
  ...{ maxResponseBytes: true, maxRateLimitWaitMs: true, maxRateLimitPauseMs: true, rejectOnRateLimit: true, webhookRateLimit: true },
  ...{ globalRateLimit: true, rateLimitStore: true, allowInsecureHttp: true, logger: true, clock: true, hooks: true },
});

/** Options every SDK method accepts as its last argument. */
export interface CallOptions {
  /** Cancels the call wherever it is: queued, waiting on a rate limit, in flight, or reading the body. @default undefined */
  signal?: AbortSignal | undefined;
  /** Per-attempt timeout in milliseconds, overriding the client's. @default the client's `timeoutMs` */
  timeoutMs?: number | undefined;
  /** Overall deadline of the call in milliseconds (queueing, waiting and every attempt), overriding the client's. @default the client's `deadlineMs` */
  deadlineMs?: number | undefined;
  /** Retries for this call, overriding the client's `retries`. @default the client's `retries` */
  retries?: number | undefined;
  /** Forces one credential kind among those the operation accepts. @default the route table's order */
  credential?: CredentialKind | undefined;
  /** The largest response body to read for this call, in bytes, overriding the client's. @default the client's `maxResponseBytes` */
  maxResponseBytes?: number | undefined;
  /** Extra request headers (e.g. `x-audit-log-reason`). Credential headers cannot be overridden. @default undefined */
  headers?: Record<string, string> | undefined;
}

/** The names of every key of a request's input (call options, params, query, body): any other is refused. */
export const REQUEST_INPUT_OPTIONS = optionNames<RequestInput>({
  ...{ signal: true, timeoutMs: true, deadlineMs: true, retries: true, credential: true, maxResponseBytes: true, headers: true },
  ...{ params: true, query: true, body: true, formData: true },
});

/** Values a query string can carry. */
export type QueryValue = string | number | boolean | undefined;

/** The input of one request. */
export interface RequestInput extends CallOptions {
  /** Path parameters by name. @default undefined (none) */
  params?: Readonly<Record<string, unknown>> | undefined;
  /** Query parameters. @default undefined (none) */
  query?: Readonly<Record<string, QueryValue>> | undefined;
  /** JSON body. @default undefined (no body) */
  body?: unknown;
  /** Multipart body (for uploads); wins over `body`. @default undefined */
  formData?: FormData | undefined;
}

/** A route described by hand, for the low-level escape hatch. */
export interface CustomRoute {
  /** HTTP method. */
  method: HttpMethod;
  /** Path template under the API prefix, e.g. `/channels/{channel_id}/drive-links`. */
  path: string;
  /** Credentials the route accepts, in order of preference. @default ["bot", "user"] */
  auth?: readonly CredentialKind[] | undefined;
  /** Path parameters that are secrets. @default [] */
  secretParameters?: readonly string[] | undefined;
  /** The path parameter that keys the rate-limit bucket. @default undefined (one bucket for the route) */
  majorParameter?: string | undefined;
}

/** Per-operation overrides of the route table (for the contract's "not shown" gaps). */
export type RouteOverrides = Partial<Record<OperationId, Partial<Pick<RouteDefinition, 'auth' | 'path' | 'method'>>>>;
