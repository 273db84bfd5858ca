import { describe, expect, it } from 'vitest';
import { interactionResponseSchema, webhookMessageSchema } from '../../src/schemas/requests.js';
import { passInteractionResponse, passWebhookMessage, WEBHOOK_CONTENT_CHARACTERS } from '../../src/schemas/pre-filter.js';

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

/** Fields of a callback's `data`: content of every kind, components present or not, other fields. */
function callbackData(g: Gen): unknown {
  const roll = g.int(12);
  if (roll === 0) return undefined;
  if (roll === 1) return value(g, 2);
  if (roll === 2) return Object.assign([], { content: 'x' });
  const data: Record<string, unknown> = {};
  if (g.next() < 0.8) data.content = g.pick(['', 'Quiz about space', text(g), 5, null, undefined]);
  if (g.next() < 0.15) data.components = g.pick([undefined, [], [{ type: 1, components: [] }], 'x', null]);
  if (g.next() < 0.3) data.flags = g.pick([64, 0, '64']);
  if (g.next() < 0.1) Object.defineProperty(data, '__proto__', { value: { content: 'x' }, enumerable: true, writable: true, configurable: true });
  const shape = g.int(8);
  if (shape === 0) return Object.assign(Object.create({ inherited: 1 }), data);
  if (shape === 1) return Object.assign(Object.create(null), data);
  return data;
}

/** A callback-like value: every callback type and some that are not, data of every kind, extra fields, odd prototypes. */
function callback(g: Gen): unknown {
  const roll = g.int(20);
  if (roll === 0) return value(g, 2);
  if (roll === 1) return Object.assign([], { interaction_type: 1 });
  const fields: Record<string, unknown> = {};
  if (g.next() < 0.95) fields.interaction_type = g.pick([1, 4, 4, 4, 5, 6, 8, 9, 0, 2, 7, '4', 4.5, null, undefined]);
  if (g.next() < 0.85) fields.data = callbackData(g);
  for (let i = g.int(3); i > 0; i--) {
    Object.defineProperty(fields, g.pick(OTHER_KEYS), { value: value(g, 1), enumerable: true, writable: true, configurable: true });
  }
  const shape = g.int(10);
  if (shape === 0) return Object.assign(Object.create({ inherited: 'yes', interaction_type: 4 }), fields);
  if (shape === 1) return Object.assign(Object.create(null), fields);
  return fields;
}

interface Case {
  name: string;
  generate: (g: Gen) => unknown;
  pass: (input: unknown) => unknown;
  schema: { safeParse: (input: unknown) => { success: boolean; data?: unknown; error?: { message: string } } };
}

const cases: Case[] = [
  { name: 'webhook message (webhookMessageSchema)', generate: message, pass: passWebhookMessage, schema: webhookMessageSchema },
  { name: 'interaction callback (interactionResponseSchema)', generate: callback, pass: passInteractionResponse, schema: interactionResponseSchema },
];

/** The same fields in the same order, recursively through plain objects (the JSON body's order), other values as they are. */
function fieldsOf(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  return Object.entries(value).map(([key, field]) => [key, fieldsOf(field)]);
}

describe('the pre-filters against their schemas (the rule)', () => {
  for (const { name, generate, pass, schema } of cases) {
    it(`${name}: says yes only to what the schema accepts, and then returns what it returns, on 10,000 generated bodies`, () => {
      let passed = 0;
      let accepted = 0;
      for (let seed = 1; seed <= 10_000; seed++) {
        const input = generate(generator(seed));
        const fast = pass(input);
        const checked = schema.safeParse(input);
        if (checked.success) accepted++;
        if (fast === undefined) continue;
        passed++;
        expect(checked.success, `seed ${seed}: the pre-filter passed a body the schema refuses: ${checked.error?.message}`).toBe(true);
        expect(fieldsOf(fast), `seed ${seed}: the pre-filter's body differs from the schema's`).toEqual(fieldsOf(checked.data));
        // A fresh object, never the caller's (what is sent is what was checked), with the prototype of a plain object.
        expect(fast, `seed ${seed}: the pre-filter returned the caller's own object`).not.toBe(input);
        expect(Object.getPrototypeOf(fast), `seed ${seed}: the passed body's prototype`).toBe(Object.prototype);
        const data = (fast as { data?: unknown }).data;
        if (data !== undefined) {
          expect(data, `seed ${seed}: the caller's own data`).not.toBe((input as { data?: unknown }).data);
          expect(Object.getPrototypeOf(data), `seed ${seed}: the passed data's prototype`).toBe(Object.prototype);
        }
      }
      // The generator reaches both answers, and the hot path stays hot: most bodies the schema accepts pass without zod.
      expect(accepted).toBeGreaterThan(1_000);
      expect(accepted).toBeLessThan(9_000);
      expect(passed, 'bodies the pre-filter passed, against those the schema accepts').toBeGreaterThan(accepted * 0.7);
    });
  }

  it('counts webhook content in code points at the limits, as the schema does', () => {
    const { max } = WEBHOOK_CONTENT_CHARACTERS;
    expect(passWebhookMessage({ content: '😀'.repeat(max) })?.content).toBe('😀'.repeat(max));
    expect(passWebhookMessage({ content: '😀'.repeat(max + 1) })).toBeUndefined();
    expect(passWebhookMessage({ content: 'x'.repeat(max + 1) })).toBeUndefined();
    expect(passWebhookMessage({ content: '' })).toBeUndefined();
  });

  it('leaves modals and components to the schema, and passes the common callbacks', () => {
    expect(passInteractionResponse({ interaction_type: 9, data: { custom_id: 'm', title: 't', components: [] } })).toBeUndefined();
    expect(passInteractionResponse({ interaction_type: 4, data: { content: 'hi', components: [] } })).toBeUndefined();
    expect(passInteractionResponse({ interaction_type: 4, data: { content: 'Quiz about space' } })).toEqual({
      interaction_type: 4,
      data: { content: 'Quiz about space' },
    });
    expect(passInteractionResponse({ interaction_type: 5 })).toEqual({ interaction_type: 5, data: {} });
  });
});
