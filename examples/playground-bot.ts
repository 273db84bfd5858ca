/**
 * The quiz bot the playground starts with (`npm run playground`), and the one
 * its browser tests chat with: /quiz (autocomplete, a reply with a button and
 * a select menu), /feedback (a modal form, answered when submitted), /watch
 * (a channel activity, played and moved forward).
 *
 * Only types come from the SDK here, so a test can hand it the `Client` it
 * built from the sources.
 */
import { ApplicationCommandOptionType, type Client, ComponentType } from 'community-chat-sdk';

const TOPICS = ['space', 'spices', 'sports', 'history', 'music'];

/** The commands to register (Discord's shapes). */
export const playgroundCommands = [
  {
    name: 'quiz',
    description: 'Start a quiz in this channel',
    options: [
      { type: ApplicationCommandOptionType.String, name: 'topic', description: 'What the quiz is about', required: true, autocomplete: true },
      { type: ApplicationCommandOptionType.Integer, name: 'rounds', description: 'How many rounds' },
    ],
  },
  { name: 'feedback', description: 'Tell the quiz master what you think (opens a form)', options: [] },
  {
    name: 'watch',
    description: 'Start a watch-together activity in this channel',
    options: [{ type: ApplicationCommandOptionType.String, name: 'title', description: 'What to watch' }],
  },
];

/** Installs the bot's handlers on `client.gateway` (connect it afterwards). */
export function installPlaygroundBot(client: Client): void {
  const gateway = client.gateway;
  gateway.onInteraction('autocomplete', (interaction) => {
    const typed = String(interaction.focused?.value ?? '').toLowerCase();
    return interaction.autocomplete(TOPICS.filter((topic) => topic.startsWith(typed)).map((topic) => ({ name: topic, value: topic })));
  });
  gateway.onCommand('quiz', (interaction) => {
    const rounds = Number(interaction.options['rounds'] ?? 3);
    return interaction.reply({
      content: `Quiz about ${String(interaction.options['topic'])}, ${rounds} rounds. Ready?`,
      components: [
        {
          type: ComponentType.ActionRow,
          components: [
            { type: ComponentType.Button, style: 1, label: 'Ready', custom_id: 'quiz:ready' },
            { type: ComponentType.Button, style: 2, label: 'Not now', custom_id: 'quiz:later' },
          ],
        },
        {
          type: ComponentType.ActionRow,
          components: [
            {
              type: ComponentType.StringSelect,
              custom_id: 'quiz:level',
              placeholder: 'Difficulty',
              options: ['easy', 'medium', 'hard'].map((level) => ({ label: level, value: level })),
            },
          ],
        },
      ],
    });
  });
  gateway.onCommand('feedback', (interaction) =>
    interaction.showModal({
      custom_id: 'feedback',
      title: 'Quiz feedback',
      components: [
        {
          type: ComponentType.ActionRow,
          components: [{ type: ComponentType.TextInput, custom_id: 'name', label: 'Your name', style: 1, required: true, max_length: 40 }],
        },
        {
          type: ComponentType.ActionRow,
          components: [{ type: ComponentType.TextInput, custom_id: 'comment', label: 'What did you think?', style: 2, required: true, max_length: 500 }],
        },
      ],
    }),
  );
  gateway.onCommand('watch', async (interaction) => {
    const channelId = interaction.channelId ?? '';
    const title = String(interaction.options['title'] ?? 'Launch stream');
    const activity = await client.activities.create(channelId, { kind: 'watch', title });
    const id = String(activity.id);
    await client.activities.join(id);
    await client.activities.playPause(id, { paused: false });
    await client.activities.seek(id, { position_ms: 90_000 });
    await client.activities.updateState(id, { state: { chapter: 'liftoff' } });
    await client.activities.getSnapshot(id);
    await interaction.reply(`Watching "${title}" together: playing from 1:30.`);
  });
  gateway.onInteraction('modalSubmit', (interaction) =>
    interaction.reply(`Thanks ${interaction.fields['name'] ?? 'friend'}! You said: "${interaction.fields['comment'] ?? ''}"`),
  );
  gateway.onInteraction('component', (interaction) => {
    const who = interaction.user?.username ?? 'someone';
    if (interaction.customId === 'quiz:ready') return interaction.reply(`${who} is ready. Question 1: which planet has the most moons?`);
    if (interaction.customId === 'quiz:level') return interaction.reply(`${who} picked the ${interaction.values[0] ?? '?'} level.`);
    return interaction.deferUpdate();
  });
}
