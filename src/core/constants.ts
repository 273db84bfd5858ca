/**
 * Named numbers of the protocol that the SDK, the Gateway and the emulator
 * share: interaction kinds, callback types, lifetimes and the snowflake epoch.
 *
 * @module
 */

/**
 * The `type` of an interaction payload (Discord's values; the contract does
 * not show the payload, see docs/assumptions.md).
 */
export const InteractionType = {
  /** A ping, answered with {@link InteractionCallbackType.Pong}. */
  Ping: 1,
  /** A slash command. */
  ApplicationCommand: 2,
  /** A button press or select-menu choice. */
  MessageComponent: 3,
  /** The user is typing an option that has autocomplete. */
  ApplicationCommandAutocomplete: 4,
  /** A modal form was submitted. */
  ModalSubmit: 5,
} as const;

/** One of the {@link InteractionType} values. */
export type InteractionType = (typeof InteractionType)[keyof typeof InteractionType];

/** The contract's allowed `interaction_type` values of an interaction callback. */
export const InteractionCallbackType = {
  /** Answers a ping. */
  Pong: 1,
  /** A message with source; `data.content` carries the text. */
  ChannelMessageWithSource: 4,
  /** Acknowledges now and shows "is thinking"; the message follows later. */
  DeferredChannelMessageWithSource: 5,
  /** Acknowledges a component interaction; the original message is updated later. */
  DeferredUpdateMessage: 6,
  /** Autocomplete choices; the only type that may be sent more than once. */
  ApplicationCommandAutocompleteResult: 8,
  /** Opens a modal form. */
  Modal: 9,
} as const;

/** One of the {@link InteractionCallbackType} values. */
export type InteractionCallbackType = (typeof InteractionCallbackType)[keyof typeof InteractionCallbackType];

/** Every allowed `interaction_type` of a callback, in ascending order. */
export const INTERACTION_CALLBACK_TYPES: readonly InteractionCallbackType[] = Object.values(InteractionCallbackType);

/** How long an interaction's token stays valid (contract: 15 minutes). */
export const INTERACTION_LIFETIME_MS = 15 * 60 * 1000;

/** How long an interaction's claim is kept (Redis and in memory): its token lasts 15 minutes, a minute more for clocks apart. */
export const INTERACTION_CLAIM_TTL_MS = INTERACTION_LIFETIME_MS + 60_000;

/** How long a user access token lasts (contract: 15 minutes). */
export const ACCESS_TOKEN_LIFETIME_MS = 15 * 60 * 1000;

/** The epoch of snowflake ids, in epoch milliseconds (Discord's, 2015-01-01T00:00:00Z). */
export const SNOWFLAKE_EPOCH_MS = 1_420_070_400_000;

/** The creation time encoded in a snowflake id (epoch milliseconds), or `undefined` if `id` is not one. */
export function snowflakeTimestamp(id: string): number | undefined {
  if (!/^\d{1,20}$/.test(id)) return undefined;
  const ms = Number(BigInt(id) >> 22n) + SNOWFLAKE_EPOCH_MS;
  return Number.isSafeInteger(ms) ? ms : undefined;
}

/** A snowflake id for `timestampMs` with a 22-bit tail (worker, process and increment bits). */
export function makeSnowflake(timestampMs: number, tail = 0): string {
  return ((BigInt(Math.max(0, Math.floor(timestampMs - SNOWFLAKE_EPOCH_MS))) << 22n) | BigInt(tail & 0x3fffff)).toString();
}

/**
 * The `type` of a command option (Discord's values; the contract does not
 * show command bodies, see docs/assumptions.md).
 */
export const ApplicationCommandOptionType = {
  /** A sub-command; nests options. */
  SubCommand: 1,
  /** A group of sub-commands; nests sub-commands. */
  SubCommandGroup: 2,
  /** A string. */
  String: 3,
  /** An integer. */
  Integer: 4,
  /** A boolean. */
  Boolean: 5,
  /** A user id. */
  User: 6,
  /** A channel id. */
  Channel: 7,
  /** A role id. */
  Role: 8,
  /** A user or role id. */
  Mentionable: 9,
  /** A number (double). */
  Number: 10,
  /** An attachment id. */
  Attachment: 11,
} as const;

/** One of the {@link ApplicationCommandOptionType} values. */
export type ApplicationCommandOptionType = (typeof ApplicationCommandOptionType)[keyof typeof ApplicationCommandOptionType];

/** The `type` of a message component (Discord's values), for `components` of replies and modal forms. */
export const ComponentType = {
  /** A row holding other components. */
  ActionRow: 1,
  /** A button. */
  Button: 2,
  /** A select menu of strings. */
  StringSelect: 3,
  /** A text input (in modal forms). */
  TextInput: 4,
} as const;

/** One of the {@link ComponentType} values. */
export type ComponentType = (typeof ComponentType)[keyof typeof ComponentType];
