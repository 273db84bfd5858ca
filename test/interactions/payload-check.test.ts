/**
 * The per-event payload check (payload-check.ts) is the schema's rules written
 * out: on thousands of valid payloads, each mutated at random places, it must
 * answer exactly what `interactionPayloadSchema` answers.
 */
import { describe, expect, it } from 'vitest';
import { isInteractionPayload } from '../../src/interactions/payload-check.js';
import { interactionPayloadSchema } from '../../src/interactions/schema.js';

/** A small seeded generator (mulberry32), so a failure replays. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const valid: Record<string, unknown>[] = [
  {
    id: '1300000000000000000',
    application_id: '11',
    type: 2,
    token: 'tok',
    guild_id: 'g',
    channel_id: 'c',
    member: { user: { id: 'u', username: 'ada', global_name: 'Ada' }, roles: ['r'], nick: null },
    data: {
      id: 'd',
      name: 'quiz',
      type: 1,
      options: [
        { name: 'group', type: 2, options: [{ name: 'sub', type: 1, options: [{ name: 'topic', type: 3, value: 'space', focused: true }] }] },
        { name: 'rounds', type: 4, value: 5 },
        { name: 'hard', type: 5, value: false },
      ],
    },
    entitlements: [],
  },
  { id: 'c1', type: 3, token: 'tok', user: { id: 'u' }, data: { custom_id: 'pick', values: ['a', 'b'] }, message: { id: 'm' }, created_at: 1_700_000_000_000 },
  {
    id: 'm1',
    type: 5,
    token: 'tok',
    created_at: '2025-01-02T03:04:05.000Z',
    data: { custom_id: 'form', components: [{ type: 1, components: [{ custom_id: 'a', value: 'v' }] }] },
  },
  { id: 'p1', type: 1, token: 'tok' },
];

const names = [
  'id',
  'type',
  'token',
  'application_id',
  'data',
  'guild_id',
  'channel_id',
  'member',
  'user',
  'created_at',
  'name',
  'custom_id',
  'values',
  'options',
  'components',
  'value',
  'focused',
  'username',
  'extra',
];
const pool: unknown[] = [
  undefined,
  null,
  '',
  'x',
  0,
  -0,
  1,
  -1,
  1.5,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  2 ** 53,
  true,
  false,
  [],
  {},
  ['a'],
  [1],
  [null],
  [{}],
  [{ name: 'n' }],
  [{ name: 'n', options: [{ name: 'm', options: [{ name: 'v', value: 1 }] }] }],
  [{ name: 'n', options: [{ name: 'm', options: [{ name: 'v', options: [] }] }] }],
  { id: 'u' },
  { id: 1 },
  { user: { id: 'u', username: 2 } },
  [{ components: [{ custom_id: 'a', value: 'b' }] }],
  [{ components: {} }],
  [{ components: [{ value: 3 }] }],
];

/** Every object (and array) inside `value`, so that a mutation can land anywhere. */
function containers(value: unknown, out: (Record<string, unknown> | unknown[])[] = []): (Record<string, unknown> | unknown[])[] {
  if (typeof value !== 'object' || value === null) return out;
  out.push(value as Record<string, unknown> | unknown[]);
  for (const item of Object.values(value)) containers(item, out);
  return out;
}

function mutate(payload: Record<string, unknown>, next: () => number): Record<string, unknown> {
  const copy = structuredClone(payload);
  const times = 1 + Math.floor(next() * 3);
  for (let i = 0; i < times; i++) {
    const places = containers(copy);
    const place = places[Math.floor(next() * places.length)] as Record<string, unknown>;
    const keys = Array.isArray(place) ? place.map((_, index) => String(index)) : [...Object.keys(place), ...names];
    const key = keys[Math.floor(next() * keys.length)] as string;
    const roll = next();
    if (roll < 0.1 && !Array.isArray(place)) delete place[key];
    else place[key] = structuredClone(pool[Math.floor(next() * pool.length)]);
  }
  return copy;
}

describe('isInteractionPayload', () => {
  it('accepts the valid payloads', () => {
    for (const payload of valid) expect(isInteractionPayload(payload), JSON.stringify(payload)).toBe(true);
  });

  it('answers what interactionPayloadSchema answers on 20,000 mutated payloads', () => {
    const next = random(25);
    let accepted = 0;
    for (let i = 0; i < 20_000; i++) {
      const payload = mutate(valid[i % valid.length] as Record<string, unknown>, next);
      const expected = interactionPayloadSchema.safeParse(payload).success;
      if (isInteractionPayload(payload) !== expected) expect.fail(`disagrees with the schema (${expected ? 'valid' : 'invalid'}): ${JSON.stringify(payload)}`);
      if (expected) accepted++;
    }
    // Both answers are well represented.
    expect(accepted).toBeGreaterThan(2_000);
    expect(accepted).toBeLessThan(18_000);
  });

  it('refuses what is not an object, and the schema test cases', () => {
    for (const value of [null, undefined, 'x', 1, [], [{ id: '1', type: 2, token: 't' }]]) expect(isInteractionPayload(value)).toBe(false);
    expect(isInteractionPayload({ id: '1', type: 2.5, token: 't' })).toBe(false);
    expect(isInteractionPayload({ id: '1', type: 2, token: 't', created_at: Number.NaN })).toBe(false);
  });
});
