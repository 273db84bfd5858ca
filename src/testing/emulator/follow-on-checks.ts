/**
 * The checks of a click or a modal submit against what the bot sent (the
 * stored message's component, the stored modal): input no real client could
 * send (values on a button, a choice not among a select menu's options, a
 * field the modal does not hold, a required one left out, a second submit of
 * one modal) is refused with a `ValidationError` naming the field, instead of
 * reaching the bot.
 *
 * @module
 */

import { ComponentType } from '../../core/constants.js';
import { ValidationError, type ValidationIssue } from '../../errors/local.js';

type Shape = Record<string, unknown>;

/** Every component in a tree of rows (and of containers, sections and labels), depth first. */
function* componentsIn(value: unknown): Generator<Shape> {
  if (Array.isArray(value)) {
    for (const item of value) yield* componentsIn(item);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const component = value as Shape;
  yield component;
  for (const key of ['components', 'component', 'accessory']) yield* componentsIn(component[key]);
}

const bound = (value: unknown, fallback: number): number => (typeof value === 'number' && Number.isInteger(value) ? value : fallback);

function fail(operation: string, issue: ValidationIssue): never {
  throw new ValidationError(operation, [issue]);
}

/**
 * The component with `customId` among a message's `components`, checked
 * against the click: a button takes no `values`; a select menu takes from
 * `min_values` to `max_values` distinct values (1 by default), and a string
 * select only values among its options. Returns the component's type.
 */
export function checkClick(components: unknown, messageId: string, customId: string, values: readonly string[] | undefined): number {
  const operation = 'emulator.clickComponent';
  const found = [...componentsIn(components)].find((component) => component['custom_id'] === customId);
  if (found === undefined)
    fail(operation, { path: 'customId', message: `message ${messageId} carries no component with custom_id ${JSON.stringify(customId)}` });
  if (found['disabled'] === true) fail(operation, { path: 'customId', message: `component ${JSON.stringify(customId)} is disabled: no user can use it` });
  const type = bound(found['type'], ComponentType.Button);
  if (type === ComponentType.Button) {
    if (values !== undefined) fail(operation, { path: 'values', message: `component ${JSON.stringify(customId)} is a button: a click sends no values` });
    return type;
  }
  const chosen = values ?? [];
  const min = bound(found['min_values'], 1);
  const max = bound(found['max_values'], 1);
  if (chosen.length < min || chosen.length > max)
    fail(operation, { path: 'values', message: `select menu ${JSON.stringify(customId)} takes from ${min} to ${max} values (got ${chosen.length})` });
  if (new Set(chosen).size !== chosen.length)
    fail(operation, { path: 'values', message: `a select menu sends each value once (got ${JSON.stringify(chosen)})` });
  if (type === ComponentType.StringSelect) {
    const options = Array.isArray(found['options']) ? (found['options'] as Shape[]).map((option) => option['value']) : [];
    const unknown = chosen.find((value) => !options.includes(value));
    if (unknown !== undefined)
      fail(operation, {
        path: 'values',
        message: `${JSON.stringify(unknown)} is not an option of select menu ${JSON.stringify(customId)} (its values: ${options.join(', ')})`,
      });
  }
  return type;
}

/**
 * The fields of a modal submit, checked against the modal the bot opened
 * (`modal`: its callback's data): every field one of its text inputs, every
 * required one (the default) given non-empty, each within its
 * `min_length`/`max_length`.
 */
export function checkSubmit(modal: Shape, fields: Readonly<Record<string, string>>): void {
  const operation = 'emulator.submitModal';
  const inputs = new Map<string, Shape>();
  for (const component of componentsIn(modal['components']))
    if (component['type'] === ComponentType.TextInput && typeof component['custom_id'] === 'string') inputs.set(component['custom_id'], component);
  const issues: ValidationIssue[] = [];
  const held = [...inputs.keys()].join(', ');
  for (const id of Object.keys(fields))
    if (!inputs.has(id))
      issues.push({ path: `fields.${id}`, message: `modal ${JSON.stringify(modal['custom_id'])} holds no text input ${id} (its inputs: ${held})` });
  for (const [id, input] of inputs) {
    const value = Object.hasOwn(fields, id) ? (fields[id] ?? '') : '';
    if (value === '') {
      if (input['required'] !== false) issues.push({ path: `fields.${id}`, message: 'is required by the modal: a user cannot submit it empty' });
      continue;
    }
    const min = bound(input['min_length'], 0);
    const max = bound(input['max_length'], 4000);
    if (value.length < min || value.length > max)
      issues.push({ path: `fields.${id}`, message: `must be from ${min} to ${max} characters (got ${value.length})` });
  }
  if (issues.length > 0) throw new ValidationError(operation, issues);
}
