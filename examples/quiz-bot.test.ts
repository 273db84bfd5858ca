/**
 * Testing a bot with the kit, as the README's Testing section shows: the quiz
 * bot of playground-bot.ts on an emulator, a button flow, a modal, and faults
 * on demand. Copy it next to your own bot and swap in your handlers.
 *
 * Run: `npx vitest run examples/quiz-bot.test.ts` (CI runs it with `npm test`).
 */
import { Client, type InteractionErrorEvent, isServerError } from 'community-chat-sdk';
import { createEmulator, type Emulator } from 'community-chat-sdk/testing';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { installPlaygroundBot, playgroundCommands } from './playground-bot.js';

let emulator: Emulator;
let bot: Client;

beforeAll(async () => {
  emulator = await createEmulator();
  // Commands are registered with a user session (the application's owner), as a deploy script would.
  const owner = new Client({ baseUrl: emulator.url });
  await owner.auth.login({ email: emulator.seed.user.email, password: emulator.seed.user.password });
  await owner.commands.sync(emulator.seed.applicationId, playgroundCommands);
  await owner.close();
  // The bot runs with its token, on the emulator's clock.
  bot = new Client({ baseUrl: emulator.url, auth: { botToken: emulator.seed.botToken }, clock: emulator.clock });
  installPlaygroundBot(bot);
  await bot.gateway.connect();
});

afterAll(async () => {
  await bot.close();
  await emulator.close();
});

// Each test starts from a clean slate: messages, pending interactions, faults and limits cleared; commands and the bot's session kept.
beforeEach(() => emulator.reset());

it('a button flow: /quiz, then Ready', async () => {
  const quiz = await emulator.invokeCommand({ name: 'quiz', options: { topic: 'space', rounds: 2 } }).response;
  expect(quiz.data?.content).toBe('Quiz about space, 2 rounds. Ready?');

  // The user clicks the latest message in the channel carrying that button.
  const ready = await emulator.clickComponent({ customId: 'quiz:ready' }).response;
  expect(ready.data?.content).toMatch(/is ready\. Question 1/);
  await emulator.waitForIdle();
  expect(emulator.messages(emulator.seed.channelId)).toHaveLength(2);
});

it('a modal: /feedback opens it, the submitted form is answered', async () => {
  await emulator.invokeCommand({ name: 'feedback' }).response;
  const thanks = await emulator.submitModal({ fields: { name: 'Ada', comment: 'Great quiz' } }).response;
  expect(thanks.data?.content).toBe('Thanks Ada! You said: "Great quiz"');
});

it('faults: a 429 on the reply is waited out, a 503 from a call the handler makes reaches interactionError', async () => {
  // The service rate-limits the next answer: the SDK waits Retry-After and answers anyway.
  emulator.faults.next({ operation: 'interactions.respond', status: 429, retryAfterMs: 1000 });
  const quiz = await emulator.invokeCommand({ name: 'quiz', options: { topic: 'music' } }).response;
  expect(quiz.data?.content).toMatch(/^Quiz about music/);

  // The service is down for the activity the handler creates: the handler's error is reported, typed.
  const failed = new Promise<InteractionErrorEvent>((resolve) => bot.gateway.once('interactionError', resolve));
  emulator.faults.next({ operation: 'activities.create', status: 503 });
  emulator.invokeCommand({ name: 'watch' }).response.catch(() => undefined);
  const { error } = await failed;
  expect(isServerError(error)).toBe(true);
  expect(String(error)).toContain('503: Service Unavailable');
});
