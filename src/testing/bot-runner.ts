/**
 * Starting a bot against an emulator, as a deploy step and the bot itself
 * would: its commands registered with the owner's login, then a client on
 * the bot token and the emulator's clock, its handlers installed, its
 * Gateway connected. `useEmulator` and the CLI's `--bot` share it.
 *
 * @module
 */

import { Client } from '../clients/client.js';
import type { CommandDefinition } from '../schemas/request-types.js';
import type { Emulator } from './emulator/server.js';

/** What {@link startBot} needs. */
interface BotSetup {
  /** Commands registered (globally) before the bot starts. @default [] */
  commands?: readonly CommandDefinition[] | undefined;
  /** Installs the bot's handlers on its client. @default undefined (no handlers) */
  bot?: ((client: Client) => unknown) | undefined;
  /** Whether its Gateway connects. @default true */
  connect?: boolean | undefined;
  /** Called with the client before `bot` runs (the kit's listeners). @default undefined */
  prepare?: ((client: Client) => void) | undefined;
}

/** Registers the commands, starts the bot's client and connects it; closes the client if any step fails. */
export async function startBot(emulator: Emulator, setup: BotSetup): Promise<Client> {
  if (setup.commands !== undefined && setup.commands.length > 0) {
    const owner = new Client({ baseUrl: emulator.url });
    try {
      await owner.auth.login({ email: emulator.seed.user.email, password: emulator.seed.user.password });
      await owner.commands.sync(emulator.seed.applicationId, setup.commands);
    } finally {
      await owner.close();
    }
  }
  const bot = new Client({ baseUrl: emulator.url, auth: { botToken: emulator.seed.botToken }, clock: emulator.clock });
  try {
    setup.prepare?.(bot);
    await setup.bot?.(bot);
    if (setup.connect !== false) await bot.gateway.connect();
    return bot;
  } catch (error) {
    await bot.close();
    throw error;
  }
}
