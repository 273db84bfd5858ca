/**
 * The CLI's `--bot ./src/bot.ts`: loads a bot module, registers its commands
 * on the emulator with the owner's login and runs it on the bot token, so the
 * playground talks to it with nothing copied by hand.
 *
 * A bot module exports `commands` (its command definitions) and its install
 * function, the one `useEmulator({ bot })` takes, as `bot` or as the default
 * export.
 *
 * @module
 */

import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import type { Client } from '../clients/client.js';
import type { CommandDefinition } from '../schemas/request-types.js';
import { startBot } from './bot-runner.js';
import { BotModuleError, describeThrown } from './errors.js';
import type { Emulator } from './emulator/server.js';

/** Loads the bot module at `path` (relative to the working directory) and runs it against `emulator`. */
export async function runBotModule(emulator: Emulator, path: string): Promise<{ client: Client; commands: readonly CommandDefinition[] }> {
  let loaded: Record<string, unknown>;
  try {
    loaded = (await import(pathToFileURL(resolve(path)).href)) as Record<string, unknown>;
  } catch (error) {
    const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
    if (code === 'ERR_UNKNOWN_FILE_EXTENSION')
      throw new BotModuleError(
        `${path} is TypeScript: run the CLI through tsx (npx tsx node_modules/community-chat-sdk/dist/testing/cli.js --bot ${path}), or give the built .js`,
      );
    throw new BotModuleError(`cannot load ${path}: ${describeThrown(error)}`, { cause: error });
  }
  const install = typeof loaded['bot'] === 'function' ? loaded['bot'] : loaded['default'];
  if (typeof install !== 'function')
    throw new BotModuleError(`${path} exports no install function: export function bot(client) { client.gateway.onCommand(...) } (or a default export)`);
  const commands = loaded['commands'] ?? [];
  if (!Array.isArray(commands)) throw new BotModuleError(`${path}: its commands export must be an array of command definitions`);
  const client = await startBot(emulator, { commands: commands as CommandDefinition[], bot: install as (client: Client) => unknown });
  return { client, commands: commands as CommandDefinition[] };
}
