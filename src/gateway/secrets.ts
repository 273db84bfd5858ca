/**
 * The secret values the Gateway knows, so that it can scrub them from every
 * event and error it emits: the bot token (current, and the one last sent),
 * and the tokens of recent interactions, each kept for its whole 15-minute
 * lifetime, however fast they come, up to a hard cap of
 * {@link MAX_REMEMBERED_INTERACTION_TOKENS} alive at once and
 * {@link MAX_REMEMBERED_TOKEN_CHARS} characters in all.
 *
 * The tokens live in a ring ordered by expiry (each is remembered for the same
 * lifetime, so arrival order is expiry order): the ring starts small and
 * doubles when every slot holds a live token, up to the cap, so a quiet bot
 * holds a few kilobytes and a busy one never forgets a live token. At a cap
 * (about 145 interactions a second sustained for 15 minutes) the oldest live
 * token is forgotten to make room, and the book's `onFull` is told once (the
 * Gateway reports it as a `debug` line) until the book is half empty again.
 * Of a token longer than {@link MAX_TOKEN_NEEDLE} characters only its first
 * that many are remembered: they are what is redacted (the rest of such a
 * token, useless without its start, may remain).
 *
 * Memory at the cap: the characters of the tokens (at most
 * {@link MAX_REMEMBERED_TOKEN_CHARS}, 32 MiB of one-byte characters; 26 MB for
 * 131,072 tokens of 200 characters), kept as bytes in an arena outside the
 * JavaScript heap (`token-ring.ts`: at most 32 MiB, 48 MiB for the moment it grows to that), so a flood of
 * interactions leaves no object per token for the garbage collector; plus,
 * once something is scrubbed, the index with a string per token: 37 MB of heap
 * measured at the cap with 200-character tokens, 39 MB with 10,000-character
 * ones, under 64 MB however long the tokens are (and 32 MiB of arena).
 *
 * Scrubbing stays `redact.ts`'s job; this book only tells it which secrets a
 * value may hold, so that a dispatch is not checked against a thousand
 * tokens. Each interaction token is indexed (when something is next
 * scrubbed, not per event: remembering one only writes a slot of a ring)
 * under one 4-character anchor from a run of letters and digits: no
 * encoding `redact.ts` looks for (URL, JSON, HTML) changes those characters,
 * so every form of the token contains its anchor. One pass over each string
 * finds the anchors present; only their tokens (and the bot tokens) go to
 * `redactValue` / `scrubText`.
 *
 * @module
 */

import { INTERACTION_LIFETIME_MS } from '../core/constants.js';
import { collectStrings, redactValue, scrubText } from '../core/redact.js';
import { TokenRing } from './token-ring.js';

/**
 * The most interaction tokens the Gateway remembers at once (2^17): 145 a second for the whole 15-minute lifetime; past
 * it, the oldest live token is forgotten.
 */
export const MAX_REMEMBERED_INTERACTION_TOKENS = 131_072;

/** The most characters of one interaction token remembered (and redacted): its first 512. */
export const MAX_TOKEN_NEEDLE = 512;

/** The most characters of interaction tokens remembered at once (2^25); past it, the oldest live token is forgotten. */
export const MAX_REMEMBERED_TOKEN_CHARS = 33_554_432;

/** The ring's first size; it doubles as live tokens fill it. */
const INITIAL_SLOTS = 1024;

/** Anchor length: 4 ASCII letters or digits, packed 7 bits each into one exact number key. */
const ANCHOR = 4;
const MASK = (1 << (7 * ANCHOR)) - 1;
const isAlnum = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);

/** The keys of every run of {@link ANCHOR} letters or digits in `text`, in order. */
function anchorKeys(text: string, found: (key: number) => void): void {
  let key = 0;
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (!isAlnum(c)) {
      run = 0;
      continue;
    }
    key = ((key << 7) | c) & MASK;
    if (++run >= ANCHOR) found(key);
  }
}

