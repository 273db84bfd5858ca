/**
 * The one rule of an INTERACTION_CREATE payload: what the interaction builder
 * reads, described once as a shape (`core/shape.ts`). From it come the check
 * every event goes through, emitted as plain code into
 * `payload-check.generated.ts` (no copy, closure or array per payload; its
 * test writes it again when the shape changes and fails when it is stale),
 * and the issues of a refused payload (a path and a message per offending
 * field, for its `ValidationError`), compiled at load. Strings are strings and arrays
 * are arrays, so a payload that passes can always be built; every other field
 * is allowed and kept as it is. No zod: a Gateway that never sends a request
 * body never loads it.
 *
 * @module
 */

import type { ValidationIssue } from '../errors/local.js';
import {
  absent,
  arrayOf,
  boolean,
  compileIssues,
  finiteNumber,
  type Infer,
  nonEmptyString,
  object,
  oneOf,
  optional,
  type Shape,
  safeInteger,
  string,
} from '../core/shape.js';
import { checkInteractionPayload } from './payload-check.generated.js';
import type { InteractionPayload } from './types.js';

/** A user as carried by an interaction. */
const user = object({ id: string, username: optional(string) });

/** The fields of a received option the builder reads. */
const optionFields = {
  name: string,
  type: optional(safeInteger),
  value: optional(oneOf(string, finiteNumber, boolean)),
  focused: optional(boolean),
};

/**
 * Options nest at most three levels (Discord's sub-command group, sub-command,
 * then values), so the shape spells the three levels out instead of referring
 * to itself: the walks go no deeper than this however deep a payload nests,
 * and a payload nested deeper than Discord ever sends is refused.
 */
const valueOption = object({ ...optionFields, options: absent('options nest at most three levels') });
const subcommandOption = object({ ...optionFields, options: optional(arrayOf(valueOption)) });
const option = object({ ...optionFields, options: optional(arrayOf(subcommandOption)) });

/** A modal row: inputs with a custom id and a text value. */
const modalRow = object({ components: optional(arrayOf(object({ custom_id: optional(string), value: optional(string) }))) });

/** The `data` of a command, autocomplete, component or modal submit. */
const data = object({
  name: optional(string),
  custom_id: optional(string),
  values: optional(arrayOf(string)),
  options: optional(arrayOf(option)),
  components: optional(arrayOf(modalRow)),
});

/** An interaction payload (Discord's shape). */
const payload = object({
  id: nonEmptyString,
  type: safeInteger,
  token: nonEmptyString,
  application_id: optional(string),
  data: optional(data),
  guild_id: optional(string),
  channel_id: optional(string),
  member: optional(object({ user: optional(user) })),
  user: optional(user),
  created_at: optional(oneOf(string, finiteNumber)),
});

/** The rule itself, for the test that emits its check into `payload-check.generated.ts`. */
export const payloadShape: Shape = payload;

/** Whether `value` is an interaction payload the builder can read; allocates nothing. */
export const isInteractionPayload = checkInteractionPayload as (value: unknown) => value is InteractionPayload;

/** Every field of `value` that keeps it from being an interaction payload (empty exactly when {@link isInteractionPayload} says yes). */
export const interactionPayloadIssues: (value: unknown) => ValidationIssue[] = compileIssues(payload);

// What the shape accepts is an InteractionPayload, checked by the compiler: a shape that drifts from the type fails to compile.
type Expect<T extends true> = T;
// biome-ignore lint/correctness/noUnusedVariables: a compile-time check, read by tsc only
type ShapeIsPayload = Expect<Infer<typeof payload> extends InteractionPayload ? true : false>;
