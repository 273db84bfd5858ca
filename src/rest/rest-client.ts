/**
 * The REST client: orchestrates one call through credentials, path building,
 * the rate limiter, the transport, the retry policy and response decoding,
 * and emits its events. Each of those steps lives in a module of its own.
 *
 * @module
 */

import { chooseCredential, credentialOrder, type CredentialSet } from '../auth/credential-choice.js';
import { AbortError, type ApiError, AuthenticationError, InsecureTransportError, RateLimitError, ValidationError } from '../errors/index.js';
import { isInsecureRemoteUrl } from '../core/loopback.js';
import { checkCount, checkDuration, refuseUnknownOptions } from '../core/bounds.js';
import { buildPath, buildQuery, checkHeaders, checkRouteTemplate } from '../core/path.js';
import { routes, type OperationId, type RouteDefinition } from '../core/routes.js';
import { SDK_VERSION } from '../core/version.js';
import { attemptFailureError, waitError, waitGuard, type CallState } from './call-errors.js';
import { AttemptTimer, CallDeadline } from './deadline.js';
import { startCall, type CallLifecycle } from '../observe/call.js';
import type { RestClientConfig } from './config.js';
import type { RequestEventBase } from '../observe/events.js';
import { REQUEST_INPUT_OPTIONS, type CustomRoute, type RateLimitInfo, type RequestInput } from './options.js';
import type { Lane } from './rate-limit-store.js';
import { bodySpent, callSecrets, requestParts, type Prepared } from './request-parts.js';
import { hasRateLimitHeaders, parseSuccessBody, readRateLimitHeaders, toApiError } from './response.js';
import { decideRetry, rejectsOnRateLimit, type AttemptOutcome } from './retry.js';
import { KeyedQueue, runInTurn, wait } from '../core/wait.js';
import { MemoryRateLimitStore } from './rate-limiter.js';
import type { TransportResponse } from './transport.js';
import { isTransportFailure, type TransportFailure } from '../errors/transport.js';
import { turnsById, type WebhookTurns } from './webhook-lane.js';

/** Everything one call needs, resolved once. */
interface Call {
  readonly operation: string;
  readonly route: RouteDefinition;
  readonly input: RequestInput;
  readonly prefix: string;
  readonly routeKey: string;
  readonly major: string;
  readonly lane: Lane;
  readonly retries: number;
  readonly timeoutMs: number;
  readonly maxResponseBytes: number;
  readonly deadline: CallDeadline;
  /** The encoded query string, built once. */
  readonly query: string;
}

/** An attempt that ended without a usable response. */
type Failure = TransportFailure | 'timeout';

/** Runs requests for every resource manager. */
export class RestClient {
  readonly #config: RestClientConfig;
  readonly #credentials: CredentialSet;
  readonly #insecureOrigin: boolean;
  readonly #userAgent = `community-chat-sdk/${SDK_VERSION}`;
  readonly #resolved = new Map<string, RouteDefinition>();
  /** Bucket route keys (`METHOD template`) by route row, built once. */
  readonly #routeKeys = new WeakMap<RouteDefinition, string>();
  /** The in-memory store, which keeps each webhook's executions in order beside their window (another store is only reached through its interface). */
  readonly #fast: MemoryRateLimitStore | undefined;
  /** Each webhook's executions in order, when the store is not the in-memory one (which keeps them beside their window). */
  readonly #webhookOrder = new KeyedQueue<string>();

  constructor(config: RestClientConfig) {
    this.#config = config;
    this.#fast = config.limiter instanceof MemoryRateLimitStore ? config.limiter : undefined;
    this.#credentials = { strategies: config.credentials, preferred: config.preferredCredential };
    this.#insecureOrigin = isInsecureRemoteUrl(new URL(config.origin));
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
    const problem = checkRouteTemplate(route?.path);
    if (problem !== undefined) return Promise.reject(new ValidationError('request', [{ path: 'path', message: problem }]));
    const definition: RouteDefinition = {
      method: route.method,
      path: route.path,
      auth: route.auth ?? ['bot', 'user'],
      ...(route.secretParameters ? { secretParameters: route.secretParameters } : {}),
      ...(route.majorParameter ? { majorParameter: route.majorParameter } : {}),
    };
    return this.#run<T>('request', definition, input);
  }

  /** Releases the transport's connections. */
  close(): Promise<void> {
    return this.#config.transport.close();
  }

