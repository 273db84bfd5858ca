/**
 * Where the Gateway's {@link SecretBook} keeps the interaction tokens it
 * remembers: a ring of entries numbered in arrival order, the oldest
 * forgotten first. A token of ASCII characters (every interaction token
 * Discord issues) is kept as its bytes in one arena outside the JavaScript
 * heap, not as a string: a flood of interactions then leaves no object per
 * token for the garbage collector to copy, promote and mark for the 15
 * minutes it is remembered (measured on the bench flood: most of the SDK's
 * GC cost above raw `ws`, and about 20 MB of peak RSS). A token is read back
 * as a string only when something is scrubbed, which is rare next to
 * dispatches. A token with any other character, or one remembered while its
 * book indexes every token as it comes (`asString`), is kept as the string.
 *
 * The arena is a circular buffer of a power-of-two size holding the bytes of
 * the entries kept as bytes, in order, between `#head` and `#tail` (byte
 * positions counted from the start, taken modulo the size): it grows to the
 * next power of two when a token does not fit and halves when at most a
 * quarter of it is in use, so past its first 16 KiB it is at most four times
 * the bytes it holds, and never more than the power of two that holds the
 * book's cap of characters (32 MiB; for the moment it grows to that size, the
 * old and the new are both held: 48 MiB). It shrinks as tokens expire, which is
 * noticed at the next `remember` or scrub: a bot gone quiet after a flood keeps
 * the expired tokens' bytes until then.
 *
 * @module
 */

/** The arena's smallest size, in bytes. */
const MIN_ARENA = 16 * 1024;

/**
 * Whether every character of `text` is ASCII (kept as one byte each, read back exactly): its UTF-8 length is then its
 * length, and only then (a lone surrogate takes 3 bytes). Native: a third of a loop over the characters, per token.
 */
const isAscii = (text: string): boolean => Buffer.byteLength(text, 'utf8') === text.length;

/** Tokens by entry number, in `size` slots (entry `n` in slot `n % size`), most of them as bytes outside the heap. */
export class TokenRing {
  /** Per slot: the token kept as a string, else `undefined` (its bytes are in the arena). */
  #strings: (string | undefined)[];
  /** Per slot: where its bytes start in the arena (a position counted from the start, not wrapped). */
  #starts: Float64Array;
  /** Per slot: its length in characters (bytes, when kept as bytes). */
  #lengths: Float64Array;
  /** Made with the first token kept as bytes: a book that never holds one (the edge build's, which never connects) touches no `Buffer`. */
  #arena: Buffer | undefined;
  /** Where the oldest bytes held start, and where the next token's bytes go (positions counted from the start). */
  #head = 0;
  #tail = 0;

  constructor(slots: number) {
    this.#strings = new Array<string | undefined>(slots).fill(undefined);
    this.#starts = new Float64Array(slots);
    this.#lengths = new Float64Array(slots);
  }

  /** How many slots the ring has. */
  get size(): number {
    return this.#strings.length;
  }

  /** The arena's size in bytes (for tests: it follows what is held). */
  get arenaBytes(): number {
    return this.#arena?.length ?? 0;
  }

  /** Keeps `token` as entry `n`, the newest; as its string when `asString` or when it is not ASCII, else as its bytes. */
  push(n: number, token: string, asString: boolean): void {
    const slot = n % this.#strings.length;
    this.#lengths[slot] = token.length;
    if (asString || !isAscii(token)) {
      this.#strings[slot] = token;
      return;
    }
    this.#strings[slot] = undefined;
    if (this.#arena === undefined || this.#tail - this.#head + token.length > this.#arena.length) this.#resize(this.#tail - this.#head + token.length);
    const arena = this.#arena as Buffer;
    this.#starts[slot] = this.#tail;
    const size = arena.length;
    const at = this.#tail % size;
    const first = Math.min(token.length, size - at);
    arena.write(token, at, first, 'latin1');
    if (first < token.length) arena.write(token.slice(first), 0, token.length - first, 'latin1');
    this.#tail += token.length;
  }

  /** Entry `n`'s token. */
  get(n: number): string {
    const slot = n % this.#strings.length;
    const kept = this.#strings[slot];
    if (kept !== undefined) return kept;
    const length = this.#lengths[slot] as number;
    // An entry kept as bytes: the arena was made for it.
    const arena = this.#arena as Buffer;
    const size = arena.length;
    const at = (this.#starts[slot] as number) % size;
    if (at + length <= size) return arena.toString('latin1', at, at + length);
    return arena.toString('latin1', at, size) + arena.toString('latin1', 0, length - (size - at));
  }

  /** Entry `n`'s length in characters. */
  lengthOf(n: number): number {
    return this.#lengths[n % this.#strings.length] as number;
  }

  /** Forgets entry `n`, the oldest held. */
  drop(n: number): void {
    const slot = n % this.#strings.length;
    if (this.#strings[slot] !== undefined) {
      this.#strings[slot] = undefined;
      return;
    }
    this.#head = (this.#starts[slot] as number) + (this.#lengths[slot] as number);
    if (this.#head === this.#tail) [this.#head, this.#tail] = [0, 0];
    const size = this.#arena?.length ?? 0;
    if (size > MIN_ARENA && (this.#tail - this.#head) * 4 <= size) this.#resize(2 * (this.#tail - this.#head));
  }

  /** Moves entries `first` to `next - 1` into `size` slots. */
  resize(size: number, first: number, next: number): void {
    const strings = new Array<string | undefined>(size).fill(undefined);
    const starts = new Float64Array(size);
    const lengths = new Float64Array(size);
    const old = this.#strings.length;
    for (let n = first; n < next; n++) {
      strings[n % size] = this.#strings[n % old];
      starts[n % size] = this.#starts[n % old] as number;
      lengths[n % size] = this.#lengths[n % old] as number;
    }
    [this.#strings, this.#starts, this.#lengths] = [strings, starts, lengths];
  }

  /** A new arena, the smallest power of two (at least {@link MIN_ARENA}) `needed` bytes fit in, holding the bytes held at the same positions. */
  #resize(needed: number): void {
    let size = MIN_ARENA;
    while (size < needed) size *= 2;
    const arena = Buffer.alloc(size);
    const old = this.#arena;
    // The bytes held, in runs that wrap around neither ring.
    for (let position = this.#head; old !== undefined && position < this.#tail; ) {
      const from = position % old.length;
      const to = position % size;
      const run = Math.min(this.#tail - position, old.length - from, size - to);
      old.copy(arena, to, from, from + run);
      position += run;
    }
    this.#arena = arena;
  }
}