/** The most distinct remembered tokens one anchor key may pack (refs are stored above the 28-bit anchor key). */
const KEY_SPAN = 2 ** (7 * ANCHOR);

/**
 * Interaction tokens indexed by one anchor each; those without one are always candidates. A token's anchor is, among its
 * own runs of {@link ANCHOR} letters or digits, the one whose bucket is smallest when it is indexed, so tokens that share
 * a prefix or a suffix spread over their distinct parts: one map entry per token and one per bucket, nothing per window.
 */
class AnchorIndex {
  /** The tokens under each anchor key: one token alone, or several. */
  readonly #byAnchor = new Map<number, string | string[]>();
  /** Each indexed token: its anchor key plus `KEY_SPAN` times how many remembered entries hold it (one token may be remembered twice). */
  readonly #entries = new Map<string, number>();
  readonly unanchored = new Set<string>();

  /** How many distinct tokens are indexed. */
  get size(): number {
    return this.#entries.size + this.unanchored.size;
  }

  /** Indexes a token, or counts one more entry of a token already indexed. */
  retain(token: string): void {
    const entry = this.#entries.get(token);
    if (entry !== undefined) return void this.#entries.set(token, entry + KEY_SPAN);
    if (this.unanchored.has(token)) return;
    let best = -1;
    let bestSize = Infinity;
    anchorKeys(token, (key) => {
      const bucket = this.#byAnchor.get(key);
      const size = bucket === undefined ? 0 : typeof bucket === 'string' ? 1 : bucket.length;
      if (size < bestSize) [best, bestSize] = [key, size];
    });
    if (best < 0) return void this.unanchored.add(token);
    this.#entries.set(token, best + KEY_SPAN);
    const bucket = this.#byAnchor.get(best);
    this.#byAnchor.set(best, bucket === undefined ? token : typeof bucket === 'string' ? [bucket, token] : [...bucket, token]);
  }

  /** Counts one entry of a token less; the last one takes it out of the index. */
  release(token: string): void {
    if (this.unanchored.delete(token)) return;
    const entry = this.#entries.get(token);
    if (entry === undefined) return;
    if (entry >= 2 * KEY_SPAN) return void this.#entries.set(token, entry - KEY_SPAN);
    this.#entries.delete(token);
    const anchor = entry % KEY_SPAN;
    const bucket = this.#byAnchor.get(anchor);
    if (typeof bucket !== 'object') this.#byAnchor.delete(anchor);
    else {
      const rest = bucket.filter((item) => item !== token);
      this.#byAnchor.set(anchor, rest.length === 1 ? (rest[0] as string) : rest);
    }
  }

  /** Adds to `out` every token whose anchor occurs in `text`. */
  candidates(text: string, out: Set<string>): void {
    if (this.#byAnchor.size === 0 || text.length < ANCHOR) return;
    anchorKeys(text, (key) => {
      const bucket = this.#byAnchor.get(key);
      if (typeof bucket === 'string') out.add(bucket);
      else if (bucket !== undefined) for (const token of bucket) out.add(token);
    });
  }
}

/**
 * What is remembered of a token: the token itself, or its first {@link MAX_TOKEN_NEEDLE} characters (copied, so the
 * whole token is not kept alive behind a slice).
 */
function needleOf(token: string): string {
  return token.length <= MAX_TOKEN_NEEDLE ? token : (JSON.parse(JSON.stringify(token.slice(0, MAX_TOKEN_NEEDLE))) as string);
}

/** Known secrets, bounded in number and time. */
export class SecretBook {
  readonly #now: () => number;
  /** The hard cap on tokens held. */
  readonly #capacity: number;
  readonly #onFull: ((line: string) => void) | undefined;
  /** Whether `onFull` was told since the book last had room. */
  #full = false;
  /**
   * The interaction tokens remembered, a ring of `#tokens.size` slots (it doubles up to `capacity` when full), oldest
   * first: remembering one, per event, writes a slot (its bytes, outside the heap: see `token-ring.ts`) and hashes
   * nothing. Entry number `n` (counting every token ever remembered) lives in slot `n % #tokens.size`; the entries held
   * are numbers `#next - #held` to `#next - 1`.
   */
  #tokens: TokenRing;
  #forgetAt: Float64Array;
  #next = 0;
  #held = 0;
  /** The characters of the tokens held, at most `#maxChars`. */
  #chars = 0;
  readonly #maxChars: number;
  readonly #botTokens = new Set<string>();
  readonly #index = new AnchorIndex();
  /**
   * The entries numbered below this are in the index. The index, which pays for anchors, catches up only when something is
   * about to be scrubbed ({@link SecretBook.secretsIn}), which is rare next to dispatches.
   */
  #indexedBefore = 0;
  /** The list of every secret, rebuilt only after a change. */
  #list: { current: string | undefined; secrets: string[] } | undefined;

