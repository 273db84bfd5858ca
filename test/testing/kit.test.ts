import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, InteractionExpiredError, type CommandInteraction, type Gateway } from '../../src/index.js';
import { createTestGateway, createTestInteraction } from '../../src/testing/index.js';
import { createMswHandlers } from '../../src/testing/msw.js';

/** A bot's handlers, written as a user would: registered on whatever Gateway it is given. */
function registerQuizBot(gateway: Gateway): void {
  gateway.onCommand('quiz', async (interaction) => {
    if (interaction.options['topic'] === 'boom') throw new Error('the quiz bank is empty');
    await interaction.reply(`Quiz about ${String(interaction.options['topic'])}`);
  });
  gateway.onInteraction('autocomplete', (interaction) => interaction.autocomplete([{ name: 'space', value: 'space' }]));
}

describe('createTestInteraction', () => {
  it('records answers instead of sending them', async () => {
    const { interaction, responses } = createTestInteraction<CommandInteraction>({ name: 'quiz', options: { topic: 'space', rounds: 3 } });
    expect(interaction.options).toEqual({ topic: 'space', rounds: 3 });
    await interaction.reply('hello');
    expect(responses).toEqual([{ interaction_type: 4, data: { content: 'hello' } }]);
  });

  it('keeps the contract rules, including expiry on a test clock', async () => {
    let clock = Date.now();
    const { interaction } = createTestInteraction<CommandInteraction>({ clock: () => clock });
    clock += 15 * 60_000;
    await expect(interaction.reply('late')).rejects.toBeInstanceOf(InteractionExpiredError);
  });
});

describe('createTestGateway', () => {
  it('runs a bot’s real handlers without sockets and reports their answers and errors', async () => {
    const test = createTestGateway();
    registerQuizBot(test.gateway);
    const ran = await test.invoke({ name: 'quiz', options: { topic: 'space' } });
    expect(ran.responses).toEqual([{ interaction_type: 4, data: { content: 'Quiz about space' } }]);
    expect(ran.errors).toEqual([]);
    const suggested = await test.invoke({ kind: 'autocomplete', name: 'quiz', options: { topic: 's' }, focused: 'topic' });
    expect(suggested.responses[0]?.interaction_type).toBe(8);
    const failed = await test.invoke({ name: 'quiz', options: { topic: 'boom' } });
    expect(failed.responses).toEqual([]);
    expect(String(failed.errors[0])).toMatch(/quiz bank is empty/);
  });
});

describe('createMswHandlers', () => {
  const { handlers, core } = createMswHandlers({ baseUrl: 'https://chat.test' });
  const server = setupServer(...handlers);
  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
  afterAll(() => server.close());

  it('serves the whole contract from the in-memory state to a client on the fetch transport', async () => {
    const client = new Client({ baseUrl: 'https://chat.test', transport: 'fetch' });
    await client.auth.login({ email: core.seed.user.email, password: core.seed.user.password });
    await client.commands.sync(core.seed.applicationId, [{ name: 'quiz', description: 'Quiz' }]);
    expect((await client.commands.list(core.seed.applicationId)).map((c) => c.name)).toEqual(['quiz']);
    const bot = new Client({
      baseUrl: 'https://chat.test',
      transport: 'fetch',
      auth: { botToken: core.seed.botToken, webhookTokens: { [core.seed.webhook.id]: core.seed.webhook.token } },
    });
    await bot.webhooks.execute(core.seed.webhook.id, { content: 'from a unit test' });
    expect(core.messages(core.seed.channelId).map((m) => m.content)).toEqual(['from a unit test']);
    await expect(bot.applications.list({ credential: 'user' })).rejects.toThrow(/credentials/);
  });

  it('answers with URLs under the base URL the handlers serve', async () => {
    const client = new Client({ baseUrl: 'https://chat.test', transport: 'fetch' });
    await client.auth.login({ email: core.seed.user.email, password: core.seed.user.password });
    const created = await client.webhooks.create(core.seed.guildId, { name: 'Alerts', channel_id: core.seed.channelId });
    expect(String(created.url)).toMatch(/^https:\/\/chat\.test\/api\/v1\/webhooks\//);
    const gateway = (await client.request({ method: 'GET', path: '/gateway', auth: ['none'] })) as { url: string };
    expect(gateway.url).toBe('wss://chat.test/api/v1/gateway');
  });
});
