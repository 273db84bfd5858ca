/**
 * An interaction's life on the emulator: the promise of the bot's first
 * answer, which rejects when 15 minutes pass on the emulator clock (real time
 * or `advanceTime`) with none, and the typed error for an unknown command.
 *
 * @module
 */

import { INTERACTION_LIFETIME_MS } from '../../core/constants.js';
import { EmulatorInteractionExpiredError, EmulatorUnknownCommandError } from '../errors.js';
import type { EmulatorState, Interaction } from './state.js';
import { schedule } from './timers.js';
import type { EmulatedCallback } from './types.js';

/**
 * The promise of the bot's first answer. It is marked handled, so an
 * interaction nobody awaits never becomes an unhandled rejection when it
 * expires; whoever awaits it still sees the rejection.
 */
export function answerOf(state: EmulatorState, interaction: Interaction): Promise<EmulatedCallback> {
  const answer = new Promise<EmulatedCallback>((resolve, reject) => interaction.waiters.push({ resolve, reject }));
  answer.catch(() => undefined);
  const expiresAt = interaction.createdAt + INTERACTION_LIFETIME_MS;
  schedule(state, expiresAt - state.now() + 1, () => expireInteractions(state));
  return answer;
}

/** Rejects the waiters of every interaction past its 15 minutes with no answer. */
export function expireInteractions(state: EmulatorState): void {
  const now = state.now();
  for (const interaction of state.interactions.values()) {
    if (interaction.waiters.length === 0 || interaction.acknowledgedWith !== undefined) continue;
    const expiresAt = interaction.createdAt + INTERACTION_LIFETIME_MS;
    if (now < expiresAt) continue;
    const error = new EmulatorInteractionExpiredError(interaction.id, expiresAt, now - interaction.createdAt);
    for (const waiter of interaction.waiters.splice(0)) waiter.reject(error);
  }
}

/** The typed error for a command not registered where it was run, listing the ones that are. */
export function unknownCommand(state: EmulatorState, name: string, guildId: string | null, applicationId: string | undefined): EmulatorUnknownCommandError {
  const names = new Set<string>();
  for (const app of state.apps.values()) {
    if (applicationId !== undefined && app.id !== applicationId) continue;
    if (guildId === null) {
      for (const command of app.commands) if (command.dm_permission) names.add(command.name);
      continue;
    }
    if (!state.guilds.get(guildId)?.botApplications.has(app.id)) continue;
    for (const command of [...(app.guildCommands.get(guildId) ?? []), ...app.commands]) names.add(command.name);
  }
  return new EmulatorUnknownCommandError(name, guildId, [...names].sort());
}
