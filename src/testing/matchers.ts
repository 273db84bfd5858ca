/**
 * Matchers for `expect.extend()`, written to the shape Vitest and Jest share:
 * `expect(emulator).toHaveReplied('Quiz about space')`.
 *
 * @module
 */

import { isDeepStrictEqual } from 'node:util';
import { InteractionCallbackType } from '../core/constants.js';
import type { EmulatedCallback, EmulatedMessage } from './emulator/types.js';
import { describeThrown } from './errors.js';

/** What the matchers read of an emulator (an `Emulator`). */
export interface MessageSource {
  /** Messages posted to a channel (the seeded one by default). */
  messages(channelId?: string): EmulatedMessage[];
}

/** What a message is expected to be: its exact text, a pattern of it, or a subset of its fields (each compared structurally: key order does not matter). */
export type ExpectedMessage = string | RegExp | Partial<Pick<EmulatedMessage, 'content' | 'components' | 'interactionId' | 'flags' | 'visibleTo'>>;

/** What the interaction matchers read: an interaction the test drove (`emulator.invokeCommand(...)`, `clickComponent`, `submitModal`). */
export interface AnsweredInteraction {
  /** The interaction's id. */
  readonly id: string;
  /** Every answer the bot gave it so far. */
  callbacks(): EmulatedCallback[];
}

/** What `toHaveNoHandlerErrors` reads: the kit (`useEmulator(...)`), whose `interactionErrors` lists what the bot's handlers threw. */
export interface HandlerErrorSource {
  /** What the bot's handlers threw since the current test began. */
  readonly interactionErrors: readonly {
    /** What was thrown. */
    readonly error: unknown;
    /** The interaction being handled. */
    readonly interaction: {
      /** Its id. */
      readonly id: string;
    };
  }[];
}

/** Where to look. */
export interface MessageMatchOptions {
  /** The channel. @default the seeded channel */
  channelId?: string | undefined;
}

/** A matcher's answer, as Vitest and Jest read it. */
export interface MatcherResult {
  /** Whether it matched. */
  pass: boolean;
  /** Says what was expected and what was found. */
  message: () => string;
}

/**
 * The matchers' types, to merge into your framework's assertion type:
 * `declare module 'vitest' { interface Assertion<T> extends EmulatorMatchers<T> {} }`
 * (Jest: `declare global { namespace jest { interface Matchers<R> extends EmulatorMatchers<R> {} } }`).
 */
export interface EmulatorMatchers<R = unknown> {
  /** Passes when the bot answered an interaction with a message matching `expected` (in the seeded channel unless `channelId` is given). */
  toHaveReplied(expected: ExpectedMessage, options?: MessageMatchOptions): R;
  /** Passes when any message (a bot's answer or a webhook's post) matching `expected` was posted. */
  toHavePosted(expected: ExpectedMessage, options?: MessageMatchOptions): R;
  /** Passes when the bot answered with an ephemeral message (`flags: 64`, seen by the user alone) matching `expected`. */
  toHaveRepliedEphemerally(expected: ExpectedMessage, options?: MessageMatchOptions): R;
  /**
   * On an interaction the test drove: passes when the bot answered it with a
   * modal (interaction_type 9) whose fields include `expected` (a `custom_id`
   * when a string), or with any modal when `expected` is left out.
   */
  toHaveShownModal(expected?: string | Record<string, unknown>): R;
  /**
   * On an autocomplete interaction the test drove
   * (`invokeCommand({ name, options, focused })`): passes when the bot's
   * latest choices (interaction_type 8) equal `expected`, or when it
   * answered with any when `expected` is left out.
   */
  toHaveAutocompleted(expected?: readonly { name: string; value: string | number }[]): R;
  /** On the kit (`useEmulator(...)`): passes when no handler of the bot threw since the test began; a failure quotes each error. */
  toHaveNoHandlerErrors(): R;
}

function isSource(value: unknown): value is MessageSource {
  return typeof value === 'object' && value !== null && typeof (value as { messages?: unknown }).messages === 'function';
}

function matches(message: EmulatedMessage, expected: ExpectedMessage): boolean {
  if (typeof expected === 'string') return message.content === expected;
  if (expected instanceof RegExp) return expected.test(message.content);
  return Object.entries(expected).every(([field, value]) => isDeepStrictEqual(message[field as keyof EmulatedMessage], value));
}

function describeExpected(expected: ExpectedMessage): string {
  return typeof expected === 'string' ? JSON.stringify(expected) : expected instanceof RegExp ? String(expected) : JSON.stringify(expected);
}

/** Which messages a matcher looks at. */
type Kind = 'any' | 'reply' | 'ephemeral';

const KIND_WORDS: Readonly<Record<Kind, string>> = { any: 'message', reply: 'reply of the bot', ephemeral: 'ephemeral reply of the bot' };

function describeMessage(message: EmulatedMessage): string {
  return `  ${JSON.stringify(message.content)}${message.visibleTo === undefined ? '' : ` (ephemeral, seen by user ${message.visibleTo})`}`;
}

