/**
 * The one rule for the names of Redis keys a caller chooses (a stream's name, a fleet's key): the name is wrapped in one
 * hash tag, so every key derived from it lands in one Redis Cluster slot, and two different names never map to the same
 * keys. Redis hashes only the first `{…}` of a key and an empty `{}` tags nothing, so `s-bot` and `{s-bot}` would share
 * keys if a name could carry its own braces: a name holding `{` or `}` is refused, as are empty, blank and over-long ones.
 *
 * @module
 */

import { ValidationError } from '../errors/index.js';

/** The longest name {@link taggedKey} accepts, in characters. */
export const MAX_KEY_NAME_LENGTH = 200;

/**
 * `name` wrapped in one hash tag (`events` → `{events}`); keys derived from it append to that (`{events}:dead`).
 * Throws a `ValidationError` naming `operation` and `option` when `name` is not a string, is empty or whitespace only,
 * holds `{` or `}`, or is longer than {@link MAX_KEY_NAME_LENGTH} characters.
 */
export function taggedKey(operation: string, option: string, name: string): string {
  const problem = keyNameProblem(name);
  if (problem !== undefined) throw new ValidationError(operation, [{ path: option, message: problem }]);
  return `{${name}}`;
}

function keyNameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string') return `must be a string (got ${name === null ? 'null' : typeof name})`;
  if (name.trim() === '') return 'must not be empty or blank';
  if (name.length > MAX_KEY_NAME_LENGTH) return `must be at most ${MAX_KEY_NAME_LENGTH} characters (got ${name.length})`;
  if (/[{}]/.test(name)) return 'must not hold "{" or "}": the SDK wraps the name in its own hash tag, so two names never share keys';
  return undefined;
}