  /**
   * @param capacity - the most tokens held at once (a hard cap; the ring grows to it only as live tokens fill it)
   * @param onFull - told (with a line to report) when a live token is forgotten to make room, once until the book is half empty again
   * @param maxChars - the most characters of tokens held at once (a hard cap)
   */
  constructor(now: () => number, capacity = MAX_REMEMBERED_INTERACTION_TOKENS, onFull?: (line: string) => void, maxChars = MAX_REMEMBERED_TOKEN_CHARS) {
    this.#now = now;
    this.#maxChars = Math.max(MAX_TOKEN_NEEDLE, Math.floor(maxChars));
    this.#capacity = Math.max(1, Math.floor(capacity));
    this.#onFull = onFull;
    const slots = Math.min(this.#capacity, INITIAL_SLOTS);
    this.#tokens = new TokenRing(slots);
    this.#forgetAt = new Float64Array(slots);
  }

  /** How many slots the ring has now (it grows with the live tokens, up to the cap). */
  get slots(): number {
    return this.#tokens.size;
  }

  /** The bytes of the arena that holds the tokens kept as bytes (it follows what is held; at most 32 MiB). */
  get arenaBytes(): number {
    return this.#tokens.arenaBytes;
  }

  /** The characters of the interaction tokens held now (each at most {@link MAX_TOKEN_NEEDLE}; in all at most `maxChars`). */
  get chars(): number {
    return this.#chars;
  }

  /** How many distinct tokens the index holds (it catches up when something is next scrubbed). */
  get indexed(): number {
    return this.#index.size;
  }

  /** Records a bot token that was (or will be) sent; keeps the last two. */
  rememberBotToken(token: string | undefined): void {
    if (token === undefined || this.#botTokens.has(token)) return;
    this.#botTokens.add(token);
    if (this.#botTokens.size > 2) this.#botTokens.delete(this.#botTokens.values().next().value as string);
    this.#list = undefined;
  }

  /**
   * Records an interaction's token (its first {@link MAX_TOKEN_NEEDLE} characters) for its 15-minute lifetime; the ring
   * grows while below the cap, and forgets the oldest at a cap (of tokens or of characters).
   */
  remember(token: string): void {
    const now = this.#now();
    const needle = needleOf(token);
    this.#pruneAt(now);
    while (this.#held > 0 && this.#chars + needle.length > this.#maxChars) this.#overflow();
    if (this.#held === this.#tokens.size) {
      if (this.#held < this.#capacity) this.#grow();
      else this.#overflow();
    } else if (this.#full && this.#held <= this.#capacity >> 1 && this.#chars <= this.#maxChars >> 1) this.#full = false;
    // Kept as a string when the index caught up since the last token (something scrubs every dispatch): the index will
    // hold that string anyway, so the bytes would be a second copy.
    this.#tokens.push(this.#next, needle, this.#indexedBefore === this.#next);
    this.#forgetAt[this.#next % this.#tokens.size] = now + INTERACTION_LIFETIME_MS;
    this.#chars += needle.length;
    this.#next++;
    this.#held++;
    this.#list = undefined;
  }

  /** The interaction tokens still remembered, oldest first (one remembered twice, where it was last). */
  interactionTokens(): string[] {
    this.#prune();
    const last = new Map<string, number>();
    for (let n = this.#next - this.#held; n < this.#next; n++) last.set(this.#tokens.get(n), n);
    return [...last].sort((a, b) => a[1] - b[1]).map(([token]) => token);
  }

  /** Every known secret, with `current` (the bot token the client holds now); the same array until something changes. */
  list(current: string | undefined): readonly string[] {
    this.#prune();
    if (this.#list !== undefined && this.#list.current === current) return this.#list.secrets;
    const secrets = [...new Set([...this.#botTokens, ...this.interactionTokens()])];
    if (current !== undefined && !this.#botTokens.has(current)) secrets.push(current);
    this.#list = { current, secrets };
    return secrets;
  }

  /** The known secrets that `texts` may hold (in any form `redact.ts` looks for): the bot tokens, and the interaction tokens whose anchor occurs. */
  secretsIn(texts: readonly string[], current: string | undefined): string[] {
    this.#prune();
    this.#catchUp();
    const found = new Set<string>(this.#botTokens);
    if (current !== undefined) found.add(current);
    for (const token of this.#index.unanchored) found.add(token);
    for (const text of texts) this.#index.candidates(text, found);
    return [...found];
  }

  /** `text` scrubbed of every known secret. */
  scrubText(text: string, current: string | undefined): string {
    return scrubText(text, this.secretsIn([text], current));
  }

  /** `redactValue(value, every known secret)`, checking each string only against the secrets it may hold. */
  redact(value: unknown, current: string | undefined): unknown {
    const texts: string[] = [];
    collectStrings(value, texts, 0);
    return redactValue(value, this.secretsIn(texts, current));
  }

  /** Indexes the entries remembered since the last time (those still held). */
  #catchUp(): void {
    for (let n = Math.max(this.#indexedBefore, this.#next - this.#held); n < this.#next; n++) this.#index.retain(this.#tokens.get(n));
    this.#indexedBefore = this.#next;
  }

  /** Doubles the ring (at most to the cap), keeping each held entry at its number. */
  #grow(): void {
    const size = Math.min(this.#capacity, this.#tokens.size * 2);
    const forgetAt = new Float64Array(size);
    for (let n = this.#next - this.#held; n < this.#next; n++) forgetAt[n % size] = this.#forgetAt[n % this.#tokens.size] as number;
    this.#tokens.resize(size, this.#next - this.#held, this.#next);
    this.#forgetAt = forgetAt;
  }

  /** At the cap: forgets the oldest live token, and says so once until there is room again. */
  #overflow(): void {
    this.#forgetOldest();
    if (this.#full) return;
    this.#full = true;
    this.#onFull?.(
      `more than ${this.#capacity} interaction tokens, or ${this.#maxChars} characters of them, alive at once: the oldest live ones are forgotten, so events may quote them`,
    );
  }

  /** Forgets the oldest entry, taking it out of the index if it is there. */
  #forgetOldest(): void {
    const n = this.#next - this.#held;
    if (n < this.#indexedBefore) this.#index.release(this.#tokens.get(n));
    this.#chars -= this.#tokens.lengthOf(n);
    this.#tokens.drop(n);
    this.#held--;
    this.#list = undefined;
  }

  #prune(): void {
    this.#pruneAt(this.#now());
  }

  #pruneAt(now: number): void {
    while (this.#held > 0 && (this.#forgetAt[(this.#next - this.#held) % this.#tokens.size] as number) <= now) this.#forgetOldest();
  }
}
