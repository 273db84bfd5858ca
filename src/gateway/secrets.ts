/**
 * The secret values the Gateway knows, so that it can scrub them from every
 * event and error it emits: the bot token (current, and the one last sent),
 * and the tokens of recent interactions, each kept for its whole 15-minute
 * lifetime, however fast they come, up to a hard cap of
 * {@link MAX_REMEMBERED_INTERACTION_TOKENS} alive at once.
 *
 * The tokens live in a ring ordered by expiry (each is remembered for the same
 * lifetime, so arrival order is expiry order): the ring starts small and
 * doubles when every slot holds a live token, up to the cap, so a quiet bot
 * holds a few kilobytes and a busy one never forgets a live token. At the cap
 * (about 145 interactions a second sustained for 15 minutes) the oldest live
 * token is forgotten to make room, and the book's `onFull` is told once (the
 * Gateway reports it as a `debug` line) until the book is half empty again.
 *
 * Scrubbing stays `redact.ts`'s job; this book only tells it which secrets a
 * value may hold, so that a dispatch is not checked against a thousand
 * tokens. Each interaction token is indexed (when something is next
 * scrubbed, not per event: remembering one only writes a slot of a ring) by
 * one 4-character anchor from a run of letters and digits: no
 * encoding `redact.ts` looks for (URL, JSON, HTML) changes those characters,
 * so every form of the token contains its anchor. One pass over each string
 * finds the anchors present; only their tokens (and the bot tokens) go to
 * `redactValue` / `scrubText`.
 *
 * @module
 */

import { INTERACTION_LIFETIME_MS } from '../core/constants.js';
import { redactValue, scrubText } from '../core/redact.js';

/**
 * The most interaction tokens the Gateway remembers at once (2^17): 145 a second for the whole 15-minute lifetime. A few
 * megabytes at most; past it, the oldest live token is forgotten.
 */
export const MAX_REMEMBERED_INTERACTION_TOKENS = 131_072;

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

/** Interaction tokens indexed by anchor; those without one are always candidates. */
class AnchorIndex {
  /** How many indexed tokens hold each anchor, so that a token picks its rarest (not a shared prefix). */
  readonly #counts = new Map<number, number>();
  readonly #byAnchor = new Map<number, Set<string>>();
  readonly #anchorOf = new Map<string, number>();
  readonly unanchored = new Set<string>();

  /** How many remembered entries hold each indexed token (the same token may be remembered twice). */
  readonly #refs = new Map<string, number>();

  /** Indexes a token, or counts one more entry of a token already indexed. */
  retain(token: string): void {
    const refs = this.#refs.get(token);
    this.#refs.set(token, (refs ?? 0) + 1);
    if (refs === undefined) this.#add(token);
  }

  /** Counts one entry of a token less; the last one takes it out of the index. */
  release(token: string): void {
    const refs = this.#refs.get(token);
    if (refs === undefined) return;
    if (refs > 1) return void this.#refs.set(token, refs - 1);
    this.#refs.delete(token);
    this.#delete(token);
  }

  #add(token: string): void {
    const keys = new Set<number>();
    anchorKeys(token, (key) => keys.add(key));
    if (keys.size === 0) return void this.unanchored.add(token);
    let best = -1;
    let bestCount = Infinity;
    for (const key of keys) {
      const count = (this.#counts.get(key) ?? 0) + 1;
      this.#counts.set(key, count);
      if (count < bestCount) [best, bestCount] = [key, count];
    }
    this.#anchorOf.set(token, best);
    const bucket = this.#byAnchor.get(best);
    if (bucket) bucket.add(token);
    else this.#byAnchor.set(best, new Set([token]));
  }

  #delete(token: string): void {
    if (this.unanchored.delete(token)) return;
    const anchor = this.#anchorOf.get(token);
    if (anchor === undefined) return;
    this.#anchorOf.delete(token);
    const bucket = this.#byAnchor.get(anchor);
    bucket?.delete(token);
    if (bucket?.size === 0) this.#byAnchor.delete(anchor);
    const keys = new Set<number>();
    anchorKeys(token, (key) => keys.add(key));
    for (const key of keys) {
      const count = (this.#counts.get(key) ?? 1) - 1;
      if (count <= 0) this.#counts.delete(key);
      else this.#counts.set(key, count);
    }
  }

