/**
 * Transports: the only code that touches the network for REST calls.
 *
 * - {@link UndiciTransport}: the default on Node. It calls `Pool.request()`
 *   on a keep-alive pool, which costs a fraction of the CPU of `fetch`.
 * - {@link FetchTransport}: calls `globalThis.fetch` at request time, so it
 *   works on any runtime with fetch and is intercepted by MSW in tests.
 *
 * @module
 */

import { Pool, type Dispatcher } from 'undici';
import type { HttpMethod } from '../routes.js';
import { MultipartBody, MultipartStreamError } from './multipart.js';
import { mswHint } from './network-hint.js';

/** One HTTP request, ready to send. */
export interface TransportRequest {
  /** HTTP method. */
  method: HttpMethod;
  /** Scheme, host and port, e.g. `http://localhost:8080`. */
  origin: string;
  /** Path and query string, already encoded. */
  path: string;
  /** Request headers, lower-case names. */
  headers: Record<string, string>;
  /**
   * Request body: JSON text, or a multipart form. A form may be a
   * {@link MultipartBody} whose files are streams: send
   * `MultipartBody.from(body).chunks()` (with its `contentType` and, when
   * known, `length`) rather than encoding the `FormData` itself, and check
   * `consumed` before a resend.
   */
  body: string | FormData | undefined;
  /** Aborts the request, including reading its body. */
  signal: TransportSignal;
  /**
   * The largest response body to read, in bytes. A longer one must make
   * `text()` reject with a {@link TransportFailure} of kind `tooLarge`, without
   * buffering more than this. @default unlimited
   */
  maxResponseBytes?: number | undefined;
}

/**
 * The abort signal of one attempt. It is EventEmitter-shaped (`on`, `once`,
 * `removeListener`), which undici accepts directly: creating an
 * `AbortController` per request costs more CPU than the rest of the SDK's
 * per-request work together.
 */
export interface TransportSignal {
  /** Whether the attempt has been aborted. */
  readonly aborted: boolean;
  /** Why it was aborted. */
  readonly reason: unknown;
  /** Adds an abort listener. */
  on(event: 'abort', listener: () => void): unknown;
  /** Adds an abort listener (abort fires at most once). */
  once(event: 'abort', listener: () => void): unknown;
  /** Removes an abort listener. */
  removeListener(event: 'abort', listener: () => void): unknown;
}

/** The SDK's {@link TransportSignal}: a few fields and a listener list. */
export class AttemptSignal implements TransportSignal {
  aborted = false;
  reason: unknown = undefined;
  // Nearly always one listener (the HTTP client's), so it gets a field of its own; more go in a list.
  #listener: (() => void) | undefined;
  #more: (() => void)[] | undefined;

