/**
 * The ring the SecretBook keeps interaction tokens in (src/gateway/token-ring.ts):
 * every token read back exactly, through the arena's wrap-around, growth and
 * shrinking and the ring's resizing; tokens that are not ASCII kept as
 * strings; the arena's size following what it holds.
 */
import { describe, expect, it } from 'vitest';
import { TokenRing } from '../../src/gateway/token-ring.js';
import { seededRandom as random } from '../helpers/seeded-random.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.:~';

describe('TokenRing', () => {
  it('reads back every held token exactly while tokens come and go, the arena wraps, grows and shrinks and the ring resizes', () => {
    const next = random(37);
    let slots = 8;
    const ring = new TokenRing(slots);
    const held: { n: number; token: string }[] = [];
    let n = 0;
    const sizes = new Set<number>();
    for (let step = 0; step < 20_000; step++) {
      // Phases of growth then of draining, so the arena grows past its first size and shrinks back.
      const filling = Math.floor(step / 2500) % 2 === 0;
      if (held.length > 0 && (next() < (filling ? 0.3 : 0.7) || held.length === 4096)) {
        ring.drop((held.shift() as { n: number }).n);
      } else {
        const length = 1 + Math.floor(next() * 512);
        let token = '';
        for (let i = 0; i < length; i++) token += ALPHABET[Math.floor(next() * ALPHABET.length)];
        if (held.length === slots) {
          ring.resize(slots * 2, held[0]?.n ?? n, n);
          slots *= 2;
        }
        ring.push(n, token, false);
        held.push({ n, token });
        n++;
      }
      sizes.add(ring.arenaBytes);
      if (step % 97 === 0 || held.length < 3)
        for (const entry of held) {
          expect(ring.get(entry.n), `entry ${entry.n} at step ${step}`).toBe(entry.token);
          expect(ring.lengthOf(entry.n), `entry ${entry.n} at step ${step}`).toBe(entry.token.length);
        }
    }
    // The arena did grow and shrink on the way (so wrapped runs were moved both ways).
    expect(Math.max(...sizes), 'the largest arena').toBeGreaterThanOrEqual(128 * 1024);
    expect(sizes.size, 'arena sizes seen').toBeGreaterThan(4);
  });

  it('reads back a token that wraps around the end of the arena by any number of characters', () => {
    for (const wrapped of [1, 2, 7, 84]) {
      const ring = new TokenRing(4);
      // 16,300 of the first 16 KiB used, then the first 16,000 freed: the next token starts 84 bytes before the end.
      ring.push(0, 'a'.repeat(16_000), false);
      ring.push(1, 'b'.repeat(300), false);
      ring.drop(0);
      const edge = `${'x'.repeat(84)}${'yz'.repeat(wrapped).slice(0, wrapped)}`;
      ring.push(2, edge, false);
      expect(ring.arenaBytes, `${wrapped} wrapped`).toBe(16 * 1024);
      expect([ring.get(1), ring.get(2)], `${wrapped} characters wrapped`).toEqual(['b'.repeat(300), edge]);
    }
  });

  it('keeps a token that is not ASCII, or one asked for as a string, as its string, in order with the ones kept as bytes', () => {
    const ring = new TokenRing(8);
    const tokens = ['ascii-Aa11', 'tök-é-Bb22', 'lone-\ud800-surrogate', 'asked-Cc33', 'ascii-Dd44', '\u{1f512}-Ee55'];
    for (const [n, token] of tokens.entries()) ring.push(n, token, token.startsWith('asked'));
    expect(tokens.map((_, n) => ring.get(n))).toEqual(tokens);
    // Dropping the oldest, whatever each is kept as, leaves the others exact.
    for (let n = 0; n < 3; n++) ring.drop(n);
    expect([3, 4, 5].map((n) => ring.get(n))).toEqual(tokens.slice(3));
  });

  it('makes no arena, and touches no Buffer, until a token is kept as bytes (the edge build builds a book but never connects)', () => {
    const buffer = globalThis.Buffer;
    Reflect.deleteProperty(globalThis, 'Buffer');
    try {
      const ring = new TokenRing(4);
      ring.push(0, 'kept-as-a-string-Aa11', true);
      expect([ring.get(0), ring.arenaBytes]).toEqual(['kept-as-a-string-Aa11', 0]);
      ring.drop(0);
    } finally {
      globalThis.Buffer = buffer;
    }
  });

  it('sizes its arena to what it holds: at most four times the bytes held (past 16 KiB), back to 16 KiB once empty', () => {
    const ring = new TokenRing(4096);
    const token = (n: number) => `${'t'.repeat(90)}${String(n).padStart(10, '0')}`;
    for (let n = 0; n < 4000; n++) ring.push(n, token(n), false);
    const full = ring.arenaBytes;
    // 400,000 bytes held: the next power of two.
    expect(full).toBe(512 * 1024);
    for (let n = 0; n < 3990; n++) {
      ring.drop(n);
      const bytes = (4000 - n - 1) * 100;
      expect(ring.arenaBytes, `after dropping entry ${n}`).toBeLessThanOrEqual(Math.max(16 * 1024, 4 * bytes));
    }
    expect([3990, 3999].map((n) => ring.get(n))).toEqual([token(3990), token(3999)]);
    for (let n = 3990; n < 4000; n++) ring.drop(n);
    expect(ring.arenaBytes).toBe(16 * 1024);
  });
});
