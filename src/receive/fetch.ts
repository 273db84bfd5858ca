/**
 * The fetch-standard adapter, for edge and serverless platforms:
 * `(request: Request) => Promise<Response>`. It answers as soon as the
 * delivery is verified; the handlers go on afterwards, kept alive by the
 * platform's `waitUntil` when one is given.
 *
 * @module
 */

import { BUSY, NOT_POST, TOO_LARGE, TOO_SLOW, outcomeJson, type ReceiveOutcome, type ReceiverCore } from './outcome.js';
import type { BodySlot } from './pending-bodies.js';
import { wait } from '../core/wait.js';

/** What a platform offers a fetch handler to keep work alive after the response (Cloudflare's `ctx`, Vercel's `waitUntil`). */
export interface FetchHandlerContext {
  /** Keeps the function alive until `promise` settles. @default none: handlers run on as long as the platform lets them */
  waitUntil?: ((promise: Promise<unknown>) => void) | undefined;
}

/** A fetch-standard handler. */
export type FetchHandler = (request: Request, context?: FetchHandlerContext) => Promise<Response>;

function respond(answer: Pick<ReceiveOutcome, 'status' | 'body'>, headers: Record<string, string> = {}): Response {
  return new Response(outcomeJson(answer), { status: answer.status, headers: { 'content-type': 'application/json', ...headers } });
}

/**
 * The body's bytes, or the answer to send instead: 413 when it is larger than `maxBytes`, 408 when it is not all there
 * within `timeoutMs` or is evicted from its `slot` for a newer request (the rest is not read).
 */
async function readFetchBody(request: Request, maxBytes: number, timeoutMs: number, slot: BodySlot): Promise<Uint8Array | typeof TOO_LARGE | typeof TOO_SLOW> {
  const declared = Number(request.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) return TOO_LARGE;
  if (request.body === null) return new Uint8Array(0);
  const reader = request.body.getReader();
  let timedOut = false;
  const stop = () => {
    timedOut = true;
    void reader.cancel().catch(() => undefined);
  };
  const timer = setTimeout(stop, timeoutMs);
  slot.onEvict(stop);
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (timedOut) return TOO_SLOW;
      if (done) break;
      size += value.byteLength;
      slot.received(value.byteLength);
      if (size > maxBytes) {
        await reader.cancel().catch(() => undefined);
        return TOO_LARGE;
      }
      chunks.push(value);
    }
  } catch (error) {
    if (timedOut) return TOO_SLOW;
    throw error;
  } finally {
    clearTimeout(timer);
  }
  return Buffer.concat(chunks, size);
}

/** The fetch handler of a receiver. */
export function createFetchHandler(core: ReceiverCore): FetchHandler {
  return async (request, context) => {
    try {
      if (request.method !== 'POST') return respond(NOT_POST, { allow: 'POST' });
      const slot = core.bodyStarted();
      if (slot === undefined) return respond(BUSY, { 'retry-after': '1' });
      let body: Awaited<ReturnType<typeof readFetchBody>>;
      try {
        body = await readFetchBody(request, core.maxBodyBytes, core.bodyTimeoutMs, slot);
      } finally {
        slot.done();
      }
      if (!(body instanceof Uint8Array)) return respond(body);
      const outcome = await core.receive(body, request.headers);
      // Started on the next turn, so the Response is returned first; never rejects.
      const running = wait(0).then(() => outcome.dispatch());
      context?.waitUntil?.(running);
      return respond(outcome);
    } catch (error) {
      core.fail(error);
      return respond({ status: 500, body: { ok: false, reason: 'internal-error' } });
    }
  };
}
