/**
 * The one key-name rule: a name wrapped in one hash tag; names that Redis would hash like another (their own braces), and
 * empty, blank or over-long ones, refused with a ValidationError naming the option.
 */
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors/index.js';
import { MAX_KEY_NAME_LENGTH, taggedKey } from '../../src/redis/keys.js';

function refusal(name: unknown): ValidationError {
  try {
    taggedKey('createThing', 'stream', name as string);
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error(`taggedKey accepted ${JSON.stringify(name)}`);
}

describe('taggedKey', () => {
  it('wraps a name in one hash tag, keeping it as it is', () => {
    expect(taggedKey('op', 'stream', 's-bot')).toBe('{s-bot}');
    expect(taggedKey('op', 'stream', 'ccsdk:events')).toBe('{ccsdk:events}');
    expect(taggedKey('op', 'key', 'a:b')).toBe('{a:b}');
    expect(taggedKey('op', 'key', 'x'.repeat(MAX_KEY_NAME_LENGTH))).toBe(`{${'x'.repeat(MAX_KEY_NAME_LENGTH)}}`);
  });

  it.each([
    ['{s-bot}', /"\{" or "\}"/],
    ['{}{bot}', /"\{" or "\}"/],
    ['a{b', /"\{" or "\}"/],
    ['a}b', /"\{" or "\}"/],
    ['{}', /"\{" or "\}"/],
    ['', /empty or blank/],
    ['   ', /empty or blank/],
    ['\t\n', /empty or blank/],
    ['x'.repeat(MAX_KEY_NAME_LENGTH + 1), /at most 200 characters \(got 201\)/],
    [undefined, /must be a string \(got undefined\)/],
    [42, /must be a string \(got number\)/],
  ])('refuses %j with a ValidationError naming the operation and the option', (name, message) => {
    const error = refusal(name);
    expect(error.operation).toBe('createThing');
    expect(error.issues).toHaveLength(1);
    expect(error.issues[0]?.path).toBe('stream');
    expect(error.issues[0]?.message).toMatch(message);
  });

  it('never maps two accepted names to the same key', () => {
    const names = ['bot', 'bot ', ' bot', 'Bot', 'a:b', 'a', 'b'];
    const keys = names.map((name) => taggedKey('op', 'key', name));
    expect(new Set(keys).size).toBe(names.length);
  });
});
