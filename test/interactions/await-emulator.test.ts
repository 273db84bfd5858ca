/**
 * awaitComponent / awaitModalSubmit against the emulator, over real sockets:
 * the bot gets the command over the Gateway, answers through the callback
 * route, and the emulator's playground actions click the button or submit
 * the modal.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ButtonStyle,
  Client,
  createInteractionRouter,
  InteractionTimeoutError,
  type ComponentInteraction,
  type MessageActionRow,
  isCommunityChatError,
} from '../../src/index.js';
import { createEmulator, type Emulator } from '../../src/testing/index.js';

let emulator: Emulator;
let admin: Client;
let bot: Client;
const router = createInteractionRouter();
/** Interactions that reached a normal handler (not a wait). */
const handled: string[] = [];
/** Resolves when a handler has started waiting. */
let waitingStarted: () => void = () => undefined;
const nextWait = () => new Promise<void>((resolve) => (waitingStarted = resolve));
let timeoutError: unknown;

const buttons: MessageActionRow[] = [{ type: 1, components: ['yes', 'no'].map((id) => ({ type: 2, style: ButtonStyle.Primary, label: id, custom_id: id })) }];

beforeAll(async () => {
  emulator = await createEmulator();
  admin = new Client({ baseUrl: emulator.url });
  await admin.auth.login({ email: emulator.seed.user.email, password: emulator.seed.user.password });
  await admin.commands.sync(
    emulator.seed.applicationId,
    ['vote', 'survey', 'slow', 'form'].map((name) => ({ name, description: name })),
  );
  router.onCommand('form', async (interaction) => {
    await interaction.showModal({
      custom_id: 'same-form',
      title: 'Form',
      components: [{ type: 1, components: [{ type: 4, custom_id: 'name', label: 'Name', style: 1 }] }],
    });
    const waiting = interaction.awaitModalSubmit({ customId: 'same-form', timeoutMs: 2_000 });
    waitingStarted();
    const submitted = await waiting.catch(() => undefined);
    if (submitted) await submitted.reply(`Form of ${interaction.id}: ${submitted.fields['name'] ?? '?'}`);
  });
  router.onCommand('vote', async (interaction) => {
    await interaction.reply({ content: 'Pick one', components: buttons });
    const waiting = interaction.awaitComponent({ timeoutMs: 10_000 });
    waitingStarted();
    const click = await waiting;
    await click.reply(`You chose ${click.customId}`);
  });
  router.onCommand('survey', async (interaction) => {
    await interaction.showModal({
      custom_id: 'survey-form',
      title: 'Survey',
      components: [{ type: 1, components: [{ type: 4, custom_id: 'name', label: 'Name', style: 1 }] }],
    });
    const waiting = interaction.awaitModalSubmit({ customId: 'survey-form', timeoutMs: 10_000 });
    waitingStarted();
    const submitted = await waiting;
    await submitted.reply(`Thanks, ${submitted.fields['name'] ?? '?'}`);
  });
  router.onCommand('slow', async (interaction) => {
    await interaction.reply({ content: 'Quick!', components: buttons });
    timeoutError = await interaction.awaitComponent({ timeoutMs: 50 }).catch((error: unknown) => error);
    waitingStarted();
  });
  router.onInteraction('component', (interaction: ComponentInteraction) => {
    handled.push(interaction.id);
    return interaction.reply('Handled by the component handler');
  });
  router.onInteraction('modalSubmit', (interaction) => {
    handled.push(interaction.id);
    return interaction.reply('Handled by the modal handler');
  });
  bot = new Client({ baseUrl: emulator.url, auth: { botToken: emulator.seed.botToken } });
  bot.gateway.use(router);
  await bot.gateway.connect();
});
afterAll(async () => {
  await Promise.all([admin.close(), bot.close()]);
  await emulator.close();
});

const replyTo = (interactionId: string) => emulator.messages().find((message) => message.interactionId === interactionId);