function check(received: unknown, expected: ExpectedMessage, options: MessageMatchOptions | undefined, kind: Kind, name: string): MatcherResult {
  if (!isSource(received)) return { pass: false, message: () => `${name}: expected an emulator (something with messages()), got ${typeof received}` };
  const all = received.messages(options?.channelId);
  const posted = all.filter((message) => kind === 'any' || (message.via === 'interaction' && (kind === 'reply' || message.visibleTo !== undefined)));
  const found = posted.some((message) => matches(message, expected));
  const seen = all.slice(-5).map(describeMessage);
  const what = KIND_WORDS[kind];
  return {
    pass: found,
    message: () =>
      found
        ? `expected no ${what} matching ${describeExpected(expected)}, but one was posted`
        : `expected ${/^[aeiou]/.test(what) ? 'an' : 'a'} ${what} matching ${describeExpected(expected)}; ${all.length === 0 ? 'none was posted' : `the latest messages were:\n${seen.join('\n')}`}`,
  };
}

function isAnswered(value: unknown): value is AnsweredInteraction {
  return typeof value === 'object' && value !== null && typeof (value as { callbacks?: unknown }).callbacks === 'function';
}

/** The bot's answers, in words, for a failure message. */
function describeAnswers(callbacks: readonly EmulatedCallback[]): string {
  if (callbacks.length === 0) return 'the bot has not answered it';
  return `the bot answered: ${callbacks.map((callback) => `interaction_type ${callback.interaction_type} ${JSON.stringify(callback.data)}`).join('; ')}`;
}

/** The matcher over an interaction's answers of one callback type. */
function checkAnswer(
  received: unknown,
  name: string,
  type: InteractionCallbackType,
  what: string,
  accepts: (data: Record<string, unknown>) => boolean,
  pickLatest: boolean,
): MatcherResult {
  if (!isAnswered(received))
    return { pass: false, message: () => `${name}: expected an interaction the test drove (with callbacks()), got ${typeof received}` };
  const callbacks = received.callbacks();
  const ofType = callbacks.filter((callback) => callback.interaction_type === type);
  const candidates = pickLatest ? ofType.slice(-1) : ofType;
  const pass = candidates.some((callback) => accepts(callback.data));
  return {
    pass,
    message: () =>
      pass
        ? `expected interaction ${received.id} not to have ${what}, but it had`
        : `expected interaction ${received.id} to have ${what}; ${describeAnswers(callbacks)}`,
  };
}

function subset(data: Record<string, unknown>, expected: Record<string, unknown>): boolean {
  return Object.entries(expected).every(([field, value]) => isDeepStrictEqual(data[field], value));
}

/** The matchers: `expect.extend(emulatorMatchers)` in a setup file (Vitest or Jest). */
export const emulatorMatchers = {
  /** See {@link EmulatorMatchers.toHaveReplied}. */
  toHaveReplied(received: unknown, expected: ExpectedMessage, options?: MessageMatchOptions): MatcherResult {
    return check(received, expected, options, 'reply', 'toHaveReplied');
  },
  /** See {@link EmulatorMatchers.toHavePosted}. */
  toHavePosted(received: unknown, expected: ExpectedMessage, options?: MessageMatchOptions): MatcherResult {
    return check(received, expected, options, 'any', 'toHavePosted');
  },
  /** See {@link EmulatorMatchers.toHaveRepliedEphemerally}. */
  toHaveRepliedEphemerally(received: unknown, expected: ExpectedMessage, options?: MessageMatchOptions): MatcherResult {
    return check(received, expected, options, 'ephemeral', 'toHaveRepliedEphemerally');
  },
  /** See {@link EmulatorMatchers.toHaveShownModal}. */
  toHaveShownModal(received: unknown, expected?: string | Record<string, unknown>): MatcherResult {
    const wanted = typeof expected === 'string' ? { custom_id: expected } : expected;
    const what = wanted === undefined ? 'shown a modal' : `shown a modal matching ${JSON.stringify(wanted)}`;
    return checkAnswer(received, 'toHaveShownModal', InteractionCallbackType.Modal, what, (data) => wanted === undefined || subset(data, wanted), false);
  },
  /** See {@link EmulatorMatchers.toHaveAutocompleted}. */
  toHaveAutocompleted(received: unknown, expected?: readonly { name: string; value: string | number }[]): MatcherResult {
    const what = expected === undefined ? 'autocompleted' : `autocompleted with ${JSON.stringify(expected)}`;
    const type = InteractionCallbackType.ApplicationCommandAutocompleteResult;
    return checkAnswer(received, 'toHaveAutocompleted', type, what, (data) => expected === undefined || isDeepStrictEqual(data['choices'], expected), true);
  },
  /** See {@link EmulatorMatchers.toHaveNoHandlerErrors}. */
  toHaveNoHandlerErrors(received: unknown): MatcherResult {
    const errors = (received as Partial<HandlerErrorSource> | null)?.interactionErrors;
    if (!Array.isArray(errors)) return { pass: false, message: () => `toHaveNoHandlerErrors: expected the kit (useEmulator(...)), got ${typeof received}` };
    const quoted = errors.map(({ error, interaction }) => `  interaction ${interaction.id}: ${describeThrown(error)}`);
    return {
      pass: errors.length === 0,
      message: () =>
        errors.length === 0
          ? 'expected a handler of the bot to have thrown, but none did'
          : `expected no handler of the bot to throw; ${errors.length} did:\n${quoted.join('\n')}`,
    };
  },
};
