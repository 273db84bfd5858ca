/**
 * The default Node transport: undici's `dispatch()` on a keep-alive pool per
 * origin, with a handler of our own that collects the body as it arrives.
 * undici itself is loaded on the first request, not when the SDK is
 * imported: it pulls in `net`, `http`, `http2`, `dns` and `worker_threads`,
 * which a program that never sends (or a runtime without them) should not pay for.
 *
 * @module
 */

import type { Dispatcher } from 'undici';
import { MultipartBody } from './multipart.js';
import { mswHint } from './network-hint.js';
import {
  classifyFailure,
  declaredLength,
  notReplayable,
  tooLarge,
  type Transport,
  type TransportRequest,
  type TransportResponse,
  type TransportSignal,
} from './transport.js';
import { TransportFailure } from '../errors/transport.js';
import { checkCount, checkDuration, optionNames, refuseUnknownOptions } from '../core/bounds.js';

/** What the transport uses of undici, once loaded. */
type Undici = Pick<typeof import('undici'), 'Pool' | 'util'>;
/** undici, once the first request loaded it: later requests use it with no await. */
let undici: Undici | undefined;
/** The load under way, shared by the requests that wait for it; cleared when it fails, so a later request tries again. */
let loading: Promise<Undici> | undefined;

/**
 * The modules of undici the transport uses, by their own paths: the package's index also loads its fetch, WebSocket,
 * EventSource, caches, interceptors and mocks, none of which the transport uses (measured on Node 20: 12 MB of resident
 * memory and 18 ms for these two, 20 MB and 56 ms for the index, which also grows the young generation a Gateway process
 * keeps). undici is pinned to one minor version (package.json), whose layout these name; `test/rest/undici-load.test.ts`
 * checks they are the index's own `Pool` and `util`.
 */
const POOL_MODULE = 'undici/lib/dispatcher/pool.js';
const UTIL_MODULE = 'undici/lib/core/util.js';

/** undici's `Pool` and `util` from their own modules, or from the package's index when its layout moved. @internal */
export async function importUndici(): Promise<Undici> {
  try {
    // Names in variables: the modules have no declarations of their own (their types are the index's).
    const [pool, util] = (await Promise.all([import(POOL_MODULE), import(UTIL_MODULE)])) as [{ default: Undici['Pool'] }, { default: Undici['util'] }];
    if (typeof pool.default === 'function' && typeof util.default?.parseHeaders === 'function') return { Pool: pool.default, util: util.default };
  } catch {
    // Another layout: the index has them.
  }
  return import('undici');
}

