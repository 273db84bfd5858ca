/**
 * Run-time checks of what a bot sends in components and modal forms, with
 * Discord's limits (the types in `core/components.ts` catch misspelled fields
 * at compile time; these catch what only the values show). Loose objects:
 * fields Discord has and the types do not are passed through.
 *
 * @module
 */

import * as z from 'zod';
import { countCharacters } from './text.js';

/** A string of `min` to `max` characters (counted as the service counts them). */
const text = (min: number, max: number) =>
  z.string().check((ctx) => {
    const length = countCharacters(ctx.value);
    if (length < min || length > max) ctx.issues.push({ code: 'custom', input: ctx.value, message: `must be ${min} to ${max} characters (got ${length})` });
  });

const customId = text(1, 100);

const emoji = z.looseObject({ id: z.string().optional(), name: z.string().optional(), animated: z.boolean().optional() });

/** A button: an interactive one has a `custom_id` and no `url`; a link (style 5) the reverse. */
const button = z
  .looseObject({
    type: z.literal(2),
    style: z.union([z.literal(1), z.literal(2), z.literal(3), z.literal(4), z.literal(5)]),
    label: text(0, 80).optional(),
    emoji: emoji.optional(),
    custom_id: customId.optional(),
    url: text(1, 512).optional(),
    disabled: z.boolean().optional(),
  })
  .check((ctx) => {
    const { style, custom_id: id, url, label, emoji: icon } = ctx.value;
    if (style === 5 && (url === undefined || id !== undefined))
      ctx.issues.push({ code: 'custom', input: ctx.value, message: 'a link button (style 5) needs a url and takes no custom_id' });
    if (style !== 5 && (id === undefined || url !== undefined))
      ctx.issues.push({ code: 'custom', input: ctx.value, message: `a button of style ${style} needs a custom_id and takes no url` });
    if ((label === undefined || label === '') && icon === undefined)
      ctx.issues.push({ code: 'custom', input: ctx.value, message: 'a button needs a label or an emoji' });
  });

const selectOption = z.looseObject({
  label: text(1, 100),
  value: text(1, 100),
  description: text(0, 100).optional(),
  emoji: emoji.optional(),
  default: z.boolean().optional(),
});

const stringSelect = z
  .looseObject({
    type: z.literal(3),
    custom_id: customId,
    options: z.array(selectOption).min(1).max(25),
    placeholder: text(0, 150).optional(),
    min_values: z.int().min(0).max(25).optional(),
    max_values: z.int().min(1).max(25).optional(),
    disabled: z.boolean().optional(),
  })
  .check((ctx) => {
    const { min_values: min = 1, max_values: max = 1, options } = ctx.value;
    if (min > max) ctx.issues.push({ code: 'custom', input: ctx.value, message: `min_values (${min}) is more than max_values (${max})` });
    if (max > options.length) ctx.issues.push({ code: 'custom', input: ctx.value, message: `max_values (${max}) is more than its ${options.length} options` });
  });

/** A message row: 1 to 5 buttons, or exactly one select menu. */
const messageRow = z
  .looseObject({
    type: z.literal(1),
    components: z.array(z.discriminatedUnion('type', [button, stringSelect])).min(1),
  })
  .check((ctx) => {
    const { components } = ctx.value;
    const selects = components.filter((component) => component.type === 3).length;
    if (selects > 0 && components.length > 1)
      ctx.issues.push({ code: 'custom', input: ctx.value, path: ['components'], message: 'a row with a select menu holds nothing else' });
    if (selects === 0 && components.length > 5)
      ctx.issues.push({ code: 'custom', input: ctx.value, path: ['components'], message: `a row holds at most 5 buttons (got ${components.length})` });
  });

/** A message's `components`: at most 5 rows, and no `custom_id` twice. */
export const messageComponentsSchema = z
  .array(messageRow)
  .max(5)
  .check((ctx) => {
    const seen = new Set<string>();
    for (const row of ctx.value)
      for (const component of row.components) {
        const id = (component as { custom_id?: string }).custom_id;
        if (id === undefined) continue;
        if (seen.has(id)) ctx.issues.push({ code: 'custom', input: id, message: `custom_id "${id}" is used twice in one message` });
        seen.add(id);
      }
  });

const textInput = z
  .looseObject({
    type: z.literal(4),
    custom_id: customId,
    style: z.union([z.literal(1), z.literal(2)]),
    label: text(1, 45),
    min_length: z.int().min(0).max(4000).optional(),
    max_length: z.int().min(1).max(4000).optional(),
    required: z.boolean().optional(),
    value: text(0, 4000).optional(),
    placeholder: text(0, 100).optional(),
  })
  .check((ctx) => {
    const { min_length: min, max_length: max } = ctx.value;
    if (min !== undefined && max !== undefined && min > max)
      ctx.issues.push({ code: 'custom', input: ctx.value, message: `min_length (${min}) is more than max_length (${max})` });
  });

/** A modal form: a title, and 1 to 5 rows of one text input each. */
export const modalFormSchema = z.looseObject({
  custom_id: customId,
  title: text(1, 45),
  components: z
    .array(z.looseObject({ type: z.literal(1), components: z.tuple([textInput]) }))
    .min(1)
    .max(5),
});