  /** Adds to `out` every token whose anchor occurs in `text`. */
  candidates(text: string, out: Set<string>): void {
    if (this.#byAnchor.size === 0 || text.length < ANCHOR) return;
    anchorKeys(text, (key) => {
      const bucket = this.#byAnchor.get(key);
      if (bucket) for (const token of bucket) out.add(token);
    });
  }
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
   * The interaction tokens remembered, a ring of `#tokens.length` slots (it doubles up to `capacity` when full), oldest
   * first: remembering one, per event, writes a slot and hashes nothing. Entry number `n` (counting every token ever
   * remembered) lives in slot `n % #tokens.length`; the entries held are numbers `#next - #held` to `#next - 1`.
   */
  #tokens: (string | undefined)[];
  #forgetAt: Float64Array;
  #next = 0;
  #held = 0;
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
   */
  constructor(now: () => number, capacity = MAX_REMEMBERED_INTERACTION_TOKENS, onFull?: (line: string) => void) {
    this.#now = now;
    this.#capacity = Math.max(1, Math.floor(capacity));
    this.#onFull = onFull;
    const slots = Math.min(this.#capacity, INITIAL_SLOTS);
    this.#tokens = new Array<string | undefined>(slots).fill(undefined);
    this.#forgetAt = new Float64Array(slots);
  }

  /** How many slots the ring has now (it grows with the live tokens, up to the cap). */
  get slots(): number {
    return this.#tokens.length;
  }

  /** Records a bot token that was (or will be) sent; keeps the last two. */
  rememberBotToken(token: string | undefined): void {
    if (token === undefined || this.#botTokens.has(token)) return;
    this.#botTokens.add(token);
    if (this.#botTokens.size > 2) this.#botTokens.delete(this.#botTokens.values().next().value as string);
    this.#list = undefined;
  }

  /** Records an interaction's token for its 15-minute lifetime; the ring grows while below the cap, and forgets the oldest at it. */
  remember(token: string): void {
    const now = this.#now();
    this.#pruneAt(now);
    if (this.#held === this.#tokens.length) {
      if (this.#held < this.#capacity) this.#grow();
      else this.#overflow();
    } else if (this.#full && this.#held <= this.#capacity >> 1) this.#full = false;
    const slot = this.#next % this.#tokens.length;
    this.#tokens[slot] = token;
    this.#forgetAt[slot] = now + INTERACTION_LIFETIME_MS;
    this.#next++;
    this.#held++;
    this.#list = undefined;
  }

  /** The interaction tokens still remembered, oldest first (one remembered twice, where it was last). */
  interactionTokens(): string[] {
    this.#prune();
    const last = new Map<string, number>();
    for (let n = this.#next - this.#held; n < this.#next; n++) last.set(this.#tokens[n % this.#tokens.length] as string, n);
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
    for (let n = Math.max(this.#indexedBefore, this.#next - this.#held); n < this.#next; n++)
      this.#index.retain(this.#tokens[n % this.#tokens.length] as string);
    this.#indexedBefore = this.#next;
  }

  /** Doubles the ring (at most to the cap), keeping each held entry at its number. */
  #grow(): void {
    const size = Math.min(this.#capacity, this.#tokens.length * 2);
    const tokens = new Array<string | undefined>(size).fill(undefined);
    const forgetAt = new Float64Array(size);
    for (let n = this.#next - this.#held; n < this.#next; n++) {
      tokens[n % size] = this.#tokens[n % this.#tokens.length];
      forgetAt[n % size] = this.#forgetAt[n % this.#tokens.length] as number;
    }
    this.#tokens = tokens;
    this.#forgetAt = forgetAt;
  }

  /** At the cap: forgets the oldest live token, and says so once until there is room again. */
  #overflow(): void {
    this.#forgetOldest();
    if (this.#full) return;
    this.#full = true;
    this.#onFull?.(`more than ${this.#capacity} interaction tokens alive at once: the oldest live ones are forgotten, so events may quote them`);
  }

  /** Forgets the oldest entry, taking it out of the index if it is there. */
  #forgetOldest(): void {
    const n = this.#next - this.#held;
    const slot = n % this.#tokens.length;
    const token = this.#tokens[slot] as string;
    this.#tokens[slot] = undefined;
    this.#held--;
    if (n < this.#indexedBefore) this.#index.release(token);
    this.#list = undefined;
  }

  #prune(): void {
    this.#pruneAt(this.#now());
  }

  #pruneAt(now: number): void {
    while (this.#held > 0 && (this.#forgetAt[(this.#next - this.#held) % this.#tokens.length] as number) <= now) this.#forgetOldest();
  }
}

/** The strings `redactValue` would scrub (it stops below depth 20, as this does). */
function collectStrings(value: unknown, out: string[], depth: number): void {
  if (typeof value === 'string') out.push(value);
  else if (typeof value === 'object' && value !== null && depth <= 20)
    for (const item of Array.isArray(value) ? value : Object.values(value)) collectStrings(item, out, depth + 1);
}

/** How deep `scrubError` and {@link errorTexts} follow an error's `cause` chain. */
export const MAX_CAUSE_DEPTH = 8;

/** The errors of a `cause` chain, `error` first, at most {@link MAX_CAUSE_DEPTH} below it, each once (a cycle ends it). */
function causeChain(error: Error): Error[] {
  const chain: Error[] = [error];
  let cause: unknown = error.cause;
  while (cause instanceof Error && chain.length <= MAX_CAUSE_DEPTH && !chain.includes(cause)) {
    chain.push(cause);
    cause = cause.cause;
  }
  return chain;
}

/** The messages and stacks of an error and its `cause` chain: what {@link scrubError} scrubs, to find the secrets they may hold. */
export function errorTexts(error: Error): string[] {
  return causeChain(error).flatMap((item) => [item.message, item.stack ?? '']);
}

/**
 * The error, its message and stack scrubbed of known secrets, and so is each error of its `cause` chain (at most
 * {@link MAX_CAUSE_DEPTH} deep): in place, as the SDK made the error or holds the cause it wraps.
 */
export function scrubError<E extends Error>(error: E, secrets: readonly string[]): E {
  for (const item of causeChain(error)) {
    const message = scrubText(item.message, secrets);
    if (message !== item.message) item.message = message;
    if (item.stack !== undefined) {
      const stack = scrubText(item.stack, secrets);
      if (stack !== item.stack) item.stack = stack;
    }
  }
  return error;
}
