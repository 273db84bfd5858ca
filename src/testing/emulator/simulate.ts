/**
 * Simulating a user: running a slash command (or typing in one) creates an
 * interaction and delivers INTERACTION_CREATE, with the fields current
 * Discord clients require, to the application's webhooks subscribed to it,
 * else to its bot over the Gateway.
 *
 * @module
 */

import { InteractionType } from '../../core/constants.js';
import { InteractionCallbackType } from '../../core/constants.js';
import {
  ApplicationCommandType,
  ApplicationIntegrationType,
  ChannelType,
  ComponentType,
  INTERACTION_VERSION,
  InteractionContextType,
  Permission,
  optionTypeOf,
} from '../discord.js';
import { EmulatorNotFoundError } from '../errors.js';
import { sendInteraction } from './deliveries.js';
import { checkOptions, type OptionProblem } from '../../interactions/options.js';
import { EmulatorInvalidOptionsError, EmulatorNotDeliveredError } from '../errors.js';
import { answerOf, unknownCommand } from './lifecycle.js';
import { checkSimulation } from './inputs.js';
import { checkClick, checkSubmit } from './follow-on-checks.js';
import { ValidationError } from '../../errors/local.js';
import type { Application, Command, EmulatorState, Interaction, User } from './state.js';
import { ATTACHMENT_SIZE_LIMIT, BOT_CHANNEL_PERMISSIONS, EMULATED_LOCALE, messageView } from './views.js';
import type { ComponentInput, EmulatedCallback, InvokeCommandInput, InvokedInteraction, ModalSubmitInput } from './types.js';

function userObject(user: User): Record<string, unknown> {
  return { id: user.id, username: user.username, discriminator: '0', global_name: user.username, avatar: null, bot: false };
}

/** Where an interaction happens: a community channel, or the user's DM with the bot. */
type Place = { guildId: string; channelId: string } | { guildId: undefined; channelId: string };

/** The fields that say where the interaction happened and who ran it. */
function placeFields(state: EmulatorState, place: Place, user: User): Record<string, unknown> {
  if (place.guildId === undefined) {
    return {
      channel: { id: place.channelId, type: ChannelType.DM, recipients: [userObject(user)] },
      channel_id: place.channelId,
      user: userObject(user),
      authorizing_integration_owners: { [ApplicationIntegrationType.GuildInstall]: '0' },
      context: InteractionContextType.BotDM,
    };
  }
  const { guildId, channelId } = place;
  const guild = state.guilds.get(guildId);
  const permissions = guild?.ownerId === user.id || guild?.members.get(user.id)?.manageWebhooks ? Permission.ManageWebhooks : 0n;
  return {
    guild_id: guildId,
    guild: { id: guildId, locale: EMULATED_LOCALE, features: [] },
    guild_locale: EMULATED_LOCALE,
    channel: { id: channelId, type: ChannelType.GuildText, guild_id: guildId, name: state.channels.get(channelId)?.name ?? '' },
    channel_id: channelId,
    member: {
      user: userObject(user),
      roles: [],
      permissions: permissions.toString(),
      joined_at: new Date(state.now()).toISOString(),
      nick: null,
      deaf: false,
      mute: false,
      flags: 0,
      pending: false,
    },
    authorizing_integration_owners: { [ApplicationIntegrationType.GuildInstall]: guildId },
    context: InteractionContextType.Guild,
  };
}

/** The INTERACTION_CREATE payload (Discord's fields). */
function interactionPayload(
  state: EmulatorState,
  interaction: Interaction,
  found: { app: Application; command: Command },
  user: User,
  place: Place,
  input: InvokeCommandInput,
): Record<string, unknown> {
  const { app, command } = found;
  const optionTypes = new Map((command.options as { name: string; type: number }[]).map((option) => [option.name, option.type]));
  const options = Object.entries(input.options ?? {}).map(([name, value]) => ({
    name,
    type: optionTypes.get(name) ?? optionTypeOf(value),
    value,
    ...(input.focused === name ? { focused: true } : {}),
  }));
  return {
    id: interaction.id,
    application_id: app.id,
    type: input.focused !== undefined ? InteractionType.ApplicationCommandAutocomplete : InteractionType.ApplicationCommand,
    data: {
      id: command.id,
      name: command.name,
      type: ApplicationCommandType.ChatInput,
      options,
      ...(command.guild_id === undefined ? {} : { guild_id: command.guild_id }),
    },
    ...placeFields(state, place, user),
    token: interaction.token,
    version: INTERACTION_VERSION,
    app_permissions: BOT_CHANNEL_PERMISSIONS.toString(),
    locale: EMULATED_LOCALE,
    entitlements: [],
    attachment_size_limit: ATTACHMENT_SIZE_LIMIT,
    created_at: new Date(interaction.createdAt).toISOString(),
  };
}

