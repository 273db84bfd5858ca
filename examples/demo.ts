/**
 * The demo: a bot and an admin script against an embedded emulator, end to end.
 *
 *   npm start
 *
 * It registers a slash command with autocomplete, connects the bot over the
 * Gateway, simulates a user typing and running the command, lets the bot
 * answer both, publishes through an incoming webhook, plays, seeks and
 * snapshots a channel activity, prints a transcript, and exits 0.
 */
import { ApplicationCommandOptionType, Client, defineCommand, WebhookClient } from 'community-chat-sdk';
import { createEmulator } from 'community-chat-sdk/testing';

const TOPICS = ['space', 'spices', 'sports', 'history', 'music'];
let step = 0;
const say = (text: string) => console.log(`${String(++step).padStart(2)}. ${text}`);

const quiz = defineCommand({
  name: 'quiz',
  description: 'Start a quiz in this channel',
  options: [
    { type: ApplicationCommandOptionType.String, name: 'topic', description: 'What the quiz is about', required: true, autocomplete: true },
    { type: ApplicationCommandOptionType.Integer, name: 'rounds', description: 'How many rounds' },
  ],
});

const emulator = await createEmulator();
const { seed } = emulator;
console.log(`Community Chat demo on an embedded emulator at ${emulator.url}\n`);

// An admin logs in with a user session and registers the command.
const admin = new Client({ baseUrl: emulator.url });
await admin.auth.login({ email: seed.user.email, password: seed.user.password });
say(`Logged in as ${seed.user.email}`);
const synced = await admin.commands.sync(seed.applicationId, [quiz]);
say(`Registered /${quiz.name} with an autocompleted "topic" option (${synced.changed ? 'created' : 'already up to date'})`);
const again = await admin.commands.sync(seed.applicationId, [quiz]);
say(`Synced again: ${again.changed ? 'changed' : 'nothing to do, no request to replace'}`);

// The bot connects over the Gateway and handles the command and its autocomplete.
const bot = new Client({ baseUrl: emulator.url, auth: { botToken: seed.botToken } });
bot.gateway.onInteraction('autocomplete', async (interaction) => {
  const typed = String(interaction.focused?.value ?? '').toLowerCase();
  await interaction.autocomplete(TOPICS.filter((topic) => topic.startsWith(typed)).map((topic) => ({ name: topic, value: topic })));
});
bot.gateway.onCommand(quiz, async (interaction) => {
  const rounds = interaction.options.rounds ?? 3;
  await interaction.reply(`Starting a ${rounds}-round quiz about ${interaction.options.topic}! First question coming up.`);
});
bot.gateway.on('interactionError', ({ error }) => console.error('handler failed:', error));
await bot.gateway.connect();
say(`Bot connected to the Gateway (session ${bot.gateway.sessionId ?? '?'})`);

// A user types "sp" into the topic option: the bot answers with autocomplete choices.
const typing = emulator.invokeCommand({ name: 'quiz', options: { topic: 'sp' }, focused: 'topic' });
const choices = (await typing.response).data['choices'] as { name: string }[];
say(`User typed "/quiz topic:sp"; the bot suggested: ${choices.map((choice) => choice.name).join(', ')}`);

// The user runs the command: the bot replies through the callback endpoint.
const run = emulator.invokeCommand({ name: 'quiz', options: { topic: 'space', rounds: 5 } });
const reply = await run.response;
say(`User ran "/quiz topic:space rounds:5"; the bot replied (interaction_type ${reply.interaction_type}): "${String(reply.data['content'])}"`);

// An integration publishes through an incoming webhook, knowing nothing but its URL.
const hook = new WebhookClient(`${emulator.url}/api/v1/webhooks/${seed.webhook.id}/${seed.webhook.token}`);
await hook.execute({ content: 'Deploy 42 finished: all checks green.', username: 'CI' });
say('CI published a message through the incoming webhook');

// The bot runs a watch-together activity in the channel.
const activity = await bot.activities.create(seed.channelId, { kind: 'watch', title: 'Launch stream' });
const activityId = String(activity.id);
await bot.activities.join(activityId);
await bot.activities.playPause(activityId, { paused: false });
await bot.activities.seek(activityId, { position_ms: 90_000 });
await bot.activities.updateState(activityId, { state: { chapter: 'liftoff' } });
const snapshot = await bot.activities.getSnapshot(activityId);
say(
  `Activity ${activityId}: playing=${String(snapshot['paused'] === false)}, position ${String(snapshot['position_ms'])} ms, state ${JSON.stringify(snapshot['state'])}`,
);
await bot.activities.delete(activityId);
say('Activity ended');

console.log('\nChannel transcript:');
for (const message of emulator.messages(seed.channelId)) {
  console.log(`  [${message.via}] ${message.author.name}: ${message.content}`);
}

await admin.auth.logout();
await Promise.all([bot.close(), admin.close(), hook.close()]);
await emulator.close();
console.log('\nDemo finished.');
