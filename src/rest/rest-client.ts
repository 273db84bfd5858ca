/**
 * The REST client: runs one call through credentials, path building, the rate
 * limiter, the transport, retries and error mapping, and emits its events.
 *
 * @module
 */

import type { AppliedCredential, CredentialStrategy } from '../auth/strategies.js';
import {
  AbortError,
  ApiError,
  AuthenticationError,
  InsecureTransportError,
  MissingCredentialError,
  NetworkError,
  NotFoundError,
  PermissionError,
  RateLimitError,
  ServerError,
  TimeoutError,
  UnexpectedResponseError,
  ValidationError,
  isCommunityChatError,
  type ApiErrorInit,
} from '../errors.js';
import { isLoopbackHost } from '../loopback.js';
import { buildPath } from '../path.js';
import { redactHeaders, redactValue } from '../redact.js';
import { routes, type CredentialKind, type HttpMethod, type OperationId, type RouteDefinition } from '../routes.js';
import { SDK_VERSION } from '../version.js';
import type { ClientEvents, LogFunction, RequestEventBase } from './events.js';
import { RateLimiter, type Lane, type RateLimitHeaders, type WaitGuard } from './rate-limiter.js';
import { backoffDelay, isIdempotent, type RetryPolicy } from './retry.js';
import { parseRetryAfter } from './retry-after.js';
import { sleep } from './sleep.js';
import { AttemptSignal, TransportFailure, type Transport, type TransportResponse } from './transport.js';

/** Options every SDK method accepts as its last argument. */
export interface CallOptions {
  /** Cancels the call wherever it is: queued, waiting on a rate limit, in flight, or reading the body. */
  signal?: AbortSignal | undefined;
  /** Per-attempt timeout in milliseconds, overriding the client's. */
  timeoutMs?: number | undefined;
  /** Overall deadline of the call in milliseconds (queueing, waiting and every attempt), overriding the client's. */
  deadlineMs?: number | undefined;
  /** Retries for this call, overriding the client's `retries`. */
  retries?: number | undefined;
  /** Forces one credential kind among those the operation accepts. */
  credential?: CredentialKind | undefined;
  /** Extra request headers (e.g. `x-audit-log-reason`). Credential headers cannot be overridden. */
  headers?: Record<string, string> | undefined;
}

/** Values a query string can carry. */
export type QueryValue = string | number | boolean | undefined;

/** The input of one request. */
export interface RequestInput extends CallOptions {
  /** Path parameters by name. */
  params?: Readonly<Record<string, unknown>> | undefined;
  /** Query parameters. */
  query?: Readonly<Record<string, QueryValue>> | undefined;
  /** JSON body. */
  body?: unknown;
  /** Multipart body (for uploads); wins over `body`. */
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
  /** Path parameters that are secrets. */
  secretParameters?: readonly string[] | undefined;
  /** The path parameter that keys the rate-limit bucket. */
  majorParameter?: string | undefined;
}

/** Per-operation overrides of the route table (for the contract's "not shown" gaps). */
export type RouteOverrides = Partial<Record<OperationId, Partial<Pick<RouteDefinition, 'auth' | 'path' | 'method'>>>>;

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

/** Hooks into the user session, called around requests that use user credentials. */
export interface UserSessionHooks {
  /** Before picking credentials: loads a stored session once; `undefined` when done. */
  ensureLoaded(): Promise<void> | undefined;
  /** Before sending with user credentials (loads and refreshes the session); `undefined` when there is nothing to wait for. */
  prepare(): Promise<void> | undefined;
  /** After a 401 on a request that used `tokenUsed`; resolves whether to retry. */
  onUnauthorized(tokenUsed: string | undefined): Promise<boolean>;
}

/** Where events go. */
export interface EventSink {
  /** Emits an event. */
  emit<K extends keyof ClientEvents>(event: K, ...args: ClientEvents[K]): unknown;
  /** How many listeners an event has. */
  listenerCount(event: keyof ClientEvents): number;
}

