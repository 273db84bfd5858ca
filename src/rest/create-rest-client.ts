/**
 * Turns the pipeline options of a `Client` or `WebhookClient` into a
 * {@link RestClient}: the transport, the retry policy, the rate limiter and
 * the logger, with their defaults.
 *
 * @module
 */

import type { Dispatcher } from 'undici';
import { currentRuntime, defaultTransportFor, type RuntimeName, undiciRunsOn } from '../core/runtime.js';
import { ValidationError } from '../errors/local.js';
import { createLogFunction } from '../observe/events.js';
import type { PipelineOptions } from './options.js';
import { checkCount, checkDuration } from '../core/bounds.js';
import { MemoryRateLimitStore } from './rate-limiter.js';
import { guardStore } from './store-guard.js';
import { checkWindow, type RateLimitSettings, type RateLimitStore } from './rate-limit-store.js';
import type { RestClientConfig } from './config.js';
import { RestClient } from './rest-client.js';
import { resolveRetryPolicy } from './retry.js';
import { FetchTransport } from './fetch-transport.js';
import type { Transport } from './transport.js';
import { UndiciTransport } from './undici-transport.js';

/** What the clients add to the pipeline options: the fields of the REST client's configuration that depend on the client. */
type PipelineWiring = Pick<
  RestClientConfig,
  'origin' | 'apiPrefix' | 'authPrefix' | 'credentials' | 'preferredCredential' | 'routeOverrides' | 'onSetCookie' | 'session' | 'events'
>;

/**
 * The transport of a client: the one given, or the runtime's default
 * (undici's pool on Node, `fetch` elsewhere). `"undici"` asked for where
 * undici is absent or a shim is refused here, rather than failing at the
 * first request.
 */
export function createTransport(option: PipelineOptions['transport'], dispatcher: Dispatcher | undefined, runtime: RuntimeName = currentRuntime()): Transport {
  if (typeof option === 'object') return option;
  const choice = option ?? (dispatcher ? 'undici' : defaultTransportFor(runtime));
  if (choice === 'fetch') return new FetchTransport();
  if (!undiciRunsOn(runtime)) {
    throw new ValidationError('client options', [
      {
        path: dispatcher && option === undefined ? 'dispatcher' : 'transport',
        message: `undici's transport does not run on ${runtime}: leave transport unset (its default there is "fetch") or give your own Transport`,
      },
    ]);
  }
  return new UndiciTransport(dispatcher ? { dispatcher } : {});
}

/** The default `maxResponseBytes`: 10 MiB. */
const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

/**
 * Refuses a pipeline option a timer or a counter cannot honour, with a `ValidationError` naming it: every duration must
 * be a finite number of milliseconds within `[0, MAX_TIMER_MS]` (past 2^31 - 1 ms a timer fires at once), every count a
 * whole number.
 */
export function checkPipelineOptions(operation: string, options: PipelineOptions): void {
  for (const name of ['timeoutMs', 'deadlineMs', 'baseDelayMs', 'maxDelayMs', 'maxRateLimitWaitMs', 'maxRateLimitPauseMs'] as const)
    checkDuration(operation, name, options[name]);
  checkCount(operation, 'retries', options.retries);
  checkCount(operation, 'maxResponseBytes', options.maxResponseBytes, { min: 1 });
  checkWindow(operation, 'webhookRateLimit', options.webhookRateLimit);
  checkWindow(operation, 'globalRateLimit', options.globalRateLimit);
}

/** Builds the REST client of a `Client` or `WebhookClient`. */
export function createRestClient(options: PipelineOptions, wiring: PipelineWiring): RestClient {
  const now = options.clock ?? Date.now;
  const webhookWindow =
    options.webhookRateLimit === false ? undefined : { limit: options.webhookRateLimit?.limit ?? 30, windowMs: options.webhookRateLimit?.windowMs ?? 60_000 };
  const retry = resolveRetryPolicy(options);
  const settings: RateLimitSettings = { now, webhookWindow, maxPauseMs: retry.maxRateLimitPauseMs, globalRateLimit: options.globalRateLimit };
  let limiter: RateLimitStore;
  if (options.rateLimitStore === undefined) limiter = new MemoryRateLimitStore(settings);
  else {
    options.rateLimitStore.attach(settings);
    // A store of the caller's (or the Redis one) fails with the SDK's errors, and what fails once a request was sent is a
    // `storeError` event; the in-memory one is the SDK's own, and its fast paths stay direct.
    const report = (error: Error) => {
      try {
        wiring.events?.emit('storeError', { store: 'rateLimit', error });
      } catch {
        // A throwing listener must not break the request that reported.
      }
    };
    limiter = options.rateLimitStore instanceof MemoryRateLimitStore ? options.rateLimitStore : guardStore(options.rateLimitStore, report);
  }
  return new RestClient({
    ...wiring,
    transport: createTransport(options.transport, options.dispatcher),
    allowInsecureHttp: options.allowInsecureHttp ?? false,
    timeoutMs: options.timeoutMs ?? 30_000,
    deadlineMs: options.deadlineMs ?? 300_000,
    maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    retry,
    rejectOnRateLimit: options.rejectOnRateLimit ?? false,
    limiter,
    limitsWebhooks: webhookWindow !== undefined,
    log: createLogFunction(options.logger),
    now,
    hooks: options.hooks,
  });
}
