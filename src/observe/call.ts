/**
 * One call's lifecycle, the single stream every observer of the REST pipeline
 * subscribes to: the client's events, the logger, the request hooks, the
 * diagnostics channels and the installed tracer. The pipeline reports each
 * step once (start, wait, attempt, response, rate limit, retry, end, error)
 * with redacted data it built once; this module fans each step out to whoever
 * listens. The REST client creates a lifecycle only when someone listens, so
 * a call nobody watches costs a few property reads.
 *
 * @module
 */

import type { CredentialKind, HttpMethod } from '../core/routes.js';
import type { TransportResponse } from '../rest/transport.js';
import { isTransportFailure } from '../errors/transport.js';
import { channels, errorTypeOf, nextCallId, requestChannelsActive, sdkTracer, type RequestDiagnosticsBase, type SdkTracer } from './diagnostics.js';
import type { ClientEvents, EventSink, LogFunction, RequestEventBase, RetryEvent } from './events.js';
import { hasHooks, hookError, hookResponseHeaders, runBeforeRequest, type RequestErrorView, type RequestHooks, type RequestHookView } from './hooks.js';

/** What the lifecycle needs to know of the call. */
interface ObservedCall {
  readonly operation: string;
  readonly method: HttpMethod;
  /** Redacted path of the first attempt. */
  readonly path: string;
  /** Route template with its prefix. */
  readonly route: string;
}

/** Who may listen to a call's lifecycle: the client's configuration. */
interface CallObservers {
  /** The client's event emitter. */
  readonly events: EventSink | undefined;
  /** The levelled logger. */
  readonly log: LogFunction | undefined;
  /** The request hooks, read at each call. */
  readonly hooks: RequestHooks | undefined;
  /** Scheme, host and port of the service. */
  readonly origin: string;
  /** The clock. */
  readonly now: () => number;
}

/** The client events a call's lifecycle emits. */
const CALL_EVENTS = ['request', 'response', 'requestHeld', 'rateLimited', 'retry', 'debug'] as const satisfies readonly (keyof ClientEvents)[];

/** Host name and port of an origin, parsed once per origin. */
const servers = new Map<string, { address: string; port: number }>();
function serverOf(origin: string): { address: string; port: number } {
  let server = servers.get(origin);
  if (server === undefined) {
    const url = new URL(origin);
    server = { address: url.hostname, port: url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port) };
    servers.set(origin, server);
  }
  return server;
}

/** Whether anyone would observe a call at all: an event listener, a logger, hooks, a tracer or a diagnostics subscriber. */
export function observing(observers: Pick<CallObservers, 'events' | 'log' | 'hooks'>): boolean {
  if (observers.log !== undefined || hasHooks(observers.hooks) || sdkTracer() !== undefined || requestChannelsActive()) return true;
  const events = observers.events;
  if (events === undefined) return false;
  for (const event of CALL_EVENTS) if (events.listenerCount(event) > 0) return true;
  return false;
}

/** Starts a call's lifecycle, or returns `undefined` when nobody observes it (ask nothing else on the hot path). */
export function startCall(observers: CallObservers, call: ObservedCall): CallLifecycle | undefined {
  return observing(observers) ? new CallLifecycle(observers, call) : undefined;
}

/** One call's lifecycle: each step, reported once, reaches every observer. */
export class CallLifecycle {
  readonly #base: RequestDiagnosticsBase;
  readonly #events: EventSink | undefined;
  readonly #log: LogFunction | undefined;
  readonly #hooks: RequestHooks | undefined;
  readonly #tracer: SdkTracer | undefined;
  readonly #now: () => number;
  readonly #started: number;
  #attempts = 0;
  #bucket = '';

  constructor(observers: CallObservers, call: ObservedCall) {
    const server = serverOf(observers.origin);
    this.#base = {
      callId: nextCallId(),
      operation: call.operation,
      method: call.method,
      path: call.path,
      route: call.route,
      origin: observers.origin,
      serverAddress: server.address,
      serverPort: server.port,
    };
    this.#events = observers.events;
    this.#log = observers.log;
    this.#hooks = hasHooks(observers.hooks) ? observers.hooks : undefined;
    this.#tracer = sdkTracer();
    this.#now = observers.now;
    this.#started = observers.now();
    if (channels.requestStart.hasSubscribers) channels.requestStart.publish({ ...this.#base });
  }

  #emit<K extends keyof ClientEvents>(event: K, build: () => ClientEvents[K]): void {
    const events = this.#events;
    if (events !== undefined && events.listenerCount(event) > 0) events.emit(event, ...build());
  }

  #view(event: RequestEventBase): RequestHookView {
    return { operation: event.operation, method: event.method, path: event.path, route: this.#base.route, attempt: event.attempt, bucket: event.bucket };
  }

