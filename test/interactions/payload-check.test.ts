/**
 * The one rule of an INTERACTION_CREATE payload (payload-check.ts): its check
 * (emitted into payload-check.generated.ts, kept current here) and the issues
 * of a refused payload come from one shape. Each rule is tested on its own,
 * and on thousands of mutated payloads the check and the issues agree:
 * refused exactly when there is an issue, and what is accepted builds.
 */
import { describe, expect, it } from 'vitest';
import { shapeCheckSource } from '../../src/core/shape-source.js';
import { interactionFromDispatch } from '../../src/interactions/from-dispatch.js';
import { interactionPayloadIssues, isInteractionPayload, payloadShape } from '../../src/interactions/payload-check.js';
import { ValidationError } from '../../src/index.js';
import { seededRandom as random } from '../helpers/seeded-random.js';

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

const respond = async () => undefined;
const now = () => 1_700_000_000_000;

describe('the generated check', () => {
  it('is what the shape emits (run this file with -u after changing the shape)', async () => {
    const source = shapeCheckSource(payloadShape, 'checkInteractionPayload', 'interactions/payload-check.ts');
    await expect(source).toMatchFileSnapshot('../../src/interactions/payload-check.generated.ts');
  });
});

describe('the check and its issues', () => {
  it('accept the valid payloads, which build', () => {
    for (const payload of valid) {
      expect(isInteractionPayload(payload), JSON.stringify(payload)).toBe(true);
      expect(interactionPayloadIssues(payload), JSON.stringify(payload)).toEqual([]);
      const built = interactionFromDispatch(payload, respond, now);
      expect(built.ok && built.interaction.id, JSON.stringify(payload)).toBe(payload['id']);
    }
  });

  it('agree on 20,000 mutated payloads: refused exactly when there is an issue; accepted ones build, refused ones are a ValidationError with those issues', () => {
    const next = random(25);
    let accepted = 0;
    for (let i = 0; i < 20_000; i++) {
      const payload = mutate(valid[i % valid.length] as Record<string, unknown>, next);
      const issues = interactionPayloadIssues(payload);
      const checked = isInteractionPayload(payload);
      if (checked !== (issues.length === 0)) expect.fail(`the check says ${checked} but the issues are ${JSON.stringify(issues)}: ${JSON.stringify(payload)}`);
      const built = interactionFromDispatch(payload, respond, now);
      if (checked) {
        accepted++;
        if (!built.ok) expect.fail(`accepted but not built (${built.error.message}): ${JSON.stringify(payload)}`);
      } else if (built.ok || !(built.error instanceof ValidationError) || JSON.stringify(built.error.issues) !== JSON.stringify(issues))
        expect.fail(`refused but built, or with other issues: ${JSON.stringify(payload)}`);
    }
    // Both answers are well represented.
    expect(accepted).toBeGreaterThan(2_000);
    expect(accepted).toBeLessThan(18_000);
  });
});

const base = { id: '1', type: 2, token: 'tok' };
const value = { name: 'v', type: 3, value: 'a' };
const nest = (...levels: Record<string, unknown>[]): Record<string, unknown> =>
  levels.reduceRight<Record<string, unknown> | undefined>((inner, level) => (inner ? { ...level, options: [inner] } : level), undefined) ?? {};

