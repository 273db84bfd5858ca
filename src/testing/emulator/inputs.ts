/**
 * The checks on what a test asks the emulator to simulate (a command, a
 * click, a modal submit): anything that would build an interaction no client
 * could send, and so one the bot can never answer, is refused at once with a
 * `ValidationError` naming the field.
 *
 * @module
 */

import { refuseUnknownOptions } from '../../core/bounds.js';
import { ValidationError, type ValidationIssue } from '../../errors/local.js';

/** Most values a select menu sends (Discord's `max_values` ceiling). */
const MAX_SELECT_VALUES = 25;
/** Most text inputs a modal holds (Discord's). */
const MAX_MODAL_FIELDS = 5;

/** The fields of each simulation's input, for the unknown-field check. */
const INPUT_FIELDS = {
  invokeCommand: ['name', 'options', 'focused', 'guildId', 'channelId', 'userId', 'applicationId'],
  clickComponent: ['messageId', 'customId', 'channelId', 'values', 'userId'],
  submitModal: ['interactionId', 'fields', 'userId'],
} as const;

type Simulation = keyof typeof INPUT_FIELDS;

function describe(value: unknown): string {
  return Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value === 'string' ? JSON.stringify(value) : typeof value;
}

/** A string field: present when `required`, and never empty. */
function stringIssue(input: Record<string, unknown>, field: string, required: boolean): ValidationIssue | undefined {
  const value = input[field];
  if (value === undefined && !required) return undefined;
  if (typeof value !== 'string' || value === '') return { path: field, message: `must be a non-empty string (got ${describe(value)})` };
  return undefined;
}

/** The problems of a select menu's `values`: an array of at most 25 strings. */
function valuesIssue(values: unknown): ValidationIssue | undefined {
  if (values === undefined) return undefined;
  if (!Array.isArray(values) || values.some((value) => typeof value !== 'string') || values.length > MAX_SELECT_VALUES) {
    return { path: 'values', message: `must be an array of at most ${MAX_SELECT_VALUES} strings, the options chosen (got ${describe(values)})` };
  }
  return undefined;
}

/** The problems of a modal's `fields`: text input values by custom id, strings only. */
function fieldsIssue(fields: unknown): ValidationIssue | undefined {
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) {
    return { path: 'fields', message: `must be an object of text input values by custom_id (got ${describe(fields)})` };
  }
  const entries = Object.entries(fields);
  if (entries.length > MAX_MODAL_FIELDS) return { path: 'fields', message: `a modal holds at most ${MAX_MODAL_FIELDS} text inputs (got ${entries.length})` };
  const bad = entries.find(([, value]) => typeof value !== 'string');
  return bad === undefined ? undefined : { path: `fields.${bad[0]}`, message: `must be a string, the text typed (got ${describe(bad[1])})` };
}

/**
 * Checks the input of `emulator.<simulation>()`; `required` names the string
 * fields it must have. Throws `ValidationError` naming every field at fault.
 */
export function checkSimulation(simulation: Simulation, input: unknown, required: readonly string[] = []): void {
  const operation = `emulator.${simulation}`;
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new ValidationError(operation, [{ path: '', message: `takes an object (got ${describe(input)})` }]);
  }
  refuseUnknownOptions(operation, input, INPUT_FIELDS[simulation]);
  const fields = input as Record<string, unknown>;
  const issues: (ValidationIssue | undefined)[] = ['name', 'messageId', 'customId', 'interactionId', 'channelId', 'userId', 'applicationId', 'focused']
    .filter((field) => (INPUT_FIELDS[simulation] as readonly string[]).includes(field))
    .map((field) => stringIssue(fields, field, required.includes(field)));
  if (simulation === 'clickComponent') issues.push(valuesIssue(fields['values']));
  if (simulation === 'submitModal') issues.push(fieldsIssue(fields['fields']));
  const found = issues.filter((issue) => issue !== undefined);
  if (found.length > 0) throw new ValidationError(operation, found);
}
