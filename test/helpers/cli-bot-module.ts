/**
 * A bot module as `community-chat-emulator --bot` loads it: its command
 * definitions and its install function (the one `useEmulator({ bot })` takes).
 */
import type { BotHost } from '../../src/testing/index.js';

/** The bot's commands. */
export const commands = [{ name: 'fruit', description: 'Pick a fruit', options: [{ type: 3, name: 'kind', description: 'Kind', autocomplete: true }] }];

/** Installs the bot's handlers. */
export default function install(bot: BotHost): void {
  bot.gateway.onInteraction('autocomplete', (interaction) => interaction.autocomplete([{ name: 'Apple from the CLI bot', value: 'apple' }]));
  bot.gateway.onCommand('fruit', (interaction) => interaction.reply('fruit!'));
}
