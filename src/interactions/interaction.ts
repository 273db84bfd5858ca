/**
 * The typed interaction of each kind, read from an INTERACTION_CREATE payload
 * (Discord's shape), and {@link createInteraction}, which picks the kind.
 * The shared machinery lives in `base.ts`, the payload types in `types.ts`;
 * both are re-exported here.
 *
 * @module
 */

import { InteractionCallbackType, InteractionType } from '../core/constants.js';
import { ValidationError } from '../errors/index.js';
import { BaseInteraction, RepliableInteraction } from './base.js';
import { readOptions, type CommandOptionValue } from './options.js';
import {
  type AnswerOptions,
  type AutocompleteChoice,
  type InteractionPayload,
  type InteractionResponder,
  type ModalForm,
  type ReceivedMessage,
  receivedMessage,
} from './types.js';

/** A ping (type 1): answer with {@link PingInteraction.pong}. */
export class PingInteraction extends BaseInteraction {
  readonly kind = 'ping' as const;
  /** Answers with interaction_type 1. */
  pong(options?: AnswerOptions): Promise<void> {
    return this.respond(InteractionCallbackType.Pong, {}, options);
  }
}

/** A slash command (type 2), with typed `options` when defined with `defineCommand`. */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: its answer methods are composed onto the prototype (see compose() below).
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
}

/** Autocomplete (type 4): answer with choices, as often as the user types. */
export class AutocompleteInteraction extends BaseInteraction {
  readonly kind = 'autocomplete' as const;
  /** The command's name. */
  readonly commandName: string;
  /** Option values typed so far. */
  readonly options: Record<string, CommandOptionValue>;
  /** The option the user is typing in. */
  readonly focused:
    | {
        /** The option's name. */
        name: string;
        /** What the user has typed so far. */
        value: CommandOptionValue;
      }
    | undefined;

  constructor(payload: InteractionPayload, respond: InteractionResponder, now?: () => number) {
    super(payload, respond, now);
    const parsed = readOptions(payload.data?.['options']);
    this.commandName = String(payload.data?.['name'] ?? '');
    this.options = parsed.values;
    this.focused = parsed.focused;
  }

  /** Sends autocomplete results (interaction_type 8); may be sent more than once. */
  autocomplete(choices: readonly AutocompleteChoice[], options?: AnswerOptions): Promise<void> {
    return this.respond(InteractionCallbackType.ApplicationCommandAutocompleteResult, { choices: [...choices] }, options);
  }
}

/** A message component (type 3): a button or a select menu. */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: its answer methods are composed onto the prototype (see compose() below).
export class ComponentInteraction extends RepliableInteraction {
  readonly kind = 'component' as const;
  /** The component's custom id. */
  readonly customId: string;
  /** Selected values, for select menus. */
  readonly values: readonly string[];
  /** The message the component belongs to (Discord's `message` object, its fields typed), if the payload has one. */
  readonly message: ReceivedMessage | undefined;

  constructor(payload: InteractionPayload, respond: InteractionResponder, now?: () => number) {
    super(payload, respond, now);
    this.customId = String(payload.data?.['custom_id'] ?? '');
    const values = payload.data?.['values'];
    this.values = Array.isArray(values) ? values.map(String) : [];
    this.message = receivedMessage(payload['message']);
  }
}

/** A submitted modal form (type 5). */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: its answer methods are composed onto the prototype (see compose() below).
export class ModalSubmitInteraction extends RepliableInteraction {
  readonly kind = 'modalSubmit' as const;
  /** The form's custom id. */
  readonly customId: string;
  /** Submitted values by input custom id. */
  readonly fields: Readonly<Record<string, string>>;
  /** For a modal opened from a component: that component's message (Discord's `message`, its fields typed), if the payload has one. */
  readonly message: ReceivedMessage | undefined;

  constructor(payload: InteractionPayload, respond: InteractionResponder, now?: () => number) {
    super(payload, respond, now);
    this.customId = String(payload.data?.['custom_id'] ?? '');
    this.message = receivedMessage(payload['message']);
    const fields: Record<string, string> = {};
    const rows = payload.data?.['components'];
    if (Array.isArray(rows)) {
      for (const row of rows as { components?: { custom_id?: unknown; value?: unknown }[] }[]) {
        for (const input of row?.components ?? []) if (typeof input?.custom_id === 'string') fields[input.custom_id] = String(input.value ?? '');
      }
    }
    this.fields = fields;
  }
}

