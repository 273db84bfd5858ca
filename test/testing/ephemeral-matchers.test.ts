/**
 * Ephemeral answers as the service would show them (flags kept, seen by the
 * user alone, nobody else can use their components) and the matchers bot
 * tests assert with: an ephemeral reply, a modal shown, autocomplete
 * choices, no handler errors; each failure saying what the bot did instead.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ButtonStyle } from '../../src/index.js';
import { emulatorMatchers, isEmulatorNotFoundError, useEmulator } from '../../src/testing/index.js';

const commands = [
  { name: 'secret', description: 'ephemeral' },
  { name: 'public', description: 'public' },
  { name: 'survey', description: 'modal' },
  { name: 'fruit', description: 'autocomplete', options: [{ type: 3, name: 'kind', description: 'kind', autocomplete: true }] },
  { name: 'fail', description: 'throws' },
];

const kit = useEmulator(
  { beforeAll, afterAll, beforeEach },
  {
    commands,
    bot: (client) => {
      const gateway = client.gateway;
      gateway.onCommand('secret', (interaction) =>
        interaction.reply({
          content: 'Only you',
          flags: 64,
          components: [{ type: 1, components: [{ type: 2, style: ButtonStyle.Primary, label: 'Ok', custom_id: 'ok' }] }],
        }),
      );
      gateway.onCommand('public', (interaction) => interaction.reply('Everyone'));
      gateway.onCommand('survey', (interaction) =>
        interaction.showModal({
          custom_id: 'survey',
          title: 'Survey',
          components: [{ type: 1, components: [{ type: 4, custom_id: 'name', label: 'Name', style: 1 }] }],
        }),
      );
      gateway.onInteraction('autocomplete', (interaction) => interaction.autocomplete([{ name: 'Apple', value: 'apple' }]));
      gateway.onInteraction('component', (interaction) => interaction.reply('clicked'));
      gateway.onCommand('fail', () => {
        throw new RangeError('out of fruit');
      });
    },
  },
);

describe('ephemeral answers', () => {
  it('keep their flags and say who alone sees them; another user cannot use their components', async () => {
    const run = kit.emulator.invokeCommand({ name: 'secret' });
    await run.response;
    await kit.emulator.invokeCommand({ name: 'public' }).response;
    const [secret, open] = kit.emulator.messages();
    expect(secret).toMatchObject({ content: 'Only you', flags: 64, visibleTo: kit.emulator.seed.user.id });
    expect(open).not.toHaveProperty('visibleTo');
    expect(open).not.toHaveProperty('flags');
    let thrown: unknown;
    try {
      kit.emulator.clickComponent({ customId: 'ok', userId: kit.emulator.seed.member.id });
    } catch (error) {
      thrown = error;
    }
    expect(isEmulatorNotFoundError(thrown)).toBe(true);
    expect(String(thrown)).toContain(`only user ${kit.emulator.seed.user.id} sees it`);
    expect((await kit.emulator.clickComponent({ customId: 'ok' }).response).data).toEqual({ content: 'clicked' });
  });
});

describe('the matchers', () => {
  it('toHaveRepliedEphemerally passes on an ephemeral reply only, and its failure lists what was posted', async () => {
    await kit.emulator.invokeCommand({ name: 'secret' }).response;
    await kit.emulator.invokeCommand({ name: 'public' }).response;
    expect(emulatorMatchers.toHaveRepliedEphemerally(kit.emulator, 'Only you').pass).toBe(true);
    const missed = emulatorMatchers.toHaveRepliedEphemerally(kit.emulator, 'Everyone');
    expect(missed.pass).toBe(false);
    expect(missed.message()).toBe(
      `expected an ephemeral reply of the bot matching "Everyone"; the latest messages were:\n  "Only you" (ephemeral, seen by user ${kit.emulator.seed.user.id})\n  "Everyone"`,
    );
  });

  it('toHaveShownModal reads the interaction’s answers; a failure says what the bot answered instead', async () => {
    const survey = kit.emulator.invokeCommand({ name: 'survey' });
    await survey.response;
    expect(emulatorMatchers.toHaveShownModal(survey).pass).toBe(true);
    expect(emulatorMatchers.toHaveShownModal(survey, 'survey').pass).toBe(true);
    expect(emulatorMatchers.toHaveShownModal(survey, { title: 'Survey' }).pass).toBe(true);
    expect(emulatorMatchers.toHaveShownModal(survey, 'other').pass).toBe(false);
    const open = kit.emulator.invokeCommand({ name: 'public' });
    await open.response;
    const missed = emulatorMatchers.toHaveShownModal(open);
    expect(missed.pass).toBe(false);
    expect(missed.message()).toBe(`expected interaction ${open.id} to have shown a modal; the bot answered: interaction_type 4 {"content":"Everyone"}`);
    expect(emulatorMatchers.toHaveShownModal(kit.emulator).message()).toMatch(/expected an interaction the test drove/);
  });

  it('toHaveAutocompleted compares the latest choices', async () => {
    const typing = kit.emulator.invokeCommand({ name: 'fruit', options: { kind: 'ap' }, focused: 'kind' });
    await typing.response;
    expect(emulatorMatchers.toHaveAutocompleted(typing, [{ name: 'Apple', value: 'apple' }]).pass).toBe(true);
    expect(emulatorMatchers.toHaveAutocompleted(typing).pass).toBe(true);
    const wrong = emulatorMatchers.toHaveAutocompleted(typing, [{ name: 'Pear', value: 'pear' }]);
    expect(wrong.pass).toBe(false);
    expect(wrong.message()).toContain('interaction_type 8 {"choices":[{"name":"Apple","value":"apple"}]}');
  });

  it('toHaveNoHandlerErrors passes on a clean run and quotes each error otherwise; through expect.extend too', async () => {
    expect(emulatorMatchers.toHaveNoHandlerErrors(kit).pass).toBe(true);
    const failing = kit.emulator.invokeCommand({ name: 'fail' });
    await failing.response.catch(() => undefined);
    const result = emulatorMatchers.toHaveNoHandlerErrors(kit);
    expect(result.pass).toBe(false);
    expect(result.message()).toBe(`expected no handler of the bot to throw; 1 did:\n  interaction ${failing.id}: RangeError: out of fruit`);
    expect.extend(emulatorMatchers);
    type Extended = { toHaveNoHandlerErrors(): void };
    expect(() => (expect(kit) as unknown as Extended).toHaveNoHandlerErrors()).toThrow(/RangeError: out of fruit/);
  });
});