describe('interaction flows against the emulator', () => {
  it('the scripted user clicks a button and submits a modal from the emulator object, finding the message and the modal itself', async () => {
    const voting = nextWait();
    expect(await emulator.invokeCommand({ name: 'vote' }).response).toMatchObject({ data: { content: 'Pick one' } });
    await voting;
    // No message id: the latest message in the channel with a 'yes' button is the one clicked.
    expect((await emulator.clickComponent({ customId: 'yes' }).response).data).toEqual({ content: 'You chose yes' });
    const surveying = nextWait();
    expect(await emulator.invokeCommand({ name: 'survey' }).response).toMatchObject({ interaction_type: 9 });
    await surveying;
    // No interaction id: the latest modal the bot opened is the one submitted.
    expect((await emulator.submitModal({ fields: { name: 'Ada' } }).response).data).toEqual({ content: 'Thanks, Ada' });
    expect(() => emulator.clickComponent({ customId: 'no-such-button' })).toThrow(/no message in channel .* carries a component with custom_id no-such-button/);
  });

  it('a bot replies with buttons; awaitComponent takes the user’s own click, another user’s click goes to the handler', async () => {
    const started = nextWait();
    const run = emulator.invokeCommand({ name: 'vote' });
    expect(await run.response).toMatchObject({ interaction_type: 4, data: { content: 'Pick one' } });
    await started;
    const messageId = String(replyTo(run.id)?.id);
    const other = emulator.core.clickComponent({ messageId, customId: 'yes', userId: emulator.seed.member.id });
    expect((await other.response).data).toEqual({ content: 'Handled by the component handler' });
    const mine = emulator.core.clickComponent({ messageId, customId: 'no' });
    expect(await mine.response).toMatchObject({ interaction_type: 4, data: { content: 'You chose no' } });
    expect(handled).toEqual([other.id]);
  });

  it('showModal + awaitModalSubmit: the submission goes to the waiting command, not to the modal handler', async () => {
    const started = nextWait();
    const run = emulator.invokeCommand({ name: 'survey' });
    expect(await run.response).toMatchObject({ interaction_type: 9, data: { custom_id: 'survey-form' } });
    await started;
    handled.length = 0;
    const submit = emulator.core.submitModal({ interactionId: run.id, fields: { name: 'Ada' } });
    expect(await submit.response).toMatchObject({ interaction_type: 4, data: { content: 'Thanks, Ada' } });
    expect(handled).toEqual([]);
  });

  it('a timeout rejects with InteractionTimeoutError, and a later click reaches the component handler', async () => {
    const done = nextWait();
    const run = emulator.invokeCommand({ name: 'slow' });
    await run.response;
    await done;
    expect(timeoutError).toBeInstanceOf(InteractionTimeoutError);
    expect(isCommunityChatError(timeoutError, 'InteractionTimeoutError')).toBe(true);
    expect(timeoutError).toMatchObject({ interactionId: run.id, waitedFor: 'component', timeoutMs: 50 });
    handled.length = 0;
    const late = emulator.core.clickComponent({ messageId: String(replyTo(run.id)?.id), customId: 'yes' });
    expect((await late.response).data).toEqual({ content: 'Handled by the component handler' });
    expect(handled).toEqual([late.id]);
  });

  it('a click on an earlier message goes to the handler, not to the wait of a later interaction by the same user (the message says which interaction it answers)', async () => {
    const firstStarted = nextWait();
    const earlier = emulator.invokeCommand({ name: 'vote' });
    await earlier.response;
    await firstStarted;
    // The earlier vote's wait takes its own click, then a second vote waits.
    const earlierMessage = String(replyTo(earlier.id)?.id);
    expect((await emulator.core.clickComponent({ messageId: earlierMessage, customId: 'yes' }).response).data).toEqual({ content: 'You chose yes' });
    const secondStarted = nextWait();
    const later = emulator.invokeCommand({ name: 'vote' });
    await later.response;
    await secondStarted;
    handled.length = 0;
    // The same user clicks the earlier message again: its interaction_metadata names the earlier vote, so the later wait does not take it.
    const stray = emulator.core.clickComponent({ messageId: earlierMessage, customId: 'no' });
    expect(stray.payload['message']).toMatchObject({
      id: earlierMessage,
      interaction_metadata: { id: earlier.id, type: 2, user: { id: emulator.seed.user.id } },
    });
    expect((stray.payload['message'] as Record<string, Record<string, unknown>>)['interaction_metadata']?.['user']).not.toHaveProperty('email');
    expect((await stray.response).data).toEqual({ content: 'Handled by the component handler' });
    expect(handled).toEqual([stray.id]);
    const own = emulator.core.clickComponent({ messageId: String(replyTo(later.id)?.id), customId: 'yes' });
    expect((await own.response).data).toEqual({ content: 'You chose yes' });
  });

  it('the same modal shown twice: a submission goes to the interaction that opened the modal the user sees (the latest), not the first', async () => {
    const firstStarted = nextWait();
    const first = emulator.invokeCommand({ name: 'form' });
    await first.response;
    await firstStarted;
    const secondStarted = nextWait();
    const second = emulator.invokeCommand({ name: 'form' });
    await second.response;
    await secondStarted;
    const submit = emulator.core.submitModal({ interactionId: second.id, fields: { name: 'Grace' } });
    expect((await submit.response).data).toEqual({ content: `Form of ${second.id}: Grace` });
  });
});