/** Configuration of a {@link RestClient}. */
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
  /** Retry policy. */
  retry: RetryPolicy;
  /** Longest single rate-limit wait before rejecting with RateLimitError, milliseconds. */
  maxRateLimitWaitMs: number;
  /** Which rate-limited calls reject at once. */
  rejectOnRateLimit: RejectOnRateLimit;
  /** Overrides of route rows. */
  routeOverrides: RouteOverrides;
  /** Rate-limit state. */
  limiter: RateLimiter;
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
}

const MAX_RATE_LIMIT_RETRIES = 10;

/** Everything one call needs, resolved once. */
interface Call {
  operation: string;
  route: RouteDefinition;
  input: RequestInput;
  prefix: string;
  routeKey: string;
  major: string;
  lane: Lane;
  deadline: number;
  retries: number;
  timeoutMs: number;
  /** Fires at the deadline or when the caller aborts; created only when the call has to wait. */
  waitSignal: AbortSignal | undefined;
  cleanup: (() => void) | undefined;
  deadlineHit: boolean;
}

/** Credentials and path of one attempt. */
interface Prepared {
  credential: { kind: CredentialKind; applied: AppliedCredential | undefined };
  built: { path: string; displayPath: string; secrets: readonly string[] };
}

/** Why an attempt ended without a usable response. */
class AttemptTimeout extends Error {}

/** Runs requests for every resource manager. */
export class RestClient {
  readonly #config: RestClientConfig;
  readonly #insecureOrigin: boolean;
  readonly #userAgent = `community-chat-sdk/${SDK_VERSION}`;
  readonly #resolved = new Map<string, RouteDefinition>();
  /** Bucket route keys (`METHOD template`) by route row, built once. */
  readonly #routeKeys = new WeakMap<RouteDefinition, string>();

  constructor(config: RestClientConfig) {
    this.#config = config;
    const url = new URL(config.origin);
    this.#insecureOrigin = url.protocol === 'http:' && !isLoopbackHost(url.hostname);
  }

