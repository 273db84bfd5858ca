/**
 * Helpers to unit-test a bot's interaction handlers without sockets.
 *
 * @module
 */

import { refuseUnknownOptions } from '../core/bounds.js';
import { InteractionType } from '../core/constants.js';
import { Gateway } from '../gateway/gateway.js';
import { createInteraction, type Interaction } from '../interactions/interaction.js';
import type { InteractionPayload, InteractionResponder } from '../interactions/types.js';
import { ApplicationCommandType, ComponentType, optionTypeOf } from './discord.js';

/** An answer a test interaction received. */
export interface TestResponse {
  /** The callback type. */
  interaction_type: number;
  /** The callback data. */
  data: Record<string, unknown>;
}

/** What to build a test interaction from. */
export interface TestInteractionInput {
  /** Kind of interaction. @default "command" */
  kind?: 'ping' | 'command' | 'component' | 'autocomplete' | 'modalSubmit' | undefined;
  /** Command name (commands and autocomplete). @default "test" */
  name?: string | undefined;
  /** Option values by name (commands and autocomplete). @default undefined (no options) */
  options?: Record<string, string | number | boolean> | undefined;
  /** For autocomplete: the option being typed in (marked `focused`). @default undefined */
  focused?: string | undefined;
  /** For components and modals: the `custom_id`. @default "button" for a component, "form" for a modal */
  customId?: string | undefined;
  /** For select menus: the chosen values (given: a string select; absent: a button). @default undefined */
  values?: string[] | undefined;
  /** For modals: submitted values by input id. @default undefined (no inputs) */
  fields?: Record<string, string> | undefined;
  /** Fields to add to or override in the payload. @default undefined (the test payload as built) */
  payload?: Partial<InteractionPayload> | undefined;
  /** Answers the callback instead of recording it (e.g. to simulate a failure). @default undefined (answers are recorded) */
  respond?: InteractionResponder | undefined;
  /** Clock, for expiry tests. @default Date.now */
  clock?: (() => number) | undefined;
}

let counter = 0;
const TYPES = {
  ping: InteractionType.Ping,
  command: InteractionType.ApplicationCommand,
  component: InteractionType.MessageComponent,
  autocomplete: InteractionType.ApplicationCommandAutocomplete,
  modalSubmit: InteractionType.ModalSubmit,
} as const;

/** Builds an INTERACTION_CREATE payload as the service would send it. */
export function createTestPayload(input: TestInteractionInput = {}): InteractionPayload {
  const kind = input.kind ?? 'command';
  counter++;
  const options = Object.entries(input.options ?? {}).map(([name, value]) => ({
    name,
    type: optionTypeOf(value),
    value,
    ...(input.focused === name ? { focused: true } : {}),
  }));
  const data: Record<string, unknown> =
    kind === 'component'
      ? {
          custom_id: input.customId ?? 'button',
          component_type: input.values ? ComponentType.StringSelect : ComponentType.Button,
          ...(input.values ? { values: input.values } : {}),
        }
      : kind === 'modalSubmit'
        ? {
            custom_id: input.customId ?? 'form',
            components: Object.entries(input.fields ?? {}).map(([id, value]) => ({
              type: ComponentType.ActionRow,
              components: [{ type: ComponentType.TextInput, custom_id: id, value }],
            })),
          }
        : kind === 'ping'
          ? {}
          : { id: `command-${counter}`, name: input.name ?? 'test', type: ApplicationCommandType.ChatInput, options };
  return {
    id: `test-interaction-${counter}`,
    type: TYPES[kind],
    token: `test-interaction-token-${counter}`,
    application_id: 'test-application',
    guild_id: 'test-guild',
    channel_id: 'test-channel',
    member: { user: { id: 'test-user', username: 'tester' } },
    data,
    ...input.payload,
  };
}

/**
 * Builds a typed interaction whose answers are recorded instead of sent.
 *
 * @example
 * ```ts
 * const { interaction, responses } = createTestInteraction({ name: 'quiz', options: { topic: 'space' } });
 * await handleQuiz(interaction);
 * expect(responses).toEqual([{ interaction_type: InteractionCallbackType.ChannelMessageWithSource, data: { content: 'Quiz on space' } }]);
 * ```
 */
export function createTestInteraction<I extends Interaction = Interaction>(
  input: TestInteractionInput = {},
): {
  /** The interaction, typed as `I`. */
  interaction: I;
  /** Its answers, oldest first, filled as it answers (stays empty when `input.respond` is given). */
  responses: TestResponse[];
} {
  const responses: TestResponse[] = [];
  const respond: InteractionResponder =
    input.respond ??
    (async (_id, body) => {
      responses.push({ interaction_type: body.interaction_type, data: body.data });
    });
  return { interaction: createInteraction(createTestPayload(input), respond, input.clock) as I, responses };
}

/** A Gateway that never opens a socket: register handlers on it as on `client.gateway`, then invoke interactions. */
export interface TestGateway {
  /** A real `Gateway` (handlers, events, interactionError) with no connection behind it. */
  gateway: Gateway;
  /** Every answer the handlers sent, by interaction id. */
  responses: Map<string, TestResponse[]>;
  /** Delivers an interaction to the handlers and resolves once they have settled. */
  invoke(input?: TestInteractionInput): Promise<{
    /** The interaction delivered. */
    interaction: Interaction;
    /** The answers the handlers sent to it, oldest first. */
    responses: TestResponse[];
    /** What its handlers threw or rejected with (the Gateway's `interactionError` events for it). */
    errors: unknown[];
  }>;
}

/**
 * What a bot's install function needs: something with a `gateway` to
 * register handlers on. A `Client` is one and so is a {@link TestGateway}, so
 * one function, `(bot: BotHost) => void`, serves `useEmulator({ bot })` and
 * `createTestGateway({ bot })`.
 */
export interface BotHost {
  /** The Gateway whose handlers the bot registers (`client.gateway`). */
  readonly gateway: Gateway;
}

/** Options of {@link createTestGateway}. */
export interface TestGatewayOptions {
  /** Installs the bot's handlers (the same function `useEmulator({ bot })` takes). @default undefined (no handlers) */
  bot?: ((bot: BotHost) => unknown) | undefined;
}

/**
 * Creates a {@link TestGateway}; `options.bot`, when given, installs the
 * bot's handlers on it first.
 */
export function createTestGateway(options: TestGatewayOptions = {}): TestGateway {
  refuseUnknownOptions('createTestGateway', options, ['bot']);
  const responses = new Map<string, TestResponse[]>();
  const respond: InteractionResponder = async (id, body) => {
    const list = responses.get(id) ?? [];
    list.push({ interaction_type: body.interaction_type, data: body.data });
    responses.set(id, list);
  };
  const gateway = new Gateway({}, { token: () => 'test-token', respond, defaultUrl: 'ws://127.0.0.1:9/test', now: Date.now, allowInsecure: false });
  const test: TestGateway = {
    gateway,
    responses,
    async invoke(input = {}) {
      const interaction = createInteraction(createTestPayload(input), input.respond ?? respond, input.clock);
      const errors: unknown[] = [];
      const onError = ({ error, interaction: failed }: { error: unknown; interaction: Interaction }) => {
        if (failed === interaction) errors.push(error);
      };
      gateway.on('interactionError', onError);
      try {
        // Resolves when every handler has settled.
        await gateway.router.handle(interaction);
      } finally {
        gateway.off('interactionError', onError);
      }
      return { interaction, responses: responses.get(interaction.id) ?? [], errors };
    },
  };
  options.bot?.(test);
  return test;
}
