/**
 * The kit under bad arguments: every simulation validates its input and
 * settles (a ValidationError naming the field, before any interaction is
 * created), a modal that was never opened is a typed not-found error, and
 * the emulator's factories refuse unknown options and unbounded numbers.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ButtonStyle, isValidationError, type MessageActionRow } from '../../../src/index.js';
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

/** What `call` threw: it must be a ValidationError, whose message is returned. */
function refusal(call: () => unknown): string {
  try {
    call();
  } catch (error) {
    expect(isValidationError(error), `threw ${String(error)}`).toBe(true);
    return (error as Error).message;
  }
  throw new Error('the call was accepted');
}

describe('simulations validate their input', () => {
  const kit = useEmulator(
    { beforeAll, afterAll, beforeEach },
    {
      commands: [{ name: 'menu', description: 'menu' }],
      bot: (client) => {
        client.gateway.onCommand('menu', (interaction) => interaction.reply({ content: 'Pick', components: menu }));
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
