/**
 * The Express-compatible middleware: `app.post('/webhooks', receiver.express)`.
 * It reads the raw body itself, or takes the Buffer `express.raw()` already
 * read; a body that `express.json()` already parsed cannot be verified (the
 * signature covers the bytes), so it is refused with an error saying so.
 *
 * @module
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import { ValidationError } from '../errors/index.js';
import { handleNodeRequest, sendNode } from './node.js';
import type { ReceiverCore } from './outcome.js';

/** An Express (or Connect-style) middleware; typed structurally, so Express is not a dependency. */
export type ExpressMiddleware = (request: IncomingMessage & { body?: unknown }, response: ServerResponse, next?: (error?: unknown) => void) => void;

const PARSED = new ValidationError('webhook receiver (Express middleware)', [
  {
    path: 'req.body',
    message:
      'was already parsed (by express.json() or another body parser), so the signature, which covers the raw bytes, cannot be checked. Mount the receiver before any JSON parser, or use express.raw({ type: "application/json" }) on its route',
  },
]);

/** The middleware of a receiver. */
export function createExpressMiddleware(core: ReceiverCore): ExpressMiddleware {
  return (request, response, next) => {
    const body = request.body;
    const consumed = request.readableEnded;
    if (body instanceof Uint8Array) {
      void handleNodeRequest(core, request, response, body);
    } else if (typeof body === 'string') {
      void handleNodeRequest(core, request, response, Buffer.from(body, 'utf8'));
    } else if (!consumed) {
      // Nothing read the stream yet (an empty `{}` from an old body-parser that skipped this content type does not count).
      void handleNodeRequest(core, request, response);
    } else {
      const error = new ValidationError(PARSED.operation, PARSED.issues);
      core.fail(error);
      if (next) next(error);
      else sendNode(response, { status: 500, body: { ok: false, reason: 'body-already-parsed' } });
    }
  };
}
