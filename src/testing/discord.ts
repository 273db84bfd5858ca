/**
 * Discord's named numbers that the testing kit needs and the SDK itself does
 * not (the SDK's own live in src/constants.ts and src/gateway/protocol.ts).
 *
 * @module
 */

/** `data.type` of an application command. */
export const ApplicationCommandType = { ChatInput: 1 } as const;

/** The `type` of a command option. */
export const ApplicationCommandOptionType = { String: 3, Integer: 4, Boolean: 5, Number: 10 } as const;

/** The `type` of a message component. */
export const ComponentType = { ActionRow: 1, Button: 2, StringSelect: 3, TextInput: 4 } as const;

/** The interaction payload version. */
export const INTERACTION_VERSION = 1;
