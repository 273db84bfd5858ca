/**
 * One emulator and one bot per test file, through the framework's own hooks
 * (Vitest's and Jest's share their names): started before the file's tests,
 * reset before each, closed after the last.
 *
 * @module
 */

import type { Client } from '../clients/client.js';
import type { InteractionErrorEvent } from '../interactions/router-events.js';
import type { CommandDefinition } from '../schemas/request-types.js';
import { checkDuration, refuseUnknownOptions } from '../core/bounds.js';
import { type AnswerWatch, guarded, watchAnswers } from './answer-watch.js';
import { startBot } from './bot-runner.js';
import { EmulatorError } from './errors.js';
import { createEmulator, type Emulator, type EmulatorOptions } from './emulator/server.js';

/** The hooks the fixture registers with (pass Vitest's or Jest's). */
export interface TestHooks {
  /** Runs once before the file's tests. */
  beforeAll(fn: () => Promise<void>, timeout?: number): void;
  /** Runs once after them. */
  afterAll(fn: () => Promise<void>, timeout?: number): void;
  /** Runs before each test; without it the emulator is not reset between tests. @default undefined */
  beforeEach?: ((fn: () => void) => void) | undefined;
}

/** Options of {@link useEmulator}. `Commands`: the commands it registers, whose names `kit.emulator.invokeCommand` then takes. */
export interface UseEmulatorOptions<Commands extends readonly CommandDefinition[] = readonly CommandDefinition[]> {
  /** Options of the emulator. @default {} */
  emulator?: EmulatorOptions | undefined;
  /** Commands registered before the bot starts (as a deploy step would, with the owner's login). @default [] */
  commands?: Commands | undefined;
  /**
   * Installs the bot's handlers on the client (the same function your bot
   * calls). Typed `(bot: BotHost) => void`, the same function serves
   * `createTestGateway({ bot })`. @default undefined (a client with no handlers)
   */
  bot?: ((client: Client) => unknown) | undefined;
  /** Whether the bot's Gateway connects before the tests. @default true */
  connect?: boolean | undefined;
  /** Whether `emulator.reset()` runs before each test (needs `beforeEach`). @default true */
  resetBetweenTests?: boolean | undefined;
  /** How long starting may take, milliseconds. @default 15000 */
  timeoutMs?: number | undefined;
  /**
   * How long, in real time, the bot may take to answer an interaction the
   * test drives (`kit.emulator.invokeCommand`, `clickComponent`,
   * `submitModal`) before its `response` rejects with
   * `EmulatorNoAnswerError`: Discord's 3 seconds for a first answer (a reply
   * or a deferral). A handler that throws rejects it at once with
   * `EmulatorHandlerError`. @default 3000
   */
  answerTimeoutMs?: number | undefined;
}

/** The options `useEmulator` knows. */
const FIXTURE_OPTIONS = ['emulator', 'commands', 'bot', 'connect', 'resetBetweenTests', 'timeoutMs', 'answerTimeoutMs'] as const;

/**
 * What {@link useEmulator} gives the tests; read it inside a test or a hook,
 * not at the top of the file. `Name`: the command names it registered.
 */
export interface EmulatorFixture<Name extends string = string> {
  /**
   * The running emulator. Its `invokeCommand`, `clickComponent` and
   * `submitModal` (and those of its `core`) give a `response` that rejects
   * at once with `EmulatorHandlerError` when the bot's handler throws, and
   * with `EmulatorNoAnswerError` when no handler of the bot can take the
   * interaction (`no handler for /poll`), when nothing takes a click or a
   * submit, or when nothing answers within `answerTimeoutMs`; its
   * `waitForIdle` names what the handlers threw.
   */
  readonly emulator: Emulator<Name>;
  /** The bot's client: its token, the emulator's clock, the handlers `bot` installed. */
  readonly bot: Client;
  /** What the bot's handlers threw since the current test began (`interactionError` events), so a test of a failure needs no listener of its own. */
  readonly interactionErrors: readonly InteractionErrorEvent[];
  /** Resolves with the first of {@link EmulatorFixture.interactionErrors} once there is one; rejects with `EmulatorError` after `timeoutMs` (default 5000). */
  waitForInteractionError(options?: { timeoutMs?: number }): Promise<InteractionErrorEvent>;
}

