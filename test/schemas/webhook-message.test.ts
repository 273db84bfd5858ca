import { describe, expect, it } from 'vitest';
import { webhookMessageSchema } from '../../src/schemas/requests.js';
import { passWebhookMessage, WEBHOOK_CONTENT_CHARACTERS } from '../../src/schemas/webhook-message.js';

/** A small seeded generator (mulberry32), so a failure names a seed that replays it. */
function generator(seed: number) {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (below: number): number => Math.floor(next() * below);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)] as T;
  return { next, int, pick };
}

type Gen = ReturnType<typeof generator>;

/** Text of a length near the content limits (or anywhere up to past them), mixing one-unit, two-unit and lone-surrogate characters. */
function text(g: Gen): string {
  const { min, max } = WEBHOOK_CONTENT_CHARACTERS;
  const length = g.pick([0, min - 1, min, min + 1, max - 1, max, max + 1, g.int(max * 2 + 10), g.int(40)]);
  const units = g.pick([['x'], ['x', '😀'], ['😀'], ['x', '\ud83d'], ['\ude00', 'y', '😀']]);
  let out = '';
  for (let i = 0; i < length; i++) out += g.pick(units);
  return out;
}

/** Any value a caller might pass as a field. */
function value(g: Gen, depth = 0): unknown {
  switch (g.int(depth > 1 ? 8 : 10)) {
    case 0:
      return undefined;
    case 1:
      return null;
    case 2:
      return g.int(1000) - 500;
    case 3:
      return g.next() < 0.5;
    case 4:
    case 5:
    case 6:
    case 7:
      return text(g);
    case 8:
      return [value(g, depth + 1), value(g, depth + 1)];
    default:
      return message(g, depth + 1);
  }
}

const OTHER_KEYS = ['avatar_url', 'tts', 'embeds', 'constructor', 'toString', 'hasOwnProperty', '__proto__', 'content ', 'Content', '0'];

/** A message-like value: the schema's fields present, absent, `undefined` or of another type, extra fields, odd prototypes. */
function message(g: Gen, depth = 0): unknown {
  const roll = g.int(20);
  if (roll === 0) return value(g, 2);
  // An array, even one carrying the fields, is not a message.
  if (roll === 1) return Object.assign([text(g)], { content: text(g) });
  const fields: Record<string, unknown> = {};
  if (g.next() < 0.9) fields.content = g.next() < 0.8 ? text(g) : value(g, depth + 1);
  if (g.next() < 0.5) fields.username = g.next() < 0.7 ? text(g) : value(g, depth + 1);
  for (let i = g.int(4); i > 0; i--) {
    // Defined, not assigned: a `__proto__` key is then a field of its own, as JSON.parse makes it.
    Object.defineProperty(fields, g.pick(OTHER_KEYS), { value: value(g, depth + 1), enumerable: true, writable: true, configurable: true });
  }
  const shape = g.int(10);
  if (shape === 0) return Object.assign(Object.create({ inherited: 'yes', content: text(g) }), fields);
  if (shape === 1) return Object.assign(Object.create(null), fields);
  if (shape === 2) return JSON.parse(JSON.stringify(fields));
  return fields;
}

describe('the webhook message pre-filter against webhookMessageSchema (the rule)', () => {
  it('says yes only to what the schema accepts, and then returns what the schema returns, on 20,000 generated messages', () => {
    let passed = 0;
    let accepted = 0;
    for (let seed = 1; seed <= 20_000; seed++) {
      const input = message(generator(seed));
      const fast = passWebhookMessage(input);
      const schema = webhookMessageSchema.safeParse(input);
      if (schema.success) accepted++;
      if (fast === undefined) continue;
      passed++;
      expect(schema.success, `seed ${seed}: the pre-filter passed a message the schema refuses: ${schema.error?.message}`).toBe(true);
      // The same fields in the same order (the JSON body's order), values included; a fresh object, never the caller's.
      expect(Object.entries(fast), `seed ${seed}: the pre-filter's message differs from the schema's`).toEqual(Object.entries(schema.data ?? {}));
      expect(fast, `seed ${seed}: the pre-filter returned the caller's own object`).not.toBe(input);
      expect(Object.getPrototypeOf(fast), `seed ${seed}: the passed message's prototype`).toBe(Object.prototype);
    }
    // The hot path stays hot: every message the schema accepts passes without zod (and the generator reaches both answers).
    expect(passed, 'messages the pre-filter passed, against those the schema accepts').toBe(accepted);
    expect(accepted).toBeGreaterThan(2_000);
    expect(accepted).toBeLessThan(18_000);
  });

  it('counts content in code points at the limits, as the schema does', () => {
    const { max } = WEBHOOK_CONTENT_CHARACTERS;
    expect(passWebhookMessage({ content: '😀'.repeat(max) })?.content).toBe('😀'.repeat(max));
    expect(passWebhookMessage({ content: '😀'.repeat(max + 1) })).toBeUndefined();
    expect(passWebhookMessage({ content: 'x'.repeat(max + 1) })).toBeUndefined();
    expect(passWebhookMessage({ content: '' })).toBeUndefined();
  });
});
