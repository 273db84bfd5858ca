/**
 * Options of the request pipeline shared by `Client` and `WebhookClient`,
 * and the code that turns them into a {@link RestClient}.
 *
 * @module
 */

import type { Dispatcher } from 'undici';
import type { CredentialStrategy } from '../auth/strategies.js';
import type { CredentialKind } from '../routes.js';
import { createLogFunction, type Logger } from './events.js';
import { RateLimiter, type WebhookWindowOptions } from './rate-limiter.js';
import { RestClient, type RejectOnRateLimit, type RestClientConfig } from './rest-client.js';
import { resolveRetryPolicy, type RetryOptions } from './retry.js';
import { FetchTransport, UndiciTransport, type Transport } from './transport.js';

/** Options of the request pipeline. */
export interface PipelineOptions extends RetryOptions {
  /**
   * The HTTP stack: `"undici"` (fast, the Node default), `"fetch"` (uses
   * `globalThis.fetch` at each request, so MSW intercepts it in tests), or
   * your own {@link Transport}.
   * @default "undici" on Node, "fetch" elsewhere
   */
  transport?: 'undici' | 'fetch' | Transport | undefined;
  /** An undici dispatcher (e.g. a ProxyAgent) for the undici transport. @default a keep-alive Pool per origin */
  dispatcher?: Dispatcher | undefined;
  /** Per-attempt timeout in milliseconds. @default 30000 */
  timeoutMs?: number | undefined;
  /** Overall deadline of one call in milliseconds, covering queueing, rate-limit waits, backoff and every attempt. @default 300000 */
  deadlineMs?: number | undefined;
  /** The longest single rate-limit wait; a longer one rejects with `RateLimitError` instead of waiting. @default 60000 */
  maxRateLimitWaitMs?: number | undefined;
  /** Calls that reject with `RateLimitError` at once instead of waiting: `true` for all, operation ids or path fragments, or a predicate. @default false */
  rejectOnRateLimit?: RejectOnRateLimit | undefined;
  /** Executions allowed per incoming webhook in a rolling window, or `false` to send without this limit. @default { limit: 30, windowMs: 60000 } */
  webhookRateLimit?: WebhookWindowOptions | false | undefined;
  /** Allow credentials over plain `http://` to a host that is not loopback. @default false */
  allowInsecureHttp?: boolean | undefined;
  /** A levelled logger: `console`, pino, or anything with `debug`/`info`/`warn`/`error`. Lines never contain secrets. @default undefined (silent) */
  logger?: Logger | undefined;
  /** The clock, in epoch milliseconds. @default Date.now */
  now?: (() => number) | undefined;
}

/** What the clients add to the pipeline options: the fields of the REST client's configuration that depend on the client. */
export type PipelineWiring = Pick<
  RestClientConfig,
  'origin' | 'apiPrefix' | 'authPrefix' | 'credentials' | 'preferredCredential' | 'routeOverrides' | 'onSetCookie' | 'session' | 'events'
>;

function createTransport(option: PipelineOptions['transport'], dispatcher: Dispatcher | undefined): Transport {
  if (typeof option === 'object') return option;
  const choice = option ?? (typeof process !== 'undefined' && process.versions?.node ? 'undici' : 'fetch');
  return choice === 'fetch' ? new FetchTransport() : new UndiciTransport(dispatcher ? { dispatcher } : {});
}

/** Builds the REST client of a `Client` or `WebhookClient`. */
export function createRestClient(options: PipelineOptions, wiring: PipelineWiring): RestClient {
  const now = options.now ?? Date.now;
  const webhookWindow = options.webhookRateLimit === false ? undefined : { limit: options.webhookRateLimit?.limit ?? 30, windowMs: options.webhookRateLimit?.windowMs ?? 60_000 };
  return new RestClient({
    ...wiring,
    transport: createTransport(options.transport, options.dispatcher),
    allowInsecureHttp: options.allowInsecureHttp ?? false,
    timeoutMs: options.timeoutMs ?? 30_000,
    deadlineMs: options.deadlineMs ?? 300_000,
    retry: resolveRetryPolicy(options),
    maxRateLimitWaitMs: options.maxRateLimitWaitMs ?? 60_000,
    rejectOnRateLimit: options.rejectOnRateLimit ?? false,
    limiter: new RateLimiter(now, webhookWindow),
    log: createLogFunction(options.logger),
    now,
  });
}