/**
 * Starts an emulator and a bot for the current test file, registered on the
 * framework's hooks:
 *
 * ```ts
 * import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
 * const kit = useEmulator({ beforeAll, afterAll, beforeEach }, { commands, bot: installMyBot });
 * it('answers /quiz', async () => {
 *   await kit.emulator.invokeCommand({ name: 'quiz' }).response;
 *   expect(kit.emulator).toHaveReplied(/Quiz/);
 * });
 * ```
 */
export function useEmulator<const Commands extends readonly CommandDefinition[] = readonly CommandDefinition[]>(
  hooks: TestHooks,
  options: UseEmulatorOptions<Commands> = {},
): EmulatorFixture<Commands[number]['name']> {
  refuseUnknownOptions('useEmulator', options, FIXTURE_OPTIONS);
  const timeout = checkDuration('useEmulator', 'timeoutMs', options.timeoutMs, { min: 1 }) ?? 15_000;
  const answerTimeoutMs = checkDuration('useEmulator', 'answerTimeoutMs', options.answerTimeoutMs, { min: 1 }) ?? 3000;
  let running: { emulator: Emulator; bot: Client; watch: AnswerWatch } | undefined;
  const errors: InteractionErrorEvent[] = [];
  const waiting = new Set<(event: InteractionErrorEvent) => void>();
  hooks.beforeAll(async () => {
    const emulator = await createEmulator(options.emulator ?? {});
    let watch: AnswerWatch | undefined;
    try {
      const bot = await startBot(emulator, {
        commands: options.commands,
        bot: options.bot,
        connect: options.connect,
        prepare: (client) => {
          watch = watchAnswers(client.gateway, answerTimeoutMs, errors);
          client.gateway.on(
            'interactionError',
            guarded((event: InteractionErrorEvent) => {
              errors.push(event);
              for (const resolve of waiting) resolve(event);
              waiting.clear();
            }),
          );
        },
      });
      running = { emulator: (watch as AnswerWatch).wrap(emulator), bot, watch: watch as AnswerWatch };
    } catch (error) {
      watch?.stop();
      await emulator.close();
      throw error;
    }
  }, timeout);
  hooks.afterAll(async () => {
    const current = running;
    running = undefined;
    current?.watch.stop();
    await current?.bot.close();
    await current?.emulator.close();
  }, timeout);
  hooks.beforeEach?.(() => {
    errors.length = 0;
    if (options.resetBetweenTests !== false) running?.emulator.reset();
  });
  const started = (): { emulator: Emulator; bot: Client; watch: AnswerWatch } => {
    if (running === undefined)
      throw new EmulatorError('useEmulator: the emulator runs from beforeAll to afterAll; read kit.emulator and kit.bot inside a test or a hook');
    return running;
  };
  return {
    get emulator() {
      return started().emulator;
    },
    get bot() {
      return started().bot;
    },
    get interactionErrors() {
      started();
      return errors;
    },
    waitForInteractionError(waitOptions = {}) {
      refuseUnknownOptions('waitForInteractionError', waitOptions, ['timeoutMs']);
      const timeoutMs = checkDuration('waitForInteractionError', 'timeoutMs', waitOptions.timeoutMs, { min: 1 }) ?? 5000;
      started();
      const first = errors[0];
      if (first !== undefined) return Promise.resolve(first);
      return new Promise<InteractionErrorEvent>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.delete(settle);
          reject(new EmulatorError(`no handler of the bot threw within ${timeoutMs} ms`));
        }, timeoutMs);
        const settle = (event: InteractionErrorEvent) => {
          clearTimeout(timer);
          resolve(event);
        };
        waiting.add(settle);
      });
    },
  };
}