/**
 * Waits for a component interaction tied to the interaction that waits:
 * commands, components and modal submits have it.
 */
export interface AwaitsComponents {
  /**
   * Waits for the next component interaction tied to this one: a click on a
   * button (or a choice in a select menu) of its reply (or, for a component,
   * on the same message), by the same user. See {@link AwaitComponentOptions}
   * for the match. The matched interaction goes to this caller only: no
   * handler or `interactionCreate` listener of any router sees it. Rejects
   * with `InteractionTimeoutError` after `timeoutMs`,
   * `InteractionWaitAbortedError` when `signal` aborts.
   *
   * @example
   * await interaction.reply({ content: 'Sure?', components: [row] });
   * const click = await interaction.awaitComponent({ timeoutMs: 60_000, filter: (i) => i.customId === 'yes' });
   * await click.reply('Done.');
   */
  awaitComponent<T extends ComponentInteraction>(
    options: AwaitComponentOptions & { filter: (interaction: ComponentInteraction) => interaction is T },
  ): Promise<T>;
  /** Waits for the next component interaction tied to this one (see the overload above). */
  awaitComponent(options: AwaitComponentOptions): Promise<ComponentInteraction>;
}

/** Opens a modal form and waits for its submission: commands and components have it. */
export interface ShowsModals {
  /** Opens a modal form (interaction_type 9); `awaitModalSubmit` waits for its submission. */
  showModal(form: ModalForm, options?: AnswerOptions): Promise<void>;
  /**
   * Waits for the submission of the modal opened with `showModal`: the next
   * modal submit with `customId`, by the same user. Rejects with
   * `InteractionTimeoutError` after `timeoutMs` (a dismissed modal is never
   * reported by the service) and `InteractionWaitAbortedError` when `signal`
   * aborts. The submission goes to this caller only.
   */
  awaitModalSubmit(options: AwaitModalSubmitOptions): Promise<ModalSubmitInteraction>;
}

/** Acknowledges now and updates the message later: components and modal submits have it. */
export interface DefersUpdates {
  /** Acknowledges and updates the original message later (interaction_type 6). */
  deferUpdate(options?: AnswerOptions): Promise<void>;
}

// Each answer written once, and composed onto the prototypes of the classes that have it; the interfaces merged into those
// classes below type them there.
const answers = {
  awaitComponent(this: BaseInteraction, options: AwaitComponentOptions): Promise<ComponentInteraction> {
    return waitFor(this, 'component', options);
  },
  showModal(this: BaseInteraction, form: ModalForm, options?: AnswerOptions): Promise<void> {
    return this.respond(InteractionCallbackType.Modal, { ...form }, options);
  },
  awaitModalSubmit(this: BaseInteraction, options: AwaitModalSubmitOptions): Promise<ModalSubmitInteraction> {
    return waitFor(this, 'modalSubmit', options);
  },
  deferUpdate(this: BaseInteraction, options?: AnswerOptions): Promise<void> {
    return this.respond(InteractionCallbackType.DeferredUpdateMessage, {}, options);
  },
};

function compose(target: abstract new (...args: never[]) => BaseInteraction, names: readonly (keyof typeof answers)[]): void {
  for (const name of names) Object.defineProperty(target.prototype, name, { value: answers[name], writable: true, configurable: true });
}

// biome-ignore lint/correctness/noUnusedVariables: a merged declaration repeats the class's type parameter.
export interface CommandInteraction<Options extends object = Record<string, CommandOptionValue>> extends AwaitsComponents, ShowsModals {}
compose(CommandInteraction, ['awaitComponent', 'showModal', 'awaitModalSubmit']);
export interface ComponentInteraction extends AwaitsComponents, ShowsModals, DefersUpdates {}
compose(ComponentInteraction, ['awaitComponent', 'showModal', 'awaitModalSubmit', 'deferUpdate']);
export interface ModalSubmitInteraction extends AwaitsComponents, DefersUpdates {}
compose(ModalSubmitInteraction, ['awaitComponent', 'deferUpdate']);

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
    case InteractionType.Ping:
      return new PingInteraction(payload, respond, now);
    case InteractionType.ApplicationCommand:
      return new CommandInteraction(payload, respond, now);
    case InteractionType.MessageComponent:
      return new ComponentInteraction(payload, respond, now);
    case InteractionType.ApplicationCommandAutocomplete:
      return new AutocompleteInteraction(payload, respond, now);
    case InteractionType.ModalSubmit:
      return new ModalSubmitInteraction(payload, respond, now);
    default:
      return new UnknownInteraction(payload, respond, now);
  }
}