  /** Resolves an operation's route row, with overrides applied. */
  route(operation: OperationId): RouteDefinition {
    let route = this.#resolved.get(operation);
    if (!route) {
      const base: RouteDefinition = routes[operation];
      route = { ...base, ...this.#config.routeOverrides[operation] };
      this.#resolved.set(operation, route);
    }
    return route;
  }

  /** Runs a contract operation. */
  request<T>(operation: OperationId, input: RequestInput = {}): Promise<T> {
    return this.#run<T>(operation, this.route(operation), input);
  }

  /** Runs a request on a route the contract does not list, through the same pipeline. */
  requestCustom<T>(route: CustomRoute, input: RequestInput = {}): Promise<T> {
    if (typeof route?.path !== 'string' || !route.path.startsWith('/') || /(^|\/)\.\.?(\/|$)|[?#]/.test(route.path)) {
      return Promise.reject(
        new ValidationError('request', [{ path: 'path', message: 'must start with "/" and contain no "." or ".." segments, "?" or "#"; pass query parameters in `query`' }]),
      );
    }
    const definition: RouteDefinition = {
      method: route.method,
      path: route.path,
      auth: route.auth ?? ['bot', 'user'],
      ...(route.secretParameters ? { secretParameters: route.secretParameters } : {}),
      ...(route.majorParameter ? { majorParameter: route.majorParameter } : {}),
    };
    return this.#run<T>('request', definition, input);
  }

  /** Starts a call. Never throws: every failure is a rejection. Not async itself, to keep the hot path short. */
  #run<T>(operation: string, route: RouteDefinition, input: RequestInput): Promise<T> {
    const config = this.#config;
    let call: Call;
    try {
      const params = input.params ?? {};
      const majorValue = route.majorParameter === undefined ? undefined : params[route.majorParameter];
      call = {
        operation,
        route,
        input,
        prefix: route.prefix === 'auth' ? config.authPrefix : config.apiPrefix,
        routeKey: this.#routeKey(route),
        major: typeof majorValue === 'string' ? majorValue : '',
        lane: route.lane === 'priority' ? 'priority' : 'normal',
        deadline: config.now() + (input.deadlineMs ?? config.deadlineMs),
        retries: input.retries === undefined ? config.retry.retries : Math.max(0, Math.floor(input.retries)),
        timeoutMs: input.timeoutMs ?? config.timeoutMs,
        waitSignal: undefined,
        cleanup: undefined,
        deadlineHit: false,
      };
    } catch (error) {
      return Promise.reject(error);
    }
    const loading = config.session && (route.auth.includes('user') || route.auth.includes('refreshCookie')) ? config.session.ensureLoaded() : undefined;
    return loading ? loading.then(() => this.#start<T>(call)) : this.#start<T>(call);
  }

  /** Checks the call before any I/O (input, credentials, abort), then runs its attempts. */
  #start<T>(call: Call): Promise<T> {
    let first: Prepared;
    try {
      first = this.#prepareAttempt(call);
    } catch (error) {
      return Promise.reject(error);
    }
    const { route, input, operation } = call;
    if (input.signal?.aborted) {
      return Promise.reject(new AbortError({ method: route.method, path: call.prefix + route.path, operation, mayHaveReachedServer: false, cause: input.signal.reason }));
    }
    const config = this.#config;
    if (route.webhookExecution && config.limiter.limitsWebhooks && call.major !== '') {
      const webhookId = call.major;
      return config.limiter
        .serializeWebhook(webhookId, () => this.#attempts<T>(call, webhookId, first), this.#waitSignal(call))
        .catch((error: unknown) => {
          throw this.#mapWaitError(call, error);
        })
        .finally(() => call.cleanup?.());
    }
    return this.#attempts<T>(call, undefined, first);
  }

  #routeKey(route: RouteDefinition): string {
    let key = this.#routeKeys.get(route);
    if (key === undefined) {
      key = `${route.method} ${route.path}`;
      this.#routeKeys.set(route, key);
    }
    return key;
  }

  /** Resolves credentials and path for the next attempt. Throws typed errors before any I/O. */
  #prepareAttempt(call: Call): Prepared {
    const { route, input, operation } = call;
    const params = input.params ?? {};
    const credential = this.#pickCredential(operation, route, params, call.prefix + route.path, input.credential);
    const fullParams = credential.applied?.pathParams ? { ...params, ...credential.applied.pathParams } : params;
    const built = buildPath(route.path, fullParams, route.secretParameters);
    if ('issues' in built) throw new ValidationError(operation, built.issues);
    if (this.#insecureOrigin && !this.#config.allowInsecureHttp && (credential.kind !== 'none' || route.secretBody)) {
      throw new InsecureTransportError(operation, this.#config.origin);
    }
    return { credential, built };
  }

  /** The attempt loop: wait for the rate limiter, send, read or map the error, and retry when the policy allows. */
  async #attempts<T>(call: Call, webhookId: string | undefined, first: Prepared): Promise<T> {
    const config = this.#config;
    const { route, input, operation } = call;
    let attempt = 0;
    let rateLimitRetries = 0;
    let refreshedAfter401 = false;
    try {
      for (;;) {
        attempt++;
        let prepared = attempt === 1 ? first : this.#prepareAttempt(call);
        if (prepared.credential.kind === 'user' && config.session) {
          const pending = config.session.prepare();
          if (pending) {
            await this.#waitFor(call, pending);
            prepared = this.#prepareAttempt(call);
          }
        }
        const { credential, built } = prepared;
        const displayPath = call.prefix + built.displayPath;
        const bucketKey = config.limiter.bucketKey(call.routeKey, call.major);
        const base: RequestEventBase = { operation, method: route.method, path: displayPath, attempt, bucket: bucketKey };

        if (webhookId !== undefined) await this.#waitFor(call, config.limiter.webhookTurn(webhookId, this.#waitSignal(call), this.#guard(call, base)));
        if (!config.limiter.tryAcquire(bucketKey, call.lane)) {
          await this.#waitFor(call, config.limiter.acquireSlow(bucketKey, call.lane, this.#waitSignal(call), this.#guard(call, base)));
        }

        // Send the attempt under its own timeout. The timer keeps running while the body is read.
        const headers: Record<string, string> = { 'user-agent': this.#userAgent };
        if (input.headers) for (const [name, value] of Object.entries(input.headers)) headers[name.toLowerCase()] = value;
        let body: string | FormData | undefined;
        if (input.formData !== undefined) body = input.formData;
        else if (input.body !== undefined) {
          body = JSON.stringify(input.body);
          headers['content-type'] = 'application/json';
        }
        if (credential.applied?.headers) Object.assign(headers, credential.applied.headers);
        if (config.events && config.events.listenerCount('request') > 0) config.events.emit('request', { ...base, credential: credential.kind });
        config.log?.('debug', `${route.method} ${displayPath} (attempt ${attempt})`, { operation, attempt });
        const started = config.now();
        const timer = this.#startAttempt(call);
        let response: TransportResponse;
        try {
          response = await config.transport.send({ method: route.method, origin: config.origin, path: call.prefix + built.path + buildQuery(input.query), headers, body, signal: timer.signal });
        } catch (error) {
          timer.stop();
          if (!(error instanceof TransportFailure)) throw error;
          await this.#retryAfterFailure(call, base, timer.timedOut ? new AttemptTimeout() : error);
          continue;
        } finally {
          config.limiter.release(bucketKey);
          if (webhookId !== undefined) config.limiter.webhookDone(webhookId);
        }
        const status = response.status;
        const cookies = response.headers['set-cookie'];
        if (cookies !== undefined && config.onSetCookie) config.onSetCookie(Array.isArray(cookies) ? cookies : [cookies]);
        if (config.events && config.events.listenerCount('response') > 0) config.events.emit('response', { ...base, status, durationMs: config.now() - started });
        this.#learn(call, response);

        if (status >= 200 && status < 300) {
          let result: unknown;
          try {
            if (status === 204 || status === 205) await response.discard();
            else result = parseSuccessBody(await response.text(), response, operation);
          } catch (error) {
            if (!(error instanceof TransportFailure)) throw error;
            await this.#retryAfterFailure(call, base, timer.timedOut ? new AttemptTimeout() : error);
            continue;
          } finally {
            timer.stop();
          }
          return result as T;
        }

        const secrets = credential.applied ? [...credential.applied.secrets, ...built.secrets] : built.secrets;
        const error = await this.#errorFrom(call, response, timer, credential.kind, attempt, displayPath, secrets);
        if (error instanceof RateLimitError) {
          rateLimitRetries++;
          const waitMs = error.retryAfterMs ?? Math.min(30_000, 1000 * 2 ** (rateLimitRetries - 1));
          config.limiter.pause(bucketKey, waitMs, false);
          if (error.global) config.limiter.pause(bucketKey, waitMs, true);
          const info: RateLimitInfo = { operation, method: route.method, path: displayPath, retryAfterMs: waitMs, global: error.global };
          const refuse = this.#rejectsOnRateLimit(info) || waitMs > config.maxRateLimitWaitMs || config.now() + waitMs > call.deadline || rateLimitRetries > MAX_RATE_LIMIT_RETRIES;
          if (config.events && config.events.listenerCount('rateLimited') > 0) config.events.emit('rateLimited', { ...base, retryAfterMs: waitMs, global: error.global, willRetry: !refuse });
          config.log?.('warn', `rate limited on ${route.method} ${displayPath}${error.global ? ' (global)' : ''}; ${refuse ? 'rejecting' : `waiting ${waitMs} ms`}`, { operation, attempt, retryAfterMs: waitMs });
          if (refuse) throw error;
          if (config.events && config.events.listenerCount('retry') > 0) config.events.emit('retry', { ...base, reason: 'rateLimit', status: 429, delayMs: waitMs });
          continue;
        }
        if (error instanceof AuthenticationError) {
          if (credential.kind === 'user' && config.session && !refreshedAfter401) {
            refreshedAfter401 = true;
            const retry = await this.#waitFor(call, config.session.onUnauthorized(credential.applied?.secrets[0]));
            if (retry) {
              if (config.events && config.events.listenerCount('retry') > 0) config.events.emit('retry', { ...base, reason: 'unauthorized', status: 401, delayMs: 0 });
              continue;
            }
          } else if (credential.kind === 'bot' || credential.kind === 'webhook') {
            config.credentials[credential.kind]?.invalidate?.({ params: input.params ?? {}, path: call.prefix + route.path });
          }
          throw error;
        }
        if (error instanceof ServerError && isIdempotent(route.method) && attempt <= call.retries) {
          await this.#backoff(call, base, attempt, 'status', status, error);
          continue;
        }
        throw error;
      }
    } finally {
      call.cleanup?.();
    }
  }

  /**
   * Decides on a failed attempt: throws the typed error, or waits out the
   * backoff when the failure may be retried. Idempotent methods retry any
   * network failure or timeout; POST and PATCH only when the request provably
   * never reached the server.
   */
  async #retryAfterFailure(call: Call, base: RequestEventBase, outcome: TransportFailure | AttemptTimeout): Promise<void> {
    const failure = this.#failureError(call, base, outcome);
    const method = call.route.method;
    const retryable = outcome instanceof AttemptTimeout ? isIdempotent(method) : isIdempotent(method) || !outcome.mayHaveReachedServer;
    if (!retryable || base.attempt > call.retries || call.deadlineHit || call.input.signal?.aborted) throw failure;
    await this.#backoff(call, base, base.attempt, outcome instanceof AttemptTimeout ? 'timeout' : 'network', undefined, failure);
  }

