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
 * Inflates one connection's binary frames through a decompression stream
 * (the context of `zstd-stream`; `zlib-stream` goes through
 * {@link ZlibStreamInflater}, which needs no stream). A message is whole when a frame
 * ends in `00 00 ff ff` (zlib-stream; a message split over several frames is
 * gathered until then) or at each frame (zstd-stream, flushed per message).
 * A message that inflates past `maxBytes`, or a corrupt stream, fails it:
 * `fail` is told once, the context is freed, and nothing more comes out.
 */
export class FrameInflater implements MessageInflater {
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

/** How far back a deflate stream refers: its whole window (2^15 bytes). */
const WINDOW_BYTES = 32_768;

/** What the socket needs from a connection's decompression context. */
export interface MessageInflater {
  /** Takes a binary frame. */
  push(data: Buffer): void;
  /** Runs `then` once every whole message taken so far was delivered. */
  drain(then: () => void): void;
  /** Frees the context; nothing more is delivered. */
  destroy(): void;
}

/**
 * A connection's `zlib-stream`, inflated synchronously: each message (its
 * frames gathered until one ends in `00 00 ff ff`, at most `maxBytes` of them)
 * is inflated at once as raw deflate blocks with the last 32 KiB of output as
 * the dictionary, which is all of the context a deflate block can refer to
 * (a sync flush ends each message on a block boundary). No thread pool round
 * trip per message, and `maxOutputLength` bounds what a message inflates to.
 */
export class ZlibStreamInflater implements MessageInflater {
  readonly #maxBytes: number;
  readonly #deliver: (message: Buffer) => void;
  readonly #fail: (error: GatewayError) => void;
  /** The last output, up to a window, at the end of `#history` (room for a few windows, so a message costs a copy of itself, and a window's copy only once in a while). */
  readonly #history = Buffer.allocUnsafe(4 * WINDOW_BYTES);
  #end = 0;
  /** Whether the first message (the one starting with the zlib header) was read. */
  #started = false;
  #frames: Buffer[] = [];
  #size = 0;
  #done = false;

  constructor(maxBytes: number, deliver: (message: Buffer) => void, fail: (error: GatewayError) => void) {
    this.#maxBytes = maxBytes;
    this.#deliver = deliver;
    this.#fail = fail;
  }

  push(data: Buffer): void {
    if (this.#done) return;
    this.#size += data.length;
    if (this.#size > this.#maxBytes) return this.#failWith(`the zlib-stream frames of one message passed ${this.#maxBytes} bytes`);
    if (data.length < 4 || data.readUInt32BE(data.length - 4) !== ZLIB_SUFFIX) {
      this.#frames.push(data);
      return;
    }
    const message = this.#frames.length === 0 ? data : Buffer.concat([...this.#frames, data]);
    this.#frames = [];
    this.#size = 0;
    const input = this.#started ? message : this.#afterHeader(message);
    if (input === undefined) return this.#failWith('the zlib-stream does not start with a zlib header');
    let output: Buffer;
    try {
      output = zlib.inflateRawSync(input, {
        finishFlush: zlib.constants.Z_SYNC_FLUSH,
        maxOutputLength: this.#maxBytes,
        ...(this.#end > 0 ? { dictionary: this.#history.subarray(Math.max(0, this.#end - WINDOW_BYTES), this.#end) } : {}),
      });
    } catch (error) {
      const tooLarge = (error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE';
      return this.#failWith(
        tooLarge
          ? `a zlib-stream message inflated past ${this.#maxBytes} bytes`
          : `the zlib-stream could not be decompressed (${error instanceof Error ? error.message : String(error)})`,
      );
    }
    this.#started = true;
    this.#remember(output);
    if (output.length > 0) this.#deliver(output);
  }

  drain(then: () => void): void {
    then();
  }

  destroy(): void {
    this.#done = true;
    this.#frames = [];
  }

  /** Keeps `output` as the end of the history (the dictionary of the next message is its last window). */
  #remember(output: Buffer): void {
    if (output.length >= WINDOW_BYTES) {
      output.copy(this.#history, 0, output.length - WINDOW_BYTES);
      this.#end = WINDOW_BYTES;
      return;
    }
    if (this.#end + output.length > this.#history.length) {
      // Full: the last window moves to the front (end is past a window here, since the history holds four).
      this.#history.copyWithin(0, this.#end - WINDOW_BYTES, this.#end);
      this.#end = WINDOW_BYTES;
    }
    output.copy(this.#history, this.#end);
    this.#end += output.length;
  }

  /** The first message without its 2-byte zlib header (deflate, no preset dictionary), or `undefined` if it has none. */
  #afterHeader(message: Buffer): Buffer | undefined {
    const cmf = message[0] ?? 0;
    const flg = message[1] ?? 0;
    const valid = message.length >= 2 && (cmf & 0x0f) === 8 && cmf >> 4 <= 7 && ((cmf << 8) | flg) % 31 === 0 && (flg & 0x20) === 0;
    return valid ? message.subarray(2) : undefined;
  }

  #failWith(message: string): void {
    if (this.#done) return;
    this.destroy();
    this.#fail(new GatewayError(`${message}; closing the connection to reconnect`));
  }
}

/** A connection's decompression context: `zlib-stream` inflated synchronously, `zstd-stream` through a zstd stream. */
export function createInflater(
  compression: Exclude<GatewayCompression, 'none'>,
  maxBytes: number,
  deliver: (message: Buffer) => void,
  fail: (error: GatewayError) => void,
): MessageInflater {
  return compression === 'zlib-stream' ? new ZlibStreamInflater(maxBytes, deliver, fail) : new FrameInflater(compression, maxBytes, deliver, fail);
}
