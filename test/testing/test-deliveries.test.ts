/**
 * Signed test deliveries (createTestDelivery, and signWebhookDelivery from
 * the main entry) and MSW deliveries to a receiver's fetch handler.
 */
import { setupServer } from 'msw/node';
import { afterEach, describe, expect, it } from 'vitest';
import { Client, createInteractionRouter } from '../../src/index.js';
import { createWebhookReceiver, signWebhookDelivery, verifyWebhookDelivery } from '../../src/receiver.js';
import { createTestDelivery } from '../../src/testing/index.js';
import { createMswHandlers } from '../../src/testing/msw.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

describe('signed test deliveries', () => {
  it('signWebhookDelivery is re-exported, and createTestDelivery builds a delivery a receiver verifies and routes', async () => {
    const secret = 'whsec-kit-Tz42.secret';
    const body = JSON.stringify({ id: 'd1', type: 'PING', created_at: new Date().toISOString(), data: {} });
    expect(verifyWebhookDelivery({ rawBody: body, headers: signWebhookDelivery({ body, secret }), secret })).toMatchObject({ id: 'd1', type: 'PING' });

    const router = createInteractionRouter();
    const answers: unknown[] = [];
    router.onCommand('quiz', (interaction) => interaction.reply(`Quiz about ${String(interaction.options['topic'])}`));
    const client = { interactions: { respond: async (_id: string, answer: unknown) => void answers.push(answer) } };
    const receiver = createWebhookReceiver({ secret, client });
    receiver.use(router);
    const delivery = createTestDelivery({ secret, interaction: { name: 'quiz', options: { topic: 'space' } } });
    expect(JSON.parse(delivery.body)).toMatchObject({ id: delivery.id, type: 'INTERACTION_CREATE', data: { data: { name: 'quiz' } } });
    const handling: Promise<unknown>[] = [];
    const answer = await receiver.fetch(new Request('http://bot.test/interactions', { method: 'POST', body: delivery.body, headers: delivery.headers }), {
      waitUntil: (promise) => void handling.push(promise),
    });
    expect(answer.status).toBe(200);
    // The receiver answers before its handlers run; waitUntil holds them, so this waits for them to settle.
    await Promise.all(handling);
    expect(answers).toEqual([{ interaction_type: 4, data: { content: 'Quiz about space' } }]);

    const forged = createTestDelivery({ secret: 'another-secret-Yy11', type: 'MEMBER_JOINED', data: { user: 'x' } });
    expect((await receiver.fetch(new Request('http://bot.test/interactions', { method: 'POST', body: forged.body, headers: forged.headers }))).status).toBe(
      401,
    );
  });

  it('createMswHandlers({ deliverTo }) hands deliveries to a receiver’s fetch handler; its reply goes back through MSW', async () => {
    let receiver: ReturnType<typeof createWebhookReceiver> | undefined;
    const { handlers, core } = createMswHandlers({
      baseUrl: 'https://chat.test',
      deliverTo: (request) => (receiver ? receiver.fetch(request) : new Response(null, { status: 503 })),
    });
    const server = setupServer(...handlers);
    server.listen({ onUnhandledRequest: 'error' });
    cleanup.push(async () => server.close());
    const admin = new Client({ baseUrl: 'https://chat.test', transport: 'fetch' });
    await admin.auth.login({ email: core.seed.user.email, password: core.seed.user.password });
    await admin.commands.create(core.seed.applicationId, { name: 'ping', description: 'Ping' });
    const hook = await admin.applicationWebhooks.create(core.seed.applicationId, { url: 'https://bot.test/interactions', events: ['INTERACTION_CREATE'] });
    const bot = new Client({ baseUrl: 'https://chat.test', transport: 'fetch', auth: { botToken: core.seed.botToken } });
    const router = createInteractionRouter();
    router.onCommand('ping', (interaction) => interaction.reply('pong via MSW'));
    receiver = createWebhookReceiver({ secret: String(hook['secret']), client: bot });
    receiver.use(router);
    const invoked = core.invokeCommand({ name: 'ping' });
    expect(invoked.via).toBe('webhook');
    expect(await invoked.response).toMatchObject({ interaction_type: 4, data: { content: 'pong via MSW' } });
    await core.close();
  });
});
