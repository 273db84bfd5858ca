/**
 * Watches one logical call for the diagnostics channels, the request hooks
 * and the installed tracer. The REST client creates one only when one of
 * those is in use, so a call nobody watches costs a few property reads.
 *
 * @module
 */

import type { HttpMethod } from '../routes.js';
import { channels, errorTypeOf, nextCallId, requestChannelsActive, sdkTracer, type RequestDiagnosticsBase, type SdkTracer } from './diagnostics.js';
import type { RequestEventBase } from './events.js';
import { hasHooks, hookError, hookResponseHeaders, runBeforeRequest, type RequestErrorView, type RequestHooks, type RequestHookView } from './hooks.js';
import { TransportFailure, type TransportResponse } from './transport.js';

/** What the observer needs to know of the call. */
export interface ObservedCall {
  readonly operation: string;
  readonly method: HttpMethod;
  /** Redacted path of the first attempt. */
  readonly path: string;
  /** Route template with its prefix. */
  readonly route: string;
}

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

/** Starts watching a call; ask {@link observing} first, so that nothing is built for a call nobody watches. */
export function observeCall(hooks: RequestHooks | undefined, origin: string, now: () => number, call: ObservedCall): CallObserver {
  return new CallObserver(hasHooks(hooks) ? hooks : undefined, sdkTracer(), origin, now, call);
}

/** Whether a call would be observed at all (hooks, a tracer or a diagnostics subscriber). */
export function observing(hooks: RequestHooks | undefined): boolean {
  return hasHooks(hooks) || sdkTracer() !== undefined || requestChannelsActive();
}

/** One call's diagnostics messages, hooks and tracing context. */
export class CallObserver {
  readonly #base: RequestDiagnosticsBase;
  readonly #hooks: RequestHooks | undefined;
  readonly #tracer: SdkTracer | undefined;
  readonly #now: () => number;
  readonly #started: number;
  #attempts = 0;
  #bucket = '';

  constructor(hooks: RequestHooks | undefined, tracer: SdkTracer | undefined, origin: string, now: () => number, call: ObservedCall) {
    const server = serverOf(origin);
    this.#base = { callId: nextCallId(), operation: call.operation, method: call.method, path: call.path, route: call.route, origin, serverAddress: server.address, serverPort: server.port };
    this.#hooks = hooks;
    this.#tracer = tracer;
    this.#now = now;
    this.#started = now();
    if (channels.requestStart.hasSubscribers) channels.requestStart.publish({ ...this.#base });
  }

  #view(event: RequestEventBase): RequestHookView {
    return { operation: event.operation, method: event.method, path: event.path, route: this.#base.route, attempt: event.attempt, bucket: event.bucket };
  }

  /** Before a rate-limit wait. */
  rateLimitWait(event: RequestEventBase, delayMs: number, reason: 'bucket' | 'global' | 'webhook'): void {
    if (channels.requestRateLimitWait.hasSubscribers) channels.requestRateLimitWait.publish({ ...this.#base, attempt: event.attempt, bucket: event.bucket, delayMs, reason });
  }

  /** Runs `beforeRequest` on the attempt's headers (credentials not yet added); `undefined` when there is no such hook. */
  beforeRequest(event: RequestEventBase, headers: Record<string, string>, credentialHeaders: Readonly<Record<string, string>> | undefined): Promise<void> | undefined {
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
        const kind = error instanceof TransportFailure ? error.kind : undefined;
        publish({ errorType: timer.timedOut ? 'TimeoutError' : kind === 'tooLarge' ? 'ResponseTooLargeError' : kind === 'aborted' ? 'AbortError' : kind === 'network' ? 'NetworkError' : errorTypeOf(error) });
        throw error;
      },
    );
  }

  /**
   * Runs `afterResponse`; `undefined` when there is no such hook. When it
   * throws, the attempt's timer is stopped and the body discarded (in the
   * background) as the `HookError` rejects.
   */
  afterResponse(event: RequestEventBase, response: TransportResponse, durationMs: number, secrets: () => readonly string[], timer: { stop(): void }): Promise<void> | undefined {
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

  /** The call resolved with a response of `status`. */
  end(status: number): void {
    if (channels.requestEnd.hasSubscribers) channels.requestEnd.publish({ ...this.#base, status, attempts: this.#attempts, durationMs: this.#now() - this.#started });
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
    const base: RequestHookView = { operation: this.#base.operation, method: this.#base.method, path: this.#base.path, route: this.#base.route, attempt: Math.max(attempt, 1), bucket: this.#bucket };
    const view: RequestErrorView = Object.freeze(typeof status === 'number' ? { ...base, error, errorName, status } : { ...base, error, errorName });
    try {
      await hook(view);
    } catch (hookFailure) {
      return hookError('onError', base, hookFailure, { callError: error, mayHaveReachedServer: this.#attempts > 0 });
    }
    return error;
  }
}