  /** The call is held before sending: by a route bucket, a global pause, or the webhook's rolling window. */
  wait(event: RequestEventBase, delayMs: number, reason: 'bucket' | 'global' | 'webhook'): void {
    const message = `waiting ${delayMs} ms for ${reason === 'webhook' ? "the webhook's rolling window" : `a ${reason === 'global' ? 'global' : 'route'} rate limit`} before ${event.method} ${event.path}`;
    this.#log?.('debug', message, { operation: event.operation });
    this.#emit('debug', () => [message]);
    this.#emit('requestHeld', () => [{ ...event, reason, waitMs: delayMs }]);
    if (channels.requestRateLimitWait.hasSubscribers)
      channels.requestRateLimitWait.publish({ ...this.#base, attempt: event.attempt, bucket: event.bucket, delayMs, reason });
  }

  /** An attempt is about to be sent with `credential`. */
  attempt(event: RequestEventBase, credential: CredentialKind): void {
    this.#emit('request', () => [{ ...event, credential }]);
    this.#log?.('debug', `${event.method} ${event.path} (attempt ${event.attempt})`, { operation: event.operation, attempt: event.attempt });
  }

  /** Runs `beforeRequest` on the attempt's headers (credentials not yet added); `undefined` when there is no such hook. */
  beforeRequest(
    event: RequestEventBase,
    headers: Record<string, string>,
    credentialHeaders: Readonly<Record<string, string>> | undefined,
  ): Promise<void> | undefined {
    const hook = this.#hooks?.beforeRequest;
    if (hook === undefined) return undefined;
    return runBeforeRequest(hook, this.#view(event), headers, credentialHeaders ? Object.keys(credentialHeaders) : []);
  }

  /** Sends the attempt inside the tracer's context, and publishes the attempt when it ends. */
  send(event: RequestEventBase, timer: { readonly timedOut: boolean }, run: () => Promise<TransportResponse>): Promise<TransportResponse> {
    this.#attempts = event.attempt;
    this.#bucket = event.bucket;
    const tracer = this.#tracer;
    const pending = tracer === undefined ? run() : tracer.runAttempt(this.#base.callId, run);
    if (!channels.requestAttempt.hasSubscribers) return pending;
    const started = this.#now();
    const publish = (outcome: { status: number } | { errorType: string }) => {
      channels.requestAttempt.publish({ ...this.#base, attempt: event.attempt, bucket: event.bucket, durationMs: this.#now() - started, ...outcome });
    };
    return pending.then(
      (response) => {
        publish({ status: response.status });
        return response;
      },
      (error: unknown) => {
        const kind = isTransportFailure(error) ? error.kind : undefined;
        publish({
          errorType: timer.timedOut
            ? 'TimeoutError'
            : kind === 'tooLarge'
              ? 'ResponseTooLargeError'
              : kind === 'aborted'
                ? 'AbortError'
                : kind === 'network'
                  ? 'NetworkError'
                  : errorTypeOf(error),
        });
        throw error;
      },
    );
  }

  /** A response arrived (any status); runs `afterResponse`, and resolves when it has (`undefined` when there is no such hook). */
  response(
    event: RequestEventBase,
    response: TransportResponse,
    durationMs: number,
    secrets: () => readonly string[],
    timer: { stop(): void },
  ): Promise<void> | undefined {
    this.#emit('response', () => [{ ...event, status: response.status, durationMs }]);
    const hook = this.#hooks?.afterResponse;
    if (hook === undefined) return undefined;
    const view = this.#view(event);
    return (async () => {
      try {
        await hook(Object.freeze({ ...view, status: response.status, durationMs, headers: hookResponseHeaders(response.headers, secrets()) }));
      } catch (error) {
        timer.stop();
        // Not awaited: cancelling some fetch bodies waits for the server; the call's answer need not.
        void response.discard().catch(() => undefined);
        throw hookError('afterResponse', view, error);
      }
    })();
  }

  /** A 429 answered the attempt. */
  rateLimited(event: RequestEventBase, waitMs: number, global: boolean, willRetry: boolean): void {
    this.#emit('rateLimited', () => [{ ...event, retryAfterMs: waitMs, global, willRetry }]);
    this.#log?.('warn', `rate limited on ${event.method} ${event.path}${global ? ' (global)' : ''}; ${willRetry ? `waiting ${waitMs} ms` : 'rejecting'}`, {
      operation: event.operation,
      attempt: event.attempt,
      retryAfterMs: waitMs,
    });
  }

  /** Another attempt follows after `retry.delayMs`; logged unless the step before it was (a 429) or needs no word (a refreshed session). */
  retry(retry: RetryEvent): void {
    this.#emit('retry', () => [retry]);
    if (retry.reason === 'rateLimit' || retry.reason === 'unauthorized') return;
    this.#log?.(
      'warn',
      `retrying ${retry.method} ${retry.path} in ${retry.delayMs} ms after ${retry.reason}${retry.status ? ` ${retry.status}` : ''} (attempt ${retry.attempt})`,
      {
        operation: retry.operation,
        attempt: retry.attempt,
      },
    );
  }

  /** The call resolved with a response of `status`. */
  end(status: number): void {
    if (channels.requestEnd.hasSubscribers)
      channels.requestEnd.publish({ ...this.#base, status, attempts: this.#attempts, durationMs: this.#now() - this.#started });
  }

  /** The call is rejecting with `error`: publishes it and runs `onError`. Resolves the error to reject with (a `HookError` if `onError` threw). */
  async fail(error: unknown, attempt: number): Promise<unknown> {
    const status = error instanceof Error && error.name !== 'UnexpectedResponseError' ? (error as { status?: unknown }).status : undefined;
    const errorName = error instanceof Error ? error.name : typeof error;
    if (channels.requestError.hasSubscribers) {
      const message = { ...this.#base, attempts: this.#attempts, durationMs: this.#now() - this.#started, errorName, errorType: errorTypeOf(error) };
      channels.requestError.publish(typeof status === 'number' ? { ...message, status } : message);
    }
    const hook = this.#hooks?.onError;
    if (hook === undefined) return error;
    const base: RequestHookView = {
      operation: this.#base.operation,
      method: this.#base.method,
      path: this.#base.path,
      route: this.#base.route,
      attempt: Math.max(attempt, 1),
      bucket: this.#bucket,
    };
    const view: RequestErrorView = Object.freeze(typeof status === 'number' ? { ...base, error, errorName, status } : { ...base, error, errorName });
    try {
      await hook(view);
    } catch (hookFailure) {
      return hookError('onError', base, hookFailure, { callError: error, mayHaveReachedServer: this.#attempts > 0 });
    }
    return error;
  }
}
