/**
 * The emulator delivers application-webhook events for real, over real
 * sockets, to receivers built with createWebhookReceiver: signed with the
 * SDK's signer, retried with the same delivery id, refused off loopback.
 */
import type http from 'node:http';
import { useEmulatorWithAdmin } from '../helpers/emulators.js';
import { afterEach, describe, expect, it } from 'vitest';
import { Client, createInteractionRouter, type WebhookVerificationError } from '../../src/index.js';
import { createWebhookReceiver } from '../../src/receiver.js';
import { MemoryReplayStore } from '../../src/stores.js';
import { startRawLoopbackServer } from '../helpers/index.js';
import { until } from '../helpers/until.js';
import type { EmulatorOptions, WebhookDeliveryRecord } from '../../src/testing/index.js';

const FAST = { deliveries: { retryBaseDelayMs: 20, retryMaxDelayMs: 50, timeoutMs: 2000 } } satisfies EmulatorOptions;
const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

const startEmulator = useEmulatorWithAdmin();
const start = (options: EmulatorOptions = FAST) => startEmulator(options);

/** A real node:http server on 127.0.0.1 (the shared helper); `listener` sees every request. */
async function serve(listener: http.RequestListener): Promise<string> {
  const server = await startRawLoopbackServer(listener);
  cleanup.push(() => server.close());
  return `${server.url}/hook`;
}

async function deliveries(admin: Client, appId: string): Promise<WebhookDeliveryRecord[]> {
  return (await admin.applicationWebhooks.listDeliveries(appId, { page: 1, perPage: 100 })).items as unknown as WebhookDeliveryRecord[];
}

/** The delivery once it succeeded or failed: its record says nothing when it changes, so it is polled (through the service's API). */
async function finished(admin: Client, appId: string, id: string): Promise<WebhookDeliveryRecord> {
  let found: WebhookDeliveryRecord | undefined;
  return until(
    async () => {
      found = (await deliveries(admin, appId)).find((delivery) => delivery.id === id);
      return found && (found.status === 'succeeded' || found.status === 'failed') ? found : undefined;
    },
    { timeoutMs: 10_000, what: () => `delivery ${id} finishing (last seen: ${JSON.stringify(found)})` },
  );
}