  #startAttempt(call: Call): Attempt {
    return new Attempt(call, Math.max(0, Math.min(call.timeoutMs, call.deadline - this.#config.now())), this.#config.now);
  }

  /** A signal that fires at the call's deadline or on the caller's abort; created on first need. */
  #waitSignal(call: Call): AbortSignal {
    if (call.waitSignal) return call.waitSignal;
    const controller = new AbortController();
    const timer = setTimeout(() => {
      call.deadlineHit = true;
      controller.abort(new DeadlineReached());
    }, Math.max(0, call.deadline - this.#config.now()));
    const caller = call.input.signal;
    const onAbort = () => controller.abort(caller?.reason);
    caller?.addEventListener('abort', onAbort, { once: true });
    call.cleanup = () => {
      call.cleanup = undefined;
      clearTimeout(timer);
      caller?.removeEventListener('abort', onAbort);
    };
    call.waitSignal = controller.signal;
    return controller.signal;
  }

  /** Awaits a wait (queue, rate limit, refresh), mapping deadline and caller aborts to typed errors. */
  async #waitFor<V>(call: Call, pending: Promise<V>): Promise<V> {
    try {
      return await pending;
    } catch (error) {
      throw this.#mapWaitError(call, error);
    }
  }

  #mapWaitError(call: Call, error: unknown): unknown {
    const description = { method: call.route.method, path: call.prefix + call.route.path, operation: call.operation, mayHaveReachedServer: false, cause: error };
    if (error instanceof DeadlineReached || (call.deadlineHit && !(error instanceof Error && 'status' in error))) {
      return new TimeoutError(description, call.input.deadlineMs ?? this.#config.deadlineMs);
    }
    if (call.input.signal?.aborted && !isCommunityChatError(error)) return new AbortError(description);
    return error;
  }

  #guard(call: Call, base: RequestEventBase): WaitGuard {
    return (delayMs, reason) => this.#guardWait(call, base, delayMs, reason);
  }

  /**
   * Refuses a wait that cannot end in time. Waits the service asked for (a
   * bucket or global pause) are also capped by `maxRateLimitWaitMs` and
   * `rejectOnRateLimit`; the SDK's own webhook pacing only by the deadline.
   */
  #guardWait(call: Call, base: RequestEventBase, delayMs: number, reason: 'global' | 'bucket' | 'webhook'): void {
    const config = this.#config;
    const global = reason === 'global';
    const info: RateLimitInfo = { operation: call.operation, method: base.method, path: base.path, retryAfterMs: delayMs, global };
    const tooLong = reason !== 'webhook' && delayMs > config.maxRateLimitWaitMs;
    const pastDeadline = config.now() + delayMs > call.deadline;
    if (tooLong || pastDeadline || (reason !== 'webhook' && this.#rejectsOnRateLimit(info))) {
      const why = tooLong
        ? `the wait exceeds maxRateLimitWaitMs (${config.maxRateLimitWaitMs} ms); nothing was sent`
        : pastDeadline
          ? 'the wait would outlast the call deadline; nothing was sent'
          : 'rejected without waiting; nothing was sent';
      throw new RateLimitError(
        { method: base.method, path: base.path, operation: call.operation, status: 429, body: undefined, headers: {}, credential: 'none', attempt: base.attempt, retryAfterMs: delayMs, global },
        reason === 'webhook' ? `the webhook's rolling window is full; ${why}` : why,
      );
    }
    const message = `waiting ${delayMs} ms for ${reason === 'webhook' ? "the webhook's rolling window" : `a ${reason === 'global' ? 'global' : 'route'} rate limit`} before ${base.method} ${base.path}`;
    config.log?.('debug', message, { operation: call.operation });
    if (config.events && config.events.listenerCount('debug') > 0) config.events.emit('debug', message);
  }

  #rejectsOnRateLimit(info: RateLimitInfo): boolean {
    const rule = this.#config.rejectOnRateLimit;
    if (typeof rule === 'boolean') return rule;
    if (typeof rule === 'function') return rule(info);
    return rule.some((entry) => entry === info.operation || (entry.startsWith('/') && info.path.includes(entry)));
  }

