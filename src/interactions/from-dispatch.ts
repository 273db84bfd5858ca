/**
 * Turns an INTERACTION_CREATE dispatch into a typed interaction. The Gateway
 * loads it with the connection (it pulls in zod, for the issues of a refused
 * payload), so importing the SDK does not pay for it.
 *
 * @module
 */

import { ValidationError } from '../errors/index.js';
import { toIssues } from '../schemas/requests.js';
import { createInteraction, type Interaction } from './interaction.js';
import { isInteractionPayload } from './payload-check.js';
import { interactionPayloadSchema } from './schema.js';
import type { InteractionPayload, InteractionResponder } from './types.js';

/** The interaction built from a dispatch, or why none could be. */
export type InteractionFromDispatch = { ok: true; interaction: Interaction } | { ok: false; error: Error };

/** Validates an INTERACTION_CREATE payload and builds its typed interaction; never throws. */
export function interactionFromDispatch(payload: unknown, respond: InteractionResponder, now: () => number): InteractionFromDispatch {
  try {
    // The schema only checks (loose objects, no transforms), so a valid payload is used as it is, without the parser's copy.
    // The check on the way is the schema's rules written out (payload-check.ts); only a payload it refuses goes to the
    // schema, which has the last word and the issues.
    if (!isInteractionPayload(payload)) {
      const result = interactionPayloadSchema.safeParse(payload);
      if (!result.success) return { ok: false, error: new ValidationError('INTERACTION_CREATE', toIssues(result.error)) };
    }
    return { ok: true, interaction: createInteraction(payload as InteractionPayload, respond, now) };
  } catch (error) {
    // The last line of defence, never a crash: the schema describes what the builder reads, so only a builder bug gets here.
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, error: new ValidationError('INTERACTION_CREATE', [{ path: '', message: `the interaction could not be built: ${message}` }]) };
  }
}