describe('application-webhook deliveries', () => {
  it('sends a signed TEST delivery that a receiver verifies and handles once', async () => {
    const { emulator, admin } = await start();
    const appId = emulator.seed.applicationId;
    const handled: { id: string; data: unknown }[] = [];
    let receiver: ReturnType<typeof createWebhookReceiver> | undefined;
    const url = await serve((request, response) => receiver?.node(request, response));
    const hook = await admin.applicationWebhooks.create(appId, { url, events: ['INTERACTION_CREATE'] });
    receiver = createWebhookReceiver({ secret: String(hook['secret']) });
    receiver.onDelivery('TEST', (delivery) => void handled.push({ id: delivery.id, data: delivery.data }));
    const queued = await admin.applicationWebhooks.test(appId, hook.id);
    expect(queued).toMatchObject({ event: 'TEST', status: 'queued', attempts: 0 });
    const done = await finished(admin, appId, String(queued['id']));
    expect(done).toMatchObject({ status: 'succeeded', attempts: 1, response_status: 200, error: null });
    expect(handled).toEqual([{ id: queued['id'], data: { application_id: appId, webhook_id: hook.id, message: expect.any(String) } }]);
  });

  it('retries a failing receiver with the same delivery id, three attempts in all, and the receiver handles it once', async () => {
    const { emulator, admin } = await start();
    const appId = emulator.seed.applicationId;
    const seenIds: string[] = [];
    let handled = 0;
    let receiver: ReturnType<typeof createWebhookReceiver> | undefined;
    const url = await serve((request, response) => {
      seenIds.push(String(request.headers['x-delivery-id']));
      if (seenIds.length <= 2) response.writeHead(500).end();
      else receiver?.node(request, response);
    });
    const hook = await admin.applicationWebhooks.create(appId, { url, events: ['TEST'] });
    receiver = createWebhookReceiver({ secret: String(hook['secret']) });
    receiver.on('delivery', () => void handled++);
    const queued = await admin.applicationWebhooks.test(appId, hook.id);
    const done = await finished(admin, appId, String(queued['id']));
    expect(done).toMatchObject({ status: 'succeeded', attempts: 3, response_status: 200 });
    expect(seenIds).toEqual([queued['id'], queued['id'], queued['id']]);
    expect(handled).toBe(1);
  });

  it('signs each attempt of a delivery anew (a later timestamp), so a retry is never a byte-identical replay', async () => {
    const { emulator, admin } = await start();
    const appId = emulator.seed.applicationId;
    const seen: { timestamp: number; signature: string }[] = [];
    const url = await serve((request, response) => {
      seen.push({ timestamp: Number(request.headers['x-signature-timestamp']), signature: String(request.headers['x-signature-256']) });
      response.writeHead(503).end();
    });
    const hook = await admin.applicationWebhooks.create(appId, { url, events: ['TEST'] });
    const queued = await admin.applicationWebhooks.test(appId, hook.id);
    expect(await finished(admin, appId, String(queued['id']))).toMatchObject({ status: 'failed', attempts: 3 });
    expect(seen).toHaveLength(3);
    expect(new Set(seen.map((attempt) => attempt.signature)).size).toBe(3);
    expect(seen[1]!.timestamp).toBeGreaterThan(seen[0]!.timestamp);
    expect(seen[2]!.timestamp).toBeGreaterThan(seen[1]!.timestamp);
    expect(seen[2]!.timestamp - Math.floor(Date.now() / 1000)).toBeLessThanOrEqual(3);
  });

  it('a receiver whose replay store fails once answers 503; the emulator retries and the receiver handles the delivery once', async () => {
    const { emulator, admin } = await start();
    const appId = emulator.seed.applicationId;
    const inner = new MemoryReplayStore();
    let failed = false;
    const replayStore = {
      claim: (key: string, ttlMs: number) =>
        !failed && (failed = true) ? Promise.reject(new Error('the replay store is down')) : Promise.resolve(inner.claim(key, ttlMs)),
    };
    let receiver: ReturnType<typeof createWebhookReceiver> | undefined;
    const url = await serve((request, response) => receiver?.node(request, response));
    const hook = await admin.applicationWebhooks.create(appId, { url, events: ['TEST'] });
    receiver = createWebhookReceiver({ secret: String(hook['secret']), replayStore });
    const handled: string[] = [];
    receiver.on('delivery', (delivery) => void handled.push(delivery.id));
    receiver.on('error', () => undefined);
    const queued = await admin.applicationWebhooks.test(appId, hook.id);
    expect(await finished(admin, appId, String(queued['id']))).toMatchObject({ status: 'succeeded', attempts: 2, response_status: 200 });
    // Both attempts are over (the delivery finished), so every dispatch they caused has been counted once the first is.
    await until(() => (handled.length > 0 ? true : undefined));
    expect(handled).toEqual([queued['id']]);
  });

  it('gives up after three failed attempts, and counts a refused connection as a failure', async () => {
    const { emulator, admin } = await start();
    const appId = emulator.seed.applicationId;
    const url = await serve((_request, response) => response.writeHead(503).end());
    const failing = await admin.applicationWebhooks.create(appId, { url, events: ['TEST'] });
    const first = await admin.applicationWebhooks.test(appId, failing.id);
    expect(await finished(admin, appId, String(first['id']))).toMatchObject({
      status: 'failed',
      attempts: 3,
      response_status: 503,
      error: expect.stringMatching(/503/),
    });
    const closed = await admin.applicationWebhooks.create(appId, { url: 'http://127.0.0.1:9/nothing-listens', events: ['TEST'] });
    const second = await admin.applicationWebhooks.test(appId, closed.id);
    expect(await finished(admin, appId, String(second['id']))).toMatchObject({
      status: 'failed',
      attempts: 3,
      response_status: null,
      error: expect.stringMatching(/ECONNREFUSED|refused/i),
    });
  });

  it('signs with the new secret at once after regenerate-secret: the old one fails', async () => {
    const { emulator, admin } = await start();
    const appId = emulator.seed.applicationId;
    let receiver: ReturnType<typeof createWebhookReceiver> | undefined;
    const url = await serve((request, response) => receiver?.node(request, response));
    const hook = await admin.applicationWebhooks.create(appId, { url, events: ['TEST'] });
    const oldSecret = String(hook['secret']);
    const rejected: WebhookVerificationError[] = [];
    let handled = 0;
    receiver = createWebhookReceiver({ secret: oldSecret });
    receiver.on('rejected', (error) => void rejected.push(error));
    receiver.on('delivery', () => void handled++);
    const { secret: newSecret } = await admin.applicationWebhooks.regenerateSecret(appId, hook.id);
    expect(newSecret).not.toBe(oldSecret);
    const stale = await admin.applicationWebhooks.test(appId, hook.id);
    expect(await finished(admin, appId, String(stale['id']))).toMatchObject({ status: 'failed', attempts: 3, response_status: 401 });
    expect(rejected.map((error) => error.reason)).toEqual(['bad-signature', 'bad-signature', 'bad-signature']);
    expect(handled).toBe(0);
    receiver = createWebhookReceiver({ secret: String(newSecret) });
    receiver.on('delivery', () => void handled++);
    const fresh = await admin.applicationWebhooks.test(appId, hook.id);
    expect(await finished(admin, appId, String(fresh['id']))).toMatchObject({ status: 'succeeded', attempts: 1 });
    expect(handled).toBe(1);
  });

  it('refuses a URL that is not loopback unless allowExternalDeliveries is on', async () => {
    const { emulator, admin } = await start();
    const appId = emulator.seed.applicationId;
    const hook = await admin.applicationWebhooks.create(appId, { url: 'http://hooks.invalid/quiz', events: ['TEST'] });
    const queued = await admin.applicationWebhooks.test(appId, hook.id);
    expect(await finished(admin, appId, String(queued['id']))).toMatchObject({
      status: 'failed',
      attempts: 0,
      error: expect.stringMatching(/not a loopback address.*allowExternalDeliveries/),
    });

    const open = await start({ deliveries: { ...FAST.deliveries, timeoutMs: 1000 }, allowExternalDeliveries: true });
    const openApp = open.emulator.seed.applicationId;
    const external = await open.admin.applicationWebhooks.create(openApp, { url: 'http://hooks.invalid/quiz', events: ['TEST'] });
    const tried = await open.admin.applicationWebhooks.test(openApp, external.id);
    const result = await finished(open.admin, openApp, String(tried['id']));
    expect(result).toMatchObject({ status: 'failed', attempts: 3 });
    expect(result.error).not.toMatch(/loopback/);
  });

  it('delivers an interaction over HTTP only; reply() through the callback route reaches the channel once', async () => {
    const { emulator, admin } = await start();
    const appId = emulator.seed.applicationId;
    await admin.commands.create(appId, { name: 'ping', description: 'Ping' });
    const bot = new Client({ baseUrl: emulator.url, auth: { botToken: emulator.seed.botToken } });
    cleanup.push(() => bot.close());
    const router = createInteractionRouter();
    router.onCommand('ping', (interaction) => interaction.reply('pong over HTTP'));
    let receiver: ReturnType<typeof createWebhookReceiver> | undefined;
    const url = await serve((request, response) => receiver?.node(request, response));
    const hook = await admin.applicationWebhooks.create(appId, { url, events: ['INTERACTION_CREATE'] });
    receiver = createWebhookReceiver({ secret: String(hook['secret']), client: bot });
    receiver.use(router);
    const invoked = emulator.invokeCommand({ name: 'ping' });
    expect(invoked).toMatchObject({ via: 'webhook', delivered: 1 });
    expect(invoked.deliveryIds).toHaveLength(1);
    expect(await invoked.response).toMatchObject({ interaction_type: 4, data: { content: 'pong over HTTP' } });
    expect(await finished(admin, appId, String(invoked.deliveryIds[0]))).toMatchObject({ event: 'INTERACTION_CREATE', status: 'succeeded' });
    // The reply's message was posted when its callback was answered, before invoked.response resolved.
    expect(emulator.messages().filter((message) => message.content === 'pong over HTTP')).toHaveLength(1);
    expect(emulator.gatewayStats.counts.connections).toBe(0);

    await admin.applicationWebhooks.update(appId, hook.id, { events: ['TEST'] });
    expect(emulator.invokeCommand({ name: 'ping' })).toMatchObject({ via: 'gateway', delivered: 0, deliveryIds: [] });
  });

  it('lists deliveries with id, event, status, attempts, duration_ms and created_at, paginated', async () => {
    const { emulator, admin } = await start();
    const appId = emulator.seed.applicationId;
    const url = await serve((_request, response) => response.writeHead(204).end());
    const hook = await admin.applicationWebhooks.create(appId, { url, events: ['TEST'] });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(String((await admin.applicationWebhooks.test(appId, hook.id))['id']));
    for (const id of ids) await finished(admin, appId, id);
    const first = await admin.applicationWebhooks.listDeliveries(appId, { page: 1, perPage: 2 });
    expect(first.raw).toMatchObject({ page: 1, per_page: 2, total: 3, has_more: true });
    expect(first.items.map((item) => item['id'])).toEqual([ids[2], ids[1]]);
    for (const item of first.items) {
      expect(item).toEqual({
        id: expect.any(String),
        webhook_id: hook.id,
        event: 'TEST',
        status: 'succeeded',
        attempts: 1,
        duration_ms: expect.any(Number),
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        response_status: 204,
        error: null,
      });
    }
    const second = await admin.applicationWebhooks.listDeliveries(appId, { page: 2, perPage: 2 });
    expect(second.items.map((item) => item['id'])).toEqual([ids[0]]);
    expect(second.raw).toMatchObject({ has_more: false });
  });
});
