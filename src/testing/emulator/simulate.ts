/**
 * Simulating a user: running a slash command (or typing in one) creates an
 * interaction and delivers INTERACTION_CREATE to the application's bot over
 * the Gateway.
 *
 * @module
 */

import { InteractionType } from '../../constants.js';
import { GatewayDispatch } from '../../gateway/protocol.js';
import { ApplicationCommandOptionType, ApplicationCommandType, INTERACTION_VERSION } from '../discord.js';
import type { Application, Command, EmulatorState, Interaction, User } from './state.js';
import type { EmulatedCallback, InvokeCommandInput, InvokedInteraction } from './types.js';

function optionType(value: string | number | boolean): number {
  if (typeof value === 'number') return ApplicationCommandOptionType.Number;
  return typeof value === 'boolean' ? ApplicationCommandOptionType.Boolean : ApplicationCommandOptionType.String;
}

/** The INTERACTION_CREATE payload of an interaction in a community channel. */
function interactionPayload(interaction: Interaction, app: Application, command: Command, user: User, guildId: string, input: InvokeCommandInput): Record<string, unknown> {
  const optionTypes = new Map((command.options as { name: string; type: number }[]).map((option) => [option.name, option.type]));
  const options = Object.entries(input.options ?? {}).map(([name, value]) => ({
    name,
    type: optionTypes.get(name) ?? optionType(value),
    value,
    ...(input.focused === name ? { focused: true } : {}),
  }));
  return {
    id: interaction.id,
    application_id: app.id,
    type: input.focused !== undefined ? InteractionType.ApplicationCommandAutocomplete : InteractionType.ApplicationCommand,
    token: interaction.token,
    version: INTERACTION_VERSION,
    guild_id: guildId,
    channel_id: interaction.channelId,
    member: { user: { id: user.id, username: user.username }, permissions: '0' },
    data: { id: command.id, name: command.name, type: ApplicationCommandType.ChatInput, options },
    created_at: new Date(interaction.createdAt).toISOString(),
  };
}

/** Runs a slash command as a user: see `EmulatorCore.invokeCommand`. */
export function invokeCommand(state: EmulatorState, input: InvokeCommandInput): InvokedInteraction {
  const guildId = input.guildId ?? state.seed.guildId;
  const channelId = input.channelId ?? state.seed.channelId;
  const user = state.users.get(input.userId ?? state.seed.user.id);
  if (!user) throw new Error(`unknown user ${String(input.userId)}`);
  const name = input.name.toLowerCase();
  const found = state.findCommand(guildId, name, input.applicationId);
  if (!found) throw new Error(`no command "${name}" is registered for community ${guildId}`);
  const { app, command } = found;
  const interaction: Interaction = { id: state.id(), token: state.token(), applicationId: app.id, channelId, createdAt: state.now(), acknowledgedWith: undefined, callbacks: [], waiters: [] };
  state.interactions.set(interaction.id, interaction);
  const payload = interactionPayload(interaction, app, command, user, guildId, input);
  const delivered = state.gateway?.dispatchToToken(app.bot.token, GatewayDispatch.InteractionCreate, payload) ?? 0;
  const response = new Promise<EmulatedCallback>((resolve) => interaction.waiters.push(resolve));
  return { id: interaction.id, payload, delivered, response, callbacks: () => [...interaction.callbacks] };
}
