/**
 * The kit with a failing bot: a handler that throws fails its test at once
 * with the handler's error, one that never answers within Discord's limit,
 * a click nothing takes names itself; waits follow the emulator's clock;
 * waitForIdle names what is pending.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ButtonStyle, createInteractionRouter, InteractionTimeoutError, type MessageActionRow } from '../../src/index.js';
import { EmulatorHandlerError, EmulatorNoAnswerError, isEmulatorHandlerError, isEmulatorNoAnswerError, useEmulator } from '../../src/testing/index.js';

const buttons: MessageActionRow[] = [{ type: 1, components: [{ type: 2, style: ButtonStyle.Primary, label: 'Yes', custom_id: 'yes' }] }];

/** Settles when the bot's /vote handler has started waiting for a click, then with how its wait ended. */
let waitStarted: () => void = () => undefined;
let waitEnded: (outcome: unknown) => void = () => undefined;

/** The interactions whose handler errors the bot's own `interactionError` listener saw. */
const botSawErrorOf: string[] = [];

describe('a failing bot, with the kit', () => {
  const kit = useEmulator(
    { beforeAll, afterAll, beforeEach },
    {
      answerTimeoutMs: 300,
      commands: ['poll', 'silent', 'vote', 'menu', 'bare', 'coded'].map((name) => ({ name, description: name })),
      bot: (client) => {
        client.gateway.on('interactionError', ({ interaction }) => botSawErrorOf.push(interaction.id));
        client.gateway.onCommand('bare', () => {
          throw Object.create(null);
        });
        client.gateway.onCommand('coded', () => {
          throw { code: 50013, message: 'Missing Permissions' };
        });
        client.gateway.onCommand('poll', () => {
          throw new TypeError('boom');
        });
        client.gateway.onCommand('silent', () => undefined);
        client.gateway.onCommand('menu', (interaction) => interaction.reply({ content: 'Menu', components: buttons }));
        client.gateway.onCommand('vote', async (interaction) => {
          await interaction.reply({ content: 'Pick', components: buttons });
          const waiting = interaction.awaitComponent({ timeoutMs: 60_000 });
          waitStarted();
          waitEnded(await waiting.catch((error: unknown) => error));
        });
      },
    },
  );

  it('a handler that throws rejects the response at once with its message, its stack and its error as cause', async () => {
    const started = performance.now();
    const error = await kit.emulator.invokeCommand({ name: 'poll' }).response.catch((thrown: unknown) => thrown);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(error).toBeInstanceOf(EmulatorHandlerError);
    expect(isEmulatorHandlerError(error)).toBe(true);
    expect((error as Error).message).toMatch(/handler of \/poll \(interaction \d+\) threw TypeError: boom/);
    expect((error as Error).cause).toBeInstanceOf(TypeError);
    // The frames are the handler's: this file, where it threw.
    expect((error as Error).stack).toContain('fixture-answers.test.ts');
  });

  it("a handler that throws a null-prototype object or a { code, message } rejects at once, and the bot's own listener still sees it", async () => {
    const bare = kit.emulator.invokeCommand({ name: 'bare' });
    const bareError = await bare.response.catch((thrown: unknown) => thrown);
    expect(isEmulatorHandlerError(bareError), String(bareError)).toBe(true);
    expect((bareError as Error).message).toContain('threw [Object: null prototype] {}');
    const coded = kit.emulator.invokeCommand({ name: 'coded' });
    const codedError = await coded.response.catch((thrown: unknown) => thrown);
    expect((codedError as Error).message).toContain('threw 50013: Missing Permissions');
    expect(kit.interactionErrors.map(({ interaction }) => interaction.id)).toEqual([bare.id, coded.id]);
    expect(botSawErrorOf.slice(-2)).toEqual([bare.id, coded.id]);
  });

  it('a handler that never answers rejects with EmulatorNoAnswerError after answerTimeoutMs, naming the command', async () => {
    const started = performance.now();
    const error = await kit.emulator.invokeCommand({ name: 'silent' }).response.catch((thrown: unknown) => thrown);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    expect(isEmulatorNoAnswerError(error)).toBe(true);
    expect((error as Error).message).toMatch(/did not answer \/silent \(interaction \d+\): no reply or deferral within 300 ms/);
  });

  it('waitForIdle names the pending interaction (command, id, age) and what the handlers threw', async () => {
    const silent = kit.emulator.invokeCommand({ name: 'silent' });
    const failed = kit.emulator.invokeCommand({ name: 'poll' });
    await failed.response.catch(() => undefined);
    const error = await kit.emulator.waitForIdle({ timeoutMs: 50 }).catch((thrown: unknown) => thrown);
    expect((error as Error).message).toMatch(new RegExp(`interaction ${silent.id} \\(/silent by user \\d+, delivered \\d+ ms ago\\) not answered`));
    expect((error as Error).message).toContain(`the bot's handlers threw: interaction ${failed.id}: TypeError: boom`);
    await silent.response.catch(() => undefined);
  });

  it('advanceTime past an awaitComponent timeout rejects the wait within 100 ms of real time', async () => {
    const waiting = new Promise<void>((resolve) => (waitStarted = resolve));
    const ended = new Promise<unknown>((resolve) => (waitEnded = resolve));
    await kit.emulator.invokeCommand({ name: 'vote' }).response;
    await waiting;
    const started = performance.now();
    kit.emulator.advanceTime(61_000);
    // A deadline, not a sleep: without the fix the wait would end only after a real minute.
    const outcome = await Promise.race([
      ended,
      new Promise((resolve) => setTimeout(() => resolve('the wait did not end within 1 s of real time'), 1000).unref()),
    ]);
    expect(performance.now() - started).toBeLessThan(100);
    expect(outcome).toBeInstanceOf(InteractionTimeoutError);
  });
});

