import { inspect } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, expectTypeOf, it, vi } from 'vitest';
import {
  Client,
  createInteractionRouter,
  type CommandInteraction,
  type InteractionErrorEvent,
  type InteractionPayload,
  isCommunityChatError,
} from '../../src/index.js';
import { createWebhookReceiver, type WebhookDelivery, type WebhookErrorEvent } from '../../src/receiver.js';
import { MAX_BODY_BYTES_LIMIT, MAX_PENDING_BODIES_LIMIT } from '../../src/receive/receiver-options.js';
import { MemoryReplayStore } from '../../src/stores.js';
import { SECRETS, startLoopbackServer, type LoopbackServer } from '../helpers/index.js';
import { NOW_MS, OLD_WEBHOOK_SECRET, settle, signedDelivery, waitFor, WEBHOOK_SECRET } from './helpers.js';

const INTERACTION_TOKEN = 'interaction-token-Hh42.secret';

/** The loopback server standing in for the service's interaction callback. */
let service: LoopbackServer;
beforeAll(async () => {
  service = await startLoopbackServer((_req, res) => {
    res.statusCode = 204;
    res.end();
  });
});
afterEach(() => {
  service.requests.length = 0;
});
afterAll(() => service.close());

function commandPayload(overrides: Partial<InteractionPayload> = {}): InteractionPayload {
  return {
    id: 'int-1',
    type: 2,
    token: INTERACTION_TOKEN,
    application_id: 'app1',
    channel_id: 'ch1',
    created_at: new Date(NOW_MS).toISOString(),
    member: { user: { id: 'u1', username: 'ada' } },
    data: { name: 'ping', options: [{ name: 'loud', type: 5, value: true }] },
    ...overrides,
  };
}

function botClient(): Client {
  return new Client({ baseUrl: service.url, auth: { botToken: SECRETS.botToken }, retries: 0 });
}

