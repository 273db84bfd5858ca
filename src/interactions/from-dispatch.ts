/**
 * Turns an INTERACTION_CREATE dispatch into a typed interaction. It loads no
 * zod: the payload's rule and the issues of a refused payload both come from
 * `payload-check.ts`.
 *
 * @module
 */

import { ValidationError } from '../errors/index.js';
import { describeThrown } from '../errors/base.js';
import { createInteraction, type Interaction } from './interaction.js';
import { interactionPayloadIssues, isInteractionPayload } from './payload-check.js';
import type { InteractionResponder } from './types.js';

/** The interaction built from a dispatch, or why none could be. */
export type InteractionFromDispatch = { ok: true; interaction: Interaction } | { ok: false; error: Error };

/** Validates an INTERACTION_CREATE payload and builds its typed interaction; never throws. */
export function interactionFromDispatch(payload: unknown, respond: InteractionResponder, now: () => number): InteractionFromDispatch {
  try {
    // The check only reads (loose objects, no transforms), so a valid payload is used as it is, without a copy; only a
    // refused one is walked again for its issues.
    if (!isInteractionPayload(payload)) return { ok: false, error: new ValidationError('INTERACTION_CREATE', interactionPayloadIssues(payload)) };
    return { ok: true, interaction: createInteraction(payload, respond, now) };
  } catch (error) {
    // The last line of defence, never a crash: the rule describes what the builder reads, so only a builder bug gets here.
    const message = describeThrown(error);
    return { ok: false, error: new ValidationError('INTERACTION_CREATE', [{ path: '', message: `the interaction could not be built: ${message}` }]) };
  }
}