  async #backoff(call: Call, base: RequestEventBase, attempt: number, reason: 'status' | 'network' | 'timeout', status: number | undefined, lastError: unknown): Promise<void> {
    const config = this.#config;
    const delayMs = backoffDelay(config.retry, attempt);
    if (config.now() + delayMs > call.deadline) throw lastError;
    if (config.events && config.events.listenerCount('retry') > 0) config.events.emit('retry', { ...base, reason, ...(status === undefined ? {} : { status }), delayMs });
    config.log?.('warn', `retrying ${base.method} ${base.path} in ${delayMs} ms after ${reason}${status ? ` ${status}` : ''} (attempt ${attempt})`, { operation: call.operation, attempt });
    try {
      await sleep(delayMs, this.#waitSignal(call));
    } catch (error) {
      throw call.input.signal?.aborted ? this.#mapWaitError(call, error) : lastError;
    }
  }

  #failureError(call: Call, base: RequestEventBase, failure: TransportFailure | AttemptTimeout): Error {
    const init = { method: base.method, path: base.path, operation: call.operation, attempt: base.attempt, mayHaveReachedServer: failure instanceof AttemptTimeout || failure.mayHaveReachedServer, cause: failure.cause };
    if (failure instanceof AttemptTimeout) {
      return new TimeoutError(init, call.deadlineHit ? (call.input.deadlineMs ?? this.#config.deadlineMs) : call.timeoutMs);
    }
    if (failure.kind === 'aborted' || call.input.signal?.aborted) return new AbortError(init);
    return new NetworkError(init, failure.detail);
  }

  #learn(call: Call, response: TransportResponse): void {
    const headers = response.headers;
    if (headers['x-ratelimit-limit'] === undefined && headers['x-ratelimit-remaining'] === undefined && headers['x-ratelimit-bucket'] === undefined) return;
    this.#config.limiter.learn(call.routeKey, call.major, readRateLimitHeaders(response));
  }

