/**
 * The public types of request bodies, as the caller writes them: plain
 * TypeScript, no zod type (zod is no part of the published API). Each one is
 * checked against what its schema in `requests.ts` accepts, both ways, so the
 * two cannot drift apart.
 *
 * @module
 */

import type { InteractionCallbackType } from '../core/constants.js';

/** A choice of a command option. */
export interface CommandOptionChoice {
  /** What the user sees, 1 to 100 characters. */
  name: string;
  /** What the command receives. */
  value: string | number;
}

/** A command option descriptor as the caller writes it (Discord's shape: a misspelled field fails to compile). */
export interface CommandOption {
  /** Option type: an {@link ApplicationCommandOptionType} value. */
  type: number;
  /** Option name, 1 to 32 characters. */
  name: string;
  /** Option description, 1 to 100 characters. */
  description: string;
  /** Whether the user must fill it in. @default false */
  required?: boolean | undefined;
  /** Whether the bot offers autocomplete results for it. @default false */
  autocomplete?: boolean | undefined;
  /** Fixed choices, at most 25. @default undefined */
  choices?: readonly CommandOptionChoice[] | undefined;
  /** Smallest value of an integer or number option. @default undefined */
  min_value?: number | undefined;
  /** Largest value of an integer or number option. @default undefined */
  max_value?: number | undefined;
  /** Shortest value of a string option, 0 to 6000. @default undefined */
  min_length?: number | undefined;
  /** Longest value of a string option, 1 to 6000. @default undefined */
  max_length?: number | undefined;
  /** Channel types a channel option accepts (Discord's numbering). @default undefined (every type) */
  channel_types?: readonly number[] | undefined;
  /** Nested options, for sub-commands and groups, at most 25. @default undefined */
  options?: readonly CommandOption[] | undefined;
}

/** A slash command definition as the caller writes it (the contract's CreateCommandRequest: a misspelled field fails to compile). */
export interface CommandDefinition {
  /** Command name: 1 to 32 letters, digits, `-` or `_`, sent lowercased. */
  name: string;
  /** Command description, 1 to 100 characters. */
  description: string;
  /** Typed option descriptors, at most 25. @default undefined */
  options?: readonly CommandOption[] | undefined;
  /** Whether the command is usable in direct messages. @default true */
  dm_permission?: boolean | undefined;
  /** The permissions a member needs to see the command, as a bit set in a string (Discord's field; the contract does not show it). @default undefined */
  default_member_permissions?: string | null | undefined;
  /** The name in other locales (Discord's field). @default undefined */
  name_localizations?: Readonly<Record<string, string>> | null | undefined;
  /** The description in other locales (Discord's field). @default undefined */
  description_localizations?: Readonly<Record<string, string>> | null | undefined;
}

