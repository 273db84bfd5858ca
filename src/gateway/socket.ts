/**
 * One Gateway socket: how it is opened, and the rule that nothing thrown in
 * its handlers escapes (an exception there would crash the process). Loaded
 * with the connection (it imports `ws`).
 *
 * @module
 */

import WebSocket from 'ws';
import { GatewayError } from '../errors/index.js';
import { wait } from '../core/wait.js';
import { compressedUrl, type GatewayCompression } from './compression.js';
import { createInflater, type MessageInflater } from './inflate.js';

/** Resolves once `ws` has closed, terminating it when its closing handshake takes longer than `timeoutMs`. */
export async function closedWithin(ws: WebSocket, timeoutMs: number): Promise<void> {
  if (ws.readyState === WebSocket.CLOSED) return;
  await wait(new Promise<void>((resolve) => ws.once('close', () => resolve())), { timeoutMs });
  if ((ws.readyState as number) !== WebSocket.CLOSED) ws.terminate();
}

/** The largest frame accepted, and the largest message a compressed stream may inflate to (16 MiB). */
const MAX_PAYLOAD_BYTES = 16 * 1024 * 1024;

/** What a socket reports; each handler runs only while `current()` says the socket is still in use, and nothing it throws escapes (it goes to `report`). */
interface SocketHandlers {
  /** Whether the socket is still the connection's current one. */
  current(): boolean;
  /** Reports what a handler threw. */
  report(error: Error): void;
  /** A socket error (a close follows). */
  error(error: Error): void;
  /** The handshake completed. */
  open(ws: WebSocket): void;
  /** A frame arrived. */
  message(ws: WebSocket, data: WebSocket.RawData, isBinary: boolean): void;
  /** The socket closed. */
  close(code: number, reason: string): void;
}

/**
 * Opens a socket (never with permessage-deflate); throws on an invalid URL.
 * With a transport `compression` (asked for with `compress=` on the URL),
 * the socket has its own decompression context: binary frames go through it
 * and whole messages reach `on.message`; a corrupt stream or a message past
 * the size limit is reported (a `GatewayError`) and the socket terminated, so
 * the connection reconnects with a new context. Text frames pass as they are.
 */
export function openSocket(
  url: string,
  options: { readonly openTimeoutMs: number; readonly compression: GatewayCompression },
  headers: Record<string, string>,
  on: SocketHandlers,
): WebSocket {
  const { openTimeoutMs, compression } = options;
  const ws = new WebSocket(compressedUrl(url, compression), {
    handshakeTimeout: openTimeoutMs,
    perMessageDeflate: false,
    maxPayload: MAX_PAYLOAD_BYTES,
    headers,
  });
  // An 'error' listener stays on every socket for its whole life: ws is a Node EventEmitter, and an
  // unhandled 'error' would crash the process.
  ws.on('error', (error: Error) => {
    if (on.current()) guarded(() => on.error(error), on.report);
  });
  ws.on('open', () => {
    if (on.current()) guarded(() => on.open(ws), on.report);
  });
  const inflater = compression === 'none' ? undefined : inflaterOf(ws, compression, on);
  ws.on('message', (data: WebSocket.RawData, isBinary: boolean) => {
    if (!on.current()) return;
    // Inline rather than through guarded(): no closure per frame on the hot path.
    try {
      if (isBinary && inflater !== undefined) inflater.push(Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data));
      else on.message(ws, data, isBinary);
    } catch (error) {
      report(error, on.report);
    }
  });
  ws.on('close', (code: number, reason: Buffer) => {
    const closed = () => {
      inflater?.destroy();
      if (on.current()) guarded(() => on.close(code, reason.toString()), on.report);
    };
    // The messages that came before the close are read before it (a Reconnect or an Invalid Session followed by a close).
    if (inflater === undefined) closed();
    else inflater.drain(closed);
  });
  return ws;
}

/** The socket's decompression context: whole messages to `on.message` while the socket is current; a failure reported and the socket terminated. */
function inflaterOf(ws: WebSocket, compression: Exclude<GatewayCompression, 'none'>, on: SocketHandlers): MessageInflater {
  return createInflater(
    compression,
    MAX_PAYLOAD_BYTES,
    (message) => {
      if (on.current()) guarded(() => on.message(ws, message, false), on.report);
    },
    (error) => {
      if (on.current()) report(error, on.report);
      ws.terminate();
    },
  );
}

/** Runs a socket handler; nothing may escape it. */
function guarded(run: () => void, to: (error: Error) => void): void {
  try {
    run();
  } catch (error) {
    report(error, to);
  }
}

/** Hands what a handler threw to `to`; if that throws too, there is nothing more to report it to. */
function report(error: unknown, to: (error: Error) => void): void {
  try {
    to(error instanceof Error ? error : new GatewayError(`the Gateway connection failed on ${String(error)}`));
  } catch {
    // Nothing more to report it to.
  }
}
