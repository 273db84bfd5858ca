/**
 * `community-chat-emulator`: runs the emulator from the command line.
 *
 *   npx community-chat-emulator --port 8080 [--host 127.0.0.1] [--seed N] [--no-playground] [--bot ./dist/bot.js]
 *
 * The playground (a web page to chat with a bot) is served at the root URL
 * unless `--no-playground` is given. `--help` says how to stop it (npx does
 * not forward a SIGINT sent to its own pid).
 *
 * @module
 */

import { CliUsageError, readCliArgs, type EmulatorCliArgs } from './cli-args.js';
import { createEmulator, type Emulator } from './emulator/index.js';
import type { Client } from '../clients/client.js';
import { runBotModule } from './cli-bot.js';

const HELP = `Usage: community-chat-emulator [--port 8080] [--host 127.0.0.1] [--seed N] [--no-playground] [--bot ./dist/bot.js]

Starts the Community Chat emulator with seeded demo data and prints it. Its tokens
and passwords differ on every run unless --seed is given.
Application-webhook deliveries go to loopback URLs only.

--bot MODULE runs your bot against it: the module exports \`commands\` (its command
definitions) and its install function (\`bot\`, or the default export), which gets
a Client on the seeded bot token: the commands are registered, the bot connects,
and the playground talks to it. A .ts module needs tsx:
  npx tsx node_modules/community-chat-sdk/dist/testing/cli.js --bot ./src/bot.ts

Stopping it: Ctrl+C in its terminal (the whole process group gets SIGINT), or
SIGINT/SIGTERM to the node process whose pid it prints. Started through npx
(or npm exec), a SIGINT sent to npx's own pid is not forwarded to it (npm does
not forward it), so the emulator keeps running: signal the printed pid, or
start node directly: node node_modules/community-chat-sdk/dist/testing/cli.js
`;

let args: EmulatorCliArgs;
try {
  args = readCliArgs(process.argv.slice(2));
} catch (error) {
  if (!(error instanceof CliUsageError)) throw error;
  process.stderr.write(`community-chat-emulator: ${error.message}\nRun with --help for the usage.\n`);
  process.exit(2);
}
if (args.help) {
  process.stdout.write(HELP);
  process.exit(0);
}

let emulator: Emulator;
try {
  emulator = await createEmulator({ port: args.port, host: args.host, seed: args.seed, playground: args.playground });
} catch (error) {
  // A port in use, a host that does not resolve or is not this machine's: one readable line, no stack.
  const code = (error as { code?: unknown }).code;
  const reason =
    code === 'EADDRINUSE'
      ? `port ${args.port} is already in use on ${args.host} (pick another with --port, or --port 0 for any free one)`
      : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
        ? `host ${JSON.stringify(args.host)} does not resolve`
        : code === 'EADDRNOTAVAIL'
          ? `host ${JSON.stringify(args.host)} is not an address of this machine`
          : code === 'EACCES'
            ? `no permission to listen on port ${args.port}`
            : error instanceof Error
              ? error.message
              : String(error);
  process.stderr.write(`community-chat-emulator: cannot start: ${reason}\n`);
  process.exit(1);
}
let bot: Client | undefined;
let botLine: string[] = [];
if (args.bot !== undefined) {
  try {
    const running = await runBotModule(emulator, args.bot);
    bot = running.client;
    const names = running.commands.map((command) => `/${command.name}`).join(', ') || 'no commands';
    botLine = [`Bot ${args.bot}: connected, registered ${names}`];
  } catch (error) {
    process.stderr.write(`community-chat-emulator: --bot ${args.bot}: ${error instanceof Error ? error.message : String(error)}\n`);
    await emulator.close();
    process.exit(1);
  }
}
const { seed: data } = emulator;
process.stdout.write(
  [
    `Community Chat emulator listening on ${emulator.url} (Gateway ${emulator.gatewayUrl})`,
    ...(emulator.playgroundUrl ? [`Playground: open ${emulator.playgroundUrl} to chat with the bot you connect`] : []),
    ...botLine,
    '',
    'Seeded demo data (local test credentials):',
    `  user        ${data.user.email} / ${data.user.password}`,
    `  member      ${data.member.email} / ${data.member.password} (no MANAGE_WEBHOOKS)`,
    `  application ${data.applicationId}`,
    `  bot token   ${data.botToken}`,
    `  community   ${data.guildId}`,
    `  channel     ${data.channelId}`,
    `  webhook     ${data.webhookUrl}`,
    '',
    `Press Ctrl+C to stop (or send SIGINT to pid ${process.pid}).`,
    '',
  ].join('\n'),
);

let stopping = false;
const stop = (signal: string) => {
  if (stopping) return;
  stopping = true;
  process.stdout.write(`\n${signal}: shutting down\n`);
  Promise.resolve(bot?.close())
    .then(() => emulator.close())
    .then(
      () => process.exit(0),
      () => process.exit(1),
    );
};
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));
