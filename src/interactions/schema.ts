/**
 * The zod schema of INTERACTION_CREATE payloads. Only the fields the SDK
 * relies on are checked; every other field is kept.
 *
 * @module
 */

import { z } from 'zod';

/** Validates an interaction payload (Discord's shape), keeping unknown fields. */
export const interactionPayloadSchema = z.looseObject({
  id: z.string().min(1),
  type: z.int(),
  token: z.string().min(1),
  application_id: z.string().optional(),
  data: z.looseObject({}).optional(),
  guild_id: z.string().optional(),
  channel_id: z.string().optional(),
});
