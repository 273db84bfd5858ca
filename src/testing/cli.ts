/**
 * `community-chat-emulator`: runs the emulator from the command line.
 *
 *   npx community-chat-emulator --port 8080 [--host 127.0.0.1] [--seed 1] [--no-playground]
 *
 * The playground (a web page to chat with a bot) is served at the root URL
 * unless `--no-playground` is given. `--help` says how to stop it (npx does
 * not forward a SIGINT sent to its own pid).
 *
 * @module
 */

import { createEmulator } from './emulator/index.js';

function argument(name: string, fallback: string): string {
  const args = process.argv.slice(2);
  const index = args.indexOf(`--${name}`);
  const inline = args.find((arg) => arg.startsWith(`--${name}=`));
  if (inline) return inline.slice(name.length + 3);
  return index >= 0 && args[index + 1] !== undefined ? (args[index + 1] as string) : fallback;
}

const HELP = `Usage: community-chat-emulator [--port 8080] [--host 127.0.0.1] [--seed 1] [--no-playground]

Starts the Community Chat emulator with seeded demo data and prints it.
Application-webhook deliveries go to loopback URLs only.

Stopping it: Ctrl+C in its terminal (the whole process group gets SIGINT), or
SIGINT/SIGTERM to the node process whose pid it prints. Started through npx
(or npm exec), a SIGINT sent to npx's own pid is not forwarded to it (npm does
not forward it), so the emulator keeps running: signal the printed pid, or
start node directly: node node_modules/community-chat-sdk/dist/testing/cli.js
`;

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  process.stdout.write(HELP);
  process.exit(0);
}

const port = Number(argument('port', '8080'));
const host = argument('host', '127.0.0.1');
const seed = Number(argument('seed', '1'));
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  process.stderr.write(`invalid --port ${argument('port', '')}\n`);
  process.exit(2);
}

const playground = !process.argv.includes('--no-playground');
const emulator = await createEmulator({ port, host, seed, playground });
const { seed: data } = emulator;
process.stdout.write(
  [
    `Community Chat emulator listening on ${emulator.url} (Gateway ${emulator.gatewayUrl})`,
    ...(emulator.playgroundUrl ? [`Playground: open ${emulator.playgroundUrl} to chat with the bot you connect`] : []),
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
  emulator.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));
