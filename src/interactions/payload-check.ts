/**
 * The check of an INTERACTION_CREATE payload on the per-event path: the same
 * rules as {@link interactionPayloadSchema} (`schema.ts`), written out as
 * plain code. The schema stays the reference and the source of the issues a
 * refused payload is reported with; this check only answers yes or no, with
 * no copy, closure or array per payload (zod's compiled validator builds
 * both, about 0.4 µs a payload). A test runs both on thousands of mutated
 * payloads and fails on any disagreement.
 *
 * @module
 */

import type { InteractionPayload } from './types.js';

type Fields = Record<string, unknown>;

const isObject = (value: unknown): value is Fields => typeof value === 'object' && value !== null && !Array.isArray(value);
const optionalString = (value: unknown): boolean => value === undefined || typeof value === 'string';
const optionalInt = (value: unknown): boolean => value === undefined || Number.isSafeInteger(value);
const optionalBoolean = (value: unknown): boolean => value === undefined || typeof value === 'boolean';
const nonEmptyString = (value: unknown): boolean => typeof value === 'string' && value.length > 0;

/** `z.array(...).optional()`: absent, or an array whose every item passes. */
function optionalArray(value: unknown, item: (value: unknown, depth: number) => boolean, depth = 0): boolean {
  if (value === undefined) return true;
  if (!Array.isArray(value)) return false;
  for (let i = 0; i < value.length; i++) if (!item(value[i], depth)) return false;
  return true;
}

const isStringItem = (value: unknown): boolean => typeof value === 'string';

/** A user: an `id` string, an optional `username` string. */
const isUser = (value: unknown): boolean => isObject(value) && typeof value['id'] === 'string' && optionalString(value['username']);

/** The optional value of an option: a string, a finite number or a boolean. */
function optionalOptionValue(value: unknown): boolean {
  if (value === undefined) return true;
  const type = typeof value;
  return type === 'string' || type === 'boolean' || (type === 'number' && Number.isFinite(value));
}

/** An option at `depth` (0: the command's, 1: a group's or sub-command's, 2: values, which nest nothing). */
function isOption(value: unknown, depth: number): boolean {
  if (!isObject(value)) return false;
  if (typeof value['name'] !== 'string' || !optionalInt(value['type']) || !optionalOptionValue(value['value']) || !optionalBoolean(value['focused']))
    return false;
  return depth >= 2 ? value['options'] === undefined : optionalArray(value['options'], isOption, depth + 1);
}

/** An input of a modal row: optional `custom_id` and `value` strings. */
const isModalInput = (value: unknown): boolean => isObject(value) && optionalString(value['custom_id']) && optionalString(value['value']);

/** A modal row: optional `components`, an array of inputs. */
const isModalRow = (value: unknown): boolean => isObject(value) && optionalArray(value['components'], isModalInput);

/** The `data` of a command, autocomplete, component or modal submit. */
function isData(value: unknown): boolean {
  if (!isObject(value)) return false;
  return (
    optionalString(value['name']) &&
    optionalString(value['custom_id']) &&
    optionalArray(value['values'], isStringItem) &&
    optionalArray(value['options'], isOption) &&
    optionalArray(value['components'], isModalRow)
  );
}

/** Whether `value` passes {@link interactionPayloadSchema}; unknown fields are allowed (and kept) at every level. */
export function isInteractionPayload(value: unknown): value is InteractionPayload {
  if (!isObject(value)) return false;
  if (!nonEmptyString(value['id']) || !Number.isSafeInteger(value['type']) || !nonEmptyString(value['token'])) return false;
  if (!optionalString(value['application_id']) || !optionalString(value['guild_id']) || !optionalString(value['channel_id'])) return false;
  const data = value['data'];
  if (data !== undefined && !isData(data)) return false;
  const member = value['member'];
  if (member !== undefined && !(isObject(member) && (member['user'] === undefined || isUser(member['user'])))) return false;
  const user = value['user'];
  if (user !== undefined && !isUser(user)) return false;
  const created = value['created_at'];
  return created === undefined || typeof created === 'string' || (typeof created === 'number' && Number.isFinite(created));
}