  async #errorFrom(
    call: Call,
    response: TransportResponse,
    state: Attempt,
    credential: CredentialKind,
    attempt: number,
    displayPath: string,
    secrets: readonly string[],
  ): Promise<ApiError> {
    try {
      return await toApiError(response, { method: call.route.method, path: displayPath, operation: call.operation, credential, attempt }, secrets);
    } finally {
      state.stop();
    }
  }

  #pickCredential(
    operation: string,
    route: RouteDefinition,
    params: Readonly<Record<string, unknown>>,
    path: string,
    forced: CredentialKind | undefined,
  ): { kind: CredentialKind; applied: AppliedCredential | undefined } {
    const accepted = route.auth;
    if (forced !== undefined && !accepted.includes(forced)) {
      throw new ValidationError(operation, [{ path: 'credential', message: `must be one of ${accepted.join(', ')} for this operation (got ${forced})` }]);
    }
    const order = forced !== undefined ? [forced] : this.#order(accepted);
    for (const kind of order) {
      if (kind === 'none') return { kind, applied: undefined };
      const applied = this.#config.credentials[kind]?.authorize({ params, path });
      if (applied) return { kind, applied };
    }
    const reasons = order.map((kind) => this.#config.credentials[kind]?.unavailableReason?.()).filter((reason): reason is string => reason !== undefined);
    throw new MissingCredentialError(operation, forced !== undefined ? [forced] : accepted, reasons);
  }

  #order(accepted: readonly CredentialKind[]): readonly CredentialKind[] {
    const preferred = this.#config.preferredCredential;
    if (preferred !== undefined && accepted[0] !== preferred && accepted.includes(preferred)) {
      return [preferred, ...accepted.filter((kind) => kind !== preferred)];
    }
    return accepted;
  }

  /** Releases the transport's connections. */
  close(): Promise<void> {
    return this.#config.transport.close();
  }
}

