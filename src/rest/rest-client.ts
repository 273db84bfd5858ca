/**
 * The REST client: runs one request through credentials, path building,
 * the transport, and response parsing or error mapping.
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
  type ApiErrorInit,
} from '../errors.js';
import { buildPath } from '../path.js';
import { redactHeaders, redactValue } from '../redact.js';
import { routes, type CredentialKind, type HttpMethod, type OperationId, type RouteDefinition } from '../routes.js';
import { SDK_VERSION } from '../version.js';
import { parseRetryAfter } from './retry-after.js';
import { TransportFailure, type Transport, type TransportResponse } from './transport.js';

/** Options every SDK method accepts as its last argument. */
export interface CallOptions {
  /** Cancels the call wherever it is. */
  signal?: AbortSignal | undefined;
  /** Per-attempt timeout in milliseconds, overriding the client's. */
  timeoutMs?: number | undefined;
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
  body?: unknown | undefined;
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
  auth?: readonly CredentialKind[];
  /** Path parameters that are secrets. */
  secretParameters?: readonly string[];
}

/** Per-operation overrides of the route table (for the contract's "not shown" gaps). */
export type RouteOverrides = Partial<Record<OperationId, Partial<Pick<RouteDefinition, 'auth' | 'path' | 'method'>>>>;

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
  /** Which of bot or user to use when an operation accepts both. */
  preferredCredential: 'bot' | 'user';
  /** Whether credentials may go over plain HTTP to a non-loopback host. */
  allowInsecureHttp: boolean;
  /** Per-attempt timeout, milliseconds. */
  timeoutMs: number;
  /** Overrides of route rows. */
  routeOverrides: RouteOverrides;
  /** Called with the `Set-Cookie` values of every response. */
  onSetCookie: ((values: string[]) => void) | undefined;
}

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\]|::1)$/i;

/** Runs requests for every resource manager. */
export class RestClient {
  readonly #config: RestClientConfig;
  readonly #insecureOrigin: boolean;
  readonly #userAgent = `community-chat-sdk/${SDK_VERSION}`;
  readonly #resolved = new Map<string, RouteDefinition>();

  constructor(config: RestClientConfig) {
    this.#config = config;
    const url = new URL(config.origin);
    this.#insecureOrigin = url.protocol === 'http:' && !LOOPBACK.test(url.hostname);
  }

  /** Credential strategies the client holds. */
  get credentials(): Partial<Record<CredentialKind, CredentialStrategy>> {
    return this.#config.credentials;
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
    if (!route.path.startsWith('/') || /(^|\/)\.\.?(\/|$)|[?#]/.test(route.path)) {
      return Promise.reject(
        new ValidationError('request', [{ path: 'path', message: 'must start with "/" and contain no "." or ".." segments, "?" or "#"; pass query parameters in `query`' }]),
      );
    }
    const definition: RouteDefinition = {
      method: route.method,
      path: route.path,
      auth: route.auth ?? ['bot', 'user'],
      ...(route.secretParameters ? { secretParameters: route.secretParameters } : {}),
    };
    return this.#run<T>('request', definition, input);
  }

  async #run<T>(operation: string, route: RouteDefinition, input: RequestInput): Promise<T> {
    const prefix = route.prefix === 'auth' ? this.#config.authPrefix : this.#config.apiPrefix;
    const params = input.params ?? {};
    const credential = this.#pickCredential(operation, route, params, prefix + route.path, input.credential);
    const fullParams = credential.applied?.pathParams ? { ...params, ...credential.applied.pathParams } : params;
    const built = buildPath(route.path, fullParams, route.secretParameters);
    if ('issues' in built) throw new ValidationError(operation, built.issues);
    if (this.#insecureOrigin && !this.#config.allowInsecureHttp && (credential.kind !== 'none' || route.secretBody)) {
      throw new InsecureTransportError(operation, this.#config.origin);
    }
    const secrets = credential.applied ? [...credential.applied.secrets, ...built.secrets] : built.secrets;
    const path = prefix + built.path + buildQuery(input.query);
    const displayPath = prefix + built.displayPath;

    const headers: Record<string, string> = { 'user-agent': this.#userAgent, accept: 'application/json' };
    if (input.headers) for (const [name, value] of Object.entries(input.headers)) headers[name.toLowerCase()] = value;
    let body: string | FormData | undefined;
    if (input.formData !== undefined) {
      body = input.formData;
    } else if (input.body !== undefined) {
      body = JSON.stringify(input.body);
      headers['content-type'] = 'application/json';
    }
    if (credential.applied?.headers) Object.assign(headers, credential.applied.headers);

    const description = { method: route.method, path: displayPath, operation, attempt: 1 };
    const timeoutMs = input.timeoutMs ?? this.#config.timeoutMs;
    const callerSignal = input.signal;
    if (callerSignal?.aborted) throw new AbortError({ ...description, mayHaveReachedServer: false, cause: callerSignal.reason });

    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onCallerAbort = () => controller.abort();
    callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
    try {
      const response = await this.#config.transport.send({
        method: route.method,
        origin: this.#config.origin,
        path,
        headers,
        body,
        signal: controller.signal,
      });
      const cookies = response.headers['set-cookie'];
      if (cookies !== undefined && this.#config.onSetCookie) this.#config.onSetCookie(Array.isArray(cookies) ? cookies : [cookies]);
      if (response.status >= 200 && response.status < 300) return (await readSuccess(response)) as T;
      throw await toApiError(response, { ...description, credential: credential.kind }, secrets);
    } catch (error) {
      if (error instanceof TransportFailure) {
        const init = { ...description, mayHaveReachedServer: error.mayHaveReachedServer, cause: error.cause };
        if (error.kind === 'aborted' || controller.signal.aborted) {
          if (timedOut) throw new TimeoutError(init, timeoutMs);
          throw new AbortError(init);
        }
        throw new NetworkError(init, error.detail);
      }
      if (error instanceof SyntaxError) {
        throw new UnexpectedResponseError(operation, 200, 'the body is not valid JSON', { cause: error });
      }
      throw error;
    } finally {
      clearTimeout(timer);
      callerSignal?.removeEventListener('abort', onCallerAbort);
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
    throw new MissingCredentialError(operation, forced !== undefined ? [forced] : accepted);
  }

  #order(accepted: readonly CredentialKind[]): readonly CredentialKind[] {
    if (this.#config.preferredCredential === 'user' && accepted.includes('user') && accepted.includes('bot')) {
      return ['user', ...accepted.filter((kind) => kind !== 'user')];
    }
    return accepted;
  }

  /** Releases the transport's connections. */
  close(): Promise<void> {
    return this.#config.transport.close();
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

async function readSuccess(response: TransportResponse): Promise<unknown> {
  if (response.status === 204 || response.status === 205) {
    await response.discard();
    return undefined;
  }
  const text = await response.text();
  if (text === '') return undefined;
  const type = response.headers['content-type'];
  if (typeof type === 'string') return type.includes('json') ? JSON.parse(text) : text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

async function toApiError(response: TransportResponse, init: Omit<ApiErrorInit, 'status' | 'body' | 'headers'>, secrets: string[]): Promise<ApiError> {
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
  const full: ApiErrorInit = {
    ...init,
    status: response.status,
    body: redactValue(raw, secrets),
    headers: redactHeaders(response.headers),
  };
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

function header(response: TransportResponse, name: string): string | undefined {
  const value = response.headers[name];
  return Array.isArray(value) ? value[0] : value;
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
