/**
 * HTTP interactions: a bot that answers slash commands without a Gateway
 * connection (serverless, or behind a load balancer). The service POSTs each
 * INTERACTION_CREATE to an application webhook, signed with its secret; the
 * receiver verifies it, answers 200 at once, and the handlers reply through
 * the interaction callback endpoint.
 *
 *   CHAT_BASE_URL=... CHAT_BOT_TOKEN=... CHAT_WEBHOOK_SECRET=... PORT=3000 \
 *     node --import tsx examples/http-interactions.ts
 *
 * Register `http://<this host>:3000/interactions` as an application webhook
 * (client.applicationWebhooks.create) and put its secret in
 * CHAT_WEBHOOK_SECRET. While rotating, put both secrets, comma-separated.
 *
 * Or let it register itself (against the emulator, `npm run emulator`): give
 * the owner's CHAT_EMAIL, CHAT_PASSWORD and CHAT_APP_ID instead of the
 * secret. It then creates a webhook for its own URL (PORT=0 picks a free
 * port), subscribed to INTERACTION_CREATE, and deletes it on Ctrl+C. Once it
 * exists, the service sends interactions to it instead of the Gateway.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApplicationCommandOptionType, Client, createInteractionRouter, defineCommand } from 'community-chat-sdk';
import { createWebhookReceiver } from 'community-chat-sdk/receiver';

const TOPICS = ['space', 'spices', 'sports', 'history', 'music'];

export const quiz = defineCommand({
  name: 'quiz',
  description: 'Start a quiz in this channel',
  options: [
    { type: ApplicationCommandOptionType.String, name: 'topic', description: 'What the quiz is about', required: true, autocomplete: true },
    { type: ApplicationCommandOptionType.Integer, name: 'rounds', description: 'How many rounds' },
  ],
});

// The handlers: the same router would run over the Gateway with client.gateway.use(router).
const router = createInteractionRouter();

router.onInteraction('ping', (interaction) => interaction.pong());

router.onInteraction('autocomplete', (interaction) => {
  const typed = String(interaction.focused?.value ?? '').toLowerCase();
  return interaction.autocomplete(TOPICS.filter((topic) => topic.startsWith(typed)).map((topic) => ({ name: topic, value: topic })));
});

router.onCommand(quiz, async (interaction) => {
  const rounds = interaction.options.rounds ?? 3;
  await interaction.reply(`Quiz about ${interaction.options.topic}, ${rounds} rounds. Ready?`);
  console.log(`answered /quiz over HTTP (${interaction.ageMs} ms after it was created)`);
});

router.on('interactionError', ({ error, interaction }) => console.error(`handler failed for interaction ${interaction.id}:`, error));

const client = new Client({ baseUrl: process.env['CHAT_BASE_URL'], auth: { botToken: process.env['CHAT_BOT_TOKEN'] ?? '' } });
const appId = process.env['CHAT_APP_ID'] ?? '';
const selfRegister = !process.env['CHAT_WEBHOOK_SECRET'] && process.env['CHAT_EMAIL'] !== undefined && appId !== '';

let handle: (request: http.IncomingMessage, response: http.ServerResponse) => void = (_request, response) => {
  response.statusCode = 503;
  response.end();
};
const server = http.createServer((request, response) => {
  if (request.url === '/interactions') handle(request, response);
  else {
    response.statusCode = 404;
    response.end();
  }
});
await new Promise<void>((resolve) => server.listen(Number(process.env['PORT'] ?? 3000), '127.0.0.1', resolve));
const { port } = server.address() as AddressInfo;
const url = `http://127.0.0.1:${port}/interactions`;

let registered: string | undefined;
let secrets = (process.env['CHAT_WEBHOOK_SECRET'] ?? '').split(',').map((secret) => secret.trim());
if (selfRegister) {
  await client.auth.login({ email: process.env['CHAT_EMAIL'] ?? '', password: process.env['CHAT_PASSWORD'] ?? '' });
  const hook = await client.applicationWebhooks.create(appId, { url, events: ['INTERACTION_CREATE'] });
  registered = hook.id;
  secrets = [String(hook['secret'])];
  console.log(`registered application webhook ${hook.id} for ${url}`);
}

// Refuses to start with an empty secret (a ValidationError), rather than accepting anything.
const receiver = createWebhookReceiver({ secret: secrets, client });
receiver.use(router);
receiver.on('rejected', (error) => console.warn(`refused a delivery: ${error.reason}`));
receiver.on('error', ({ error }) => console.error('receiver error:', error));
receiver.onDelivery('TEST', (delivery) => console.log(`test delivery ${delivery.id} received`));
handle = receiver.node;
console.log(`http interactions bot listening on ${url}`);

const shutdown = () => {
  server.close(() => {
    const unregister = registered === undefined ? Promise.resolve() : client.applicationWebhooks.delete(appId, registered).then(() => client.auth.logout());
    void unregister
      .catch((error: unknown) => console.error('could not delete the webhook:', error))
      .then(() => client.close())
      .then(() => {
        console.log('http interactions bot stopped');
        process.exit(0);
      });
  });
  server.closeIdleConnections();
};
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
