/**
 * The testing kit's errors: typed, with messages that say what to do.
 *
 * @module
 */

import { inspect } from 'node:util';
import { CommunityChatError, hasKind, KIND, thrownValue } from '../errors/base.js';
import type { OptionProblem } from '../interactions/options.js';

/** Base class of the errors the emulator's control API throws or rejects with. */
export class EmulatorError extends CommunityChatError {}

/** `invokeCommand` named a command that is not registered where it runs. */
export class EmulatorUnknownCommandError extends EmulatorError {
  /** The name asked for (lowercased, as commands are stored). */
  readonly command: string;
  /** The community it was looked up in, or `null` for a DM. */
  readonly guildId: string | null;
  /** The command names that could run there. */
  readonly registered: readonly string[];
  constructor(command: string, guildId: string | null, registered: readonly string[]) {
    const where = guildId === null ? 'usable in DMs (a global command with dm_permission)' : `for community ${guildId}`;
    const known = registered.length === 0 ? 'none is registered there yet' : `registered: ${registered.map((name) => `/${name}`).join(', ')}`;
    super(`no command "${command}" is registered ${where}; ${known} (register it first, e.g. client.commands.create)`);
    this.command = command;
    this.guildId = guildId;
    this.registered = registered;
  }
}

/** Something the emulator's control API was pointed at does not exist (a user, a message, a community, an activity). */
export class EmulatorNotFoundError extends EmulatorError {}

/**
 * An interaction's 15 minutes passed on the emulator clock (real time or
 * `advanceTime`) before the bot answered: `invokeCommand().response` rejects
 * with it.
 */
export class EmulatorInteractionExpiredError extends EmulatorError {
  /** The interaction's id. */
  readonly interactionId: string;
  /** When it expired, epoch milliseconds (emulator clock). */
  readonly expiredAt: number;
  /** Its age on the emulator clock when this was noticed, milliseconds. */
  readonly ageMs: number;
  constructor(interactionId: string, expiredAt: number, ageMs: number) {
    super(
      `Interaction ${interactionId} (age ${Math.round(ageMs / 1000)} s on the emulator clock) expired unanswered at ${new Date(expiredAt).toISOString()}: ` +
        'the bot did not answer within 15 minutes. Give the bot the same clock (new Client({ clock: emulator.clock })) so its own expiry checks agree.',
    );
    this.interactionId = interactionId;
    this.expiredAt = expiredAt;
    this.ageMs = ageMs;
  }
}

/**
 * An interaction reached nobody: the bot has no Gateway session (connected
 * or resumable) for its community's shard and no application webhook takes
 * INTERACTION_CREATE, so nothing can ever answer it: `invokeCommand().response`
 * (and the component and modal ones) reject with it at once.
 */
export class EmulatorNotDeliveredError extends EmulatorError {
  /** The interaction's id. */
  readonly interactionId: string;
  constructor(interactionId: string, applicationId: string) {
    super(
      `Interaction ${interactionId} reached no session of application ${applicationId}'s bot and no webhook: connect the bot (client.gateway.connect()) to this emulator before invoking, or subscribe a webhook to INTERACTION_CREATE`,
    );
    this.interactionId = interactionId;
  }
}

/**
 * `invokeCommand` gave options that do not fit the registered command (an
 * unknown option, a value of the wrong type, outside its choices or range, a
 * required one missing): the service's clients cannot send such an
 * interaction, so the emulator refuses to create it. Its `problems` name
 * each option.
 */
export class EmulatorInvalidOptionsError extends EmulatorError {
  /** The command. */
  readonly command: string;
  /** Each option that does not fit, and why. */
  readonly problems: readonly OptionProblem[];
  constructor(command: string, problems: readonly OptionProblem[]) {
    super(`/${command} was invoked with options that do not fit its definition: ${problems.map((problem) => `${problem.path} ${problem.message}`).join('; ')}`);
    this.command = command;
    this.problems = problems;
  }
}

/** Where an interaction came from, for the kit's messages: `/poll`, `button "yes"`, `modal "survey"`. */
export interface InteractionLabel {
  /** The interaction's id. */
  readonly interactionId: string;
  /** What the user did, in words (`/poll`, `a click on "yes"`, `a submit of modal "survey"`). */
  readonly what: string;
}

/** The longest description of a thrown value quoted in a message. */
const MAX_THROWN_CHARS = 300;

/**
 * What a handler threw, in one line: `TypeError: boom`; an object with a
 * string `message` (`{ code: 50013, message: 'Missing Permissions' }`)
 * shows it (with its `code`); anything else as `util.inspect` shows it.
 * Total: never throws, whatever was thrown (a null-prototype object, a
 * revoked proxy, a throwing getter).
 */
export function describeThrown(thrown: unknown): string {
  let text: string;
  try {
    text = describeOrThrow(thrownValue(thrown));
  } catch {
    text = 'a value that cannot be shown';
  }
  return text.length > MAX_THROWN_CHARS ? `${text.slice(0, MAX_THROWN_CHARS)}…` : text;
}

