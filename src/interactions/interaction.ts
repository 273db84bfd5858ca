/**
 * Typed interaction objects, with their acknowledgement state, their expiry,
 * and answers bound to `POST /interactions/{id}/callback`.
 *
 * The contract's rules are enforced locally, before any request: the state is
 * set before the request, so two concurrent replies send one request; a second
 * acknowledgement (autocomplete results excepted) and any answer after the
 * 15-minute expiry reject without I/O.
 *
 * @module
 */

import {
  InteractionAlreadyAcknowledgedError,
  InteractionExpiredError,
  InteractionResponseError,
  isApiError,
  isCommunityChatError,
  type InteractionErrorInit,
} from '../errors.js';
import { REDACTED, inspectSymbol } from '../redact.js';
import { INTERACTION_LIFETIME_MS, InteractionCallbackType, SNOWFLAKE_EPOCH_MS, snowflakeTimestamp } from '../constants.js';
import { readOptions, type CommandOptionValue } from './options.js';

export { INTERACTION_LIFETIME_MS };

/** Sends a callback body; bound to `client.interactions.respond`. */
export type InteractionResponder = (interactionId: string, body: { interaction_type: InteractionCallbackType; data: Record<string, unknown> }) => Promise<unknown>;

/** The kinds of interaction, from the payload's `type` (Discord's numbering). */
export type InteractionKind = 'ping' | 'command' | 'component' | 'autocomplete' | 'modalSubmit' | 'unknown';

/** The payload of INTERACTION_CREATE (Discord's shape; unknown fields are kept in `raw`). */
export interface InteractionPayload {
  /** Interaction id. */
  id: string;
  /** Interaction type: 1 ping, 2 command, 3 component, 4 autocomplete, 5 modal submit. */
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
  member?: { user?: InteractionUser; [field: string]: unknown };
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

/** A message answer: text, or an object with `content` and any other message fields. */
export type ReplyMessage = string | ({ content: string } & Record<string, unknown>);

/** An autocomplete choice. */
export interface AutocompleteChoice {
  /** What the user sees. */
  name: string;
  /** What the command receives. */
  value: string | number;
}

/** A modal form (Discord's shape: `custom_id`, `title`, `components`). */
export interface ModalForm {
  /** Identifies the form when it is submitted. */
  custom_id: string;
  /** Title shown to the user. */
  title: string;
  /** Rows of inputs. */
  components: unknown[];
  [field: string]: unknown;
}

/** Reads the creation time from `created_at`, or from a Discord-style snowflake id, if plausible. */
function creationTime(payload: InteractionPayload, receivedAt: number): number | undefined {
  const created = payload.created_at;
  if (typeof created === 'number' && Number.isFinite(created)) return created;
  if (typeof created === 'string') {
    const parsed = Date.parse(created);
    if (!Number.isNaN(parsed)) return parsed;
  }
  if (/^\d{15,20}$/.test(payload.id)) {
    const ms = snowflakeTimestamp(payload.id);
    if (ms !== undefined && ms > SNOWFLAKE_EPOCH_MS && ms <= receivedAt + 60_000) return ms;
  }
  return undefined;
}

/** Fields every interaction shares, and the acknowledgement machinery. */
export abstract class BaseInteraction {
  /** The kind of interaction. */
  abstract readonly kind: InteractionKind;
  /** Interaction id. */
  readonly id: string;
  /** Raw interaction type. */
  readonly type: number;
  /** Application id. */
  readonly applicationId: string | undefined;
  /** Community id, if in a community. */
  readonly guildId: string | undefined;
  /** Channel id. */
  readonly channelId: string | undefined;
  /** The user who triggered it. */
  readonly user: InteractionUser | undefined;
  /** When the SDK received it, epoch milliseconds. */
  readonly receivedAt: number;
  /** When the interaction was created (from the payload), or when it was received. */
  readonly createdAt: number;
  /** When its token expires: 15 minutes after the earlier of creation and receipt. */
  readonly expiresAt: number;
  readonly #payload: InteractionPayload;
  readonly #respond: InteractionResponder;
  readonly #now: () => number;
  #state: AcknowledgementState = 'pending';
  #acknowledgedWith: InteractionCallbackType | undefined;

  constructor(payload: InteractionPayload, respond: InteractionResponder, now: () => number = Date.now) {
    this.#payload = payload;
    this.#respond = respond;
    this.#now = now;
    this.id = payload.id;
    this.type = payload.type;
    this.applicationId = payload.application_id;
    this.guildId = payload.guild_id;
    this.channelId = payload.channel_id;
    this.user = payload.member?.user ?? payload.user;
    this.receivedAt = now();
    this.createdAt = Math.min(this.receivedAt, creationTime(payload, this.receivedAt) ?? this.receivedAt);
    this.expiresAt = this.createdAt + INTERACTION_LIFETIME_MS;
  }