  on(_event: 'abort', listener: () => void): this {
    if (this.#listener === undefined) this.#listener = listener;
    else (this.#more ??= []).push(listener);
    return this;
  }

  once(event: 'abort', listener: () => void): this {
    return this.on(event, listener);
  }

  removeListener(_event: 'abort', listener: () => void): this {
    if (this.#listener === listener) this.#listener = this.#more?.shift();
    else if (this.#more) {
      const index = this.#more.indexOf(listener);
      if (index >= 0) this.#more.splice(index, 1);
    }
    return this;
  }

  /** Aborts the attempt and calls every listener once. */
  abort(reason?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const first = this.#listener;
    const more = this.#more;
    this.#listener = undefined;
    this.#more = undefined;
    first?.();
    if (more) for (const listener of more) listener();
  }

  /** How many listeners are attached (for leak checks). */
  get listenerCount(): number {
    return (this.#listener === undefined ? 0 : 1) + (this.#more?.length ?? 0);
  }
}

/** A received response whose body has not been read yet. */
export interface TransportResponse {
  /** HTTP status. */
  status: number;
  /** Response headers, lower-case names; `set-cookie` may be an array. */
  headers: Record<string, string | string[] | undefined>;
  /** Reads the whole body as text. */
  text(): Promise<string>;
  /** Discards the body without reading it. */
  discard(): Promise<void>;
}

/** Sends requests. Implement this to plug in another HTTP stack. */
export interface Transport {
  /** Sends one request. Rejects with a {@link TransportFailure} when no response arrives. */
  send(request: TransportRequest): Promise<TransportResponse>;
  /** Releases connections. */
  close(): Promise<void>;
}

/** Why a request produced no response. */
export class TransportFailure extends Error {
  /** `network`: the connection failed; `aborted`: the signal fired; `tooLarge`: the body exceeded `maxResponseBytes`. */
  readonly kind: 'network' | 'aborted' | 'tooLarge';
  /** Whether the request may have reached the server. `false` only when that is provably not the case. */
  readonly mayHaveReachedServer: boolean;
  /** A short, secret-free description, e.g. `ECONNREFUSED`. */
  readonly detail: string;

  constructor(kind: 'network' | 'aborted' | 'tooLarge', detail: string, mayHaveReachedServer: boolean, cause: unknown) {
    super(detail, { cause });
    this.name = 'TransportFailure';
    this.kind = kind;
    this.detail = detail;
    this.mayHaveReachedServer = mayHaveReachedServer;
  }
}

/** The failure of a body longer than the request's `maxResponseBytes`. */
export function tooLarge(limit: number): TransportFailure {
  return new TransportFailure('tooLarge', `the response body exceeds ${limit} bytes`, true, undefined);
}

/** The declared length of a response, when it has a valid `content-length`. */
function declaredLength(value: string | string[] | null | undefined): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text === null || !/^\d+$/.test(text)) return undefined;
  return Number(text);
}

/** Error codes meaning the request never left this machine or was never accepted. */
const NEVER_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'UND_ERR_CONNECT_TIMEOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);

/** Classifies an error thrown while sending. */
export function classifyFailure(error: unknown, signal: TransportSignal): TransportFailure {
  if (signal.aborted) return new TransportFailure('aborted', 'aborted', true, error);
  const code = findCode(error);
  const upload = MultipartStreamError.find(error);
  const detail = upload ? `${upload.code}: ${upload.message}` : (code ?? (error instanceof Error ? error.name : 'unknown error'));
  return new TransportFailure('network', detail, code === undefined || !NEVER_SENT_CODES.has(code), error);
}

/** The failure of a resend whose one-shot upload stream an earlier attempt already read: never sent, never retried (it may have reached the server before). */
function notReplayable(): TransportFailure {
  const error = new MultipartStreamError('ERR_UPLOAD_STREAM_CONSUMED', 'the upload stream was already read by an earlier attempt, so it is not sent again (upload a Blob, e.g. fs.openAsBlob(path), to allow retries)');
  return new TransportFailure('network', `${error.code}: ${error.message}`, true, error);
}

function findCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    const errors = (current as { errors?: unknown }).errors;
    if (Array.isArray(errors) && errors.length > 0) current = errors[0];
    else current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Options of {@link UndiciTransport}. */
export interface UndiciTransportOptions {
  /** A dispatcher to use instead of the transport's own pools (e.g. a proxy agent). @default undefined (a keep-alive Pool per origin, sized by `connections` and `keepAliveTimeoutMs`) */
  dispatcher?: Dispatcher | undefined;
  /** Maximum sockets per origin. @default 128 */
  connections?: number | undefined;
  /** Idle keep-alive time of a socket, in milliseconds. @default 4000 */
  keepAliveTimeoutMs?: number | undefined;
}

/** The default Node transport, on undici's `request()` with keep-alive pools. */
export class UndiciTransport implements Transport {
  readonly #pools = new Map<string, Dispatcher>();
  readonly #dispatcher: Dispatcher | undefined;
  readonly #connections: number;
  readonly #keepAliveTimeout: number;

  constructor(options: UndiciTransportOptions = {}) {
    this.#dispatcher = options.dispatcher;
    this.#connections = options.connections ?? 128;
    this.#keepAliveTimeout = options.keepAliveTimeoutMs ?? 4000;
  }

  #poolFor(origin: string): Dispatcher {
    if (this.#dispatcher) return this.#dispatcher;
    let pool = this.#pools.get(origin);
    if (!pool) {
      pool = new Pool(origin, { connections: this.#connections, keepAliveTimeout: this.#keepAliveTimeout });
      this.#pools.set(origin, pool);
    }
    return pool;
  }

  async send(request: TransportRequest): Promise<TransportResponse> {
    let response: Dispatcher.ResponseData;
    let body: string | AsyncIterable<Uint8Array> | null = null;
    let headers = request.headers;
    if (typeof request.body === 'string') {
      body = request.body;
    } else if (request.body !== undefined) {
      // Streamed with framing of our own: nothing is buffered, and a known length is sent as Content-Length (else chunked).
      const form = MultipartBody.from(request.body);
      if (form.consumed) throw notReplayable();
      body = form.chunks();
      headers = { ...headers, 'content-type': form.contentType };
      if (form.length !== undefined) headers['content-length'] = String(form.length);
    }
    try {
      response = await this.#poolFor(request.origin).request({
        origin: request.origin,
        method: request.method,
        path: request.path,
        headers,
        // undici sends an async iterable body as it is pulled (its types name only Readable).
        body: body as Exclude<Dispatcher.RequestOptions['body'], undefined>,
        signal: request.signal as unknown as AbortSignal,
        // Timeouts are enforced by the caller's signal, so the pool's own are disabled.
        headersTimeout: 0,
        bodyTimeout: 0,
      });
    } catch (error) {
      const failure = classifyFailure(error, request.signal);
      const hint = failure.kind === 'network' ? mswHint(failure.detail, request.origin) : undefined;
      throw hint === undefined ? failure : new TransportFailure('network', `${failure.detail} (${hint})`, failure.mayHaveReachedServer, error);
    }
    return new UndiciResponse(response, request.signal, request.maxResponseBytes);
  }

  async close(): Promise<void> {
    const pools = [...this.#pools.values()];
    this.#pools.clear();
    await Promise.all(pools.map((pool) => pool.close()));
  }
}

/** A response of the undici transport; methods on the prototype, so nothing is allocated per response beyond the object. */
class UndiciResponse implements TransportResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly #body: Dispatcher.ResponseData['body'];
  readonly #signal: TransportSignal;
  readonly #limit: number | undefined;

  constructor(response: Dispatcher.ResponseData, signal: TransportSignal, limit: number | undefined) {
    this.status = response.statusCode;
    this.headers = response.headers;
    this.#body = response.body;
    this.#signal = signal;
    this.#limit = limit;
  }

  async text(): Promise<string> {
    const limit = this.#limit;
    const length = declaredLength(this.headers['content-length']);
    if (limit !== undefined && length !== undefined && length > limit) {
      this.#body.destroy();
      throw tooLarge(limit);
    }
    try {
      // undici holds a body to its declared length, so only a body of unknown length is counted as it streams.
      if (limit === undefined || length !== undefined) return await this.#body.text();
      return await readLimited(this.#body, limit);
    } catch (error) {
      if (error instanceof TransportFailure) throw error;
      throw classifyFailure(error, this.#signal);
    }
  }

  async discard(): Promise<void> {
    try {
      await this.#body.dump();
    } catch {
      // Nothing to keep from a body we are discarding.
    }
  }
}

/** A transport on `globalThis.fetch`, looked up at each request so test interceptors (MSW) see it. */
export class FetchTransport implements Transport {
  readonly #fetch: typeof fetch | undefined;

  /** @param fetchImplementation A fetch function to use instead of `globalThis.fetch`. */
  constructor(fetchImplementation?: typeof fetch) {
    this.#fetch = fetchImplementation;
  }

  async send(request: TransportRequest): Promise<TransportResponse> {
    const fetchFn = this.#fetch ?? globalThis.fetch;
    const signal = request.signal;
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal.reason);
    if (signal.aborted) controller.abort(signal.reason);
    else signal.once('abort', onAbort);
    const detach = () => signal.removeListener('abort', onAbort);
    let response: Response;
    try {
      const init: RequestInit & { duplex?: 'half' } = { method: request.method, headers: request.headers, signal: controller.signal, redirect: 'manual' };
      const body = request.body;
      if (body instanceof MultipartBody && !body.replayable) {
        // A one-shot stream goes out as a streamed request body (chunked).
        if (body.consumed) throw notReplayable();
        init.body = body.stream();
        init.duplex = 'half';
        init.headers = { ...request.headers, 'content-type': body.contentType };
      } else init.body = body ?? null;
      response = await fetchFn(request.origin + request.path, init);
    } catch (error) {
      detach();
      throw error instanceof TransportFailure ? error : classifyFailure(error, signal);
    }
    const headers: Record<string, string | string[]> = {};
    response.headers.forEach((value, name) => {
      if (name !== 'set-cookie') headers[name] = value;
    });
    const cookies = response.headers.getSetCookie();
    if (cookies.length > 0) headers['set-cookie'] = cookies;
    const limit = request.maxResponseBytes;
    return {
      status: response.status,
      headers,
      async text() {
        try {
          if (limit === undefined) return await response.text();
          const length = declaredLength(response.headers.get('content-length'));
          if (length !== undefined && length > limit) {
            await response.body?.cancel().catch(() => undefined);
            throw tooLarge(limit);
          }
          return response.body ? await readLimited(response.body, limit) : '';
        } catch (error) {
          if (error instanceof TransportFailure) throw error;
          throw classifyFailure(error, signal);
        } finally {
          detach();
        }
      },
      async discard() {
        try {
          await response.body?.cancel();
        } catch {
          // Nothing to keep from a body we are discarding.
        } finally {
          detach();
        }
      },
    };
  }

  async close(): Promise<void> {
    // fetch owns no connections of ours.
  }
}

/**
 * Reads a body of unknown length as UTF-8 text, counting bytes as they arrive
 * and stopping (destroying the stream) as soon as they exceed `limit`.
 */
async function readLimited(body: AsyncIterable<Uint8Array> & { destroy?: () => unknown; cancel?: () => unknown }, limit: number): Promise<string> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += chunk.byteLength;
    if (total > limit) {
      if (typeof body.destroy === 'function') body.destroy();
      throw tooLarge(limit);
    }
    chunks.push(chunk);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}
