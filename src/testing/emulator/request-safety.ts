/**
 * The emulator's last line under a request: nothing a request carries (nor a
 * bug it reaches) may bring the test process down; what slipped through is
 * answered 500.
 *
 * @module
 */

import type http from 'node:http';

/** A request the emulator could not answer: a 500 when nothing was sent yet, else the connection goes. */
export function failed(response: http.ServerResponse): void {
  if (response.destroyed) return;
  if (response.headersSent) response.destroy();
  else response.writeHead(500).end();
}

/** Runs a request's handling (the server's handler, a request's `end` listener): whatever it throws becomes {@link failed}. */
export function safely(response: http.ServerResponse, handle: () => void): void {
  try {
    handle();
  } catch {
    failed(response);
  }
}
