/**
 * The kit under bad arguments: every simulation validates its input and
 * settles (a ValidationError naming the field, before any interaction is
 * created), a modal that was never opened is a typed not-found error, and
 * the emulator's factories refuse unknown options and unbounded numbers.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ButtonStyle, type MessageActionRow, isCommunityChatError } from '../../../src/index.js';
import { createEmulator, EmulatorCore, isEmulatorNotFoundError, useEmulator } from '../../../src/testing/index.js';
import { createMswHandlers } from '../../../src/testing/msw.js';

const menu: MessageActionRow[] = [
  {
    type: 1,
    components: [
      {
        type: 3,
        custom_id: 'pick',
        options: [
          { label: 'A', value: 'a' },
          { label: 'B', value: 'b' },
        ],
      },
    ],
  },
  { type: 1, components: [{ type: 2, style: ButtonStyle.Primary, label: 'Go', custom_id: 'go' }] },
];

const multi: MessageActionRow[] = [
  {
    type: 1,
    components: [{ type: 3, custom_id: 'many', min_values: 2, max_values: 3, options: ['a', 'b', 'c', 'd'].map((value) => ({ label: value, value })) }],
  },
];

const form = {
  custom_id: 'survey',
  title: 'Survey',
  components: [
    { type: 1, components: [{ type: 4, custom_id: 'q', label: 'Question', style: 1, min_length: 2 }] },
    { type: 1, components: [{ type: 4, custom_id: 'note', label: 'Note', style: 2, required: false }] },
  ],
} as const;

/** What `call` threw: it must be a ValidationError, whose message is returned. */
function refusal(call: () => unknown): string {
  try {
    call();
  } catch (error) {
    expect(isCommunityChatError(error, 'ValidationError'), `threw ${String(error)}`).toBe(true);
    return (error as Error).message;
  }
  throw new Error('the call was accepted');
}

