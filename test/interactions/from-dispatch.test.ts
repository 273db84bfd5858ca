import { describe, expect, it } from 'vitest';
import { interactionFromDispatch } from '../../src/interactions/from-dispatch.js';
import { ValidationError } from '../../src/index.js';

const respond = async () => undefined;
const now = () => 1_700_000_000_000;

describe('interactionFromDispatch', () => {
  it('builds the typed interaction of each kind', () => {
    const kinds = [1, 2, 3, 4, 5, 42].map((type) => {
      const built = interactionFromDispatch({ id: `i${type}`, type, token: 'tok-abcdef', data: { name: 'quiz', custom_id: 'b1' } }, respond, now);
      return built.ok ? built.interaction.kind : built.error.message;
    });
    expect(kinds).toEqual(['ping', 'command', 'component', 'autocomplete', 'modalSubmit', 'unknown']);
  });

  it('keeps unknown fields and reports a payload that fails the schema as a ValidationError', () => {
    const built = interactionFromDispatch({ id: 'x', type: 2, token: 'tok-abcdef', brand_new: { a: 1 } }, respond, now);
    expect(built.ok && built.interaction.raw['brand_new']).toEqual({ a: 1 });
    const missing = interactionFromDispatch({ id: 'x', type: 2 }, respond, now);
    expect(missing.ok).toBe(false);
    expect(!missing.ok && missing.error).toBeInstanceOf(ValidationError);
    expect(!missing.ok && missing.error.message).toMatch(/INTERACTION_CREATE.*token/);
  });
});