/**
 * Options of `awaitComponent`. A component interaction matches when all of
 * these hold:
 *
 * 1. It is tied to the interaction that waits: its message says it answers
 *    that interaction (Discord's `message.interaction_metadata.id`, or the
 *    older `message.interaction.id`), or it is on the same message as the
 *    component interaction that waits; when the message says nothing of the
 *    kind (the service may not send it), it is in the same channel.
 * 2. The same user used it (when the waiting interaction carries a user).
 * 3. `filter`, if given, returns `true`. The custom id is yours to check there.
 */
export interface AwaitComponentOptions {
  /**
   * Narrows the match further, after the default (tied to this interaction,
   * same user). A throw rejects the wait with what was thrown.
   * @default undefined (the default match alone)
   */
  filter?: ((interaction: ComponentInteraction) => boolean) | undefined;
  /** How long to wait, in milliseconds (1 to 2147483647). Required: the service never reports an ignored message. */
  timeoutMs: number;
  /** Stops waiting when aborted (the wait rejects with `InteractionWaitAbortedError`). @default undefined */
  signal?: AbortSignal | undefined;
}

/** Options of `awaitModalSubmit`: the next modal submit with `customId`, by the same user, matches. */
export interface AwaitModalSubmitOptions {
  /** The `custom_id` of the modal form that was shown. */
  customId: string;
  /** How long to wait, in milliseconds (1 to 2147483647). Required: the service never reports a dismissed modal. */
  timeoutMs: number;
  /** Stops waiting when aborted (the wait rejects with `InteractionWaitAbortedError`). @default undefined */
  signal?: AbortSignal | undefined;
}

/** The waiters of the router that delivered an interaction, which `awaitComponent` and `awaitModalSubmit` register with. */
export interface InteractionWaitRegistry {
  /** Registers a wait for a component interaction tied to `original`. */
  awaitComponent(original: BaseInteraction, options: AwaitComponentOptions): Promise<ComponentInteraction>;
  /** Registers a wait for a modal submit of `original`'s user. */
  awaitModalSubmit(original: BaseInteraction, options: AwaitModalSubmitOptions): Promise<ModalSubmitInteraction>;
}

/**
 * Ties an interaction to the waiters of the router handling it, unless a
 * router did so before (the Gateway runs its own router first, then those of
 * `use()`). Called by the router; not part of the public API.
 */
export function bindWaitRegistry(interaction: BaseInteraction, registry: InteractionWaitRegistry): void {
  interaction.waitRegistry ??= registry;
}

function waitFor(original: BaseInteraction, kind: 'component', options: AwaitComponentOptions): Promise<ComponentInteraction>;
function waitFor(original: BaseInteraction, kind: 'modalSubmit', options: AwaitModalSubmitOptions): Promise<ModalSubmitInteraction>;
function waitFor(original: BaseInteraction, kind: 'component' | 'modalSubmit', options: AwaitComponentOptions | AwaitModalSubmitOptions): Promise<Interaction> {
  const registry = original.waitRegistry as InteractionWaitRegistry | undefined;
  if (!registry) {
    const operation = kind === 'component' ? 'interaction.awaitComponent' : 'interaction.awaitModalSubmit';
    const message =
      'this interaction was not handled by an InteractionRouter (router.handle(): the Gateway, a webhook receiver or an event worker), so no later interaction can reach it';
    return Promise.reject(new ValidationError(operation, [{ path: '', message }]));
  }
  return kind === 'component'
    ? registry.awaitComponent(original, options as AwaitComponentOptions)
    : registry.awaitModalSubmit(original, options as AwaitModalSubmitOptions);
}
