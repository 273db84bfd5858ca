/**
 * Reads a `node:http` request body into bytes, up to a limit.
 *
 * @module
 */

import type { IncomingMessage } from 'node:http';
import type { BodySlot } from './pending-bodies.js';

/** The body's bytes, or the status to answer instead (413 past the limit, 408 past the time limit, 400 if the request broke off). */
type ReadBodyResult = { ok: true; body: Buffer } | { ok: false; status: 400 | 408 | 413 };

/**
 * Reads the whole body of `request`, refusing (413) one whose `Content-Length`
 * or streamed size exceeds `maxBytes`, and (408) one not all there within
 * `timeoutMs` (or evicted from its `slot` for a newer request); past the size limit the rest is drained, not buffered.
 */
export function readNodeBody(request: IncomingMessage, maxBytes: number, timeoutMs: number, slot?: BodySlot): Promise<ReadBodyResult> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    request.resume();
    return Promise.resolve({ ok: false, status: 413 });
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    // A body that trickles in (slowloris) holds a socket and a buffer: it gets this long, all of it, then 408.
    const timer = setTimeout(() => finish({ ok: false, status: 408 }), timeoutMs);
    // Evicted for a newer request while it trickles: the same answer as a timeout.
    slot?.onEvict(() => finish({ ok: false, status: 408 }));
    const finish = (result: ReadBodyResult) => {
      clearTimeout(timer);
      // The 'error' listener stays: an error on a request nobody listens to would crash the process.
      request.off('data', onData);
      request.off('end', onEnd);
      resolve(result);
    };
    const onData = (chunk: Buffer | string) => {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
      size += bytes.length;
      slot?.received(bytes.length);
      if (size > maxBytes) {
        finish({ ok: false, status: 413 });
        chunks.length = 0;
        request.resume();
        return;
      }
      chunks.push(bytes);
    };
    const onEnd = () => finish({ ok: true, body: Buffer.concat(chunks, size) });
    const onError = () => finish({ ok: false, status: 400 });
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onError);
    request.on('aborted', onError);
  });
}
