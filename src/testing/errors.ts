/**
 * The testing kit's errors: typed, with messages that say what to do.
 *
 * @module
 */

import { CommunityChatError } from '../errors/base.js';

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
