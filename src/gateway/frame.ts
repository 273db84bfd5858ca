/**
 * Reading a Gateway message: what every frame must give (its opcode, a
 * dispatch's sequence and event name) read from the bytes of the frame's
 * head, and the payload `d` parsed only when something asks for it. Most
 * Gateway traffic is events a bot never handles; those cost a scan of a few
 * dozen bytes, not a `JSON.parse` of the whole frame.
 *
 * The fast path takes a dispatch (op 0) as Discord writes it: a compact
 * object whose members before `d` are `op`, `s` and `t` (each once, plain
 * integers, a string without escapes, or `null`), whose `d` is an object,
 * and that ends with `}}`. Anything else (another opcode, another member
 * before `d`, `s` or `t` after it, an escape, a number with a fraction)
 * goes through {@link readFrame} as a whole, as before. The payload of a
 * dispatch read by its head is read on first access by parsing the whole
 * frame (once, cached), so a member after `d` changes nothing; a frame that
 * is not JSON, or whose `op`, `s` or `t` repeated after `d` disagree with
 * its head, then throws a `GatewayError` at the consumer, whose socket
 * handler reports it as an `error` event (docs/assumptions.md).
 *
 * @module
 */

import { GatewayError } from '../errors/index.js';
import type { GatewayDispatchEvent } from './options.js';
import { GatewayOpcode, readFrame, type GatewayFrame } from './protocol.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN = 0x7b;
const CLOSE = 0x7d;
const ZERO = 0x30;
const NINE = 0x39;
/** The longest integer read from a head: 15 digits are always a safe integer. */
const MAX_DIGITS = 15;

const isSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/**
 * A dispatch frame read by its head; `d` is read from the frame, parsed whole, when first read. It is also its own
 * dispatch event (see {@link dispatchEventOf}): the host sets its `shardId`, so a frame costs one object, not two.
 */
class LazyFrame implements GatewayFrame {
  readonly op = GatewayOpcode.Dispatch;
  /** The shard it came on, when it is its own dispatch event (the host sets it). */
  shardId = 0;
  /** The sequence; `null` when the head has none (the connection treats both alike). */
  readonly s: number | null;
  /** The event name; `null` when the head has none. */
  readonly t: string | null;
  /** The whole frame's bytes (or its text, from a worker thread) until the payload is parsed. */
  #frame: Buffer | string | undefined;
  #d: unknown;
  #failure: string | undefined;

  constructor(frame: Buffer | string, s: number | null | undefined, t: string | null | undefined) {
    this.#frame = frame;
    this.s = s ?? null;
    this.t = t ?? null;
  }

  /**
   * The payload, parsed on first read (the frame is let go of then); throws a `GatewayError` if the frame is not JSON,
   * or if a member repeated after `d` says another event or sequence than the head the frame was dispatched under.
   * The whole frame is parsed, not the payload's bytes alone, so a member after `d` changes nothing.
   */
  get d(): unknown {
    const frame = this.#frame;
    if (frame !== undefined) {
      this.#frame = undefined;
      // toString() without arguments is UTF-8, and skips the encoding's lookup (about 10 ns of the 100 a frame's decoding takes).
      this.#failure = this.#read(typeof frame === 'string' ? frame : frame.toString());
    }
    if (this.#failure !== undefined) throw new GatewayError(this.#failure);
    return this.#d;
  }

  #read(text: string): string | undefined {
    let whole: { op?: unknown; s?: unknown; t?: unknown; d?: unknown };
    try {
      whole = JSON.parse(text) as typeof whole;
    } catch {
      return `received a frame whose payload is not JSON (${this.#named()}); ignored`;
    }
    if (whole.op !== this.op || (whole.s ?? null) !== this.s || (whole.t ?? null) !== this.t)
      return `received a frame whose members repeated after its payload disagree with its head (${this.#named()}); ignored`;
    this.#d = whole.d;
    return undefined;
  }

