/**
 * The interaction callback: acknowledged once (autocomplete results may
 * repeat), within the interaction token's 15-minute lifetime. Served at the
 * contract's route (bot token, `interaction_type`) and at Discord's own
 * (token in the path, `type`), so Discord client libraries can answer too.
 *
 * @module
 */

import { INTERACTION_LIFETIME_MS, InteractionCallbackType } from '../../../core/constants.js';
import { messageView } from '../views.js';
import * as schemas from '../../../schemas/requests.js';
import { HttpError, json, noContent, parseBody, validate, validateValue } from '../responses.js';
import type { Application, EmulatorState, Interaction } from '../state.js';
import type { EmulatedCallback, EmulatorRequest, EmulatorResponse } from '../types.js';
import type { HandlersOf } from './types.js';

type CallbackBody = ReturnType<(typeof schemas.interactionResponseSchema)['parse']>;

/** An interaction that `owns` accepts, still within its lifetime (404, code 10062, otherwise). */
function liveInteraction(state: EmulatorState, id: string, owns: (interaction: Interaction) => boolean): Interaction {
  const interaction = state.interactions.get(id);
  if (!interaction || !owns(interaction)) throw new HttpError(404, 'Unknown interaction', 10062);
  if (state.now() >= interaction.createdAt + INTERACTION_LIFETIME_MS)
    throw new HttpError(404, 'Unknown interaction (its token expired after 15 minutes)', 10062);
  return interaction;
}

/** Discord's ephemeral flag: the message is seen by the interaction's user only. */
const EPHEMERAL = 64;

/** The flags of an answer, and who alone sees it when it is ephemeral (the interaction's user). */
function visibility(interaction: Interaction, flags: unknown): { flags?: number; visibleTo?: string | undefined } {
  if (typeof flags !== 'number' || !Number.isInteger(flags) || flags <= 0) return {};
  return (flags & EPHEMERAL) !== 0 ? { flags, visibleTo: interaction.userId } : { flags };
}

/** Records an answer: once, except repeated autocomplete results; a message with source is posted to the channel. */
function acknowledge(state: EmulatorState, app: Application, interaction: Interaction, body: CallbackBody): EmulatorResponse {
  const type = body.interaction_type;
  const autocomplete = InteractionCallbackType.ApplicationCommandAutocompleteResult;
  if (interaction.acknowledgedWith !== undefined && !(type === autocomplete && interaction.acknowledgedWith === autocomplete)) {
    throw new HttpError(400, 'Interaction has already been acknowledged.', 40060);
  }
  interaction.acknowledgedWith = type;
  const callback: EmulatedCallback = { interaction_type: type, data: body.data, at: state.now() };
  interaction.callbacks.push(callback);
  if (type === InteractionCallbackType.ChannelMessageWithSource) {
    const components = Array.isArray(body.data['components']) ? (body.data['components'] as unknown[]) : undefined;
    state.post(interaction.channelId, String(body.data['content']), { kind: 'bot', id: app.bot.id, name: app.bot.username }, 'interaction', {
      components,
      interactionId: interaction.id,
      ...visibility(interaction, body.data['flags']),
    });
  }
  for (const waiter of interaction.waiters.splice(0)) waiter.resolve(callback);
  return noContent();
}

export const interactionHandlers = {
  'interactions.respond': ({ state, request, params, caller: { app } }) => {
    const interaction = liveInteraction(state, params.interaction_id, (candidate) => candidate.applicationId === app.id);
    return acknowledge(state, app, interaction, validate(schemas.interactionResponseSchema, request.body));
  },
} satisfies HandlersOf<'interactions'>;

/**
 * Discord's follow-up routes, not contract operations: `POST /webhooks/{application_id}/{interaction_token}`
 * (a follow-up message) and `PATCH .../messages/@original` (edits the original answer; after a deferral,
 * posts it). Either turns a deferred "is thinking" into the message. `content` is required, as in
 * the contract's webhook execution.
 */
export function followUp(state: EmulatorState, request: EmulatorRequest, appId: string, token: string, editOriginal = false): EmulatorResponse {
  const interaction = liveInteraction(
    state,
    [...state.interactions.values()].find((candidate) => candidate.token === token && candidate.applicationId === appId)?.id ?? '',
    () => true,
  );
  const app = state.apps.get(appId);
  if (!app) throw new HttpError(404, 'Unknown Application', 10002);
  if (interaction.acknowledgedWith === undefined) throw new HttpError(404, 'Unknown Webhook (answer the interaction first)', 10015);
  const raw = parseBody(request.body);
  const body = validateValue(schemas.webhookMessageSchema, raw);
  const rawComponents = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>)['components'] : undefined;
  const components = Array.isArray(rawComponents) ? (rawComponents as unknown[]) : undefined;
  const original = editOriginal ? state.messages.get(interaction.channelId)?.find((candidate) => candidate.interactionId === interaction.id) : undefined;
  if (original) {
    original.content = body.content;
    if (components !== undefined) original.components = components;
  }
  const message =
    original ??
    state.post(interaction.channelId, body.content, { kind: 'bot', id: app.bot.id, name: app.bot.username }, 'interaction', {
      components,
      interactionId: interaction.id,
      ...visibility(interaction, typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>)['flags'] : undefined),
    });
  interaction.followedUp = true;
  return json(200, messageView(state, message, app));
}

/** Discord's callback route, POST /interactions/{id}/{token}/callback: not a contract operation; the token in the path authenticates and the body says `type`. */
export function respondWithToken(state: EmulatorState, request: EmulatorRequest, interactionId: string, token: string): EmulatorResponse {
  const interaction = liveInteraction(state, interactionId, (candidate) => candidate.token === token);
  const app = state.apps.get(interaction.applicationId);
  if (!app) throw new HttpError(404, 'Unknown Application', 10002);
  const parsed = parseBody(request.body);
  const { type, ...rest } = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  return acknowledge(state, app, interaction, validateValue(schemas.interactionResponseSchema, { ...rest, interaction_type: type }));
}