  /** The payload's `data`, as received. */
  get data(): Record<string, unknown> {
    return this.#payload.data ?? {};
  }

  /** The whole payload, with the token redacted. */
  get raw(): Record<string, unknown> {
    return { ...this.#payload, token: REDACTED };
  }

  /** Milliseconds since creation. */
  get ageMs(): number {
    return this.#now() - this.createdAt;
  }

  /** Whether the 15-minute token has expired. */
  get expired(): boolean {
    return this.#now() >= this.expiresAt;
  }

  /** `pending`, `sending` (an answer is under way) or `acknowledged`. */
  get state(): AcknowledgementState {
    return this.#state;
  }

  /** Whether an acknowledgement was sent (or is being sent). */
  get acknowledged(): boolean {
    return this.#state !== 'pending';
  }

  /** The `interaction_type` of the acknowledgement, if any. */
  get acknowledgedWith(): InteractionCallbackType | undefined {
    return this.#acknowledgedWith;
  }

  /**
   * Sends any callback type with any data (the low-level answer). The state is
   * set before the request; the contract's rules are checked locally first.
   */
  async respond(type: InteractionCallbackType, data: Record<string, unknown> = {}): Promise<void> {
    const init = (): InteractionErrorInit => ({ interactionId: this.id, ageMs: this.ageMs });
    if (this.expired) throw new InteractionExpiredError(init(), this.expiresAt);
    const repeatAutocomplete = type === 8 && (this.#acknowledgedWith === undefined || this.#acknowledgedWith === 8);
    if (this.#state !== 'pending' && !repeatAutocomplete) throw new InteractionAlreadyAcknowledgedError(init(), this.#acknowledgedWith ?? type, type);
    const previous = { state: this.#state, type: this.#acknowledgedWith };
    this.#state = 'sending';
    this.#acknowledgedWith = type;
    try {
      await this.#respond(this.id, { interaction_type: type, data });
      this.#state = 'acknowledged';
    } catch (error) {
      if (isApiError(error)) {
        this.#restore(previous);
        throw new InteractionResponseError(init(), error, error.status, false);
      }
      const reached = isCommunityChatError(error) && (error as { mayHaveReachedServer?: boolean }).mayHaveReachedServer === true;
      if (reached) {
        this.#state = 'acknowledged';
        throw new InteractionResponseError(init(), error, undefined, true);
      }
      this.#restore(previous);
      throw new InteractionResponseError(init(), error, undefined, false);
    }
  }

  #restore(previous: { state: AcknowledgementState; type: InteractionCallbackType | undefined }): void {
    this.#state = previous.state === 'sending' ? 'pending' : previous.state;
    this.#acknowledgedWith = previous.type;
  }

  /** Redacted view for `JSON.stringify`. */
  toJSON(): Record<string, unknown> {
    return { kind: this.kind, id: this.id, type: this.type, guildId: this.guildId, channelId: this.channelId, state: this.#state, data: this.data, token: REDACTED };
  }

  /** Redacted view for `util.inspect`. */
  [inspectSymbol](): string {
    return `${this.constructor.name} ${JSON.stringify(this.toJSON())}`;
  }
}

function messageData(message: ReplyMessage): Record<string, unknown> {
  return typeof message === 'string' ? { content: message } : message;
}

/** An interaction that can be answered with a message or deferred: commands, components, modal submits and unknown kinds. */
export abstract class RepliableInteraction extends BaseInteraction {
  /** Answers with a message (interaction_type 4). */
  reply(message: string): Promise<void>;
  /** Answers with a message object (interaction_type 4); `content` is required. */
  reply(message: { content: string } & Record<string, unknown>): Promise<void>;
  reply(message: ReplyMessage): Promise<void> {
    return this.respond(4, messageData(message));
  }

  /** Acknowledges now and answers later (interaction_type 5). */
  defer(data?: Record<string, unknown>): Promise<void> {
    return this.respond(5, data);
  }
}

/** A ping (type 1): answer with {@link PingInteraction.pong}. */
export class PingInteraction extends BaseInteraction {
  readonly kind = 'ping' as const;
  /** Answers with interaction_type 1. */
  pong(): Promise<void> {
    return this.respond(1);
  }
}

/** A slash command (type 2), with typed `options` when defined with `defineCommand`. */
export class CommandInteraction<Options extends object = Record<string, CommandOptionValue>> extends RepliableInteraction {
  readonly kind = 'command' as const;
  /** The command's name. */
  readonly commandName: string;
  /** The sub-command path, e.g. `['config', 'set']`. */
  readonly subcommand: readonly string[];
  /** Option values by name. */
  readonly options: Options;

  constructor(payload: InteractionPayload, respond: InteractionResponder, now?: () => number) {
    super(payload, respond, now);
    const parsed = readOptions(payload.data?.['options']);
    this.commandName = String(payload.data?.['name'] ?? '');
    this.subcommand = parsed.subcommand;
    this.options = parsed.values as Options;
  }

  /** Opens a modal form (interaction_type 9). */
  showModal(form: ModalForm): Promise<void> {
    return this.respond(9, form);
  }
}

/** Autocomplete (type 4): answer with choices, as often as the user types. */
export class AutocompleteInteraction extends BaseInteraction {
  readonly kind = 'autocomplete' as const;
  /** The command's name. */
  readonly commandName: string;
  /** Option values typed so far. */
  readonly options: Record<string, CommandOptionValue>;
  /** The option the user is typing in. */
  readonly focused: { name: string; value: CommandOptionValue } | undefined;

  constructor(payload: InteractionPayload, respond: InteractionResponder, now?: () => number) {
    super(payload, respond, now);
    const parsed = readOptions(payload.data?.['options']);
    this.commandName = String(payload.data?.['name'] ?? '');
    this.options = parsed.values;
    this.focused = parsed.focused;
  }

  /** Sends autocomplete results (interaction_type 8); may be sent more than once. */
  autocomplete(choices: readonly AutocompleteChoice[]): Promise<void> {
    return this.respond(8, { choices: [...choices] });
  }
}

/** A message component (type 3): a button or a select menu. */
export class ComponentInteraction extends RepliableInteraction {
  readonly kind = 'component' as const;
  /** The component's custom id. */
  readonly customId: string;
  /** Selected values, for select menus. */
  readonly values: readonly string[];

  constructor(payload: InteractionPayload, respond: InteractionResponder, now?: () => number) {
    super(payload, respond, now);
    this.customId = String(payload.data?.['custom_id'] ?? '');
    const values = payload.data?.['values'];
    this.values = Array.isArray(values) ? values.map(String) : [];
  }

  /** Acknowledges and updates the original message later (interaction_type 6). */
  deferUpdate(): Promise<void> {
    return this.respond(6);
  }

  /** Opens a modal form (interaction_type 9). */
  showModal(form: ModalForm): Promise<void> {
    return this.respond(9, form);
  }
}

/** A submitted modal form (type 5). */
export class ModalSubmitInteraction extends RepliableInteraction {
  readonly kind = 'modalSubmit' as const;
  /** The form's custom id. */
  readonly customId: string;
  /** Submitted values by input custom id. */
  readonly fields: Readonly<Record<string, string>>;

  constructor(payload: InteractionPayload, respond: InteractionResponder, now?: () => number) {
    super(payload, respond, now);
    this.customId = String(payload.data?.['custom_id'] ?? '');
    const fields: Record<string, string> = {};
    const rows = payload.data?.['components'];
    if (Array.isArray(rows)) {
      for (const row of rows as { components?: { custom_id?: unknown; value?: unknown }[] }[]) {
        for (const input of row?.components ?? []) if (typeof input?.custom_id === 'string') fields[input.custom_id] = String(input.value ?? '');
      }
    }
    this.fields = fields;
  }

  /** Acknowledges and updates the original message later (interaction_type 6). */
  deferUpdate(): Promise<void> {
    return this.respond(6);
  }
}

/** An interaction of a type the SDK does not know; never dropped. Every answer method is available. */
export class UnknownInteraction extends RepliableInteraction {
  readonly kind = 'unknown' as const;
}

/** Any interaction. */
export type Interaction = PingInteraction | CommandInteraction | AutocompleteInteraction | ComponentInteraction | ModalSubmitInteraction | UnknownInteraction;

/** The interaction class of each kind. */
export interface InteractionByKind {
  /** Type 1. */
  ping: PingInteraction;
  /** Type 2. */
  command: CommandInteraction;
  /** Type 3. */
  component: ComponentInteraction;
  /** Type 4. */
  autocomplete: AutocompleteInteraction;
  /** Type 5. */
  modalSubmit: ModalSubmitInteraction;
  /** Any other type. */
  unknown: UnknownInteraction;
}

/** Builds the typed object for a payload. */
export function createInteraction(payload: InteractionPayload, respond: InteractionResponder, now?: () => number): Interaction {
  switch (payload.type) {
    case 1:
      return new PingInteraction(payload, respond, now);
    case 2:
      return new CommandInteraction(payload, respond, now);
    case 3:
      return new ComponentInteraction(payload, respond, now);
    case 4:
      return new AutocompleteInteraction(payload, respond, now);
    case 5:
      return new ModalSubmitInteraction(payload, respond, now);
    default:
      return new UnknownInteraction(payload, respond, now);
  }
}