describe('interactions over HTTP', () => {
  it('builds the typed interaction from INTERACTION_CREATE; reply() sends exactly one callback to the service', async () => {
    const router = createInteractionRouter();
    const receiver = createWebhookReceiver({ secret: WEBHOOK_SECRET, client: botClient(), clock: () => NOW_MS });
    receiver.use(router);
    const seen: CommandInteraction[] = [];
    const second: unknown[] = [];
    router.onCommand('PING', async (interaction) => {
      seen.push(interaction);
      await interaction.reply(`pong${interaction.options['loud'] === true ? '!' : ''}`);
      await interaction.reply('again').catch((error: unknown) => void second.push(error));
    });
    const typed: string[] = [];
    receiver.onDelivery('INTERACTION_CREATE', (delivery) => {
      expectTypeOf(delivery.data).toEqualTypeOf<InteractionPayload>();
      typed.push(delivery.data.id);
    });
    const { body, headers } = signedDelivery({ type: 'INTERACTION_CREATE', data: commandPayload() });
    const answer = await receiver.fetch(new Request('https://bot.example/i', { method: 'POST', body, headers }));
    expect(answer.status).toBe(200);
    await waitFor(() => second.length === 1);
    await settle(50);
    expect(service.requests).toHaveLength(1);
    const [callback] = service.requests;
    expect(callback?.method).toBe('POST');
    expect(callback?.url).toBe('/api/v1/interactions/int-1/callback');
    expect(callback?.headers['authorization']).toBe(`Bot ${SECRETS.botToken}`);
    expect(JSON.parse(callback?.body ?? '')).toEqual({ interaction_type: 4, data: { content: 'pong!' } });
    expect(isCommunityChatError(second[0], 'InteractionAlreadyAcknowledgedError')).toBe(true);
    expect(typed).toEqual(['int-1']);
    expect(seen[0]?.kind).toBe('command');
    expect(seen[0]?.state).toBe('acknowledged');
    expect(seen[0]?.user?.username).toBe('ada');
    expect(seen[0]?.expiresAt).toBe(NOW_MS + 15 * 60_000);
  });

  it('keeps the expiry: an interaction created 16 minutes ago rejects reply() without any request', async () => {
    const receiver = createWebhookReceiver({ secret: WEBHOOK_SECRET, client: botClient(), clock: () => NOW_MS });
    const failures: unknown[] = [];
    receiver.router.onCommand('ping', (interaction) => interaction.reply('late'));
    receiver.on('interactionError', ({ error }) => void failures.push(error));
    const fresh = signedDelivery({ type: 'INTERACTION_CREATE', data: commandPayload({ created_at: new Date(NOW_MS - 16 * 60_000).toISOString() }) });
    const accepted = await receiver.receive(fresh.body, fresh.headers);
    await accepted.dispatch();
    expect(failures).toHaveLength(1);
    expect(isCommunityChatError(failures[0], 'InteractionExpiredError')).toBe(true);
    expect(service.requests).toHaveLength(0);
  });

  it('routes handler errors to interactionError on the receiver and the router; the delivery was still acknowledged', async () => {
    const router = createInteractionRouter();
    const receiver = createWebhookReceiver({ secret: WEBHOOK_SECRET, client: botClient(), clock: () => NOW_MS });
    receiver.use(router);
    const onRouter: InteractionErrorEvent[] = [];
    const onReceiver: InteractionErrorEvent[] = [];
    router.on('interactionError', (event) => void onRouter.push(event));
    receiver.on('interactionError', (event) => void onReceiver.push(event));
    router.onInteraction('command', () => {
      throw new Error('command handler failed');
    });
    const { body, headers } = signedDelivery({ type: 'INTERACTION_CREATE', data: commandPayload() });
    const outcome = await receiver.receive(body, headers);
    expect(outcome.status).toBe(200);
    await outcome.dispatch();
    expect(onRouter.map((event) => (event.error as Error).message)).toEqual(['command handler failed']);
    expect(onReceiver.map((event) => event.interaction.id)).toEqual(['int-1']);
  });

  it('reports an INTERACTION_CREATE it cannot answer (no client) or build (no token) as an error event, still delivering it to the catch-all', async () => {
    const receiver = createWebhookReceiver({ secret: WEBHOOK_SECRET, clock: () => NOW_MS });
    const errors: WebhookErrorEvent[] = [];
    const all: WebhookDelivery[] = [];
    receiver.on('error', (event) => void errors.push(event));
    receiver.on('delivery', (delivery) => void all.push(delivery));
    const first = signedDelivery({ type: 'INTERACTION_CREATE', data: commandPayload() });
    await (await receiver.receive(first.body, first.headers)).dispatch();
    expect(isCommunityChatError(errors[0]?.error, 'ValidationError')).toBe(true);
    expect((errors[0]?.error as Error | undefined)?.message).toMatch(/createWebhookReceiver\(\{ client \}\)/);
    const withClient = createWebhookReceiver({ secret: WEBHOOK_SECRET, client: botClient(), clock: () => NOW_MS });
    withClient.on('error', (event) => void errors.push(event));
    const { token: _token, ...tokenless } = commandPayload();
    const second = signedDelivery({ type: 'INTERACTION_CREATE', data: tokenless });
    await (await withClient.receive(second.body, second.headers)).dispatch();
    expect(isCommunityChatError(errors[1]?.error, 'ValidationError')).toBe(true);
    expect(all.map((delivery) => delivery.type)).toEqual(['INTERACTION_CREATE']);
    expect(service.requests).toHaveLength(0);
  });
});

describe('the error event', () => {
  it('carries an Error as error when a delivery handler throws something else, the value kept as its cause', async () => {
    const receiver = createWebhookReceiver({ secret: WEBHOOK_SECRET, clock: () => NOW_MS });
    const errors: WebhookErrorEvent[] = [];
    receiver.on('error', (event) => void errors.push(event));
    receiver.onDelivery('MEMBER_JOINED', () => {
      throw 42;
    });
    const { body, headers } = signedDelivery({ type: 'MEMBER_JOINED', data: { user_id: 'u1' } });
    await (await receiver.receive(body, headers)).dispatch();
    expect(errors.map((event) => [event.error instanceof Error, event.error.cause, event.delivery?.type])).toEqual([[true, 42, 'MEMBER_JOINED']]);
  });
});

