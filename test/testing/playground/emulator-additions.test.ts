/**
 * What the playground needs of the emulator, without a browser: observers of
 * REST calls, a secret-free snapshot, component and modal-submit
 * interactions, Discord's follow-up routes, and the global limit knob.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InteractionCallbackType, InteractionType } from '../../../src/index.js';
import { createEmulator, type Emulator, type EmulatorEvent } from '../../../src/testing/index.js';

let emulator: Emulator;
beforeAll(async () => {
  emulator = await createEmulator();
});
afterAll(() => emulator.close());

const post = (path: string, body: unknown, headers: Record<string, string> = {}, method = 'POST') =>
  fetch(`${emulator.url}/api/v1${path}`, { method, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

async function registerCommand(name: string): Promise<void> {
  const login = await post('/auth/login', { email: emulator.seed.user.email, password: emulator.seed.user.password });
  const { access_token: token } = (await login.json()) as { access_token: string };
  await post(`/applications/${emulator.seed.applicationId}/commands`, { name, description: name }, { authorization: `Bearer ${token}` });
}

/** Answers an interaction as a Discord library would: with its token, on Discord's callback route. */
const answer = (id: string, token: string, type: number, data: Record<string, unknown> = {}) => post(`/interactions/${id}/${token}/callback`, { type, data });

describe('the emulator, for the playground', () => {
  it('tells observers about each REST call (route template, status, time, bucket), with no token in it', async () => {
    const events: EmulatorEvent[] = [];
    const stop = emulator.core.observe((event) => events.push(event));
    const { id, token } = emulator.seed.webhook;
    await post(`/webhooks/${id}/${token}`, { content: 'observed' });
    stop();
    const rest = events.filter((event) => event.kind === 'rest');
    expect(rest).toEqual([
      expect.objectContaining({ method: 'POST', route: '/webhooks/{webhook_id}/{webhook_token}', status: 204, bucket: 'webhook-execute' }),
    ]);
    expect(JSON.stringify(events)).not.toContain(token);
  });

  it('draws a snapshot without any secret', () => {
    const text = JSON.stringify(emulator.core.snapshot());
    const secrets = emulator.core.secrets();
    expect(secrets).toContain(emulator.seed.botToken);
    expect(secrets.filter((secret) => text.includes(secret))).toEqual([]);
  });

  it('turns a deferred answer into the follow-up, and refuses a follow-up before any answer', async () => {
    await registerCommand('later');
    const run = emulator.invokeCommand({ name: 'later' });
    const token = String(run.payload['token']);
    const early = await post(`/webhooks/${emulator.seed.applicationId}/${token}`, { content: 'too early' });
    expect(early.status).toBe(404);
    expect((await answer(run.id, token, InteractionCallbackType.DeferredChannelMessageWithSource)).status).toBe(204);
    expect(emulator.core.snapshot().interactions.find((i) => i['id'] === run.id)).toMatchObject({ status: 'thinking' });
    const edited = await post(`/webhooks/${emulator.seed.applicationId}/${token}/messages/@original`, { content: 'Here it is.' }, {}, 'PATCH');
    expect(edited.status).toBe(200);
    expect(emulator.messages().at(-1)).toMatchObject({ content: 'Here it is.', interactionId: run.id, via: 'interaction' });
    expect(emulator.core.snapshot().interactions.find((i) => i['id'] === run.id)).toMatchObject({ status: 'answered' });
    const count = emulator.messages().length;
    await post(`/webhooks/${emulator.seed.applicationId}/${token}/messages/@original`, { content: 'Here it is, edited.' }, {}, 'PATCH');
    expect(emulator.messages().length).toBe(count);
    expect(emulator.messages().at(-1)).toMatchObject({ content: 'Here it is, edited.', interactionId: run.id });
    expect((await post(`/webhooks/${emulator.seed.applicationId}/not-a-token`, { content: 'x' })).status).toBe(404);
  });

  it('delivers component and modal-submit interactions with Discord fields', async () => {
    await registerCommand('form');
    const run = emulator.invokeCommand({ name: 'form' });
    const token = String(run.payload['token']);
    const components = [{ type: 1, components: [{ type: 2, style: 1, label: 'Go', custom_id: 'go' }] }];
    await answer(run.id, token, InteractionCallbackType.ChannelMessageWithSource, { content: 'Press it', components });
    const message = emulator.messages().at(-1);
    expect(message).toMatchObject({ content: 'Press it', components, interactionId: run.id });
    const click = emulator.core.clickComponent({ messageId: String(message?.id), customId: 'go', userId: emulator.seed.member.id });
    expect(click.payload).toMatchObject({
      type: InteractionType.MessageComponent,
      data: { custom_id: 'go', component_type: 2 },
      message: { id: message?.id },
      member: { user: { id: emulator.seed.member.id } },
    });
    await answer(click.id, String(click.payload['token']), InteractionCallbackType.Modal, {
      custom_id: 'survey',
      title: 'Survey',
      components: [{ type: 1, components: [{ type: 4, custom_id: 'name', style: 1, label: 'Name' }] }],
    });
    const submit = emulator.core.submitModal({ interactionId: click.id, fields: { name: 'Ada' } });
    expect(submit.payload).toMatchObject({
      type: InteractionType.ModalSubmit,
      data: { custom_id: 'survey', components: [{ type: 1, components: [{ type: 4, custom_id: 'name', value: 'Ada' }] }] },
    });
    expect(() => emulator.core.submitModal({ interactionId: run.id, fields: {} })).toThrow(/opened no modal/);
    expect(() => emulator.core.clickComponent({ messageId: 'nope', customId: 'go' })).toThrow(/no bot message/);
  });

  it('lets the global limit be changed while running', async () => {
    emulator.core.globalRateLimit = { limit: 1, windowMs: 60_000 };
    expect((await fetch(`${emulator.url}/api/v1/gateway`)).status).toBe(200);
    expect((await fetch(`${emulator.url}/api/v1/gateway`)).status).toBe(429);
    emulator.core.globalRateLimit = undefined;
    expect((await fetch(`${emulator.url}/api/v1/gateway`)).status).toBe(200);
  });
});
