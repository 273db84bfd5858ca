/**
 * One connection's decompression context (`zlib-stream` or `zstd-stream`):
 * binary frames go in, whole Gateway messages come out, in order, each
 * bounded. Loaded with the connection (it imports `node:zlib`).
 *
 * @module
 */

import zlib from 'node:zlib';
import type { Transform } from 'node:stream';
import { GatewayError } from '../errors/index.js';
import type { GatewayCompression } from './compression.js';

/** What ends each message of a `zlib-stream`: the empty stored block of a sync flush. */
const ZLIB_SUFFIX = 0x0000ffff;

/** The decompression stream of a method (one per connection: the context spans every message). */
function createStream(compression: Exclude<GatewayCompression, 'none'>): Transform {
  if (compression === 'zlib-stream') return zlib.createInflate({ flush: zlib.constants.Z_SYNC_FLUSH });
  // resolveCompression() refused zstd-stream where node:zlib lacks it.
  const create = (zlib as unknown as { createZstdDecompress: () => Transform }).createZstdDecompress;
  return create();
}

/**
 * Inflates one connection's binary frames. A message is whole when a frame
 * ends in `00 00 ff ff` (zlib-stream; a message split over several frames is
 * gathered until then) or at each frame (zstd-stream, flushed per message).
 * A message that inflates past `maxBytes`, or a corrupt stream, fails it:
 * `fail` is told once, the context is freed, and nothing more comes out.
 */
export class FrameInflater {
  readonly #stream: Transform;
  readonly #compression: Exclude<GatewayCompression, 'none'>;
  readonly #maxBytes: number;
  readonly #deliver: (message: Buffer) => void;
  readonly #fail: (error: GatewayError) => void;
  #chunks: Buffer[] = [];
  #size = 0;
  #done = false;
  /** Whole messages written and not yet delivered. */
  #inflating = 0;
  #drained: (() => void) | undefined;

  constructor(compression: Exclude<GatewayCompression, 'none'>, maxBytes: number, deliver: (message: Buffer) => void, fail: (error: GatewayError) => void) {
    this.#compression = compression;
    this.#maxBytes = maxBytes;
    this.#deliver = deliver;
    this.#fail = fail;
    this.#stream = createStream(compression);
    this.#stream.on('data', (chunk: Buffer) => this.#onData(chunk));
    this.#stream.on('error', (error: Error) => this.#failWith(`the ${compression} could not be decompressed (${error.message})`));
  }

  /** Takes a binary frame. */
  push(data: Buffer): void {
    if (this.#done) return;
    // Frames arriving faster than they inflate wait in the stream: bounded too.
    if (this.#stream.writableLength + data.length > this.#maxBytes) {
      this.#failWith(`the ${this.#compression} frames waiting to be decompressed passed ${this.#maxBytes} bytes`);
      return;
    }
    const whole = this.#compression === 'zstd-stream' || (data.length >= 4 && data.readUInt32BE(data.length - 4) === ZLIB_SUFFIX);
    if (!whole) {
      this.#stream.write(data);
      return;
    }
    this.#inflating++;
    this.#stream.write(data, () => {
      this.#inflating--;
      this.#complete();
      if (this.#inflating === 0) this.#settle();
    });
  }

  /** Runs `then` once every whole message taken so far was delivered: at once when none is on its way, or the context failed. */
  drain(then: () => void): void {
    if (this.#done || this.#inflating === 0) then();
    else this.#drained = then;
  }

  /** Frees the context (the connection closed); nothing more is delivered. */
  destroy(): void {
    this.#done = true;
    this.#chunks = [];
    this.#stream.destroy();
  }

  #onData(chunk: Buffer): void {
    if (this.#done) return;
    this.#size += chunk.length;
    if (this.#size > this.#maxBytes) {
      this.#failWith(`a ${this.#compression} message inflated past ${this.#maxBytes} bytes`);
      return;
    }
    this.#chunks.push(chunk);
  }

  #complete(): void {
    if (this.#done) return;
    const chunks = this.#chunks;
    const size = this.#size;
    this.#chunks = [];
    this.#size = 0;
    if (size > 0) this.#deliver(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
  }

  #failWith(message: string): void {
    if (this.#done) return;
    this.destroy();
    this.#fail(new GatewayError(`${message}; closing the connection to reconnect`));
    this.#settle();
  }

  #settle(): void {
    const drained = this.#drained;
    this.#drained = undefined;
    drained?.();
  }
}