/** Runs a slash command as a user: see `EmulatorCore.invokeCommand`. */
export function invokeCommand(state: EmulatorState, input: InvokeCommandInput): InvokedInteraction {
  checkSimulation('invokeCommand', input, ['name']);
  const user = userFor(state, input.userId);
  const name = input.name.toLowerCase();
  const inDm = input.guildId === null;
  const guildId = input.guildId ?? state.seed.guildId;
  const found = inDm ? state.findDmCommand(name, input.applicationId) : state.findCommand(guildId, name, input.applicationId);
  if (!found) throw unknownCommand(state, name, inDm ? null : guildId, input.applicationId);
  // As the service would: a client cannot send options that do not fit the command, so such an invocation is refused.
  const given = Object.entries(input.options ?? {}).map(([option, value]) => ({ name: option, value, ...(input.focused === option ? { focused: true } : {}) }));
  const problems = [...checkOptions(found.command.options, given), ...focusProblems(found.command.options, input.focused)];
  if (problems.length > 0) throw new EmulatorInvalidOptionsError(name, problems);
  const place: Place = inDm
    ? { guildId: undefined, channelId: input.channelId ?? state.dmChannelOf(found.app.id, user.id) }
    : { guildId, channelId: input.channelId ?? state.seed.channelId };
  const type = input.focused !== undefined ? InteractionType.ApplicationCommandAutocomplete : InteractionType.ApplicationCommand;
  const interaction = newInteraction(state, found.app, place.channelId, type, found.command.name, user.id);
  return deliver(state, found.app, interaction, interactionPayload(state, interaction, found, user, place, input));
}

/** A client sends an autocomplete only for an option defined with `autocomplete: true`: `focused` must name one (at any depth). */
function focusProblems(options: readonly unknown[], focused: string | undefined): OptionProblem[] {
  if (focused === undefined) return [];
  const autocompleted: string[] = [];
  const visit = (list: unknown) => {
    if (!Array.isArray(list)) return;
    for (const option of list as { name?: unknown; autocomplete?: unknown; options?: unknown }[]) {
      if (option.autocomplete === true && typeof option.name === 'string') autocompleted.push(option.name);
      visit(option.options);
    }
  };
  visit(options);
  if (autocompleted.includes(focused)) return [];
  const which = autocompleted.length === 0 ? 'none of its options has autocomplete: true' : `its options with autocomplete: ${autocompleted.join(', ')}`;
  return [{ path: 'focused', message: `must name an option defined with autocomplete: true (got ${JSON.stringify(focused)}; ${which})` }];
}

function newInteraction(state: EmulatorState, app: Application, channelId: string, type: number, label: string, userId: string): Interaction {
  const interaction: Interaction = {
    id: state.id(),
    token: state.token(),
    applicationId: app.id,
    channelId,
    createdAt: state.now(),
    acknowledgedWith: undefined,
    callbacks: [],
    waiters: [],
    type,
    label,
    userId,
  };
  state.interactions.set(interaction.id, interaction);
  return interaction;
}

/** Sends INTERACTION_CREATE to the application's webhooks subscribed to it, else to its bot over the Gateway, and tells the observers. */
function deliver(state: EmulatorState, app: Application, interaction: Interaction, payload: Record<string, unknown>): InvokedInteraction {
  const { delivered, reached, via, deliveryIds } = sendInteraction(state, app, payload);
  const response = reached > 0 ? answerOf(state, interaction) : notDelivered(interaction.id, app.id);
  state.notify({ kind: 'change' });
  return { id: interaction.id, payload, delivered, via, deliveryIds, response, callbacks: () => [...interaction.callbacks] };
}

/** The answer of an interaction that reached no session nor webhook: it rejects at once, typed (marked handled, like every answer). */
function notDelivered(interactionId: string, applicationId: string): Promise<EmulatedCallback> {
  const answer = Promise.reject<EmulatedCallback>(new EmulatorNotDeliveredError(interactionId, applicationId));
  answer.catch(() => undefined);
  return answer;
}