  /** Starts a call. Never throws: every failure is a rejection. Not async itself, to keep the hot path short. */
  #run<T>(operation: string, route: RouteDefinition, input: RequestInput): Promise<T> {
    const config = this.#config;
    let call: Call;
    let first: Prepared | undefined;
    let firstError: unknown;
    try {
      // A misspelt call option (`timeout`, `retry`) would quietly do nothing: refused by name.
      refuseUnknownOptions(operation, input, REQUEST_INPUT_OPTIONS);
      const majorValue = route.majorParameter === undefined ? undefined : input.params?.[route.majorParameter];
      const query = buildQuery(input.query);
      if (typeof query !== 'string') return Promise.reject(new ValidationError(operation, query.issues));
      if (input.headers !== undefined) {
        const issues = checkHeaders(input.headers);
        if (issues.length > 0) return Promise.reject(new ValidationError(operation, issues));
      }
      call = {
        query,
        operation,
        route,
        input,
        prefix: route.prefix === 'auth' ? config.authPrefix : config.apiPrefix,
        routeKey: this.#routeKey(route),
        major: typeof majorValue === 'string' ? majorValue : '',
        lane: route.lane === 'priority' ? 'priority' : 'normal',
        retries: checkCount(operation, 'retries', input.retries) ?? config.retry.retries,
        timeoutMs: input.timeoutMs === undefined ? config.timeoutMs : checkDuration(operation, 'timeoutMs', input.timeoutMs),
        maxResponseBytes: checkCount(operation, 'maxResponseBytes', input.maxResponseBytes, { min: 1 }) ?? config.maxResponseBytes,
        deadline: new CallDeadline(
          config.now,
          input.deadlineMs === undefined ? config.deadlineMs : checkDuration(operation, 'deadlineMs', input.deadlineMs),
          input.signal,
        ),
      };
      try {
        first = this.#prepareAttempt(call);
      } catch (error) {
        firstError = error;
      }
    } catch (error) {
      return Promise.reject(error);
    }
    // A stored user session is loaded only when it could change the choice: never for a call that a bot token serves.
    const loading = this.#sessionMayDecide(call, first) ? config.session?.ensureLoaded() : undefined;
    if (loading) {
      return this.#waitFor(call, loading)
        .then(() => this.#start<T>(call, this.#prepareAttempt(call)))
        .finally(() => call.deadline.dispose());
    }
    if (first === undefined) return Promise.reject(firstError);
    return this.#start<T>(call, first);
  }

