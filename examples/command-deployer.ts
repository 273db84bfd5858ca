/**
 * Command deployer: logs in as the application's owner and makes the
 * registered slash commands match the definitions below. It only writes when
 * something changed, so it is safe to run on every deploy.
 *
 *   CHAT_BASE_URL=... CHAT_EMAIL=... CHAT_PASSWORD=... CHAT_APP_ID=... node examples/command-deployer.ts
 */
import { ApplicationCommandOptionType, Client, type CommandDefinition } from 'community-chat-sdk';

const commands: CommandDefinition[] = [
  {
    name: 'quiz',
    description: 'Start a quiz in this channel',
    options: [
      { type: ApplicationCommandOptionType.String, name: 'topic', description: 'What the quiz is about', required: true, autocomplete: true },
      { type: ApplicationCommandOptionType.Integer, name: 'rounds', description: 'How many rounds' },
    ],
  },
  { name: 'score', description: 'Show the scoreboard', dm_permission: false },
];

const appId = process.env['CHAT_APP_ID'] ?? '';
const client = new Client({ baseUrl: process.env['CHAT_BASE_URL'] });
await client.auth.login({ email: process.env['CHAT_EMAIL'] ?? '', password: process.env['CHAT_PASSWORD'] ?? '' });

const global = await client.commands.sync(appId, commands);
console.log(global.changed ? `Registered ${global.commands.length} global commands` : 'Global commands already up to date');

const guildId = process.env['CHAT_GUILD_ID'];
if (guildId) {
  const local = await client.commands.syncForGuild(appId, guildId, commands);
  console.log(local.changed ? `Registered ${local.commands.length} commands in ${guildId}` : `Commands in ${guildId} already up to date`);
}

await client.auth.logout();
await client.close();