/**
 * One shared, coarse timer for every attempt in flight: an interval of
 * {@link ATTEMPT_TIMER_RESOLUTION_MS} that runs only while attempts are
 * pending. A `setTimeout` per request costs more CPU than the rest of the
 * SDK's per-request work; timeouts fire at most one resolution late.
 */
const ATTEMPT_TIMER_RESOLUTION_MS = 10;

class AttemptTimers {
  readonly #pending = new Set<Attempt>();
  #interval: ReturnType<typeof setInterval> | undefined;

  add(attempt: Attempt): void {
    this.#pending.add(attempt);
    if (this.#interval === undefined) {
      this.#interval = setInterval(() => this.#tick(), ATTEMPT_TIMER_RESOLUTION_MS);
      // The request's own socket keeps the process alive; the timer must not.
      this.#interval.unref?.();
    }
  }

  delete(attempt: Attempt): void {
    this.#pending.delete(attempt);
  }

  #tick(): void {
    // Stopped lazily, by a tick that finds nothing pending, so a client doing one request at a time
    // does not create and clear an interval per request.
    if (this.#pending.size === 0 && this.#interval !== undefined) {
      clearInterval(this.#interval);
      this.#interval = undefined;
      return;
    }
    for (const attempt of this.#pending) {
      if (attempt.expiresAt <= attempt.now()) {
        this.delete(attempt);
        attempt.expire();
      }
    }
  }
}

const attemptTimers = new AttemptTimers();

/** One attempt's timeout and abort signal, linked to the caller's signal. No closures are allocated per attempt. */
class Attempt {
  readonly signal = new AttemptSignal();
  timedOut = false;
  /** When the attempt times out, on the client's clock. */
  readonly expiresAt: number;
  /** The client's clock. */
  readonly now: () => number;
  readonly #call: Call;
  readonly #onCallerAbort: (() => void) | undefined;

