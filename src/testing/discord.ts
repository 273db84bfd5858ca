/**
 * Discord's named numbers that the testing kit needs and the SDK itself does
 * not (the SDK's own live in src/core/constants.ts and src/gateway/protocol.ts).
 *
 * @module
 */

/** `data.type` of an application command. */
export const ApplicationCommandType = { ChatInput: 1 } as const;

/** The `type` of a command option. */
const ApplicationCommandOptionType = { String: 3, Integer: 4, Boolean: 5, Number: 10 } as const;

/** The option type Discord would give a value of an option the command does not declare. */
export function optionTypeOf(value: string | number | boolean): number {
  if (typeof value === 'number') return Number.isInteger(value) ? ApplicationCommandOptionType.Integer : ApplicationCommandOptionType.Number;
  return typeof value === 'boolean' ? ApplicationCommandOptionType.Boolean : ApplicationCommandOptionType.String;
}

/** The `type` of a message component. */
export const ComponentType = { ActionRow: 1, Button: 2, StringSelect: 3, TextInput: 4 } as const;

/** The `type` of a channel. */
export const ChannelType = { GuildText: 0, DM: 1 } as const;

/** Where an interaction was triggered (`context`). */
export const InteractionContextType = { Guild: 0, BotDM: 1, PrivateChannel: 2 } as const;

/** Installation contexts, the keys of `authorizing_integration_owners`. */
export const ApplicationIntegrationType = { GuildInstall: '0', UserInstall: '1' } as const;

/** Permission bits (as strings on the wire). */
export const Permission = {
  ViewChannel: 1n << 10n,
  SendMessages: 1n << 11n,
  EmbedLinks: 1n << 14n,
  AttachFiles: 1n << 15n,
  ReadMessageHistory: 1n << 16n,
  UseExternalEmojis: 1n << 18n,
  ManageWebhooks: 1n << 29n,
} as const;

/** Gateway opcodes a client may send that the emulator accepts without acting on them. */
export const IgnoredGatewayOpcode = {
  /** Presence update. */
  PresenceUpdate: 3,
  /** Voice state update. */
  VoiceStateUpdate: 4,
  /** Request guild members. */
  RequestGuildMembers: 8,
  /** Request soundboard sounds. */
  RequestSoundboardSounds: 31,
} as const;

/** Gateway intents the emulator acts on. */
export const GatewayIntent = { Guilds: 1 << 0 } as const;

/** The dispatch that completes an unavailable community after READY (with the GUILDS intent). */
export const GUILD_CREATE = 'GUILD_CREATE';

/** The Gateway version the emulator speaks (Discord's current one). */
export const GATEWAY_VERSION = 10;

/** The interaction payload version. */
export const INTERACTION_VERSION = 1;