  /** The frame named in a failure (built only for one: every frame would pay for it). */
  #named(): string {
    return `dispatch ${this.t ?? ''}, sequence ${String(this.s ?? 'none')}`;
  }

  /** The frame's JSON text, for a worker thread to hand on unparsed; `undefined` once it was parsed. */
  get text(): string | undefined {
    const frame = this.#frame;
    return typeof frame === 'string' || frame === undefined ? frame : frame.toString('utf8');
  }
}

/**
 * The JSON text of a frame read by its head whose payload is not yet parsed, else `undefined` (then read `d`); of a
 * dispatch event, its frame's.
 */
export function unparsedPayload(frame: GatewayFrame | GatewayDispatchEvent): string | undefined {
  return frame instanceof LazyFrame || frame instanceof DispatchEvent ? frame.text : undefined;
}

/** A dispatch event whose `d` is read from the frame's `text` when first read (a frame a worker thread handed on unparsed). */
export function eventOfText(s: number | null, t: string, text: string): GatewayDispatchEvent {
  return dispatchEventOf(new LazyFrame(text, s, t), t, s);
}

/**
 * The dispatch event of `frame` under event name `t` and sequence `s` (what the connection read and checked): the frame
 * itself when it was read by its head and says the same (the usual case: no second object per frame), else a
 * {@link DispatchEvent} over it.
 */
export function dispatchEventOf(frame: GatewayFrame, t: string, s: number | null): GatewayDispatchEvent {
  if (frame instanceof LazyFrame && frame.t === t && frame.s === s) return frame as LazyFrame & { t: string };
  return new DispatchEvent(t, s, frame);
}

/**
 * A dispatch as the connection hands it to its host when its frame cannot be its own event (see {@link dispatchEventOf}):
 * `t` and `s` as the connection read them, `d` read from the frame only when a consumer reads it (a `dispatch` listener,
 * the router, a publisher, READY). The host sets `shardId`.
 */
class DispatchEvent implements GatewayDispatchEvent {
  shardId = 0;
  t: string;
  s: number | null;
  readonly #frame: GatewayFrame;

  constructor(t: string, s: number | null, frame: GatewayFrame) {
    this.t = t;
    this.s = s;
    this.#frame = frame;
  }

  /** The payload, parsed when first read; throws a `GatewayError` if it is not JSON. */
  get d(): unknown {
    return this.#frame.d;
  }

