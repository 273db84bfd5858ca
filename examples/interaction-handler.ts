/**
 * Interaction handler: a quiz bot that answers /quiz with autocomplete,
 * a reply, and a button, and shuts down cleanly on Ctrl+C.
 *
 *   CHAT_BASE_URL=... CHAT_BOT_TOKEN=... node --import tsx examples/interaction-handler.ts
 */
import { ApplicationCommandOptionType, Client, ComponentType, defineCommand } from 'community-chat-sdk';

const TOPICS = ['space', 'spices', 'sports', 'history', 'music'];

export const quiz = defineCommand({
  name: 'quiz',
  description: 'Start a quiz in this channel',
  options: [
    { type: ApplicationCommandOptionType.String, name: 'topic', description: 'What the quiz is about', required: true, autocomplete: true },
    { type: ApplicationCommandOptionType.Integer, name: 'rounds', description: 'How many rounds' },
  ],
});

const client = new Client({ baseUrl: process.env['CHAT_BASE_URL'], auth: { botToken: process.env['CHAT_BOT_TOKEN'] ?? '' } });
const gateway = client.gateway;

gateway.onInteraction('autocomplete', (interaction) => {
  const typed = String(interaction.focused?.value ?? '').toLowerCase();
  return interaction.autocomplete(TOPICS.filter((topic) => topic.startsWith(typed)).map((topic) => ({ name: topic, value: topic })));
});

gateway.onCommand(quiz, async (interaction) => {
  const rounds = interaction.options.rounds ?? 3;
  await interaction.reply({
    content: `Quiz about ${interaction.options.topic}, ${rounds} rounds. Ready?`,
    components: [{ type: ComponentType.ActionRow, components: [{ type: ComponentType.Button, style: 1, label: 'Ready', custom_id: 'quiz:ready' }] }],
  });
  console.log(`answered /quiz from ${interaction.user?.username ?? 'someone'} (${interaction.ageMs} ms after it was created)`);
});

gateway.onInteraction('component', (interaction) => (interaction.customId === 'quiz:ready' ? interaction.deferUpdate() : undefined));

gateway.on('interactionError', ({ error, interaction }) => console.error(`handler failed for interaction ${interaction.id}:`, error));
gateway.on('reconnecting', ({ attempt, delayMs, reason }) => console.warn(`reconnecting (#${attempt} in ${delayMs} ms): ${reason}`));

await gateway.connect();
console.log(`quiz bot ready (session ${gateway.sessionId ?? '?'})`);

const shutdown = async () => {
  await client.close();
  console.log('quiz bot stopped');
  process.exit(0);
};
process.once('SIGINT', () => void shutdown());
process.once('SIGTERM', () => void shutdown());