/** A message for an incoming webhook. */
export interface WebhookMessage {
  /** Fields the SDK does not know are passed through untouched. */
  [field: string]: unknown;
  /** Message text, 1 to 2000 characters. */
  content: string;
  /** Overrides the displayed author name. @default undefined (the webhook's name) */
  username?: string | undefined;
}
/** Body for creating a community webhook. */
export interface CreateGuildWebhookRequest {
  /** Fields the SDK does not know are passed through untouched. */
  [field: string]: unknown;
  /** Webhook name. */
  name: string;
  /** The channel the webhook posts to. */
  channel_id: string;
}
/** Login credentials. */
export interface LoginCredentials {
  /** E-mail address. */
  email: string;
  /** Password. */
  password: string;
}
/** Page selection for paginated lists. */
export interface PageQuery {
  /** Page number, starting at 1. @default 1 */
  page?: number | undefined;
  /** Items per page. @default 50 */
  perPage?: number | undefined;
}
/** An interaction callback body. */
export interface InteractionResponse {
  /** Fields the SDK does not know are passed through untouched. */
  [field: string]: unknown;
  /** Callback type: 1 pong, 4 message, 5 deferred message, 6 deferred update, 8 autocomplete, 9 modal. */
  interaction_type: InteractionCallbackType;
  /** Callback data; for type 4 it carries `content`. @default {} */
  data?: { [field: string]: unknown } | undefined;
}
/** Body of CreateApplicationRequest (fields assumed). */
export interface CreateApplicationRequest {
  /** Fields the SDK does not know are passed through untouched. */
  [field: string]: unknown;
  /** The application's name (not empty). @default undefined */
  name?: string | undefined;
  /** The application's description. @default undefined */
  description?: string | undefined;
}
/** Body of UpdateApplicationRequest (fields not shown). */
export interface UpdateApplicationRequest {
  /** Fields the SDK does not know are passed through untouched. */
  [field: string]: unknown;
}
/** Body of UpdateBotRequest (fields assumed). */
export interface UpdateBotRequest {
  /** Fields the SDK does not know are passed through untouched. */
  [field: string]: unknown;
  /** The bot user's new username. @default undefined */
  username?: string | undefined;
}
/** Body of CreateWebhookRequest, application scope (fields assumed). */
export interface CreateApplicationWebhookRequest {
  /** Fields the SDK does not know are passed through untouched. */
  [field: string]: unknown;
  /** The URL the service delivers events to. @default undefined */
  url?: string | undefined;
  /** The event names to deliver. @default undefined */
  events?: string[] | undefined;
}
/** Body of UpdateWebhookRequest, application scope (fields not shown). */
export interface UpdateApplicationWebhookRequest {
  /** Fields the SDK does not know are passed through untouched. */
  [field: string]: unknown;
}
/** Body of the PATCH on the webhook-token path (fields assumed). */
export interface UpdateWebhookRequest {
  /** Fields the SDK does not know are passed through untouched. */
  [field: string]: unknown;
  /** The webhook's new name. @default undefined */
  name?: string | undefined;
}
/** Body of UpdateChannelRequest (fields assumed). */
export interface UpdateChannelRequest {
  /** Fields the SDK does not know are passed through untouched. */
  [field: string]: unknown;
  /** The channel's new name. @default undefined */
  name?: string | undefined;
  /** The channel's new topic. @default undefined */
  topic?: string | undefined;
}
/** Body of CreateActivityRequest (fields not shown). */
export interface CreateActivityRequest {
  /** Fields the SDK does not know are passed through untouched. */
  [field: string]: unknown;
}
/** Body of PlayPauseRequest (fields assumed). */
export interface PlayPauseRequest {
  /** Fields the SDK does not know are passed through untouched. */
  [field: string]: unknown;
  /** `true` to pause the activity's playback, `false` to resume it. @default undefined */
  paused?: boolean | undefined;
}
/** Body of SeekRequest (fields assumed). */
export interface SeekRequest {
  /** Fields the SDK does not know are passed through untouched. */
  [field: string]: unknown;
  /** The playback position to seek to, milliseconds (0 or more). @default undefined */
  position_ms?: number | undefined;
}
/** Body of StateUpdateRequest (fields not shown). */
export interface StateUpdateRequest {
  /** Fields the SDK does not know are passed through untouched. */
  [field: string]: unknown;
}
/** Body of ForgotPasswordRequest (fields assumed). */
export interface ForgotPasswordRequest {
  /** Fields the SDK does not know are passed through untouched. */
  [field: string]: unknown;
  /** The account's email address, where the reset link is sent. @default undefined */
  email?: string | undefined;
}
/** Body of ResetPasswordRequest (fields assumed). */
export interface ResetPasswordRequest {
  /** Fields the SDK does not know are passed through untouched. */
  [field: string]: unknown;
  /** The reset token from the email's link (a secret). @default undefined */
  token?: string | undefined;
  /** The new password (a secret). @default undefined */
  password?: string | undefined;
}
