/**
 * What every interaction shares: its ids, its expiry, and the acknowledgement
 * machinery bound to `POST /interactions/{id}/callback`.
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
  isCommunityChatError,
  type InteractionErrorInit,
} from '../errors/index.js';
import { REDACTED, inspectSymbol } from '../core/redact.js';
import { INTERACTION_LIFETIME_MS, InteractionCallbackType, SNOWFLAKE_EPOCH_MS, snowflakeTimestamp } from '../core/constants.js';
import type {
  AcknowledgementState,
  AnswerOptions,
  InteractionKind,
  InteractionPayload,
  InteractionResponder,
  InteractionUser,
  MessagePayload,
  ReplyMessage,
} from './types.js';

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
  /** `createdAt`, read from the payload on first use (a snowflake id costs a regular expression and a BigInt). */
  #createdAt: number | undefined;
  readonly #payload: InteractionPayload;
  readonly #respond: InteractionResponder;
  readonly #now: () => number;
  #state: AcknowledgementState = 'pending';
  #acknowledgedWith: InteractionCallbackType | undefined;
  /**
   * The waits of the first router that handled it, which `awaitComponent`
   * and `awaitModalSubmit` register with (a field, not a WeakMap entry: set
   * for every interaction). Typed in `interaction.ts`, which knows the kinds.
   * @internal
   */
  waitRegistry: unknown = undefined;

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
  }

  /** When the interaction was created (from the payload), or when it was received if that is earlier or the payload does not say. */
  get createdAt(): number {
    if (this.#createdAt === undefined) this.#createdAt = Math.min(this.receivedAt, creationTime(this.#payload, this.receivedAt) ?? this.receivedAt);
    return this.#createdAt;
  }

  /** When its token expires: 15 minutes after the earlier of creation and receipt. */
  get expiresAt(): number {
    return this.createdAt + INTERACTION_LIFETIME_MS;
  }

  /** The payload's `data`, as received. */
  get data(): Record<string, unknown> {
    return this.#payload.data ?? {};
  }

  /** The whole payload, with the token redacted. */
  get raw(): Record<string, unknown> {
    return { ...this.#payload, token: REDACTED };
  }

  /**
   * The clock it was built with (the client's `clock`): its expiry and its
   * waits (`awaitComponent`, `awaitModalSubmit`) follow it.
   * @internal
   */
  get clock(): () => number {
    return this.#now;
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
  async respond(type: InteractionCallbackType, data: Record<string, unknown> = {}, options?: AnswerOptions): Promise<void> {
    const init = (): InteractionErrorInit => ({ interactionId: this.id, ageMs: this.ageMs });
    if (this.expired) throw new InteractionExpiredError(init(), this.expiresAt);
    const autocomplete = InteractionCallbackType.ApplicationCommandAutocompleteResult;
    const repeatAutocomplete = type === autocomplete && (this.#acknowledgedWith === undefined || this.#acknowledgedWith === autocomplete);
    if (this.#state !== 'pending' && !repeatAutocomplete) throw new InteractionAlreadyAcknowledgedError(init(), this.#acknowledgedWith ?? type, type);
    const previous = { state: this.#state, type: this.#acknowledgedWith };
    this.#state = 'sending';
    this.#acknowledgedWith = type;
    try {
      await this.#respond(this.id, { interaction_type: type, data }, options);
      this.#state = 'acknowledged';
    } catch (error) {
      if (isCommunityChatError(error, 'ApiError')) {
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
    return {
      kind: this.kind,
      id: this.id,
      type: this.type,
      guildId: this.guildId,
      channelId: this.channelId,
      state: this.#state,
      data: this.data,
      token: REDACTED,
    };
  }

  /** @internal Redacted view for `util.inspect`. (Node finds it by its registered symbol). */
  [inspectSymbol](): string {
    return `${this.constructor.name} ${JSON.stringify(this.toJSON())}`;
  }
}

function messageData(message: ReplyMessage): Record<string, unknown> {
  return typeof message === 'string' ? { content: message } : { ...message };
}

/**
 * An interaction that can be answered with a message or deferred: commands,
 * components, modal submits and unknown kinds.
 *
 * The contract has one interaction route, `POST /interactions/{interaction_id}/callback`:
 * there is no route for follow-up messages nor for editing or deleting the
 * original answer, so the SDK offers no `followUp()` or `editReply()`.
 */
export abstract class RepliableInteraction extends BaseInteraction {
  /**
   * Answers with a message (interaction_type 4). This is the one answer: the
   * contract has no route to edit it afterwards or to send follow-ups.
   */
  reply(message: string, options?: AnswerOptions): Promise<void>;
  /** Answers with a message object (interaction_type 4); `content` is required. The contract has no route to edit it afterwards or to send follow-ups. */
  reply(message: MessagePayload, options?: AnswerOptions): Promise<void>;
  reply(message: ReplyMessage, options?: AnswerOptions): Promise<void> {
    return this.respond(InteractionCallbackType.ChannelMessageWithSource, messageData(message), options);
  }

  /**
   * Acknowledges now and answers later (interaction_type 5). The contract has
   * no route for that later answer (Discord's follow-up webhook or
   * `PATCH .../messages/@original`), so through the SDK a deferral shows
   * "is thinking" until the service gives up; prefer {@link RepliableInteraction.reply}.
   * @param data Callback data. @default {}
   */
  defer(data?: Record<string, unknown>, options?: AnswerOptions): Promise<void> {
    return this.respond(InteractionCallbackType.DeferredChannelMessageWithSource, data, options);
  }
}