/** The common fields of a component or modal-submit interaction in a community channel. */
function followOnPayload(
  state: EmulatorState,
  interaction: Interaction,
  app: Application,
  user: User,
  type: number,
  data: Record<string, unknown>,
  extra: Record<string, unknown>,
): Record<string, unknown> {
  const guildId = state.channels.get(interaction.channelId)?.guildId;
  const place: Place = guildId === undefined ? { guildId: undefined, channelId: interaction.channelId } : { guildId, channelId: interaction.channelId };
  return {
    id: interaction.id,
    application_id: app.id,
    type,
    data,
    ...placeFields(state, place, user),
    ...extra,
    token: interaction.token,
    version: INTERACTION_VERSION,
    app_permissions: BOT_CHANNEL_PERMISSIONS.toString(),
    locale: EMULATED_LOCALE,
    entitlements: [],
    attachment_size_limit: ATTACHMENT_SIZE_LIMIT,
    created_at: new Date(interaction.createdAt).toISOString(),
  };
}

function userFor(state: EmulatorState, userId: string | undefined): User {
  const user = state.users.get(userId ?? state.seed.user.id);
  if (!user) throw new EmulatorNotFoundError(`unknown user ${String(userId)}`);
  return user;
}

/** A user presses a button or chooses in a select menu of a bot's message: see `EmulatorCore.clickComponent`. */
export function clickComponent(state: EmulatorState, input: ComponentInput): InvokedInteraction {
  checkSimulation('clickComponent', input, ['messageId', 'customId']);
  const user = userFor(state, input.userId);
  const message = [...state.messages.values()].flat().find((candidate) => candidate.id === input.messageId);
  if (message?.author.kind !== 'bot') throw new EmulatorNotFoundError(`no bot message ${input.messageId}`);
  // An ephemeral message is seen by one user only: nobody else can click it.
  if (message.visibleTo !== undefined && message.visibleTo !== user.id)
    throw new EmulatorNotFoundError(`message ${input.messageId} is ephemeral: only user ${message.visibleTo} sees it and can use its components`);
  const app = [...state.apps.values()].find((candidate) => candidate.bot.id === message.author.id);
  if (!app) throw new EmulatorNotFoundError(`the bot of message ${input.messageId} is gone`);
  const componentType = checkClick(message.components, message.id, input.customId, input.values);
  const type = InteractionType.MessageComponent;
  const interaction = newInteraction(state, app, message.channelId, type, input.customId, user.id);
  interaction.messageId = message.id;
  const data = {
    custom_id: input.customId,
    component_type: componentType,
    ...(input.values ? { values: input.values } : {}),
  };
  return deliver(state, app, interaction, followOnPayload(state, interaction, app, user, type, data, { message: messageView(state, message, app) }));
}

/** A user submits the modal a bot opened: see `EmulatorCore.submitModal`. */
export function submitModal(state: EmulatorState, input: ModalSubmitInput): InvokedInteraction {
  checkSimulation('submitModal', input, ['interactionId']);
  const user = userFor(state, input.userId);
  const opener = state.interactions.get(input.interactionId);
  const modal = opener?.callbacks.find((callback) => callback.interaction_type === InteractionCallbackType.Modal);
  const app = opener && state.apps.get(opener.applicationId);
  if (!opener || !modal || !app) throw new EmulatorNotFoundError(`interaction ${input.interactionId} opened no modal (no answer with interaction_type 9)`);
  if (opener.modalSubmitted === true)
    throw new ValidationError('emulator.submitModal', [
      {
        path: 'interactionId',
        message: `the modal interaction ${input.interactionId} opened was already submitted (it closed then; the bot must open it again)`,
      },
    ]);
  checkSubmit(modal.data, input.fields);
  opener.modalSubmitted = true;
  const customId = String(modal.data['custom_id'] ?? '');
  const type = InteractionType.ModalSubmit;
  const interaction = newInteraction(state, app, opener.channelId, type, customId, user.id);
  const rows = Object.entries(input.fields).map(([id, value]) => ({
    type: ComponentType.ActionRow,
    components: [{ type: ComponentType.TextInput, custom_id: id, value }],
  }));
  // As Discord: a modal opened from a component carries that component's message.
  const from = opener.messageId === undefined ? undefined : [...state.messages.values()].flat().find((candidate) => candidate.id === opener.messageId);
  return deliver(
    state,
    app,
    interaction,
    followOnPayload(state, interaction, app, user, type, { custom_id: customId, components: rows }, from ? { message: messageView(state, from, app) } : {}),
  );
}
