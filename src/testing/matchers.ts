/**
 * Matchers for `expect.extend()`, written to the shape Vitest and Jest share:
 * `expect(emulator).toHaveReplied('Quiz about space')`.
 *
 * @module
 */

import type { EmulatedMessage } from './emulator/types.js';

/** What the matchers read of an emulator (an `Emulator`). */
export interface MessageSource {
  /** Messages posted to a channel (the seeded one by default). */
  messages(channelId?: string): EmulatedMessage[];
}

/** What a message is expected to be: its exact text, a pattern of it, or a subset of its fields. */
export type ExpectedMessage = string | RegExp | Partial<Pick<EmulatedMessage, 'content' | 'components' | 'interactionId'>>;

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
}

function isSource(value: unknown): value is MessageSource {
  return typeof value === 'object' && value !== null && typeof (value as { messages?: unknown }).messages === 'function';
}

function matches(message: EmulatedMessage, expected: ExpectedMessage): boolean {
  if (typeof expected === 'string') return message.content === expected;
  if (expected instanceof RegExp) return expected.test(message.content);
  return Object.entries(expected).every(([field, value]) => JSON.stringify(message[field as keyof EmulatedMessage]) === JSON.stringify(value));
}

function describeExpected(expected: ExpectedMessage): string {
  return typeof expected === 'string' ? JSON.stringify(expected) : expected instanceof RegExp ? String(expected) : JSON.stringify(expected);
}

function check(received: unknown, expected: ExpectedMessage, options: MessageMatchOptions | undefined, replies: boolean, name: string): MatcherResult {
  if (!isSource(received)) return { pass: false, message: () => `${name}: expected an emulator (something with messages()), got ${typeof received}` };
  const posted = received.messages(options?.channelId).filter((message) => !replies || message.via === 'interaction');
  const found = posted.some((message) => matches(message, expected));
  const seen = posted.slice(-5).map((message) => `  ${JSON.stringify(message.content)}`);
  const what = replies ? 'reply of the bot' : 'message';
  return {
    pass: found,
    message: () =>
      found
        ? `expected no ${what} matching ${describeExpected(expected)}, but one was posted`
        : `expected a ${what} matching ${describeExpected(expected)}; ${posted.length === 0 ? 'none was posted' : `the latest were:\n${seen.join('\n')}`}`,
  };
}

/** The matchers: `expect.extend(emulatorMatchers)` in a setup file (Vitest or Jest). */
export const emulatorMatchers = {
  /** See {@link EmulatorMatchers.toHaveReplied}. */
  toHaveReplied(received: unknown, expected: ExpectedMessage, options?: MessageMatchOptions): MatcherResult {
    return check(received, expected, options, true, 'toHaveReplied');
  },
  /** See {@link EmulatorMatchers.toHavePosted}. */
  toHavePosted(received: unknown, expected: ExpectedMessage, options?: MessageMatchOptions): MatcherResult {
    return check(received, expected, options, false, 'toHavePosted');
  },
};
