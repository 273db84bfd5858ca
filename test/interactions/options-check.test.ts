/**
 * Typed options that do not lie: a handler typed from a definition runs only
 * with options that fit it; otherwise a ValidationError naming the option goes
 * to interactionError. And the emulator refuses such an invocation, as the
 * service would.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Client, defineCommand, type InteractionErrorEvent, type ValidationError, isCommunityChatError } from '../../src/index.js';
import { createInteraction } from '../../src/interactions/interaction.js';
import { checkOptions } from '../../src/interactions/options.js';
import { createEmulator, createTestGateway, createTestPayload, isEmulatorInvalidOptionsError, type Emulator } from '../../src/testing/index.js';

const roll = defineCommand({
  name: 'roll',
  description: 'Roll dice',
  options: [
    { type: 4, name: 'sides', description: 'Sides', required: true, min_value: 2, max_value: 100 },
    {
      type: 3,
      name: 'mode',
      description: 'Mode',
      choices: [
        { name: 'fair', value: 'fair' },
        { name: 'loaded', value: 'loaded' },
      ],
    },
    { type: 3, name: 'note', description: 'Note', min_length: 2, max_length: 5 },
    { type: 5, name: 'secret', description: 'Secret' },
  ],
});

describe('checkOptions', () => {
  it('names each option that does not fit: type, required, choices, range, length, unknown', () => {
    const problems = (options: unknown[]) => checkOptions(roll.options, options).map((problem) => `${problem.path} ${problem.message}`);
    expect(problems([{ name: 'sides', type: 4, value: 6 }])).toEqual([]);
    expect(problems([{ name: 'sides', type: 4, value: 'abc' }])).toEqual(['sides must be a whole number (got "abc")']);
    expect(problems([{ name: 'sides', type: 4, value: 2.5 }])).toEqual(['sides must be a whole number (got 2.5)']);
    expect(problems([])).toEqual(['sides is required']);
    expect(problems([{ name: 'sides', value: 1 }])).toEqual(['sides must be at least 2 (got 1)']);
    expect(problems([{ name: 'sides', value: 101 }])).toEqual(['sides must be at most 100 (got 101)']);
    expect(
      problems([
        { name: 'sides', value: 6 },
        { name: 'mode', value: 'cheat' },
      ]),
    ).toEqual(['mode must be one of its choices (got "cheat")']);
    expect(
      problems([
        { name: 'sides', value: 6 },
        { name: 'note', value: 'x' },
      ]),
    ).toEqual(['note must be at least 2 characters (got 1)']);
    expect(
      problems([
        { name: 'sides', value: 6 },
        { name: 'note', value: '🎲🎲🎲🎲🎲🎲' },
      ]),
    ).toEqual(['note must be at most 5 characters (got 6)']);
    expect(
      problems([
        { name: 'sides', value: 6 },
        { name: 'secret', value: 'yes' },
      ]),
    ).toEqual(['secret must be true or false (got "yes")']);
    expect(
      problems([
        { name: 'sides', value: 6 },
        { name: 'extra', value: 1 },
      ]),
    ).toEqual(['extra is not an option of this command']);
  });

  it('follows sub-commands and skips the option being typed in (autocomplete)', () => {
    const admin = [{ type: 1, name: 'ban', description: 'Ban', options: [{ type: 6, name: 'user', description: 'User', required: true }] }];
    expect(checkOptions(admin, [{ name: 'ban', type: 1, options: [{ name: 'user', value: '123' }] }])).toEqual([]);
    expect(checkOptions(admin, [{ name: 'ban', type: 1, options: [] }])).toEqual([{ path: 'ban.user', message: 'is required' }]);
    expect(checkOptions(admin, [{ name: 'ban', type: 1, options: [{ name: 'user', value: 'someone' }] }])).toEqual([
      { path: 'ban.user', message: 'must be an id (got "someone")' },
    ]);
    expect(checkOptions(roll.options, [{ name: 'mode', value: 'ch', focused: true }])).toEqual([]);
  });
});

describe('a typed handler', () => {
  it('runs only with options that fit its definition; otherwise interactionError gets a ValidationError naming the option', async () => {
    const { gateway } = createTestGateway();
    const rolled: number[] = [];
    gateway.onCommand(roll, (interaction) => void rolled.push(interaction.options.sides));
    const errors: InteractionErrorEvent[] = [];
    gateway.on('interactionError', (event) => void errors.push(event));
    const deliver = (options: Record<string, unknown>[]) =>
      gateway.router.handle(
        createInteraction(createTestPayload({ name: 'roll', payload: { data: { name: 'roll', type: 1, options } } }), async () => undefined),
      );
    await deliver([{ name: 'sides', type: 4, value: 'abc' }]);
    await deliver([{ name: 'mode', type: 3, value: 'fair' }]);
    await deliver([{ name: 'sides', type: 4, value: 20 }]);
    expect(rolled).toEqual([20]);
    expect(errors.map((event) => isCommunityChatError(event.error, 'ValidationError'))).toEqual([true, true]);
    expect(errors.map((event) => (event.error as ValidationError).issues.map((issue) => issue.path))).toEqual([['options.sides'], ['options.sides']]);
    expect(String((errors[0]?.error as Error | undefined)?.message)).toContain('must be a whole number (got "abc")');
  });
});

describe('the emulator', () => {
  const running: Emulator[] = [];
  afterEach(async () => {
    for (const emulator of running.splice(0)) await emulator.close();
  });

  it('refuses an invocation whose options do not fit the registered command, naming the option', async () => {
    const emulator = await createEmulator();
    running.push(emulator);
    const admin = new Client({ baseUrl: emulator.url });
    await admin.auth.login({ email: emulator.seed.user.email, password: emulator.seed.user.password });
    await admin.commands.create(emulator.seed.applicationId, roll);
    await admin.close();
    const refused = (() => {
      try {
        emulator.invokeCommand({ name: 'roll', options: { sides: 'abc' } });
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(isEmulatorInvalidOptionsError(refused)).toBe(true);
    expect((refused as { problems: unknown }).problems).toEqual([{ path: 'sides', message: 'must be a whole number (got "abc")' }]);
    expect(() => emulator.invokeCommand({ name: 'roll' })).toThrow(/sides is required/);
    expect(emulator.invokeCommand({ name: 'roll', options: { sides: 6 } }).payload['data']).toMatchObject({ name: 'roll' });
  });
});
