/**
 * The interaction callback: acknowledged once (autocomplete results may
 * repeat), within the interaction token's 15-minute lifetime.
 *
 * @module
 */

import { INTERACTION_LIFETIME_MS, InteractionCallbackType } from '../../../constants.js';
import * as schemas from '../../../schemas/requests.js';
import { HttpError, noContent, validate } from '../responses.js';
import type { EmulatedCallback } from '../types.js';
import type { HandlersOf } from './types.js';

export const interactionHandlers = {
  'interactions.respond': ({ state, request, params, caller }) => {
    const { app } = caller;
    const interaction = state.interactions.get(params.interaction_id);
    if (!interaction || interaction.applicationId !== app.id) throw new HttpError(404, 'Unknown interaction', 10062);
    if (state.now() >= interaction.createdAt + INTERACTION_LIFETIME_MS) throw new HttpError(404, 'Unknown interaction (its token expired after 15 minutes)', 10062);
    const body = validate(schemas.interactionResponseSchema, request.body);
    const type = body.interaction_type;
    const autocomplete = InteractionCallbackType.ApplicationCommandAutocompleteResult;
    if (interaction.acknowledgedWith !== undefined && !(type === autocomplete && interaction.acknowledgedWith === autocomplete)) {
      throw new HttpError(400, 'Interaction has already been acknowledged.', 40060);
    }
    interaction.acknowledgedWith = type;
    const callback: EmulatedCallback = { interactionType: type, data: body.data, at: state.now() };
    interaction.callbacks.push(callback);
    if (type === InteractionCallbackType.ChannelMessageWithSource) {
      state.post(interaction.channelId, String(body.data['content']), { kind: 'bot', id: app.bot.id, name: app.bot.username }, 'interaction');
    }
    for (const waiter of interaction.waiters.splice(0)) waiter(callback);
    return noContent();
  },
} satisfies HandlersOf<'interactions'>;
