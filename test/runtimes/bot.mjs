// The runtimes scenario's bot, run by Bun and Deno (test/runtimes/run.mjs starts it): a Client with
// default options makes a REST call, answers /ping over the Gateway, and closes when told on stdin.
// It prints one JSON line per step for the driver, and exits on its own once closed: a handle left
// open by close() would keep the process alive, and the driver would say so.
import { Client } from '../../dist/index.js';

const env = globalThis.Deno ? globalThis.Deno.env.toObject() : process.env;
const say = (line) => console.log(JSON.stringify(line));
const client = new Client({ baseUrl: env.CHAT_BASE_URL, auth: { botToken: env.CHAT_BOT_TOKEN } });
const me = await client.users.getMe();
client.gateway.onCommand('ping', (interaction) => interaction.reply(`pong from ${me.username}`));
client.gateway.on('error', (error) => say({ step: 'error', message: String(error?.message ?? error) }));
await client.gateway.connect();
say({ step: 'ready', username: me.username });

let input = '';
const stdin = globalThis.Deno ? null : process.stdin;
const closing = async () => {
  await client.close();
  say({ step: 'closed' });
};
if (stdin) {
  stdin.setEncoding('utf8');
  stdin.on('data', (chunk) => {
    input += chunk;
    if (input.includes('close')) {
      stdin.destroy();
      void closing();
    }
  });
} else {
  const reader = globalThis.Deno.stdin.readable.getReader();
  const decoder = new TextDecoder();
  while (!input.includes('close')) {
    const { value, done } = await reader.read();
    if (done) break;
    input += decoder.decode(value);
  }
  reader.releaseLock();
  await closing();
}
