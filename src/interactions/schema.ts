/**
 * The zod schema of INTERACTION_CREATE payloads. It describes every field the
 * interaction builder reads (strings are strings, arrays are arrays), so a
 * payload that passes can always be built; every other field is kept.
 *
 * @module
 */

import * as z from 'zod';

/** A user as carried by an interaction. */
const userSchema = z.looseObject({
  id: z.string(),
  username: z.string().optional(),
});

/** A received command option; sub-commands and groups nest options. */
interface ReceivedOptionShape {
  name: string;
  type?: number | undefined;
  value?: string | number | boolean | undefined;
  focused?: boolean | undefined;
  options?: ReceivedOptionShape[] | undefined;
}

/** The fields of a received option the builder reads. */
const optionFields = {
  name: z.string(),
  type: z.int().optional(),
  value: z.union([z.string(), z.number(), z.boolean()]).optional(),
  focused: z.boolean().optional(),
};

/**
 * Options nest at most three levels (Discord's sub-command group, sub-command,
 * then values), so the schema spells the three levels out instead of
 * referring to itself: a schema without a cycle validates without the cycle
 * bookkeeping of a recursive one, and a payload nested deeper than Discord
 * ever sends fails validation instead of exhausting the stack.
 */
const valueOptionSchema = z.looseObject({ ...optionFields, options: z.undefined().optional() });
const subcommandOptionSchema = z.looseObject({ ...optionFields, options: z.array(valueOptionSchema).optional() });
const optionSchema: z.ZodType<ReceivedOptionShape> = z.looseObject({ ...optionFields, options: z.array(subcommandOptionSchema).optional() });

/** A modal row: inputs with a custom id and a text value. */
const modalRowSchema = z.looseObject({
  components: z
    .array(
      z.looseObject({
        custom_id: z.string().optional(),
        value: z.string().optional(),
      }),
    )
    .optional(),
});

/** The `data` of a command, autocomplete, component or modal submit. */
const dataSchema = z.looseObject({
  name: z.string().optional(),
  custom_id: z.string().optional(),
  values: z.array(z.string()).optional(),
  options: z.array(optionSchema).optional(),
  components: z.array(modalRowSchema).optional(),
});

/** Validates an interaction payload (Discord's shape), keeping unknown fields. */
export const interactionPayloadSchema = z.looseObject({
  id: z.string().min(1),
  type: z.int(),
  token: z.string().min(1),
  application_id: z.string().optional(),
  data: dataSchema.optional(),
  guild_id: z.string().optional(),
  channel_id: z.string().optional(),
  member: z.looseObject({ user: userSchema.optional() }).optional(),
  user: userSchema.optional(),
  created_at: z.union([z.string(), z.number()]).optional(),
});
