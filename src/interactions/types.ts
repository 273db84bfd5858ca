/**
 * The shapes interactions are built from and answered with: the
 * INTERACTION_CREATE payload, the responder, and answer bodies.
 *
 * @module
 */

import type { MessageActionRow, ModalActionRow } from '../core/components.js';
import type { InteractionCallbackType, InteractionType } from '../core/constants.js';

/** Sends a callback body; bound to `client.interactions.respond`. */
export type InteractionResponder = (
  interactionId: string,
  body: { interaction_type: InteractionCallbackType; data: Record<string, unknown> },
  options?: AnswerOptions,
) => Promise<unknown>;

/** The call options an answer takes, as every other call does. */
export interface AnswerOptions {
  /** Cancels the answer wherever it is: waiting on a rate limit, in flight (it may then have reached the service). @default undefined */
  signal?: AbortSignal | undefined;
  /** Per-attempt timeout in milliseconds, overriding the client's. @default the client's `timeoutMs` */
  timeoutMs?: number | undefined;
  /** Overall deadline of the answer in milliseconds, overriding the client's. @default the client's `deadlineMs` */
  deadlineMs?: number | undefined;
}

/** The kinds of interaction, from the payload's `type` (Discord's numbering). */
export type InteractionKind = 'ping' | 'command' | 'component' | 'autocomplete' | 'modalSubmit' | 'unknown';

/** The payload of INTERACTION_CREATE (Discord's shape; unknown fields are kept in `raw`). */
export interface InteractionPayload {
  /** Interaction id. */
  id: string;
  /** Interaction type, one of {@link InteractionType} (or a type the SDK does not know). */
  type: number;
  /** The interaction token (a secret; never exposed by the SDK). */
  token: string;
  /** Application id. */
  application_id?: string;
  /** Command, component or modal data. */
  data?: Record<string, unknown>;
  /** Community id. */
  guild_id?: string;
  /** Channel id. */
  channel_id?: string;
  /** The invoking member (in a community). */
  member?: {
    /** The member's user. */
    user?: InteractionUser;
    [field: string]: unknown;
  };
  /** The invoking user (in a DM). */
  user?: InteractionUser;
  /** Creation time, if the service sends it (ISO string or epoch milliseconds). */
  created_at?: string | number;
  [field: string]: unknown;
}

/** A user as carried by an interaction. */
export interface InteractionUser {
  /** User id. */
  id: string;
  /** User name. */
  username?: string;
  [field: string]: unknown;
}

/** Where an interaction stands. */
export type AcknowledgementState = 'pending' | 'sending' | 'acknowledged';

/** Which mentions in a message notify (Discord's `allowed_mentions`). */
export interface AllowedMentions {
  /** The kinds of mention parsed from the content. @default every kind */
  parse?: ('users' | 'roles' | 'everyone')[] | undefined;
  /** The users who may be notified. @default undefined */
  users?: string[] | undefined;
  /** The roles that may be notified. @default undefined */
  roles?: string[] | undefined;
}

/** A message an interaction answers with (Discord's message fields the service takes). */
export interface MessagePayload {
  /** The message text (required by the contract for a message answer). */
  content: string;
  /** Rows of buttons or a select menu, at most 5. @default undefined */
  components?: readonly MessageActionRow[] | undefined;
  /** Message flags, e.g. 64 to show it only to the user who invoked. @default undefined */
  flags?: number | undefined;
  /** Whether it is read aloud. @default false */
  tts?: boolean | undefined;
  /** Rich embeds (Discord's shape). @default undefined */
  embeds?: Record<string, unknown>[] | undefined;
  /** Which mentions notify. @default undefined (the service's default) */
  allowed_mentions?: AllowedMentions | undefined;
}

/** A message answer: text, or a {@link MessagePayload}. */
export type ReplyMessage = string | MessagePayload;

/** An autocomplete choice. */
export interface AutocompleteChoice {
  /** What the user sees. */
  name: string;
  /** What the command receives. */
  value: string | number;
}

/** A modal form (Discord's shape). */
export interface ModalForm {
  /** Identifies the form when it is submitted, 1 to 100 characters. */
  custom_id: string;
  /** Title shown to the user, 1 to 45 characters. */
  title: string;
  /** Rows of one text input each, 1 to 5. */
  components: readonly ModalActionRow[];
}

/**
 * The message a component belongs to, as received (Discord's `message`
 * object): the fields a bot reads are typed, and checked when the
 * interaction is built (one of the wrong type is left out); every other field
 * is kept as received.
 */
export interface ReceivedMessage {
  /** The message's id. @default undefined (not sent) */
  readonly id?: string;
  /** Its channel. @default undefined (not sent) */
  readonly channel_id?: string;
  /** Its text. @default undefined (not sent) */
  readonly content?: string;
  /** Discord's message flags (64: ephemeral). @default undefined (not sent) */
  readonly flags?: number;
  /** Its component rows, as received. @default undefined (not sent) */
  readonly components?: readonly unknown[];
  /** The interaction it answers (Discord's `interaction_metadata`), as received. @default undefined (not sent) */
  readonly interaction_metadata?: Readonly<Record<string, unknown>>;
  /** Any other field, as received. */
  readonly [field: string]: unknown;
}

/** The types a {@link ReceivedMessage}'s typed fields must have. */
const MESSAGE_FIELD_TYPES: Readonly<Record<string, (value: unknown) => boolean>> = {
  id: (value) => typeof value === 'string',
  channel_id: (value) => typeof value === 'string',
  content: (value) => typeof value === 'string',
  flags: (value) => typeof value === 'number',
  components: Array.isArray,
  interaction_metadata: (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
};

/** A payload's `message` as a {@link ReceivedMessage} (a typed field of the wrong type left out), or `undefined` when it is not an object. */
export function receivedMessage(value: unknown): ReceivedMessage | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const message = value as Record<string, unknown>;
  const wrong = Object.keys(MESSAGE_FIELD_TYPES).filter((field) => field in message && !MESSAGE_FIELD_TYPES[field]?.(message[field]));
  if (wrong.length === 0) return message;
  const kept = { ...message };
  for (const field of wrong) delete kept[field];
  return kept;
}