/** Each rule: a payload it refuses, and the issue that says so. */
const rules: [string, Record<string, unknown>, { path: string; message: string }][] = [
  ['an object at all', [] as unknown as Record<string, unknown>, { path: '', message: 'expected an object, received an array' }],
  ['an id', { type: 2, token: 'tok' }, { path: 'id', message: 'expected a non-empty string, received nothing' }],
  ['a non-empty id', { ...base, id: '' }, { path: 'id', message: 'expected a non-empty string, received an empty string' }],
  ['a non-empty token', { ...base, token: '' }, { path: 'token', message: 'expected a non-empty string, received an empty string' }],
  ['a string token', { ...base, token: 5 }, { path: 'token', message: 'expected a non-empty string, received an integer' }],
  ['an integer type', { ...base, type: 2.5 }, { path: 'type', message: 'expected a safe integer, received a fraction' }],
  ['a safe integer type', { ...base, type: 2 ** 53 }, { path: 'type', message: 'expected a safe integer, received an integer beyond 2^53 - 1' }],
  ['a string type is not a type', { ...base, type: '2' }, { path: 'type', message: 'expected a safe integer, received a string' }],
  ['a string application_id', { ...base, application_id: 1 }, { path: 'application_id', message: 'expected a string, received an integer' }],
  ['a string guild_id', { ...base, guild_id: null }, { path: 'guild_id', message: 'expected a string, received null' }],
  ['a string channel_id', { ...base, channel_id: true }, { path: 'channel_id', message: 'expected a string, received a boolean' }],
  ['a finite created_at', { ...base, created_at: Number.NaN }, { path: 'created_at', message: 'expected a string or a finite number, received NaN' }],
  ['created_at a string or a number', { ...base, created_at: {} }, { path: 'created_at', message: 'expected a string or a finite number, received an object' }],
  ['data an object', { ...base, data: 'd' }, { path: 'data', message: 'expected an object, received a string' }],
  ['a string command name', { ...base, data: { name: 5 } }, { path: 'data.name', message: 'expected a string, received an integer' }],
  ['a string custom_id', { ...base, data: { custom_id: [] } }, { path: 'data.custom_id', message: 'expected a string, received an array' }],
  ['values an array', { ...base, data: { values: 'a' } }, { path: 'data.values', message: 'expected an array, received a string' }],
  ['values of strings', { ...base, data: { values: ['a', 1] } }, { path: 'data.values.1', message: 'expected a string, received an integer' }],
  ['options an array', { ...base, data: { options: {} } }, { path: 'data.options', message: 'expected an array, received an object' }],
  ['an option an object', { ...base, data: { options: [null] } }, { path: 'data.options.0', message: 'expected an object, received null' }],
  ['a string option name', { ...base, data: { options: [{ name: 1 }] } }, { path: 'data.options.0.name', message: 'expected a string, received an integer' }],
  [
    'an integer option type',
    { ...base, data: { options: [{ name: 'a', type: 1.5 }] } },
    { path: 'data.options.0.type', message: 'expected a safe integer, received a fraction' },
  ],
  [
    'a finite option value',
    { ...base, data: { options: [{ name: 'a', value: Number.POSITIVE_INFINITY }] } },
    { path: 'data.options.0.value', message: 'expected a string or a finite number or a boolean, received Infinity' },
  ],
  [
    'a scalar option value',
    { ...base, data: { options: [{ name: 'a', value: [] }] } },
    { path: 'data.options.0.value', message: 'expected a string or a finite number or a boolean, received an array' },
  ],
  [
    'a boolean focused',
    { ...base, data: { options: [{ name: 'a', focused: 'yes' }] } },
    { path: 'data.options.0.focused', message: 'expected a boolean, received a string' },
  ],
  [
    'a sub-command option named',
    { ...base, data: { options: [nest({ name: 'g' }, { name: null })] } },
    { path: 'data.options.0.options.0.name', message: 'expected a string, received null' },
  ],
  [
    'a value option named',
    { ...base, data: { options: [nest({ name: 'g' }, { name: 's' }, { value: 1 })] } },
    { path: 'data.options.0.options.0.options.0.name', message: 'expected a string, received nothing' },
  ],
  [
    'options nest at most three levels',
    { ...base, data: { name: 'x', options: [nest({ name: 'g', type: 2 }, { name: 's', type: 1 }, value, value)] } },
    { path: 'data.options.0.options.0.options.0.options', message: 'expected nothing, received an array (options nest at most three levels)' },
  ],
  ['modal rows objects', { ...base, data: { components: [null] } }, { path: 'data.components.0', message: 'expected an object, received null' }],
  [
    'a row components an array',
    { ...base, data: { components: [{ components: {} }] } },
    { path: 'data.components.0.components', message: 'expected an array, received an object' },
  ],
  [
    'modal inputs objects',
    { ...base, data: { components: [{ components: [5] }] } },
    { path: 'data.components.0.components.0', message: 'expected an object, received an integer' },
  ],
  [
    'a string input value',
    { ...base, data: { components: [{ components: [{ value: 1 }] }] } },
    { path: 'data.components.0.components.0.value', message: 'expected a string, received an integer' },
  ],
  [
    'a string input custom_id',
    { ...base, data: { components: [{ components: [{ custom_id: {} }] }] } },
    { path: 'data.components.0.components.0.custom_id', message: 'expected a string, received an object' },
  ],
  ['member an object', { ...base, member: 'm' }, { path: 'member', message: 'expected an object, received a string' }],
  ['a member user an object', { ...base, member: { user: [] } }, { path: 'member.user', message: 'expected an object, received an array' }],
  ['a member user id', { ...base, member: { user: { id: 5 } } }, { path: 'member.user.id', message: 'expected a string, received an integer' }],
  ['a user id', { ...base, user: {} }, { path: 'user.id', message: 'expected a string, received nothing' }],
  ['a string user name', { ...base, user: { id: 'u', username: 2 } }, { path: 'user.username', message: 'expected a string, received an integer' }],
  ['user an object', { ...base, user: 'u' }, { path: 'user', message: 'expected an object, received a string' }],
];

