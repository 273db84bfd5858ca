/**
 * The token ring and the secret book against simple models, with entries kept as strings mixed among entries kept as bytes
 * (a string dropped must not move the arena's start), tokens from empty to 20,000 characters, non-ASCII and lone surrogates.
 */
import { describe, expect, it } from 'vitest';
import { TokenRing } from '../../src/gateway/token-ring.js';
import { SecretBook } from '../../src/gateway/secrets.js';
import { seededRandom } from '../helpers/seeded-random.js';

const ASCII = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.';
function tokenOf(next: () => number, max: number): string {
  const length = Math.floor(next() * max);
  let t = '';
  for (let i = 0; i < length; i++) t += ASCII[Math.floor(next() * ASCII.length)];
  const r = next();
  if (r < 0.1) t += 'é';
  else if (r < 0.15) t += '\ud800';
  else if (r < 0.18) t = '\udc00' + t;
  return t;
}

describe('TokenRing: entries kept as strings (non-ASCII, or while something scrubs) between entries kept as bytes', () => {
  for (const seed of [11, 12]) {
    it(`seed ${seed}`, () => {
      const next = seededRandom(seed);
      let slots = 4;
      const ring = new TokenRing(slots);
      const held: { n: number; token: string }[] = [];
      let n = 0;
      for (let step = 0; step < 8_000; step++) {
        const phase = Math.floor(step / 3000) % 2 === 0;
        if (held.length > 0 && next() < (phase ? 0.35 : 0.75)) {
          ring.drop((held.shift() as { n: number }).n);
        } else {
          const token = tokenOf(next, next() < 0.05 ? 20_000 : 600);
          if (held.length === slots) {
            ring.resize(slots * 2, held[0]?.n ?? n, n);
            slots *= 2;
          }
          ring.push(n, token, next() < 0.3);
          held.push({ n, token });
          n++;
        }
        if (step % 53 === 0 || held.length < 3)
          for (const e of held) {
            expect(ring.get(e.n), `entry ${e.n} step ${step}`).toBe(e.token);
            expect(ring.lengthOf(e.n)).toBe(e.token.length);
          }
      }
    });
  }
});

describe('SecretBook vs a model', () => {
  for (const seed of [21, 22]) {
    it(`seed ${seed}: every live token listed and redacted; none forgotten early below the cap`, () => {
      const next = seededRandom(seed);
      let clock = 1_000_000;
      const book = new SecretBook(() => clock, 3000, undefined, 400_000);
      const model: { token: string; until: number }[] = [];
      let chars = 0;
      const pool: string[] = [];
      for (let step = 0; step < 4_000; step++) {
        clock += Math.floor(next() * (next() < 0.01 ? 600_000 : 200));
        while (model.length > 0 && (model[0] as { until: number }).until <= clock) chars -= (model.shift() as { token: string }).token.length;
        let token: string;
        const r = next();
        if (r < 0.1 && pool.length > 0)
          token = pool[Math.floor(next() * pool.length)] as string; // duplicate
        else if (r < 0.2 && pool.length > 0)
          token = (pool[Math.floor(next() * pool.length)] as string).slice(0, 10); // prefix of another
        else token = tokenOf(next, 300);
        if (token === '') token = 'x';
        if (token.length < 4) token += 'Qz9';
        pool.push(token);
        if (pool.length > 50) pool.shift();
        book.remember(token);
        model.push({ token, until: clock + 15 * 60_000 });
        chars += token.length;
        while (model.length > 3000 || chars > 400_000) chars -= (model.shift() as { token: string }).token.length;
        if (next() < 0.05) {
          const live = model[Math.floor(next() * model.length)] as { token: string };
          const text = `before ${live.token} after`;
          const out = book.scrubText(text, undefined);
          expect(out.includes(live.token), `live token leaked at step ${step}: ${JSON.stringify(live.token)}`).toBe(false);
        }
        if (step % 997 === 0) {
          const expected = [...new Map(model.map((e, i) => [e.token, i])).entries()].sort((a, b) => a[1] - b[1]).map(([t]) => t);
          expect(book.interactionTokens()).toEqual(expected);
        }
      }
    });
  }
});
