/**
 * The token book at its caps: bounded memory whatever the tokens' length, and
 * every remembered token (or the start of a long one) still redacted.
 */
import { randomBytes } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { MAX_REMEMBERED_INTERACTION_TOKENS, MAX_REMEMBERED_TOKEN_CHARS, MAX_TOKEN_NEEDLE, SecretBook } from '../../src/gateway/secrets.js';

/** A Discord-shaped interaction token of `length` characters: a shared prefix, then random base64url. */
function token(length: number): string {
  return `aW50ZXJhY3Rpb246${randomBytes(Math.ceil(length * 0.75)).toString('base64url')}`.slice(0, length);
}

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** The heap in use after a full collection, in MB. */
function heapMb(): number {
  gc();
  return process.memoryUsage().heapUsed / 1e6;
}

describe('SecretBook memory', () => {
  it('holds at most MAX_REMEMBERED_TOKEN_CHARS characters, 64 MB of heap and a 32 MiB arena at the cap, with tokens of 200 and of 10,000 characters', () => {
    for (const length of [200, 10_000]) {
      let now = 0;
      const before = heapMb();
      let book: SecretBook | undefined = new SecretBook(() => now);
      let last = '';
      for (let i = 0; i < MAX_REMEMBERED_INTERACTION_TOKENS + 10; i++) {
        last = token(length);
        book.remember(last);
        now += 1;
      }
      // Index everything held: the index is built when something is scrubbed.
      expect(book.scrubText(`quote ${last}`, undefined), `the newest ${length}-character token`).toBe(`quote [redacted]${last.slice(MAX_TOKEN_NEEDLE)}`);
      const held = heapMb() - before;
      expect(book.chars, `characters held with ${length}-character tokens`).toBeLessThanOrEqual(MAX_REMEMBERED_TOKEN_CHARS);
      expect(book.indexed, `tokens indexed with ${length}-character tokens`).toBe(book.interactionTokens().length);
      expect(held, `heap held by the book with ${length}-character tokens, MB`).toBeLessThan(64);
      // The tokens' bytes, outside the heap: at most the power of two that holds the cap of characters.
      expect(book.arenaBytes, `arena bytes with ${length}-character tokens`).toBeLessThanOrEqual(MAX_REMEMBERED_TOKEN_CHARS);
      book = undefined;
    }
  }, 120_000);

  it('keeps tokens as bytes outside the heap, but as strings while something scrubs after every token (the index holds those strings anyway)', () => {
    const quiet = new SecretBook(() => 0);
    const scrubbing = new SecretBook(() => 0);
    const tokens = Array.from({ length: 1000 }, () => token(100));
    for (const item of tokens) {
      quiet.remember(item);
      scrubbing.remember(item);
      expect(scrubbing.scrubText(`echo ${item}`, undefined)).toBe('echo [redacted]');
    }
    // 100,000 characters: the quiet book's arena holds them (the next power of two), the scrubbing one never made one.
    expect([quiet.arenaBytes, scrubbing.arenaBytes]).toEqual([128 * 1024, 0]);
    for (const book of [quiet, scrubbing]) expect(book.scrubText(tokens.join(' '), undefined)).toBe(tokens.map(() => '[redacted]').join(' '));
  });

  it('redacts tokens of 1, 3, 4, 64, 512, 513 and 5,000 characters, each alone and quoted in a text, and forgets the oldest past the character cap', () => {
    const book = new SecretBook(() => 0);
    // The short ones hold characters base64url has not, so that none occurs inside another.
    const tokens = ['@', 'Z9!', 'k7#x', ...[64, 512, 513, 5000].map((length) => token(length))];
    for (const item of tokens) book.remember(item);
    for (const item of tokens) {
      const quoted = book.redact({ content: `said ${item}.`, alone: item }, undefined) as { content: string; alone: string };
      const kept = item.slice(MAX_TOKEN_NEEDLE);
      expect(quoted.content, `a ${item.length}-character token quoted`).toBe(item.length < 4 ? 'said [redacted].' : `said [redacted]${kept}.`);
      expect(quoted.alone, `a ${item.length}-character token alone`).toBe(`[redacted]${kept}`);
    }
    expect(book.chars).toBe(1 + 3 + 4 + 64 + 512 + 512 + 512);
    // A book of 1,024 characters holds two 512-character starts; the third forgets the first.
    let full = 0;
    const small = new SecretBook(
      () => 0,
      100,
      () => void full++,
      1024,
    );
    const long = [token(600), token(600), token(600)];
    for (const item of long) small.remember(item);
    expect(small.chars).toBe(1024);
    expect(small.scrubText(long.join(' '), undefined)).toBe(`${long[0]} [redacted]${long[1]?.slice(512)} [redacted]${long[2]?.slice(512)}`);
    expect(full, 'onFull told when the character cap forgets a live token').toBe(1);
  });
});