function describeOrThrow(thrown: unknown): string {
  if (thrown instanceof Error) return `${thrown.name}: ${thrown.message}`;
  if (typeof thrown === 'object' && thrown !== null) {
    const { message, code } = thrown as { message?: unknown; code?: unknown };
    if (typeof message === 'string') return code === undefined ? message : `${inspect(code)}: ${message}`;
  }
  return typeof thrown === 'string' ? thrown : inspect(thrown, { depth: 2, breakLength: Number.POSITIVE_INFINITY });
}

/**
 * A handler of the bot threw (or rejected) while handling an interaction the
 * test drove: with `useEmulator`, the interaction's `response` rejects with it
 * at once. Its message names the interaction and quotes the handler's error;
 * its stack is the handler's; `cause` is what the handler threw.
 */
export class EmulatorHandlerError extends EmulatorError {
  /** The interaction's id. */
  readonly interactionId: string;
  constructor(label: InteractionLabel, error: unknown) {
    const thrown = thrownValue(error);
    super(`the bot's handler of ${label.what} (interaction ${label.interactionId}) threw ${describeThrown(thrown)}`, { cause: thrown });
    this.interactionId = label.interactionId;
    // The frames worth reading are the handler's, not the kit's.
    const stack: unknown = thrown instanceof Error ? thrown.stack : undefined;
    const frames = typeof stack === 'string' ? stack.split('\n').slice(1).join('\n') : undefined;
    if (frames !== undefined && frames !== '') this.stack = `${this.name}: ${this.message}\n${frames}`;
  }
}

/**
 * The bot did not answer an interaction the test drove: no handler took it,
 * or none answered within the kit's `answerTimeoutMs` (Discord's 3 seconds by
 * default, after which a user sees "This interaction failed"). With
 * `useEmulator`, the interaction's `response` rejects with it.
 */
export class EmulatorNoAnswerError extends EmulatorError {
  /** The interaction's id. */
  readonly interactionId: string;
  constructor(label: InteractionLabel, why: string) {
    super(`the bot did not answer ${label.what} (interaction ${label.interactionId}): ${why}`);
    this.interactionId = label.interactionId;
  }
}

/** The CLI's `--bot` module cannot be run (it does not load, or exports no bot function): the message says what it must export. */
export class BotModuleError extends CommunityChatError {}

/** Every testing-kit error class by its kind: their brands and guards come from this list, as the SDK's do. */
const TESTING_ERROR_CLASSES = {
  EmulatorError,
  EmulatorUnknownCommandError,
  EmulatorNotFoundError,
  EmulatorInteractionExpiredError,
  EmulatorNotDeliveredError,
  EmulatorInvalidOptionsError,
  EmulatorHandlerError,
  EmulatorNoAnswerError,
  BotModuleError,
} as const;
for (const [kind, errorClass] of Object.entries(TESTING_ERROR_CLASSES)) Object.defineProperty(errorClass.prototype, KIND, { value: kind, enumerable: false });

/** Whether `value` is an {@link EmulatorError} (any of the testing kit's errors), from any copy of the package. */
export const isEmulatorError = (value: unknown): value is EmulatorError => hasKind(value, 'EmulatorError');
/** Whether `value` is an {@link EmulatorUnknownCommandError}. */
export const isEmulatorUnknownCommandError = (value: unknown): value is EmulatorUnknownCommandError => hasKind(value, 'EmulatorUnknownCommandError');
/** Whether `value` is an {@link EmulatorNotFoundError}. */
export const isEmulatorNotFoundError = (value: unknown): value is EmulatorNotFoundError => hasKind(value, 'EmulatorNotFoundError');
/** Whether `value` is an {@link EmulatorInteractionExpiredError}. */
export const isEmulatorInteractionExpiredError = (value: unknown): value is EmulatorInteractionExpiredError =>
  hasKind(value, 'EmulatorInteractionExpiredError');
/** Whether `value` is an {@link EmulatorNotDeliveredError}. */
export const isEmulatorNotDeliveredError = (value: unknown): value is EmulatorNotDeliveredError => hasKind(value, 'EmulatorNotDeliveredError');
/** Whether `value` is an {@link EmulatorInvalidOptionsError}. */
export const isEmulatorInvalidOptionsError = (value: unknown): value is EmulatorInvalidOptionsError => hasKind(value, 'EmulatorInvalidOptionsError');
/** Whether `value` is an {@link EmulatorHandlerError}. */
export const isEmulatorHandlerError = (value: unknown): value is EmulatorHandlerError => hasKind(value, 'EmulatorHandlerError');
/** Whether `value` is an {@link EmulatorNoAnswerError}. */
export const isEmulatorNoAnswerError = (value: unknown): value is EmulatorNoAnswerError => hasKind(value, 'EmulatorNoAnswerError');
/** Whether `value` is a {@link BotModuleError}. */
export const isBotModuleError = (value: unknown): value is BotModuleError => hasKind(value, 'BotModuleError');