describe('each rule', () => {
  for (const [rule, payload, issue] of rules) {
    it(`${rule}: refused, with the issue naming the field`, () => {
      expect(isInteractionPayload(payload)).toBe(false);
      expect(interactionPayloadIssues(payload)).toEqual([issue]);
    });
  }

  it('takes options three levels deep (sub-command group, sub-command, values)', () => {
    const three = { ...base, data: { name: 'x', options: [nest({ name: 'g', type: 2 }, { name: 's', type: 1 }, value)] } };
    expect(isInteractionPayload(three)).toBe(true);
    expect(interactionPayloadIssues(three)).toEqual([]);
  });

  it('lists every offending field, not only the first', () => {
    expect(interactionPayloadIssues({ id: '', type: 'x', data: { values: [1, 2] } }).map((issue) => issue.path)).toEqual([
      'id',
      'type',
      'token',
      'data.values.0',
      'data.values.1',
    ]);
  });

  it('lists at most ten issues, then counts the rest', () => {
    const issues = interactionPayloadIssues({ ...base, data: { values: Array.from({ length: 25 }, (_, i) => i) } });
    expect(issues).toHaveLength(11);
    expect(issues[9]).toEqual({ path: 'data.values.9', message: 'expected a string, received an integer' });
    expect(issues[10]).toEqual({ path: '', message: 'and 15 more issues' });
  });

  it('never says what a string holds (a token may be in the wrong place)', () => {
    const issues = interactionPayloadIssues({
      id: 'i',
      type: 2,
      token: { value: 'secret-token-value' },
      guild_id: 7,
      data: { options: [{ name: 'secret-token-value', value: {} }] },
    });
    expect(issues.map((issue) => issue.path)).toEqual(['token', 'data.options.0.value', 'guild_id']);
    expect(JSON.stringify(issues)).not.toContain('secret-token-value');
  });
});

describe('payloads a loose check must still take or refuse safely', () => {
  it('keeps unknown fields everywhere, as they are', () => {
    const payload = {
      ...base,
      new_top: 1,
      data: { name: 'q', new_data: 2, options: [{ name: 'a', value: 1, new_option: 3 }] },
      member: { user: { id: 'u', new_user: 4 }, nick: 'n' },
    };
    const copy = structuredClone(payload);
    expect(isInteractionPayload(payload)).toBe(true);
    const built = interactionFromDispatch(payload, respond, now);
    // raw is the payload as received, its token redacted.
    expect(built.ok && built.interaction.raw).toEqual({ ...copy, token: '[redacted]' });
    expect(payload).toEqual(copy);
  });

  it('refuses options nested 100,000 deep without overflowing the stack, and ignores depth under fields it does not read', () => {
    let deep: Record<string, unknown> = { name: 'leaf' };
    for (let i = 0; i < 100_000; i++) deep = { name: `o${i}`, options: [deep] };
    const payload = { ...base, data: { name: 'x', options: [deep] } };
    expect(isInteractionPayload(payload)).toBe(false);
    expect(interactionPayloadIssues(payload)).toEqual([
      { path: 'data.options.0.options.0.options.0.options', message: 'expected nothing, received an array (options nest at most three levels)' },
    ]);
    let unread: unknown = 'leaf';
    for (let i = 0; i < 100_000; i++) unread = { more: [unread] };
    const aside = { ...base, extra: unread, data: { name: 'x', extra: unread, options: [{ name: 'a', extra: unread }] } };
    expect(isInteractionPayload(aside)).toBe(true);
    expect(interactionPayloadIssues(aside)).toEqual([]);
  });

  it('reads __proto__, constructor and the like as plain fields: harmless, nothing polluted', () => {
    const text =
      '{"id":"1","type":2,"token":"tok","__proto__":{"token":"","polluted":true},"constructor":{"prototype":{"polluted":true}},' +
      '"data":{"__proto__":{"name":5},"name":"q","options":[{"name":"a","__proto__":[]}]},"member":{"user":{"id":"u","__proto__":null}}}';
    const payload = JSON.parse(text) as Record<string, unknown>;
    expect(isInteractionPayload(payload)).toBe(true);
    expect(interactionPayloadIssues(payload)).toEqual([]);
    const built = interactionFromDispatch(payload, respond, now);
    expect(built.ok && built.interaction.kind).toBe('command');
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    const refused = JSON.parse('{"id":"1","type":2,"__proto__":{"token":"inherited"}}') as unknown;
    expect(isInteractionPayload(refused)).toBe(false);
    expect(interactionPayloadIssues(refused)).toEqual([{ path: 'token', message: 'expected a non-empty string, received nothing' }]);
  });

  it('takes an object without a prototype', () => {
    const payload = Object.assign(Object.create(null) as Record<string, unknown>, base);
    expect(isInteractionPayload(payload)).toBe(true);
  });

  it('refuses what is not an object', () => {
    for (const other of [null, undefined, 'x', 1, true, [], [{ id: '1', type: 2, token: 't' }]]) {
      expect(isInteractionPayload(other)).toBe(false);
      expect(interactionPayloadIssues(other)).toHaveLength(1);
    }
  });
});
