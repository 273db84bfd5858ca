/**
 * Reading a Gateway message: what every frame must give (its opcode, a
 * dispatch's sequence and event name) read from the bytes of the frame's
 * head, and the payload `d` parsed only when something asks for it. Most
 * Gateway traffic is events a bot never handles; those cost a scan of a few
 * dozen bytes, not a `JSON.parse` of the whole frame.
 *
 * The fast path takes a dispatch (op 0) as Discord writes it: a compact
 * object whose members before `d` are `op`, `s` and `t` (each at most once,
 * plain integers, a string without escapes, or `null`), whose `d` is an
 * object, and that ends with `}}` (so `d` is its last member). Anything else
 * (another opcode, another member, an escape, a number with a fraction)
 * goes through {@link readFrame} as a whole, as before. The payload of a
 * dispatch read by its head is parsed on first access (once, cached); a
 * payload that is not JSON then throws a `GatewayError` at the consumer,
 * whose socket handler reports it as an `error` event (docs/assumptions.md).
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

/** A dispatch frame read by its head; `d` is parsed from the frame's bytes when first read. */
class LazyFrame implements GatewayFrame {
  readonly op = GatewayOpcode.Dispatch;
  /** The sequence; `null` when the head has none (the connection treats both alike). */
  readonly s: number | null;
  /** The event name; `null` when the head has none. */
  readonly t: string | null;
  /** The frame's bytes (or a payload's text, from a worker thread) until the payload is parsed. */
  #bytes: Buffer | string | undefined;
  readonly #start: number;
  readonly #end: number;
  #d: unknown;
  #failure: string | undefined;

  constructor(bytes: Buffer | string, s: number | null | undefined, t: string | null | undefined, start: number, end: number) {
    this.#bytes = bytes;
    this.s = s ?? null;
    this.t = t ?? null;
    this.#start = start;
    this.#end = end;
  }

  /** The payload, parsed on first read (the frame's bytes are let go of then); throws a `GatewayError` if it is not JSON. */
  get d(): unknown {
    const bytes = this.#bytes;
    if (bytes !== undefined) {
      this.#bytes = undefined;
      try {
        this.#d = JSON.parse(typeof bytes === 'string' ? bytes : bytes.toString('utf8', this.#start, this.#end));
      } catch {
        this.#failure = `received a frame whose payload is not JSON (dispatch ${this.t ?? ''}, sequence ${String(this.s ?? 'none')}); ignored`;
      }
    }
    if (this.#failure !== undefined) throw new GatewayError(this.#failure);
    return this.#d;
  }

  /** The payload's JSON text, for a worker thread to hand on unparsed; `undefined` once it was parsed. */
  get text(): string | undefined {
    const bytes = this.#bytes;
    return typeof bytes === 'string' || bytes === undefined ? bytes : bytes.toString('utf8', this.#start, this.#end);
  }
}

/** The payload's JSON text of a frame read by its head and not yet parsed, else `undefined` (then read `d`). */
export function unparsedPayload(frame: GatewayFrame): string | undefined {
  return frame instanceof LazyFrame ? frame.text : undefined;
}

/** A dispatch frame whose `d` is parsed from `text` when first read (a payload a worker thread handed on unparsed). */
export function frameOfPayload(s: number | null, t: string, text: string): GatewayFrame {
  return new LazyFrame(text, s, t, 0, text.length);
}

/**
 * A dispatch as the connection hands it to its host: `t` and `s` read, `d` read from the frame only when a consumer
 * reads it (a `dispatch` listener, the router, a publisher, READY). The host sets `shardId`.
 */
export class DispatchEvent implements GatewayDispatchEvent {
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

  /** The payload's JSON text while it is not parsed (see {@link unparsedPayload}). */
  get text(): string | undefined {
    return unparsedPayload(this.#frame);
  }
}

/** Index of the first byte from `i` that is not white space. */
function skipSpace(bytes: Buffer, i: number): number {
  while (i < bytes.length && isSpace(bytes[i] as number)) i++;
  return i;
}

/** Reads a plain non-negative integer at `i` (a minus refused): `[value, next index]`, or `undefined`. */
function readInteger(bytes: Buffer, i: number): [number, number] | undefined {
  let value = 0;
  const first = i;
  for (; i < bytes.length; i++) {
    const c = bytes[i] as number;
    if (c < ZERO || c > NINE) break;
    value = value * 10 + (c - ZERO);
  }
  const digits = i - first;
  // A leading zero is not JSON; a fraction or an exponent stops the head's read where it expects a comma (left to JSON.parse).
  if (digits === 0 || digits > MAX_DIGITS || (digits > 1 && bytes[first] === ZERO)) return undefined;
  return [value, i];
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
      const read = readInteger(bytes, i);
      if (read === undefined) return undefined;
      [op, i] = read;
    } else if (key === 0x73 && s === undefined) {
      if (isNull(bytes, i)) [s, i] = [null, i + 4];
      else {
        const read = readInteger(bytes, i);
        if (read === undefined) return undefined;
        [s, i] = read;
      }
    } else if (key === 0x74 && t === undefined) {
      if (isNull(bytes, i)) [t, i] = [null, i + 4];
      else {
        const end = readPlainString(bytes, i);
        if (end === undefined) return undefined;
        [t, i] = [eventName(bytes, i + 1, end), end + 1];
      }
    } else return undefined;
    i = skipSpace(bytes, i);
    if (bytes[i] !== COMMA) return undefined;
    i++;
  }
  if (op !== GatewayOpcode.Dispatch || bytes[i] !== OPEN) return undefined;
  // `d` is the last member: the frame ends with the payload's closing brace, then the frame's.
  let end = bytes.length - 1;
  while (end > i && isSpace(bytes[end] as number)) end--;
  if (bytes[end] !== CLOSE) return undefined;
  end--;
  while (end > i && isSpace(bytes[end] as number)) end--;
  if (bytes[end] !== CLOSE) return undefined;
  return new LazyFrame(bytes, s, t, i, end + 1);
}

/**
 * Reads a `ws` message (binary frames as UTF-8 JSON too: an inflated message is one): the frame, with a dispatch's `d`
 * parsed only when read, or a sentence saying why there is none.
 */
export function decodeFrame(data: Buffer | ArrayBuffer | Buffer[]): GatewayFrame | string {
  const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
  return readDispatchHead(bytes) ?? readFrame(bytes.toString('utf8'));
}
