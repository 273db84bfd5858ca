/**
 * The `node:http` adapter: `http.createServer(receiver.node)`. Reads the raw
 * body (up to the limit), answers, and only then starts the handlers.
 *
 * @module
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import { readNodeBody } from './body.js';
import { BUSY, NOT_POST, TOO_LARGE, TOO_SLOW, outcomeJson, type ReceiveOutcome, type ReceiverCore } from './outcome.js';

/** A `node:http` request listener. */
export type NodeRequestHandler = (request: IncomingMessage, response: ServerResponse) => void;

/** Writes a JSON answer, unless one was already written. */
export function sendNode(response: ServerResponse, answer: Pick<ReceiveOutcome, 'status' | 'body'>, headers: Record<string, string> = {}): void {
  if (response.headersSent || response.writableEnded) return;
  const json = outcomeJson(answer);
  response.writeHead(answer.status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(json)), ...headers });
  response.end(json);
}

/**
 * Handles one request: the body is `rawBody` when a framework already
 * buffered it, else read from the request. Answers first, then starts the
 * handlers on the next turn of the event loop. Never rejects.
 */
export async function handleNodeRequest(core: ReceiverCore, request: IncomingMessage, response: ServerResponse, rawBody?: Uint8Array): Promise<void> {
  try {
    if (request.method !== 'POST') {
      request.resume();
      sendNode(response, NOT_POST, { allow: 'POST' });
      return;
    }
    let body = rawBody;
    if (body === undefined) {
      const slot = core.bodyStarted(request.socket.remoteAddress);
      if (slot === undefined) {
        // Too many bodies still arriving, none slow enough to evict: refuse this one at once and let its socket go.
        sendNode(response, BUSY, { connection: 'close', 'retry-after': '1' });
        dropAfterAnswer(request, response);
        return;
      }
      let read: Awaited<ReturnType<typeof readNodeBody>>;
      try {
        read = await readNodeBody(request, core.maxBodyBytes, core.bodyTimeoutMs, slot);
      } finally {
        slot.done();
      }
      if (!read.ok) {
        sendNode(response, read.status === 413 ? TOO_LARGE : read.status === 408 ? TOO_SLOW : { status: 400, body: { ok: false, reason: 'body-incomplete' } }, {
          connection: 'close',
        });
        if (read.status === 408) dropAfterAnswer(request, response);
        return;
      }
      body = read.body;
    } else if (body.byteLength > core.maxBodyBytes) {
      sendNode(response, TOO_LARGE);
      return;
    }
    const outcome = await core.receive(body, request.headers);
    sendNode(response, outcome);
    setImmediate(() => void outcome.dispatch());
  } catch (error) {
    core.fail(error);
    sendNode(response, { status: 500, body: { ok: false, reason: 'internal-error' } });
  }
}

/** Closes the connection once the answer is written: a sender still trickling bytes keeps no socket. */
function dropAfterAnswer(request: IncomingMessage, response: ServerResponse): void {
  const drop = () => request.socket.destroy();
  if (response.writableFinished) drop();
  else response.once('finish', drop);
}

/** The `node:http` request listener of a receiver. */
export function createNodeHandler(core: ReceiverCore): NodeRequestHandler {
  return (request, response) => {
    void handleNodeRequest(core, request, response);
  };
}
