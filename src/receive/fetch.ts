/**
 * The fetch-standard adapter, for edge and serverless platforms:
 * `(request: Request) => Promise<Response>`. It answers as soon as the
 * delivery is verified; the handlers go on afterwards, kept alive by the
 * platform's `waitUntil` when one is given.
 *
 * @module
 */

import { NOT_POST, TOO_LARGE, outcomeJson, type ReceiveOutcome, type ReceiverCore } from './outcome.js';

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

/** The body's bytes, or `undefined` when it is larger than `maxBytes` (the rest is not read). */
async function readFetchBody(request: Request, maxBytes: number): Promise<Uint8Array | undefined> {
  const declared = Number(request.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) return undefined;
  if (request.body === null) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size);
}

/** The fetch handler of a receiver. */
export function createFetchHandler(core: ReceiverCore): FetchHandler {
  return async (request, context) => {
    try {
      if (request.method !== 'POST') return respond(NOT_POST, { allow: 'POST' });
      const body = await readFetchBody(request, core.maxBodyBytes);
      if (body === undefined) return respond(TOO_LARGE);
      const outcome = await core.receive(body, request.headers);
      // Started on the next turn, so the Response is returned first; never rejects.
      const running = new Promise<void>((resolve) => setTimeout(resolve, 0)).then(() => outcome.dispatch());
      context?.waitUntil?.(running);
      return respond(outcome);
    } catch (error) {
      core.fail(error);
      return respond({ status: 500, body: { ok: false, reason: 'internal-error' } });
    }
  };
}
