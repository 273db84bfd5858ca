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
 */
import http from 'node:http';
import { Client, createInteractionRouter, createWebhookReceiver, defineCommand } from 'community-chat-sdk';

const TOPICS = ['space', 'spices', 'sports', 'history', 'music'];

export const quiz = defineCommand({
  name: 'quiz',
  description: 'Start a quiz in this channel',
  options: [
    { type: 3, name: 'topic', description: 'What the quiz is about', required: true, autocomplete: true },
    { type: 4, name: 'rounds', description: 'How many rounds' },
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
const secrets = (process.env['CHAT_WEBHOOK_SECRET'] ?? '').split(',').map((secret) => secret.trim());

// Refuses to start with an empty secret (a ValidationError), rather than accepting anything.
const receiver = createWebhookReceiver({ secret: secrets, client, router });
receiver.on('rejected', (error) => console.warn(`refused a delivery: ${error.reason}`));
receiver.on('error', ({ error }) => console.error('receiver error:', error));

const server = http.createServer((request, response) => {
  if (request.url === '/interactions') receiver.node(request, response);
  else {
    response.statusCode = 404;
    response.end();
  }
});
const port = Number(process.env['PORT'] ?? 3000);
server.listen(port, () => console.log(`http interactions bot listening on :${port}/interactions`));

const shutdown = () => {
  server.close(() => {
    void client.close().then(() => {
      console.log('http interactions bot stopped');
      process.exit(0);
    });
  });
  server.closeIdleConnections();
};
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
