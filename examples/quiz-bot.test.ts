/**
 * Testing a bot with the kit, as the README's Testing section shows: the quiz
 * bot of playground-bot.ts on an emulator started for this file, a button
 * flow, a modal, and faults on demand. Copy it next to your own bot and swap
 * in your handlers.
 *
 * Run: `npx vitest run examples/quiz-bot.test.ts` (CI runs it with `npm test`).
 */
import { isCommunityChatError } from 'community-chat-sdk';
import { type EmulatorMatchers, emulatorMatchers, useEmulator } from 'community-chat-sdk/testing';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { installPlaygroundBot, playgroundCommands } from './playground-bot.js';

// Once, in a setup file: the matchers and their types.
expect.extend(emulatorMatchers);
declare module 'vitest' {
  interface Assertion<T> extends EmulatorMatchers<T> {}
}

// One emulator and one bot for this file: commands registered with the owner's login, the bot on its token,
// and emulator.reset() before each test (messages, interactions, faults and limits cleared; commands and session kept).
const kit = useEmulator({ beforeAll, afterAll, beforeEach }, { commands: playgroundCommands, bot: installPlaygroundBot });

it('a button flow: /quiz, then Ready', async () => {
  const { emulator } = kit;
  const quiz = await emulator.invokeCommand({ name: 'quiz', options: { topic: 'space', rounds: 2 } }).response;
  expect(quiz.data?.content).toBe('Quiz about space, 2 rounds. Ready?');

  // The user clicks the latest message in the channel carrying that button.
  await emulator.clickComponent({ customId: 'quiz:ready' }).response;
  await emulator.waitForIdle();
  expect(emulator).toHaveReplied(/is ready\. Question 1/);
  expect(emulator.messages()).toHaveLength(2);
});

it('a modal: /feedback opens it, the submitted form is answered', async () => {
  const { emulator } = kit;
  await emulator.invokeCommand({ name: 'feedback' }).response;
  await emulator.submitModal({ fields: { name: 'Ada', comment: 'Great quiz' } }).response;
  expect(emulator).toHaveReplied('Thanks Ada! You said: "Great quiz"');
});

it('faults: a 429 on the reply is waited out, a 503 from a call the handler makes reaches interactionError', async () => {
  const { emulator } = kit;
  // The service rate-limits the next answer: the SDK waits Retry-After and answers anyway.
  emulator.faults.next({ operation: 'interactions.respond', status: 429, retryAfterMs: 1000 });
  await emulator.invokeCommand({ name: 'quiz', options: { topic: 'music' } }).response;
  expect(emulator).toHaveReplied(/^Quiz about music/);

  // The service is down for the activity the handler creates: the handler's error is reported, typed.
  emulator.faults.next({ operation: 'activities.create', status: 503 });
  const watch = emulator.invokeCommand({ name: 'watch' });
  const failed = await kit.waitForInteractionError();
  expect(failed.interaction.id).toBe(watch.id);
  expect(isCommunityChatError(failed.error, 'ServerError')).toBe(true);
  expect(String(failed.error)).toContain('503: Service Unavailable');
});