describe('a click nothing takes, with the kit', () => {
  const kit = useEmulator(
    { beforeAll, afterAll, beforeEach },
    {
      commands: [{ name: 'menu', description: 'menu' }],
      bot: (client) => client.gateway.onCommand('menu', (interaction) => interaction.reply({ content: 'Menu', components: buttons })),
    },
  );

  it('rejects with EmulatorNoAnswerError naming the click, before answerTimeoutMs', async () => {
    await kit.emulator.invokeCommand({ name: 'menu' }).response;
    const error = await kit.emulator.clickComponent({ customId: 'yes' }).response.catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(EmulatorNoAnswerError);
    expect((error as Error).message).toMatch(/did not answer the click on "yes" \(interaction \d+\): a component click .* was taken by no awaitComponent/);
  });
});

describe('a command nothing of the bot takes, with the kit', () => {
  let removeLater: () => void = () => undefined;
  const kit = useEmulator(
    { beforeAll, afterAll, beforeEach },
    {
      // Long: a missing handler must not wait for it.
      answerTimeoutMs: 20_000,
      commands: [
        { name: 'orphan', description: 'orphan', options: [{ type: 3, name: 'q', description: 'q', autocomplete: true }] },
        { name: 'gone', description: 'gone' },
        { name: 'shared', description: 'shared' },
      ],
      bot: (client) => {
        removeLater = client.gateway.onCommand('gone', (interaction) => interaction.reply('here'));
        const router = createInteractionRouter();
        router.onCommand('shared', (interaction) => interaction.reply('from the shared router'));
        client.gateway.use(router);
      },
    },
  );

  it('rejects a command and an autocomplete with no handler at once, with EmulatorNoAnswerError naming the command', async () => {
    const command = await kit.emulator.invokeCommand({ name: 'orphan' }).response.catch((thrown: unknown) => thrown);
    expect(isEmulatorNoAnswerError(command), String(command)).toBe(true);
    expect((command as Error).message).toMatch(/did not answer \/orphan \(interaction \d+\): no handler for \/orphan/);
    const typing = await kit.emulator.invokeCommand({ name: 'orphan', options: { q: 'a' }, focused: 'q' }).response.catch((thrown: unknown) => thrown);
    expect((typing as Error).message).toContain('no handler for the autocomplete of /orphan');
  });

  it('counts a removed handler as gone, and a use()d router as a handler', async () => {
    await expect(kit.emulator.invokeCommand({ name: 'gone' }).response).resolves.toMatchObject({ data: { content: 'here' } });
    removeLater();
    await expect(kit.emulator.invokeCommand({ name: 'gone' }).response).rejects.toThrow(/no handler for \/gone/);
    await expect(kit.emulator.invokeCommand({ name: 'shared' }).response).resolves.toMatchObject({ data: { content: 'from the shared router' } });
  });

  it('refuses a focused option that is not defined with autocomplete: true', () => {
    for (const focused of ['nope', 'Q'])
      expect(() => kit.emulator.invokeCommand({ name: 'orphan', options: { q: 'a' }, focused })).toThrow(
        expect.objectContaining({
          name: 'EmulatorInvalidOptionsError',
          message: expect.stringMatching(/focused must name an option defined with autocomplete: true .*q/),
        }),
      );
    expect(() => kit.emulator.invokeCommand({ name: 'gone', focused: 'x' })).toThrow(/none of its options has autocomplete: true/);
  });
});
