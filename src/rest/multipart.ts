/**
 * Streamed `multipart/form-data` bodies: the framing is written by hand, so a
 * file of any size goes out chunk by chunk (a `Blob` from `fs.openAsBlob`, a
 * web `ReadableStream` or a Node `Readable`), never read into memory whole.
 *
 * @module
 */

import { MultipartStreamError } from '../errors/transport.js';

/** Where a file part's bytes come from: a `Blob` (replayable), or a one-shot stream (web `ReadableStream`, Node `Readable`, any async iterable of bytes). */
export type MultipartFileSource = Blob | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array | string>;

/** A file part of a {@link MultipartBody}. */
export interface MultipartFilePart {
  /** Form field name. */
  name: string;
  /** File name shown to users. */
  filename: string;
  /** Media type of the file. */
  contentType: string;
  /** The bytes. */
  source: MultipartFileSource;
  /** Byte length of a stream source, when known (a `Blob` knows its own). @default undefined (unknown: chunked transfer) */
  size?: number | undefined;
}

/** A text field of a {@link MultipartBody}. */
export interface MultipartTextPart {
  /** Form field name. */
  name: string;
  /** Field value. */
  value: string;
}

const encoder = new TextEncoder();
const CRLF = encoder.encode('\r\n');

/** Escapes a name or file name for a `Content-Disposition` parameter, as browsers do. */
function escapeName(value: string): string {
  return value.replace(/\r/g, '%0D').replace(/\n/g, '%0A').replace(/"/g, '%22');
}

function randomBoundary(): string {
  const bytes = new Uint8Array(12);
  globalThis.crypto.getRandomValues(bytes);
  return `----community-chat-sdk-${Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}

function isReadableStream(source: MultipartFileSource): source is ReadableStream<Uint8Array> {
  return typeof (source as ReadableStream<Uint8Array>).getReader === 'function';
}

function isFilePart(part: MultipartTextPart | MultipartFilePart): part is MultipartFilePart {
  return 'source' in part;
}

/** One part, encoded: its header bytes, then its value (bytes, or a file to stream). */
interface EncodedPart {
  readonly head: Uint8Array;
  readonly value: Uint8Array | MultipartFilePart;
}

/**
 * `FormData`, read only when the first body is built: reading the global `FormData` makes Node load its whole fetch
 * implementation (20 to 45 ms measured on Node 20), which importing the SDK must not pay. A constructor that builds a
 * real `FormData` (`Reflect.construct`, so the instance has its internal state and the subclass's prototype), whose
 * prototype chain is joined to `FormData`'s on first use: a `MultipartBody` is a `FormData` in every respect.
 */
let BaseFormData: typeof FormData | undefined;
const LazyFormData = function LazyFormData(this: unknown): FormData {
  // The `FormData` global when the first body is built, kept: a later polyfill or `undici.install()` re-links nothing.
  if (BaseFormData === undefined) {
    BaseFormData = FormData;
    Object.setPrototypeOf(LazyFormData.prototype, BaseFormData.prototype);
    Object.setPrototypeOf(LazyFormData, BaseFormData);
  }
  return Reflect.construct(BaseFormData, [], new.target ?? LazyFormData) as FormData;
} as unknown as typeof FormData;

/**
 * A `multipart/form-data` body whose files are streamed. It is a `FormData`
 * (so it travels where one does: `RequestInput.formData`,
 * `TransportRequest.body`) holding the text fields and `Blob` files; a stream
 * file is only reachable through {@link MultipartBody.chunks}, which custom
 * transports should use (`MultipartBody.from(body)` gives one for any `FormData`).
 *
 * A body of strings and `Blob`s can be sent any number of times (retries
 * included). A stream can be read once: {@link MultipartBody.consumed} turns
 * true as soon as an attempt starts reading the body, and `chunks()` then
 * throws instead of sending a truncated or empty body.
 */
export class MultipartBody extends LazyFormData {
  /** The boundary between parts. */
  readonly boundary: string;
  /** The `Content-Type` header value, with the boundary. */
  readonly contentType: string;
  /** Total length in bytes (the `Content-Length`), or `undefined` when a stream's size is unknown (chunked transfer). */
  readonly length: number | undefined;
  /** Whether the body can be sent again (it holds no one-shot stream). */
  readonly replayable: boolean;
  readonly #parts: EncodedPart[];
  readonly #tail: Uint8Array;
  #consumed = false;

  constructor(parts: readonly (MultipartTextPart | MultipartFilePart)[]) {
    super();
    this.boundary = randomBoundary();
    this.contentType = `multipart/form-data; boundary=${this.boundary}`;
    this.#tail = encoder.encode(`--${this.boundary}--\r\n`);
    this.#parts = [];
    let length: number | undefined = this.#tail.byteLength;
    let replayable = true;
    for (const part of parts) {
      let head = `--${this.boundary}\r\nContent-Disposition: form-data; name="${escapeName(part.name)}"`;
      if (isFilePart(part)) {
        head += `; filename="${escapeName(part.filename)}"\r\nContent-Type: ${part.contentType.replace(/[\r\n]/g, '')}`;
        const blob = part.source instanceof Blob ? part.source : undefined;
        if (blob) super.append(part.name, blob, part.filename);
        else replayable = false;
        const size = blob ? blob.size : part.size;
        this.#parts.push({ head: encoder.encode(`${head}\r\n\r\n`), value: part });
        length = length === undefined || size === undefined ? undefined : length + size;
      } else {
        super.append(part.name, part.value);
        const value = encoder.encode(part.value);
        this.#parts.push({ head: encoder.encode(`${head}\r\n\r\n`), value });
        if (length !== undefined) length += value.byteLength;
      }
      if (length !== undefined) length += (this.#parts.at(-1)?.head.byteLength ?? 0) + CRLF.byteLength;
    }
    this.length = length;
    this.replayable = replayable;
  }

  /** Whether a one-shot stream in this body has been (even partly) read, so it cannot be sent again. Always `false` for a replayable body. */
  get consumed(): boolean {
    return this.#consumed;
  }

  /**
   * The encoded body, chunk by chunk, read from the sources only as the
   * consumer pulls. Throws a {@link MultipartStreamError} when a one-shot
   * stream was already read, or yields more or fewer bytes than its declared `size`.
   */
  async *chunks(): AsyncGenerator<Uint8Array, void, undefined> {
    if (this.#consumed) {
      throw new MultipartStreamError(
        'ERR_UPLOAD_STREAM_CONSUMED',
        'the upload is a one-shot stream that an earlier attempt already read, so it is not sent again (upload a Blob, e.g. fs.openAsBlob(path), to allow retries)',
      );
    }
    if (!this.replayable) this.#consumed = true;
    for (const { head, value } of this.#parts) {
      yield head;
      if (value instanceof Uint8Array) yield value;
      else yield* fileChunks(value);
      yield CRLF;
    }
    yield this.#tail;
  }

  /** The encoded body as a web stream (for `fetch`), pulled on demand; cancelling it stops reading the sources. */
  stream(): ReadableStream<Uint8Array> {
    const iterator = this.chunks();
    return new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = await iterator.next();
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      },
      async cancel() {
        await iterator.return(undefined);
      },
    });
  }

  /** The streamed body of any `FormData` (its strings and files); a {@link MultipartBody} is returned as is. */
  static from(form: FormData): MultipartBody {
    if (form instanceof MultipartBody) return form;
    const parts: (MultipartTextPart | MultipartFilePart)[] = [];
    for (const [name, value] of form.entries()) {
      if (typeof value === 'string') parts.push({ name, value });
      else
        parts.push({
          name,
          filename: (value as Blob & { name?: string }).name ?? 'blob',
          contentType: value.type || 'application/octet-stream',
          source: value,
        });
    }
    return new MultipartBody(parts);
  }
}

/** A file's bytes, checked against its declared size. */
async function* fileChunks(file: MultipartFilePart): AsyncGenerator<Uint8Array, void, undefined> {
  const { source, size } = file;
  let sent = 0;
  const check = (chunk: Uint8Array): Uint8Array => {
    sent += chunk.byteLength;
    if (size !== undefined && sent > size)
      throw new MultipartStreamError('ERR_UPLOAD_SIZE_MISMATCH', `the upload stream yielded more than its declared size of ${size} bytes`);
    return chunk;
  };
  if (source instanceof Blob) yield* readStream(source.stream(), check);
  else if (isReadableStream(source)) yield* readStream(source, check);
  else for await (const chunk of source) yield check(typeof chunk === 'string' ? encoder.encode(chunk) : chunk);
  if (!(source instanceof Blob) && size !== undefined && sent !== size) {
    throw new MultipartStreamError('ERR_UPLOAD_SIZE_MISMATCH', `the upload stream ended after ${sent} bytes, short of its declared size of ${size} bytes`);
  }
}

/** Reads a web stream chunk by chunk; cancels it when the consumer stops early. */
async function* readStream(stream: ReadableStream<Uint8Array>, check: (chunk: Uint8Array) => Uint8Array): AsyncGenerator<Uint8Array, void, undefined> {
  const reader = stream.getReader();
  let done = false;
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) {
        done = true;
        return;
      }
      yield check(next.value);
    }
  } finally {
    if (!done) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