  /** The frame's JSON text while its payload is not parsed (see {@link unparsedPayload}). */
  get text(): string | undefined {
    return unparsedPayload(this.#frame);
  }
}

/** Index of the first byte from `i` that is not white space. */
function skipSpace(bytes: Buffer, i: number): number {
  while (i < bytes.length && isSpace(bytes[i] as number)) i++;
  return i;
}

/**
 * Where the last {@link readInteger} stopped: a module cursor rather than a `[value, next]` pair, so reading a head
 * allocates nothing (the reader runs once per frame, synchronously).
 */
let after = 0;

/** Reads a plain non-negative integer at `i` (a minus refused), its end in {@link after}; `-1` when there is none. */
function readInteger(bytes: Buffer, i: number): number {
  let value = 0;
  const first = i;
  for (; i < bytes.length; i++) {
    const c = bytes[i] as number;
    if (c < ZERO || c > NINE) break;
    value = value * 10 + (c - ZERO);
  }
  const digits = i - first;
  // A leading zero is not JSON; a fraction or an exponent stops the head's read where it expects a comma (left to JSON.parse).
  if (digits === 0 || digits > MAX_DIGITS || (digits > 1 && bytes[first] === ZERO)) return -1;
  after = i;
  return value;
}

/** Reads an ASCII string without escapes at `i` (at its opening quote): `[end of its content, next index]`, or `undefined`. */
function readPlainString(bytes: Buffer, i: number): number | undefined {
  if (bytes[i] !== QUOTE) return undefined;
  for (let j = i + 1; j < bytes.length; j++) {
    const c = bytes[j] as number;
    if (c === QUOTE) return j;
    if (c === BACKSLASH || c < 0x20 || c > 0x7e) return undefined;
  }
  return undefined;
}

/** The event names under 64 characters read last, one per length: a flood of one event reads its name without building a string per frame. */
const names: string[] = new Array<string>(64).fill('');

/** The ASCII event name in `bytes` from `start` to `end`: the one of its length read last when the bytes match, else a new string. */
function eventName(bytes: Buffer, start: number, end: number): string {
  const length = end - start;
  const slot = length & 63;
  const known = names[slot] as string;
  if (known.length === length) {
    let i = 0;
    while (i < length && known.charCodeAt(i) === bytes[start + i]) i++;
    if (i === length) return known;
  }
  const name = bytes.toString('latin1', start, end);
  // Only short names are kept: a server's 16 MiB name is not held past its frame.
  if (length === slot) names[slot] = name;
  return name;
}

/** The event names kept (for tests: none is longer than 63 characters). @internal */
export function keptEventNames(): readonly string[] {
  return names;
}

/** Whether the 4 bytes at `i` spell `null`. */
const isNull = (bytes: Buffer, i: number): boolean => bytes[i] === 0x6e && bytes[i + 1] === 0x75 && bytes[i + 2] === 0x6c && bytes[i + 3] === 0x6c;

/**
 * Reads a dispatch by its head (see the module's description): the frame with a lazily parsed `d`, or `undefined` when
 * the frame is not one the fast path takes (then {@link readFrame} reads it whole).
 */
function readDispatchHead(bytes: Buffer): GatewayFrame | undefined {
  let op: number | undefined;
  let s: number | null | undefined;
  let t: string | null | undefined;
  let i = skipSpace(bytes, 0);
  if (bytes[i] !== OPEN) return undefined;
  i++;
  for (;;) {
    i = skipSpace(bytes, i);
    const keyEnd = readPlainString(bytes, i);
    // Keys of one letter, or "op": anything longer is a member the fast path does not know.
    if (keyEnd === undefined || keyEnd - i > 3) return undefined;
    const key = keyEnd - i === 2 ? bytes[i + 1] : bytes[i + 1] === 0x6f && bytes[i + 2] === 0x70 ? 0 : -1;
    i = skipSpace(bytes, keyEnd + 1);
    if (bytes[i] !== COLON) return undefined;
    i = skipSpace(bytes, i + 1);
    if (key === 0x64) break; // "d": the payload starts here
    if (key === 0 && op === undefined) {
      op = readInteger(bytes, i);
      if (op < 0) return undefined;
      i = after;
    } else if (key === 0x73 && s === undefined) {
      if (isNull(bytes, i)) {
        s = null;
        i += 4;
      } else {
        s = readInteger(bytes, i);
        if (s < 0) return undefined;
        i = after;
      }
    } else if (key === 0x74 && t === undefined) {
      if (isNull(bytes, i)) {
        t = null;
        i += 4;
      } else {
        const end = readPlainString(bytes, i);
        if (end === undefined) return undefined;
        t = eventName(bytes, i + 1, end);
        i = end + 1;
      }
    } else return undefined;
    i = skipSpace(bytes, i);
    if (bytes[i] !== COMMA) return undefined;
    i++;
  }
  // `op`, `s` and `t` all before `d`, as Discord writes them: a frame that names them later is read whole.
  if (op !== GatewayOpcode.Dispatch || s === undefined || t === undefined || bytes[i] !== OPEN) return undefined;
  // `d` is the last member: the frame ends with the payload's closing brace, then the frame's.
  let end = bytes.length - 1;
  while (end > i && isSpace(bytes[end] as number)) end--;
  if (bytes[end] !== CLOSE) return undefined;
  end--;
  while (end > i && isSpace(bytes[end] as number)) end--;
  if (bytes[end] !== CLOSE) return undefined;
  return new LazyFrame(bytes, s, t);
}

/**
 * Reads a `ws` message (binary frames as UTF-8 JSON too: an inflated message is one): the frame, with a dispatch's `d`
 * parsed only when read, or a sentence saying why there is none.
 */
export function decodeFrame(data: Buffer | ArrayBuffer | Buffer[]): GatewayFrame | string {
  const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
  return readDispatchHead(bytes) ?? readFrame(bytes.toString('utf8'));
}
