/**
 * The kit's watch over the bot's answers, from the inside: nothing awaited
 * stays in its map once the responses settled, and interactions started
 * through the core are watched as the emulator's own.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Client } from '../../src/index.js';
import { isEmulatorHandlerError, isEmulatorNoAnswerError } from '../../src/testing/index.js';
import { type AnswerWatch, guarded, watchAnswers } from '../../src/testing/answer-watch.js';
import { startBot } from '../../src/testing/bot-runner.js';
import { useEmulators } from '../helpers/emulators.js';

const start = useEmulators();
const bots: Client[] = [];
afterEach(async () => {
  for (const bot of bots.splice(0)) await bot.close();
});

async function watchedBot(answerTimeoutMs: number) {
  const emulator = await start();
  let watch: AnswerWatch | undefined;
  const bot = await startBot(emulator, {
    commands: ['ok', 'boom', 'silent', 'orphan'].map((name) => ({ name, description: name })),
    prepare: (client) => {
      watch = watchAnswers(client.gateway, answerTimeoutMs, []);
    },
    bot: (client) => {
      client.gateway.onCommand('ok', (interaction) => interaction.reply('fine'));
      client.gateway.onCommand('boom', () => {
        throw new Error('boom');
      });
      client.gateway.onCommand('silent', () => undefined);
    },
  });
  bots.push(bot);
  if (watch === undefined) throw new Error('startBot did not call prepare');
  return { watch, view: watch.wrap(emulator) };
}

describe('watchAnswers', () => {
  it('empties its map once every response settled: answered, thrown, unanswered and unhandled', async () => {
    const { watch, view } = await watchedBot(200);
    const driven = ['ok', 'boom', 'silent', 'orphan'].map((name) => view.invokeCommand({ name }));
    expect(watch.awaitedCount).toBe(4);
    const outcomes = await Promise.allSettled(driven.map((invoked) => invoked.response));
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'rejected']);
    expect(watch.awaitedCount).toBe(0);
    watch.stop();
  });

  it('watches interactions started through emulator.core too', async () => {
    const { watch, view } = await watchedBot(20_000);
    const thrown = await view.core.invokeCommand({ name: 'boom' }).response.catch((error: unknown) => error);
    expect(isEmulatorHandlerError(thrown), String(thrown)).toBe(true);
    const missing = await view.core.invokeCommand({ name: 'orphan' }).response.catch((error: unknown) => error);
    expect(isEmulatorNoAnswerError(missing), String(missing)).toBe(true);
    // The core's other members still work through the watch.
    expect(view.core.pendingWork().interactions).toBeGreaterThanOrEqual(0);
    expect(view.core.seed.botToken).toBe(view.seed.botToken);
    expect(watch.awaitedCount).toBe(0);
    watch.stop();
  });
});

describe('guarded', () => {
  it('runs the listener and swallows what it throws, so the emitter goes on to the next listener', () => {
    const seen: number[] = [];
    const listener = guarded((value: number) => {
      seen.push(value);
      throw Object.create(null);
    });
    expect(() => listener(7)).not.toThrow();
    expect(seen).toEqual([7]);
  });
});
