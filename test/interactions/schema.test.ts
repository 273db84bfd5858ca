import { describe, expect, it } from 'vitest';
import { interactionPayloadSchema } from '../../src/interactions/schema.js';

const base = { id: '1', type: 2, token: 'tok' };

describe('interactionPayloadSchema', () => {
  it('describes what the builder relies on: strings are strings, arrays are arrays', () => {
    const rejected = [
      { ...base, data: { name: 5 } },
      { ...base, data: { custom_id: [] } },
      { ...base, data: { values: 'a' } },
      { ...base, data: { values: [1] } },
      { ...base, data: { options: {} } },
      { ...base, data: { options: [{ name: 1 }] } },
      { ...base, data: { options: [{ name: 'a', options: [{ name: null }] }] } },
      { ...base, data: { components: [{ components: {} }] } },
      { ...base, data: { components: [{ components: [{ value: 1 }] }] } },
      { ...base, data: { components: [null] } },
      { ...base, member: { user: { id: 5 } } },
      { ...base, user: 'u' },
      { ...base, created_at: {} },
    ];
    for (const payload of rejected) expect(interactionPayloadSchema.safeParse(payload).success, JSON.stringify(payload)).toBe(false);
  });

  it('keeps unknown fields everywhere', () => {
    const payload = {
      ...base,
      new_top: 1,
      data: { name: 'q', new_data: 2, options: [{ name: 'a', value: 1, new_option: 3 }] },
      member: { user: { id: 'u', new_user: 4 }, nick: 'n' },
    };
    expect(interactionPayloadSchema.parse(payload)).toEqual(payload);
  });

  it('takes options three levels deep (sub-command group, sub-command, values) and refuses a fourth', () => {
    const value = { name: 'v', type: 3, value: 'a' };
    const three = { ...base, data: { name: 'x', options: [{ name: 'g', type: 2, options: [{ name: 's', type: 1, options: [value] }] }] } };
    expect(interactionPayloadSchema.parse(three)).toEqual(three);
    const four = {
      ...base,
      data: { name: 'x', options: [{ name: 'g', type: 2, options: [{ name: 's', type: 1, options: [{ ...value, options: [value] }] }] }] },
    };
    expect(interactionPayloadSchema.safeParse(four).success).toBe(false);
    expect(
      interactionPayloadSchema.safeParse({
        ...base,
        data: { name: 'x', options: [{ name: 'g', type: 2, options: [{ name: 's', type: 1, options: [{ ...value, options: 'x' }] }] }] },
      }).success,
    ).toBe(false);
  });
});