/** Loads undici once per process (memoised); a failed load is not remembered. */
function loadUndici(): Promise<Undici> {
  loading ??= importUndici().then(
    (module) => {
      undici = module;
      return module;
    },
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
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

const UNDICI_TRANSPORT_OPTIONS = optionNames<UndiciTransportOptions>({ dispatcher: true, connections: true, keepAliveTimeoutMs: true });

/** The default Node transport, on undici's `dispatch()` with keep-alive pools. */
export class UndiciTransport implements Transport {
  readonly #pools = new Map<string, Dispatcher>();
  readonly #dispatcher: Dispatcher | undefined;
  readonly #connections: number;
  readonly #keepAliveTimeout: number;

  /** Refuses an unknown option, a `connections` that is not a whole number from 1, a `keepAliveTimeoutMs` past 2^31 - 1 ms, with a `ValidationError`. */
  constructor(options: UndiciTransportOptions = {}) {
    refuseUnknownOptions('UndiciTransport', options, UNDICI_TRANSPORT_OPTIONS);
    this.#dispatcher = options.dispatcher;
    this.#connections = checkCount('UndiciTransport', 'connections', options.connections, { min: 1 }) ?? 128;
    this.#keepAliveTimeout = checkDuration('UndiciTransport', 'keepAliveTimeoutMs', options.keepAliveTimeoutMs) ?? 4000;
  }

  #poolFor(origin: string, { Pool }: Undici): Dispatcher {
    if (this.#dispatcher) return this.#dispatcher;
    let pool = this.#pools.get(origin);
    if (!pool) {
      pool = new Pool(origin, { connections: this.#connections, keepAliveTimeout: this.#keepAliveTimeout });
      this.#pools.set(origin, pool);
    }
    return pool;
  }

  send(request: TransportRequest): Promise<TransportResponse> {
    const loaded = undici;
    return loaded === undefined ? this.#sendOnceLoaded(request) : this.#send(request, loaded);
  }

  /** The first request (or those made while it loads): waits for undici, then sends; a failed load is a failure that reached nothing. */
  async #sendOnceLoaded(request: TransportRequest): Promise<TransportResponse> {
    let loaded: Undici;
    try {
      loaded = await loadUndici();
    } catch (error) {
      throw new TransportFailure('network', `undici could not be loaded: ${error instanceof Error ? error.message : String(error)}`, false, error);
    }
    if (request.signal.aborted) throw classifyFailure(new Error('aborted'), request.signal);
    return this.#send(request, loaded);
  }

  #send(request: TransportRequest, loaded: Undici): Promise<TransportResponse> {
    let body: string | AsyncIterable<Uint8Array> | null = null;
    let headers = request.headers;
    if (typeof request.body === 'string') {
      body = request.body;
    } else if (request.body !== undefined) {
      // Streamed with framing of our own: nothing is buffered, and a known length is sent as Content-Length (else chunked).
      const form = MultipartBody.from(request.body);
      if (form.consumed) return Promise.reject(notReplayable());
      body = form.chunks();
      headers = { ...headers, 'content-type': form.contentType };
      if (form.length !== undefined) headers['content-length'] = String(form.length);
    }
    const pool = this.#poolFor(request.origin, loaded);
    return new Promise<TransportResponse>((resolve, reject) => {
      const handler = new BufferingHandler(request.signal, request.maxResponseBytes, request.origin, loaded.util.parseHeaders, resolve, reject);
      try {
        pool.dispatch(
          {
            origin: request.origin,
            method: request.method,
            path: request.path,
            headers,
            // undici sends an async iterable body as it is pulled (its types name only Readable).
            body: body as Exclude<Dispatcher.DispatchOptions['body'], undefined>,
            // Timeouts are enforced by the caller's signal, so the pool's own are disabled.
            headersTimeout: 0,
            bodyTimeout: 0,
          },
          handler,
        );
      } catch (error) {
        handler.onError(error as Error);
      }
    });
  }

  async close(): Promise<void> {
    const pools = [...this.#pools.values()];
    this.#pools.clear();
    await Promise.all(pools.map((pool) => pool.close()));
  }

  /** The same as {@link UndiciTransport.close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/** The most of a discarded body read to keep its socket (undici's `dump()` reads as much); a longer one ends the request. */
const DISCARD_LIMIT_BYTES = 128 * 1024;

/**
 * One undici request, dispatched with a handler of our own rather than
 * `request()`: the body is collected into a list of chunks as it arrives, with
 * no `Readable` stream in between (about a sixth of the client's CPU per
 * request at concurrency 16), and counted against `maxResponseBytes` as it
 * comes. Once the headers are in, the handler is itself the
 * {@link TransportResponse}. Uses undici's original handler interface
 * (`onConnect`, `onHeaders`, `onData`, `onComplete`, `onError`), which every
 * dispatcher accepts, a caller's proxy agent or mock included.
 */
class BufferingHandler implements TransportResponse {
  status = 0;
  headers: Record<string, string | string[] | undefined> = {};
  readonly #signal: TransportSignal;
  readonly #limit: number | undefined;
  readonly #origin: string;
  readonly #parseHeaders: Undici['util']['parseHeaders'];
  #resolve: ((response: TransportResponse) => void) | undefined;
  #reject: ((error: unknown) => void) | undefined;
  #abort: ((reason?: Error) => void) | undefined;
  #chunks: Buffer[] = [];
  #bytes = 0;
  #discarding = false;
  #complete = false;
  #failure: TransportFailure | undefined;
  #waiter: { resolve: (text: string) => void; reject: (error: unknown) => void } | undefined;
  /** Whether `text()` or `discard()` was called: a body is read once. */
  #used = false;
  readonly #onAbort = (): void => {
    if (this.#abort !== undefined) return this.#abort(new Error('aborted'));
    // Still queued in the pool (no socket yet): the send settles now, and the request is dropped when its turn comes (onConnect).
    const reject = this.#reject;
    this.#resolve = undefined;
    this.#reject = undefined;
    reject?.(classifyFailure(new Error('aborted'), this.#signal));
  };

  constructor(
    signal: TransportSignal,
    limit: number | undefined,
    origin: string,
    parseHeaders: Undici['util']['parseHeaders'],
    resolve: (response: TransportResponse) => void,
    reject: (error: unknown) => void,
  ) {
    this.#signal = signal;
    this.#limit = limit;
    this.#origin = origin;
    this.#parseHeaders = parseHeaders;
    this.#resolve = resolve;
    this.#reject = reject;
    signal.once('abort', this.#onAbort);
  }

  onConnect(abort: (reason?: Error) => void): void {
    this.#abort = abort;
    if (this.#signal.aborted) abort(new Error('aborted'));
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[], _resume: () => void): boolean {
    // Informational answers (100 Continue) are not the response.
    if (statusCode < 200) return true;
    this.status = statusCode;
    this.headers = this.#parseHeaders(rawHeaders) as Record<string, string | string[] | undefined>;
    const resolve = this.#resolve;
    this.#resolve = undefined;
    this.#reject = undefined;
    resolve?.(this);
    // A declared length past the limit ends the request now (after the response is handed over, so the failure is the body's).
    const limit = this.#limit;
    const length = limit === undefined ? undefined : declaredLength(this.headers['content-length']);
    if (limit !== undefined && length !== undefined && length > limit) this.#fail(tooLarge(limit));
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.#failure !== undefined) return true;
    this.#bytes += chunk.length;
    if (this.#discarding) {
      // A discarded body is let through up to a small size, to keep the socket; past that the request is ended.
      if (this.#bytes > Math.min(this.#limit ?? DISCARD_LIMIT_BYTES, DISCARD_LIMIT_BYTES)) this.#endDiscarded();
      return true;
    }
    const limit = this.#limit;
    if (limit !== undefined && this.#bytes > limit) {
      this.#fail(tooLarge(limit));
      return true;
    }
    this.#chunks.push(chunk);
    return true;
  }

  onComplete(): void {
    this.#complete = true;
    this.#signal.removeListener('abort', this.#onAbort);
    const waiter = this.#waiter;
    this.#waiter = undefined;
    if (waiter === undefined) return;
    if (this.#failure !== undefined) waiter.reject(this.#failure);
    else waiter.resolve(this.#decode());
  }

  onError(error: Error): void {
    this.#signal.removeListener('abort', this.#onAbort);
    const reject = this.#reject;
    this.#resolve = undefined;
    this.#reject = undefined;
    if (reject !== undefined) {
      // No response: the failure is the send's.
      const failure = classifyFailure(error, this.#signal);
      const hint = failure.kind === 'network' ? mswHint(failure.detail, this.#origin) : undefined;
      reject(hint === undefined ? failure : new TransportFailure('network', `${failure.detail} (${hint})`, failure.mayHaveReachedServer, error));
      return;
    }
    this.#failure ??= classifyFailure(error, this.#signal);
    this.#chunks = [];
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.reject(this.#failure);
  }

  /** Stops the body: a failure of our own (too large) ends the request. */
  #fail(failure: TransportFailure): void {
    this.#failure = failure;
    this.#chunks = [];
    this.#abort?.(failure);
  }

  /** Ends a discarded body that runs long: the socket goes, the discard settles. */
  #endDiscarded(): void {
    this.#failure = new TransportFailure('aborted', 'discarded', true, undefined);
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.resolve('');
    this.#abort?.(this.#failure);
  }

  text(): Promise<string> {
    if (this.#used) return Promise.reject(new TypeError('the response body was already read'));
    this.#used = true;
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    if (this.#complete) return Promise.resolve(this.#decode());
    return new Promise<string>((resolve, reject) => {
      this.#waiter = { resolve, reject };
    });
  }

  discard(): Promise<void> {
    if (this.#used) return Promise.resolve();
    this.#used = true;
    this.#discarding = true;
    this.#chunks = [];
    if (this.#complete || this.#failure !== undefined) return Promise.resolve();
    if (this.#bytes > Math.min(this.#limit ?? DISCARD_LIMIT_BYTES, DISCARD_LIMIT_BYTES)) {
      this.#endDiscarded();
      return Promise.resolve();
    }
    // Nothing to keep from a body we are discarding: it settles when the body ends, whichever way.
    return new Promise<void>((resolve) => {
      this.#waiter = { resolve: () => resolve(), reject: () => resolve() };
    });
  }

  /** The body as UTF-8 text, without a byte-order mark (as undici's `text()` reads it). */
  #decode(): string {
    const chunks = this.#chunks;
    this.#chunks = [];
    const bytes = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, this.#bytes);
    const start = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
    return bytes.toString('utf8', start);
  }
}
