/**
 * The typed interaction of each kind, read from an INTERACTION_CREATE payload
 * (Discord's shape), and {@link createInteraction}, which picks the kind.
 * The shared machinery lives in `base.ts`, the payload types in `types.ts`;
 * both are re-exported here.
 *
 * @module
 */

import { InteractionCallbackType, InteractionType } from '../constants.js';
import { BaseInteraction, RepliableInteraction } from './base.js';
import { readOptions, type CommandOptionValue } from './options.js';
import type { AutocompleteChoice, InteractionPayload, InteractionResponder, ModalForm } from './types.js';

export { INTERACTION_LIFETIME_MS } from '../constants.js';
export { BaseInteraction, RepliableInteraction } from './base.js';
export type {
  AcknowledgementState,
  AutocompleteChoice,
  InteractionKind,
  InteractionPayload,
  InteractionResponder,
  InteractionUser,
  ModalForm,
  ReplyMessage,
} from './types.js';

/** A ping (type 1): answer with {@link PingInteraction.pong}. */
export class PingInteraction extends BaseInteraction {
  readonly kind = 'ping' as const;
  /** Answers with interaction_type 1. */
  pong(): Promise<void> {
    return this.respond(InteractionCallbackType.Pong);
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
    return this.respond(InteractionCallbackType.Modal, form);
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
    return this.respond(InteractionCallbackType.ApplicationCommandAutocompleteResult, { choices: [...choices] });
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
    return this.respond(InteractionCallbackType.DeferredUpdateMessage);
  }

  /** Opens a modal form (interaction_type 9). */
  showModal(form: ModalForm): Promise<void> {
    return this.respond(InteractionCallbackType.Modal, form);
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
    return this.respond(InteractionCallbackType.DeferredUpdateMessage);
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