describe('typed deliveries and the catch-all', () => {
  it('runs the handlers of a type and the catch-all; an unknown type reaches only the catch-all; a type named like an event is a type; removed handlers stop', async () => {
    const receiver = createWebhookReceiver<{ MEMBER_JOINED: { user_id: string } }>({ secret: WEBHOOK_SECRET, clock: () => NOW_MS });
    const log: string[] = [];
    const joined = (delivery: WebhookDelivery<'MEMBER_JOINED', { user_id: string }>) => void log.push(`joined:${delivery.data.user_id}`);
    const stopJoined = receiver.onDelivery('MEMBER_JOINED', joined);
    receiver.on('delivery', (delivery) => void log.push(`any:${delivery.type}`));
    // A delivery type may be named like one of the receiver's events: it reaches its handlers, not the event's listeners.
    receiver.onDelivery('error', (delivery) => void log.push(`type:${delivery.type}`));
    receiver.on('error', () => void log.push('error event'));
    receiver.onDelivery('SOMETHING_ELSE', (delivery) => {
      expectTypeOf(delivery.data).toEqualTypeOf<unknown>();
    });
    for (const [type, data] of [
      ['MEMBER_JOINED', { user_id: 'u7' }],
      ['BRAND_NEW_EVENT', { x: 1 }],
      ['error', {}],
    ] as const) {
      const { body, headers } = signedDelivery({ type, data });
      await (await receiver.receive(body, headers)).dispatch();
    }
    stopJoined();
    const again = signedDelivery({ type: 'MEMBER_JOINED', data: { user_id: 'u8' } });
    await (await receiver.receive(again.body, again.headers)).dispatch();
    expect(log).toEqual(['any:MEMBER_JOINED', 'joined:u7', 'any:BRAND_NEW_EVENT', 'any:error', 'type:error', 'any:MEMBER_JOINED']);
  });

  it('close() answers new requests 503, lets the running handlers settle, then removes handlers, listeners and the router it created', async () => {
    const receiver = createWebhookReceiver({ secret: WEBHOOK_SECRET, clock: () => NOW_MS });
    let finish: () => void = () => undefined;
    const seen: string[] = [];
    receiver.onDelivery('SLOW', () => new Promise<void>((resolve) => (finish = resolve)).then(() => void seen.push('slow done')));
    receiver.router.onCommand('ping', () => undefined);
    const first = signedDelivery({ type: 'SLOW' });
    const running = (await receiver.receive(first.body, first.headers)).dispatch();
    let closed = false;
    const closing = receiver.close().then(() => (closed = true));
    const later = signedDelivery({ type: 'SLOW' });
    expect(await receiver.receive(later.body, later.headers)).toMatchObject({ status: 503, body: { ok: false, reason: 'closing' } });
    // Still waiting for the running handler.
    await Promise.resolve();
    expect(closed).toBe(false);
    finish();
    await Promise.all([running, closing]);
    expect(seen).toEqual(['slow done']);
    expect(receiver.router.handlerCount).toBe(0);
    expect(receiver.toJSON()).toMatchObject({ types: [] });
  });

  it('close() leaves a router it uses to its owner', async () => {
    const router = createInteractionRouter();
    router.onCommand('ping', () => undefined);
    await using receiver = createWebhookReceiver({ secret: WEBHOOK_SECRET, clock: () => NOW_MS });
    receiver.use(router);
    await receiver.close();
    expect(router.handlerCount).toBe(1);
  });

  it('refuses an empty or whitespace secret and bad limits when created', () => {
    for (const secret of ['', ' \n', [] as string[]]) expect(() => createWebhookReceiver({ secret })).toThrow(/secret/);
    expect(() => createWebhookReceiver({ secret: WEBHOOK_SECRET, maxBodyBytes: 0 })).toThrow(/maxBodyBytes/);
    expect(() => createWebhookReceiver({ secret: WEBHOOK_SECRET, toleranceMs: -1 })).toThrow(/toleranceMs/);
  });

  it('refuses removed and unknown options, naming the new one, and durations past 2^31 - 1 ms', () => {
    const issues = (options: Record<string, unknown>) => {
      try {
        createWebhookReceiver({ secret: WEBHOOK_SECRET, ...options });
      } catch (error) {
        return (error as { issues?: unknown }).issues;
      }
      return 'accepted';
    };
    expect(issues({ now: () => NOW_MS, toleranceSeconds: 300, maxBody: 5 })).toEqual([
      { path: 'now', message: 'was renamed or removed: use clock' },
      { path: 'toleranceSeconds', message: 'was renamed or removed: use toleranceMs (milliseconds: seconds x 1000)' },
      { path: 'maxBody', message: 'is not an option of createWebhookReceiver' },
    ]);
    for (const name of ['toleranceMs', 'dedupeTtlMs', 'bodyTimeoutMs'])
      for (const value of [3e9, Number.POSITIVE_INFINITY, Number.NaN])
        expect((issues({ [name]: value }) as { path: string }[])[0]?.path, `${name}: ${value}`).toBe(name);
    expect((issues({ maxPendingBodies: 1.5 }) as { path: string }[])[0]?.path).toBe('maxPendingBodies');
    for (const [name, limit] of [
      ['maxPendingBodies', MAX_PENDING_BODIES_LIMIT],
      ['maxBodyBytes', MAX_BODY_BYTES_LIMIT],
    ] as const) {
      expect(issues({ [name]: limit }), `${name} at its limit`).toBe('accepted');
      for (const value of [limit + 1, Number.POSITIVE_INFINITY])
        expect((issues({ [name]: value }) as { path: string }[])[0]?.path, `${name}: ${value}`).toBe(name);
    }
    expect(issues({ toleranceMs: 60_000, dedupeTtlMs: 120_000 })).toBe('accepted');
    expect(() => new MemoryReplayStore({ now: () => NOW_MS } as never)).toThrow(/now: was renamed or removed: use clock/);
  });

  it('rejects receive() of a parsed body with a ValidationError that says what to pass', async () => {
    const receiver = createWebhookReceiver({ secret: WEBHOOK_SECRET, clock: () => NOW_MS });
    const { body, headers } = signedDelivery();
    const error: unknown = await receiver.receive(JSON.parse(body) as string, headers).catch((caught: unknown) => caught);
    expect(isCommunityChatError(error, 'ValidationError')).toBe(true);
    expect((error as Error).message).toMatch(/raw request body/);
    expect((await receiver.receive(body, headers)).status).toBe(200);
  });

  it('de-duplicates across instances that share an asynchronous replay store (as behind a load balancer)', async () => {
    const shared = new MemoryReplayStore({ clock: () => NOW_MS });
    const claims: string[] = [];
    const store = { claim: async (key: string, ttlMs: number) => (claims.push(key.split(':')[0] ?? ''), shared.claim(key, ttlMs)) };
    const handled: string[] = [];
    const [a, b] = [1, 2].map(() => createWebhookReceiver({ secret: WEBHOOK_SECRET, replayStore: store, clock: () => NOW_MS }));
    for (const receiver of [a, b]) receiver?.on('delivery', (delivery) => void handled.push(delivery.id));
    const first = signedDelivery({ id: 'dlv-lb' });
    const retry = signedDelivery({ id: 'dlv-lb', timestamp: NOW_MS / 1000 + 5 });
    const outcomes = [await a?.receive(first.body, first.headers), await b?.receive(retry.body, retry.headers), await b?.receive(first.body, first.headers)];
    for (const outcome of outcomes) await outcome?.dispatch();
    expect(outcomes.map((outcome) => outcome?.status)).toEqual([200, 200, 401]);
    expect(outcomes[1]?.body).toEqual({ ok: true, duplicate: true });
    expect(handled).toEqual(['dlv-lb']);
    expect(claims).toEqual(['delivery', 'signed', 'delivery', 'signed', 'delivery', 'signed']);
  });
});

