/**
 * The test Gateway server's side of transport compression: what a client
 * asked for (`compress=` on the upgrade URL, as Discord reads it) and one
 * compression context per connection, flushed at the end of each message
 * (`zlib-stream`: each message ends in `00 00 ff ff`; `zstd-stream`: one
 * flushed zstd block per message), each message one binary frame.
 *
 * @module
 */

import type { IncomingMessage } from 'node:http';
import type { Transform } from 'node:stream';
import zlib from 'node:zlib';
import { WebSocket } from 'ws';
import { zstdAvailable } from '../gateway/compression.js';

type Method = 'zlib-stream' | 'zstd-stream';

/** The compression a client asked for on its upgrade request; `undefined` for none, an unknown value, or zstd where `node:zlib` lacks it (plain text frames then). */
export function requestedCompression(request: IncomingMessage): Method | undefined {
  const query = (request.url ?? '').split('?')[1];
  const asked = query === undefined ? null : new URLSearchParams(query).get('compress');
  if (asked === 'zlib-stream') return asked;
  if (asked === 'zstd-stream' && zstdAvailable()) return asked;
  return undefined;
}

function createStream(method: Method): Transform {
  if (method === 'zlib-stream') return zlib.createDeflate({ flush: zlib.constants.Z_SYNC_FLUSH });
  const { createZstdCompress, constants } = zlib as unknown as { createZstdCompress: (options: object) => Transform; constants: Record<string, number> };
  return createZstdCompress({ flush: constants['ZSTD_e_flush'] });
}

/**
 * Writes one connection's messages: as text frames, or compressed through
 * the connection's context. Messages and a close leave in the order they
 * were asked for (a close waits for the messages before it).
 */
export class GatewayFrameWriter {
  readonly #socket: WebSocket;
  readonly #stream: Transform | undefined;
  #chunks: Buffer[] = [];
  #pending = 0;
  #closing: (() => void) | undefined;

  constructor(socket: WebSocket, method: Method | undefined) {
    this.#socket = socket;
    if (method === undefined) return;
    const stream = createStream(method);
    stream.on('data', (chunk: Buffer) => this.#chunks.push(chunk));
    // A server-side compression failure drops the connection, like a network failure.
    stream.on('error', () => socket.terminate());
    this.#stream = stream;
  }

  /** Sends one message. */
  send(text: string): void {
    if (this.#socket.readyState !== WebSocket.OPEN || this.#closing !== undefined) return;
    if (this.#stream === undefined) {
      this.#socket.send(text);
      return;
    }
    this.#pending++;
    this.#stream.write(text, () => {
      this.#pending--;
      const message = Buffer.concat(this.#chunks);
      this.#chunks = [];
      if (this.#socket.readyState === WebSocket.OPEN) this.#socket.send(message, { binary: true });
      if (this.#pending === 0) this.#closing?.();
    });
  }

  /** Closes with `code` once the messages sent before have left. */
  close(code: number, reason: string): void {
    const close = () => {
      if (this.#socket.readyState === WebSocket.OPEN) this.#socket.close(code, reason);
    };
    if (this.#pending === 0) close();
    else this.#closing ??= close;
  }

  /** Frees the context (the connection closed). */
  destroy(): void {
    this.#stream?.destroy();
  }
}