describe('simulations validate their input', () => {
  const kit = useEmulator(
    { beforeAll, afterAll, beforeEach },
    {
      commands: [
        { name: 'menu', description: 'menu' },
        { name: 'form', description: 'form' },
        { name: 'multi', description: 'multi' },
      ],
      bot: (client) => {
        client.gateway.onCommand('menu', (interaction) => interaction.reply({ content: 'Pick', components: menu }));
        client.gateway.onCommand('form', (interaction) => interaction.showModal(form));
        client.gateway.onCommand('multi', (interaction) => interaction.reply({ content: 'Many', components: multi }));
        client.gateway.onInteraction('component', (interaction) => interaction.reply(`got ${interaction.customId}`));
        client.gateway.onInteraction('modalSubmit', (interaction) => interaction.reply('thanks'));
      },
    },
  );

  it('clickComponent refuses values that are not an array of strings, and unknown fields; nothing is created', async () => {
    await kit.emulator.invokeCommand({ name: 'menu' }).response;
    const before = kit.emulator.core.pendingWork().interactions;
    expect(refusal(() => kit.emulator.clickComponent({ customId: 'pick', values: 'x' as unknown as string[] }))).toMatch(
      /values.*array of at most 25 strings.*got "x"/,
    );
    expect(refusal(() => kit.emulator.clickComponent({ customId: 'pick', values: [1, 2] as unknown as string[] }))).toMatch(/values/);
    expect(refusal(() => kit.emulator.clickComponent({ customId: 'pick', value: ['a'] } as never))).toMatch(/value.*not an option/);
    expect(refusal(() => kit.emulator.clickComponent({ customId: '' }))).toMatch(/customId.*non-empty string/);
    expect(refusal(() => kit.emulator.core.clickComponent({ messageId: 5, customId: 'go' } as never))).toMatch(/messageId/);
    expect(kit.emulator.core.pendingWork().interactions).toBe(before);
    // A good click still settles.
    expect((await kit.emulator.clickComponent({ customId: 'pick', values: ['a'] }).response).data).toEqual({ content: 'got pick' });
  });

  it('clickComponent refuses what no client could send, checked against the stored component; nothing is created', async () => {
    await kit.emulator.invokeCommand({ name: 'menu' }).response;
    const before = kit.emulator.core.pendingWork().interactions;
    expect(refusal(() => kit.emulator.clickComponent({ customId: 'go', values: ['x'] }))).toMatch(/values.*"go" is a button/);
    expect(refusal(() => kit.emulator.clickComponent({ customId: 'pick' }))).toMatch(/values.*from 1 to 1 values \(got 0\)/);
    expect(refusal(() => kit.emulator.clickComponent({ customId: 'pick', values: ['zzz'] }))).toMatch(
      /"zzz" is not an option of select menu "pick" \(its values: a, b\)/,
    );
    expect(refusal(() => kit.emulator.clickComponent({ customId: 'pick', values: ['a', 'b'] }))).toMatch(/from 1 to 1 values \(got 2\)/);
    const message = kit.emulator.core.findMessageWithComponent(kit.emulator.seed.channelId, 'pick')?.id ?? '';
    expect(refusal(() => kit.emulator.core.clickComponent({ messageId: message, customId: 'other' }))).toMatch(
      /customId.*carries no component with custom_id "other"/,
    );
    expect(kit.emulator.core.pendingWork().interactions).toBe(before);
    expect((await kit.emulator.clickComponent({ customId: 'go' }).response).data).toEqual({ content: 'got go' });
  });

  it('clickComponent refuses duplicates and counts outside min_values/max_values of a multi-select', async () => {
    await kit.emulator.invokeCommand({ name: 'multi' }).response;
    expect(refusal(() => kit.emulator.clickComponent({ customId: 'many', values: ['a', 'a'] }))).toMatch(/each value once/);
    expect(refusal(() => kit.emulator.clickComponent({ customId: 'many', values: ['a'] }))).toMatch(/from 2 to 3 values \(got 1\)/);
    expect(refusal(() => kit.emulator.clickComponent({ customId: 'many', values: ['a', 'b', 'c', 'd'] }))).toMatch(/from 2 to 3 values \(got 4\)/);
    expect((await kit.emulator.clickComponent({ customId: 'many', values: ['a', 'c'] }).response).data).toEqual({ content: 'got many' });
  });

  it('submitModal refuses a field the modal does not hold, a required one missing, a too short one and a second submit', async () => {
    await kit.emulator.invokeCommand({ name: 'form' }).response;
    expect(refusal(() => kit.emulator.submitModal({ fields: { q: 'ok', zzz: 'x' } }))).toMatch(/fields\.zzz.*holds no text input zzz \(its inputs: q, note\)/);
    expect(refusal(() => kit.emulator.submitModal({ fields: { note: 'x' } }))).toMatch(/fields\.q.*required/);
    expect(refusal(() => kit.emulator.submitModal({ fields: { q: 'x' } }))).toMatch(/fields\.q.*from 2 to 4000 characters \(got 1\)/);
    // The optional field may be left out.
    expect((await kit.emulator.submitModal({ fields: { q: 'why' } }).response).data).toEqual({ content: 'thanks' });
    expect(refusal(() => kit.emulator.submitModal({ fields: { q: 'again' } }))).toMatch(/interactionId.*already submitted/);
  });

  it('submitModal refuses fields that are not strings; a modal never opened is an EmulatorNotFoundError', () => {
    expect(refusal(() => kit.emulator.submitModal({ fields: { reason: 5 } as never }))).toMatch(/fields\.reason.*must be a string.*got number/);
    expect(refusal(() => kit.emulator.submitModal({ fields: 'x' } as never))).toMatch(/fields/);
    let thrown: unknown;
    try {
      kit.emulator.submitModal({ interactionId: 'nope', fields: {} });
    } catch (error) {
      thrown = error;
    }
    expect(isEmulatorNotFoundError(thrown)).toBe(true);
    expect(String(thrown)).toMatch(/interaction nope opened no modal/);
  });

  it('invokeCommand refuses an unknown field and a missing name', () => {
    expect(refusal(() => kit.emulator.invokeCommand({ name: 'menu', option: { a: 1 } } as never))).toMatch(/option.*not an option/);
    expect(refusal(() => kit.emulator.invokeCommand({} as never))).toMatch(/name.*non-empty string/);
  });
});

describe('the emulator factories refuse unknown options and unbounded numbers', () => {
  it('createEmulator, EmulatorCore, createMswHandlers and useEmulator name the option', async () => {
    await expect(createEmulator({ prot: 0 } as never)).rejects.toThrow(/prot.*not an option of createEmulator/);
    await expect(createEmulator({ heartbeatIntervalMs: 3e9 })).rejects.toThrow(/heartbeatIntervalMs.*at most 2147483647/);
    await expect(createEmulator({ gateway: { shards: 100_000 } })).rejects.toThrow(/gateway\.shards.*at most 4096/);
    await expect(createEmulator({ gateway: { shard: 2 } as never })).rejects.toThrow(/shard.*not an option/);
    expect(refusal(() => new EmulatorCore({ accessTokenLifetimeMs: Number.POSITIVE_INFINITY }))).toMatch(/accessTokenLifetimeMs/);
    expect(refusal(() => new EmulatorCore({ deliveries: { timeoutMs: 3e9 } }))).toMatch(/deliveries\.timeoutMs/);
    expect(refusal(() => createMswHandlers({ deliverto: () => new Response() } as never))).toMatch(/deliverto/);
    const hooks = { beforeAll: () => undefined, afterAll: () => undefined };
    expect(refusal(() => useEmulator(hooks, { comands: [] } as never))).toMatch(/comands.*not an option of useEmulator/);
    expect(refusal(() => useEmulator(hooks, { answerTimeoutMs: 3e9 }))).toMatch(/answerTimeoutMs/);
    const core = new EmulatorCore();
    expect(refusal(() => core.advanceTime(Number.NaN))).toMatch(/ms/);
    await core.close();
  });
});