describe('secrets and signatures', () => {
  it('takes a secret provider, asked for each delivery: 503 while it gives none (the service retries), verified once it does, rotated at run time', async () => {
    let current: string | string[] | undefined;
    const receiver = createWebhookReceiver({ secret: () => current, clock: () => NOW_MS });
    const handled: string[] = [];
    receiver.onDelivery('TEST_EVENT', (delivery) => void handled.push(delivery.id));
    const first = signedDelivery({ id: 'early' });
    expect(await receiver.receive(first.body, first.headers)).toMatchObject({ status: 503, body: { ok: false, reason: 'no-secret' } });
    // The server registered its webhook and got the secret: the sender's retry of the same delivery is verified and handled.
    current = WEBHOOK_SECRET;
    await (await receiver.receive(first.body, first.headers)).dispatch();
    // Rotation at run time: the old and the new secret both verify while both are given.
    current = [OLD_WEBHOOK_SECRET, WEBHOOK_SECRET];
    const rotated = signedDelivery({ id: 'rotated', secret: OLD_WEBHOOK_SECRET });
    await (await receiver.receive(rotated.body, rotated.headers)).dispatch();
    current = [OLD_WEBHOOK_SECRET];
    const stale = signedDelivery({ id: 'stale-secret' });
    expect((await receiver.receive(stale.body, stale.headers)).status).toBe(401);
    expect(handled).toEqual(['early', 'rotated']);
  });

  it('a provider that throws or gives an empty secret is answered 503 and reported, never quoting what it gave', async () => {
    let give: () => string | undefined = () => {
      throw new Error(`vault down ${WEBHOOK_SECRET}`);
    };
    const receiver = createWebhookReceiver({ secret: () => give(), clock: () => NOW_MS });
    const errors: unknown[] = [];
    receiver.on('error', (event) => void errors.push(event.error));
    const delivery = signedDelivery();
    expect((await receiver.receive(delivery.body, delivery.headers)).status).toBe(503);
    give = () => '  ';
    expect((await receiver.receive(delivery.body, delivery.headers)).status).toBe(503);
    expect(errors).toHaveLength(2);
    expect(JSON.stringify(errors.map((error) => String(error)))).not.toContain(WEBHOOK_SECRET);
  });

  it('never appear in errors, events, util.inspect, JSON or logs', async () => {
    const logged: string[] = [];
    for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
      vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void logged.push(args.map((arg) => inspect(arg)).join(' ')));
    }
    const router = createInteractionRouter();
    const receiver = createWebhookReceiver({ secret: [WEBHOOK_SECRET, OLD_WEBHOOK_SECRET], client: botClient(), clock: () => NOW_MS });
    receiver.use(router);
    const captured: unknown[] = [];
    for (const event of ['delivery', 'duplicate', 'rejected', 'error', 'interactionError'] as const)
      receiver.on(event, (...args: unknown[]) => void captured.push(...args));
    router.onCommand('ping', async (interaction) => {
      captured.push(interaction);
      await interaction.reply('pong');
      await interaction.reply('twice');
    });
    receiver.onDelivery('TEST_EVENT', () => {
      throw new Error('a handler failed');
    });
    const interaction = signedDelivery({ type: 'INTERACTION_CREATE', data: commandPayload() });
    const plain = signedDelivery();
    const signatures = [interaction, plain].map((delivery) => (delivery.headers['x-signature-256'] ?? '').slice('sha256='.length));
    const attempts = [
      interaction,
      interaction, // replay
      plain,
      { body: `${plain.body}!`, headers: plain.headers }, // tampered
      { body: plain.body, headers: { ...plain.headers, 'x-signature-timestamp': '1' } }, // stale and bad
      signedDelivery({ secret: 'wrong-secret-Zz99' }),
    ];
    for (const { body, headers } of attempts) await (await receiver.receive(body, headers)).dispatch();
    await waitFor(() => service.requests.length === 1);
    await settle(30);
    expect(captured.length).toBeGreaterThan(6);
    const texts = [
      ...captured.map((item) => `${inspect(item, { depth: 8 })} ${JSON.stringify(item)} ${item instanceof Error ? `${item.message} ${item.stack ?? ''}` : ''}`),
      inspect(receiver, { depth: 8 }),
      JSON.stringify(receiver),
      ...logged,
    ].join('\n');
    for (const secret of [WEBHOOK_SECRET, OLD_WEBHOOK_SECRET, INTERACTION_TOKEN, ...signatures]) expect(texts).not.toContain(secret);
    expect(texts).toContain('a handler failed'); // the check above looked at real content
    expect(texts).toContain('replayed');
  });
});