  /** Whether a user session, once loaded from its store, could serve this call before the credential chosen now. */
  #sessionMayDecide(call: Call, first: Prepared | undefined): boolean {
    if (!this.#config.session) return false;
    const forced = call.input.credential;
    const order = forced !== undefined ? [forced] : credentialOrder(call.route.auth, this.#credentials.preferred);
    const sessionAt = order.findIndex((kind) => kind === 'user' || kind === 'refreshCookie');
    if (sessionAt < 0) return false;
    return first === undefined || sessionAt < order.indexOf(first.credential.kind);
  }

  /** Checks the call before any I/O (abort), then runs its attempts, in turn behind the webhook's earlier executions. */
  #start<T>(call: Call, first: Prepared): Promise<T> {
    const { route, input, operation } = call;
    if (input.signal?.aborted) {
      return Promise.reject(
        new AbortError({ method: route.method, path: call.prefix + route.path, operation, mayHaveReachedServer: false, cause: input.signal.reason }),
      );
    }
    if (route.webhookExecution && this.#config.limitsWebhooks && call.major !== '') {
      // The webhook's lane, looked up once: the in-memory store's (queue and window), or another store's id and our queue.
      const lane = this.#fast?.webhookLane(call.major);
      const turns = lane ?? turnsById(this.#config.limiter, call.major);
      const task = () => this.#attempts<T>(call, turns, first);
      // Nothing queued for this webhook (the usual case): the attempts start at once, as any call's (no wait, no wait error).
      if (lane?.queued === 0) return runInTurn(lane, task, undefined);
      const inTurn = lane === undefined ? this.#webhookOrder.run(call.major, task, call.deadline.signal) : runInTurn(lane, task, call.deadline.signal);
      return inTurn
        .catch((error: unknown) => {
          throw this.#waitError(call, error);
        })
        .finally(() => call.deadline.dispose());
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
    const credential = chooseCredential(this.#credentials, operation, route.auth, { params, path: call.prefix + route.path }, input.credential);
    const fullParams = credential.applied?.pathParams ? { ...params, ...credential.applied.pathParams } : params;
    const built = buildPath(route.path, fullParams, route.secretParameters);
    if ('issues' in built) throw new ValidationError(operation, built.issues);
    if (this.#insecureOrigin && !this.#config.allowInsecureHttp && (credential.kind !== 'none' || route.secretBody)) {
      throw new InsecureTransportError(operation, this.#config.origin);
    }
    return { credential, built };
  }

  /** The attempt loop: wait for the rate limiter, send, read the response or decide on the failure, and retry when the policy allows. */
  async #attempts<T>(call: Call, webhook: WebhookTurns | undefined, first: Prepared): Promise<T> {
    const config = this.#config;
    const { route, input, operation } = call;
    let attempt = 0;
    let rateLimits = 0;
    let refreshedAfter401 = false;
    // The call's lifecycle, when anyone observes it (events, logger, hooks, diagnostics, tracer): every step is reported to it once.
    const obs = startCall(config, { operation, method: route.method, path: call.prefix + first.built.displayPath, route: call.prefix + route.path });
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
        const { headers, body } = requestParts(this.#userAgent, input);
        // The store's synchronous try first, when it has one (no promise, no timer, no guard); otherwise, or without it (Redis), a wait.
        // A webhook turn is given back once: after the send, or when the request never reaches it (a wait given up on: once granted).
        const limiter = config.limiter;
        let turn: AbortSignal | undefined; // names a waited-for turn to the store (none for the try's)
        if (webhook !== undefined && !webhook.tryTurn()) {
          turn = call.deadline.signal;
          const pending = webhook.turn(turn, waitGuard(config, call, base, obs));
          await this.#waitFor(call, pending, () => webhook.done(turn));
        }
        let place: AbortSignal | undefined; // names a waited-for place to the store (none for the try's: no signal made)
        try {
          if (limiter.tryAcquire?.(bucketKey, call.lane) !== true) {
            place = call.deadline.signal;
            const pending = limiter.acquire(bucketKey, call.lane, place, waitGuard(config, call, base, obs));
            await this.#waitFor(call, pending, () => limiter.release(bucketKey, place));
          }
        } catch (error) {
          webhook?.done(turn);
          throw error;
        }

        // Send the attempt under its own timeout. The timer keeps running while the body is read.
        obs?.attempt(base, credential.kind);
        const started = config.now();
        const timer = new AttemptTimer(call.deadline, call.timeoutMs, input.signal, config.now);
        let response: TransportResponse;
        try {
          // Hooks see the headers before the credential's are added, and cannot replace them.
          const hooked = obs?.beforeRequest(base, headers, credential.applied?.headers);
          if (hooked !== undefined) await this.#waitFor(call, hooked);
          if (credential.applied?.headers) Object.assign(headers, credential.applied.headers);
          const send = () =>
            config.transport.send({
              method: route.method,
              origin: config.origin,
              path: call.prefix + built.path + call.query,
              headers,
              body,
              signal: timer.signal,
              maxResponseBytes: call.maxResponseBytes,
            });
          response = await (obs === undefined ? send() : obs.send(base, timer, send));
        } catch (error) {
          timer.stop();
          if (!isTransportFailure(error)) throw error;
          await this.#afterFailure(call, base, timer.timedOut ? 'timeout' : error, obs);
          continue;
        } finally {
          config.limiter.release(bucketKey, place);
          webhook?.done(turn);
        }
        const status = response.status;
        const cookies = response.headers['set-cookie'];
        // Only the session routes (login, refresh, logout) may set cookies: other responses cannot fill the jar.
        if (cookies !== undefined && route.prefix === 'auth' && config.onSetCookie) config.onSetCookie(Array.isArray(cookies) ? cookies : [cookies]);
        if (hasRateLimitHeaders(response)) limiter.learn(call.routeKey, call.major, readRateLimitHeaders(response));
        else if (this.#fast !== undefined) this.#fast.learnNone(bucketKey);
        else limiter.learn(call.routeKey, call.major, undefined);
        const observed = obs?.response(base, response, config.now() - started, () => callSecrets(prepared, input), timer);
        if (observed !== undefined) await this.#waitFor(call, observed);

        if (status >= 200 && status < 300) {
          let result: unknown;
          try {
            if (status === 204 || status === 205) await response.discard();
            else result = parseSuccessBody(await response.text(), response, operation);
          } catch (error) {
            if (!isTransportFailure(error)) throw error;
            await this.#afterFailure(call, base, timer.timedOut ? 'timeout' : error, obs);
            continue;
          } finally {
            timer.stop();
          }
          obs?.end(status);
          return result as T;
        }

        let error: ApiError;
        try {
          error = await toApiError(
            response,
            { method: route.method, path: displayPath, operation, credential: credential.kind, attempt },
            callSecrets(prepared, input),
          );
        } finally {
          timer.stop();
        }
        if (error instanceof RateLimitError) {
          rateLimits++;
          await this.#afterRateLimit(call, base, error, rateLimits, obs);
          continue;
        }
        if (error instanceof AuthenticationError) {
          if (credential.kind === 'user' && config.session && !refreshedAfter401 && !bodySpent(input)) {
            refreshedAfter401 = true;
            if (await this.#waitFor(call, config.session.onUnauthorized(credential.applied?.secrets[0]))) {
              obs?.retry({ ...base, reason: 'unauthorized', status: 401, delayMs: 0 });
              continue;
            }
          } else if (credential.kind === 'bot' || credential.kind === 'webhook') {
            config.credentials[credential.kind]?.invalidate?.({ params: input.params ?? {}, path: call.prefix + route.path });
          }
          throw error;
        }
        await this.#retryOrThrow(call, base, { kind: 'status', status }, error, obs);
      }
    } catch (error) {
      throw obs === undefined ? error : await obs.fail(error, attempt);
    } finally {
      call.deadline.dispose();
    }
  }

  /** A 429: pauses the bucket (and every bucket when global), then waits it out or rejects, as the retry policy and `rejectOnRateLimit` decide. */
  async #afterRateLimit(call: Call, base: RequestEventBase, error: RateLimitError, count: number, obs: CallLifecycle | undefined): Promise<void> {
    const config = this.#config;
    const decision = decideRetry(config.retry, { kind: 'rateLimit', retryAfterMs: error.retryAfterMs, count }, this.#retryContext(call, base));
    const waitMs = decision.delayMs ?? 0;
    config.limiter.pause(base.bucket, waitMs, false);
    if (error.global) config.limiter.pause(base.bucket, waitMs, true);
    const info: RateLimitInfo = { operation: call.operation, method: base.method, path: base.path, retryAfterMs: waitMs, global: error.global };
    // A one-shot upload stream already read cannot be sent again: the 429 itself is the answer.
    const willRetry = decision.retry && !bodySpent(call.input) && !rejectsOnRateLimit(this.#config.rejectOnRateLimit, info);
    obs?.rateLimited(base, waitMs, error.global, willRetry);
    if (!willRetry) throw error;
    obs?.retry({ ...base, reason: 'rateLimit', status: 429, delayMs: waitMs });
  }

  /** No usable response: maps the failure to its typed error, then retries or throws it. */
  #afterFailure(call: Call, base: RequestEventBase, failure: Failure, obs: CallLifecycle | undefined): Promise<void> {
    const error = attemptFailureError(base, failure, call.timeoutMs, call.maxResponseBytes, this.#state(call));
    if (call.input.signal?.aborted || (failure !== 'timeout' && failure.kind === 'tooLarge')) return Promise.reject(error);
    const outcome: AttemptOutcome = failure === 'timeout' ? { kind: 'timeout' } : { kind: 'network', mayHaveReachedServer: failure.mayHaveReachedServer };
    return this.#retryOrThrow(call, base, outcome, error, obs);
  }

  /** Asks the retry policy; waits out its backoff or throws `error`. */
  async #retryOrThrow(call: Call, base: RequestEventBase, outcome: AttemptOutcome, error: Error, obs: CallLifecycle | undefined): Promise<void> {
    const decision = decideRetry(this.#config.retry, outcome, this.#retryContext(call, base));
    if (!decision.retry || call.deadline.hit || bodySpent(call.input)) throw error;
    const { delayMs, reason } = decision;
    const status = outcome.kind === 'status' ? outcome.status : undefined;
    obs?.retry({ ...base, reason, ...(status === undefined ? {} : { status }), delayMs });
    try {
      await wait(delayMs, { signal: call.deadline.signal });
    } catch (cause) {
      throw call.input.signal?.aborted ? this.#waitError(call, cause) : error;
    }
  }

  #retryContext(call: Call, base: RequestEventBase) {
    return { attempt: base.attempt, method: base.method, retries: call.retries, remainingMs: call.deadline.remaining() };
  }

  /**
   * Awaits a wait (queue, rate limit, session load or refresh) under the call's deadline and signal, mapping both to typed
   * errors. `giveBack`, for a wait for a place (a bucket's, a webhook turn): run when the store grants it after the call
   * gave up on it (a rejection of the store's own holds nothing).
   */
  async #waitFor<V>(call: Call, pending: Promise<V>, giveBack?: () => void): Promise<V> {
    try {
      return await call.deadline.race(pending);
    } catch (error) {
      if (giveBack !== undefined) pending.then(giveBack, () => undefined);
      throw this.#waitError(call, error);
    }
  }

  #waitError(call: Call, error: unknown): unknown {
    return waitError({ method: call.route.method, path: call.prefix + call.route.path, operation: call.operation }, error, this.#state(call));
  }

  #state(call: Call): CallState {
    return { deadlineHit: call.deadline.hit, deadlineMs: call.deadline.budgetMs, callerAborted: call.input.signal?.aborted === true };
  }
}