  constructor(call: Call, budgetMs: number, now: () => number) {
    this.#call = call;
    this.now = now;
    this.expiresAt = now() + budgetMs;
    attemptTimers.add(this);
    const caller = call.input.signal;
    if (caller) {
      this.#onCallerAbort = () => this.signal.abort(caller.reason);
      caller.addEventListener('abort', this.#onCallerAbort, { once: true });
    }
  }

  /** Called by the shared timer when the attempt's time is up. */
  expire(): void {
    this.timedOut = true;
    if (this.#call.deadline <= this.now()) this.#call.deadlineHit = true;
    this.signal.abort();
  }

  /** Stops the timeout and the caller link. */
  stop(): void {
    attemptTimers.delete(this);
    if (this.#onCallerAbort) this.#call.input.signal?.removeEventListener('abort', this.#onCallerAbort);
  }
}

/** The abort reason used when a call's overall deadline passes. */
class DeadlineReached extends Error {
  constructor() {
    super('deadline reached');
  }
}

function buildQuery(query: Readonly<Record<string, QueryValue>> | undefined): string {
  if (query === undefined) return '';
  let out = '';
  for (const key in query) {
    const value = query[key];
    if (value === undefined) continue;
    out += `${out === '' ? '?' : '&'}${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`;
  }
  return out;
}

function parseSuccessBody(text: string, response: TransportResponse, operation: string): unknown {
  if (text === '') return undefined;
  const type = response.headers['content-type'];
  if (typeof type === 'string' && !type.includes('json')) return text;
  try {
    return JSON.parse(text);
  } catch (error) {
    if (typeof type === 'string') throw new UnexpectedResponseError(operation, response.status, 'the body is not valid JSON', { cause: error });
    return text;
  }
}

function header(response: TransportResponse, name: string): string | undefined {
  const value = response.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function numberHeader(response: TransportResponse, name: string): number | undefined {
  const value = header(response, name);
  if (value === undefined) return undefined;
  const parsed = Number(value);
  return Number.isFinite(parsed) && parsed >= 0 ? parsed : undefined;
}

function readRateLimitHeaders(response: TransportResponse): RateLimitHeaders {
  const resetAfter = numberHeader(response, 'x-ratelimit-reset-after');
  return {
    limit: numberHeader(response, 'x-ratelimit-limit'),
    remaining: numberHeader(response, 'x-ratelimit-remaining'),
    resetAfterMs: resetAfter === undefined ? undefined : Math.ceil(resetAfter * 1000),
    bucket: header(response, 'x-ratelimit-bucket'),
  };
}

async function toApiError(response: TransportResponse, init: Omit<ApiErrorInit, 'status' | 'body' | 'headers'>, secrets: readonly string[]): Promise<ApiError> {
  let raw: unknown;
  try {
    raw = await response.text();
  } catch {
    raw = undefined;
  }
  if (typeof raw === 'string') {
    const text = raw;
    raw = text === '' ? undefined : text;
    const type = response.headers['content-type'];
    if (text !== '' && (typeof type !== 'string' || type.includes('json'))) {
      try {
        raw = JSON.parse(text);
      } catch {
        // Not JSON: keep the text.
      }
    }
  }
  const full: ApiErrorInit = { ...init, status: response.status, body: redactValue(raw, secrets), headers: redactHeaders(response.headers) };
  switch (response.status) {
    case 401:
      return new AuthenticationError(full);
    case 403:
      return new PermissionError(full);
    case 404:
      return new NotFoundError(full);
    case 429:
      return new RateLimitError({ ...full, retryAfterMs: retryAfterOf(response, raw), global: isGlobalLimit(response, raw) });
    default:
      return response.status >= 500 ? new ServerError(full) : new ApiError(full);
  }
}

function retryAfterOf(response: TransportResponse, body: unknown): number | undefined {
  const fromHeader = parseRetryAfter(header(response, 'retry-after'));
  if (fromHeader !== undefined) return fromHeader;
  const resetAfter = parseRetryAfter(header(response, 'x-ratelimit-reset-after'));
  if (resetAfter !== undefined) return resetAfter;
  if (typeof body === 'object' && body !== null) {
    const value = (body as Record<string, unknown>)['retry_after'];
    if (typeof value === 'number' && value >= 0) return Math.ceil(value * 1000);
  }
  return undefined;
}

function isGlobalLimit(response: TransportResponse, body: unknown): boolean {
  if (header(response, 'x-ratelimit-global')?.toLowerCase() === 'true') return true;
  if (header(response, 'x-ratelimit-scope')?.toLowerCase() === 'global') return true;
  return typeof body === 'object' && body !== null && (body as Record<string, unknown>)['global'] === true;
}
