/**
 * What a transport is: the request and response shapes, the attempt's abort
 * signal, and the typed failure with its classification. The transports
 * themselves are the only code that touches the network for REST calls:
 *
 * - `UndiciTransport` (`undici-transport.ts`): the default on Node, on
 *   undici's `dispatch()` with keep-alive pools, a fraction of the CPU of `fetch`.
 * - `FetchTransport` (`fetch-transport.ts`): calls `globalThis.fetch` at
 *   request time, so it works on any runtime with fetch and MSW intercepts it.
 *
 * @module
 */

import type { HttpMethod } from '../core/routes.js';
import { TransportFailure } from '../errors/transport.js';
import { MultipartStreamError } from '../errors/transport.js';

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
   * `MultipartBody` (main entry) whose files are streams: send
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

/** The failure of a body longer than the request's `maxResponseBytes`. */
export function tooLarge(limit: number): TransportFailure {
  return new TransportFailure('tooLarge', `the response body exceeds ${limit} bytes`, true, undefined);
}

/** The declared length of a response, when it has a valid `content-length`. */
export function declaredLength(value: string | string[] | null | undefined): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text === null || !/^\d+$/.test(text)) return undefined;
  return Number(text);
}

/** Error codes meaning the request never left this machine or was never accepted. */
const NEVER_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_NONAME',
  'UND_ERR_CONNECT_TIMEOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
]);

/** Classifies an error thrown while sending. */
export function classifyFailure(error: unknown, signal: TransportSignal): TransportFailure {
  if (signal.aborted) return new TransportFailure('aborted', 'aborted', true, error);
  const code = findCode(error);
  const upload = MultipartStreamError.find(error);
  const detail = upload ? `${upload.code}: ${upload.message}` : (code ?? (error instanceof Error ? error.name : 'unknown error'));
  return new TransportFailure('network', detail, code === undefined || !NEVER_SENT_CODES.has(code), error);
}

/** The failure of a resend whose one-shot upload stream an earlier attempt already read: never sent, never retried (it may have reached the server before). */
export function notReplayable(): TransportFailure {
  const error = new MultipartStreamError(
    'ERR_UPLOAD_STREAM_CONSUMED',
    'the upload stream was already read by an earlier attempt, so it is not sent again (upload a Blob, e.g. fs.openAsBlob(path), to allow retries)',
  );
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
