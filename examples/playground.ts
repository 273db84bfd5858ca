/**
 * `npm run playground`: the emulator with its playground page and the quiz
 * bot (examples/playground-bot.ts) connected. Open the printed URL and chat.
 *
 *   npm run playground [-- --port 8080]
 */
import { Client } from 'community-chat-sdk';
import { createEmulator } from 'community-chat-sdk/testing';
import { installPlaygroundBot, playgroundCommands } from './playground-bot.js';

const portArg = process.argv.indexOf('--port');
const port = Number(portArg >= 0 ? process.argv[portArg + 1] : (process.env['PORT'] ?? 8080));
const emulator = await createEmulator({ port, playground: true });
const { seed } = emulator;

const admin = new Client({ baseUrl: emulator.url });
await admin.auth.login({ email: seed.user.email, password: seed.user.password });
await admin.commands.replace(seed.applicationId, playgroundCommands);

const bot = new Client({ baseUrl: emulator.url, auth: { botToken: seed.botToken } });
installPlaygroundBot(bot);
bot.gateway.on('interactionError', ({ error }) => console.error('handler failed:', error));
bot.gateway.on('reconnecting', ({ attempt, delayMs }) => console.log(`bot reconnecting (#${attempt} in ${delayMs} ms)`));
await bot.gateway.connect();

console.log(`Community Chat playground: ${emulator.playgroundUrl ?? emulator.url}`);
console.log(`Channel webhook (a local test credential): ${emulator.url}/api/v1/webhooks/${seed.webhook.id}/${seed.webhook.token}`);
console.log('The quiz bot is connected: type /quiz or /feedback. Press Ctrl+C to stop.');

const stop = async () => {
  await Promise.allSettled([bot.close(), admin.close()]);
  await emulator.close();
  process.exit(0);
};
process.once('SIGINT', () => void stop());
process.once('SIGTERM', () => void stop());
