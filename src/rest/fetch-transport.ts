/**
 * A transport on `globalThis.fetch`, for runtimes without undici and for MSW.
 *
 * @module
 */

import { MultipartBody } from './multipart.js';
import { classifyFailure, declaredLength, notReplayable, tooLarge, type Transport, type TransportRequest, type TransportResponse } from './transport.js';
import { isTransportFailure } from '../errors/transport.js';

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
      throw isTransportFailure(error) ? error : classifyFailure(error, signal);
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
          if (isTransportFailure(error)) throw error;
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

  /** The same as {@link FetchTransport.close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/**
 * Reads a body of unknown length as UTF-8 text, counting bytes as they arrive
 * and stopping as soon as they exceed `limit` (leaving the `for await` cancels
 * the stream).
 */
async function readLimited(body: AsyncIterable<Uint8Array>, limit: number): Promise<string> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += chunk.byteLength;
    if (total > limit) throw tooLarge(limit);
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
