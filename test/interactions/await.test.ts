/**
 * awaitComponent / awaitModalSubmit on the router itself and over HTTP
 * deliveries (a real receiver answering through a real loopback service):
 * what matches, that a matched interaction goes to its waiter only, and that
 * every way a wait ends leaves no waiter, timer or abort listener behind.
 */
import { getEventListeners } from 'node:events';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import {
  Client,
  createInteraction,
  createInteractionRouter,
  InteractionTimeoutError,
  InteractionType,
  InteractionWaitAbortedError,
  type AutocompleteInteraction,
  type CommandInteraction,
  type ComponentInteraction,
  type Interaction,
  type InteractionPayload,
  type ModalSubmitInteraction,
  type PingInteraction,
  isCommunityChatError,
} from '../../src/index.js';
import { createWebhookReceiver } from '../../src/receiver.js';
import type { InteractionRouter } from '../../src/interactions/router.js';
import { activeTimers, SECRETS, startLoopbackServer, type LoopbackServer } from '../helpers/index.js';
import { NOW_MS, signedDelivery, WEBHOOK_SECRET } from '../receive/helpers.js';
import { until } from '../helpers/until.js';

let service: LoopbackServer;
beforeAll(async () => {
  service = await startLoopbackServer((_request, response) => {
    response.statusCode = 204;
    response.end();
  });
});
afterAll(() => service.close());

const noop = () => Promise.resolve();
const USER = { id: 'u-ada', username: 'ada' };
const OTHER = { id: 'u-bob', username: 'bob' };

function command(id: string, extra: Partial<InteractionPayload> = {}): InteractionPayload {
  return {
    id,
    type: InteractionType.ApplicationCommand,
    token: `tok-${id}`,
    created_at: NOW_MS,
    channel_id: 'ch-1',
    member: { user: USER },
    data: { name: 'confirm' },
    ...extra,
  };
}

function component(id: string, extra: Partial<InteractionPayload> = {}): InteractionPayload {
  return {
    id,
    type: InteractionType.MessageComponent,
    token: `tok-${id}`,
    created_at: NOW_MS,
    channel_id: 'ch-1',
    member: { user: USER },
    data: { custom_id: 'yes', component_type: 2 },
    ...extra,
  };
}

function modalSubmit(id: string, customId: string, extra: Partial<InteractionPayload> = {}): InteractionPayload {
  const data = { custom_id: customId, components: [{ type: 1, components: [{ type: 4, custom_id: 'name', value: 'Ada' }] }] };
  return { id, type: InteractionType.ModalSubmit, token: `tok-${id}`, created_at: NOW_MS, channel_id: 'ch-1', member: { user: USER }, data, ...extra };
}

/** Dispatches a command on the router and returns it once its handler-less dispatch bound it to the router. */
async function dispatched<T extends Interaction>(router: InteractionRouter, payload: InteractionPayload): Promise<T> {
  const interaction = createInteraction(payload, noop, () => NOW_MS) as T;
  await router.handle(interaction);
  return interaction;
}

/** A router that records what reaches its handlers and its interactionCreate listeners. */
function recordingRouter(options?: { maxWaiters?: number }) {
  const router = createInteractionRouter(options);
  const handled: string[] = [];
  const created: string[] = [];
  router.onInteraction('component', (interaction) => void handled.push(interaction.id));
  router.onInteraction('modalSubmit', (interaction) => void handled.push(interaction.id));
  router.on('interactionCreate', (interaction) => void created.push(interaction.id));
  return { router, handled, created };
}

describe('awaitComponent on the router', () => {
  it('takes the first component tied to the interaction (Discord message.interaction_metadata.id or message.interaction.id) by the same user; others go to the handlers', async () => {
    for (const key of ['interaction_metadata', 'interaction']) {
      const { router, handled, created } = recordingRouter();
      const original = await dispatched<CommandInteraction>(router, command('cmd-1'));
      const waiting = original.awaitComponent({ timeoutMs: 5_000 });
      expect(router.waiterCount).toBe(1);
      const byOther = createInteraction(component('c-other-user', { member: { user: OTHER }, message: { id: 'm-1', [key]: { id: 'cmd-1' } } }), noop);
      const onOtherReply = createInteraction(component('c-other-reply', { message: { id: 'm-0', [key]: { id: 'cmd-0' } } }), noop);
      const mine = createInteraction(component('c-mine', { message: { id: 'm-1', [key]: { id: 'cmd-1' } } }), noop);
      for (const interaction of [byOther, onOtherReply, mine]) await router.handle(interaction);
      await expect(waiting).resolves.toBe(mine);
      expect(handled).toEqual(['c-other-user', 'c-other-reply']);
      expect(created).toEqual(['cmd-1', 'c-other-user', 'c-other-reply']);
      expect(router.waiterCount).toBe(0);
    }
  });

  it('without message metadata, matches the same channel and user; the filter narrows further (a type guard narrows the result)', async () => {
    const { router, handled } = recordingRouter();
    const original = await dispatched<CommandInteraction>(router, command('cmd-2'));
    const waiting = original.awaitComponent({
      timeoutMs: 5_000,
      filter: (interaction): interaction is ComponentInteraction & { customId: 'no' } => interaction.customId === 'no',
    });
    await router.handle(createInteraction(component('c-elsewhere', { channel_id: 'ch-2', data: { custom_id: 'no' } }), noop));
    await router.handle(createInteraction(component('c-yes'), noop));
    await router.handle(createInteraction(component('c-no', { data: { custom_id: 'no' } }), noop));
    const click = await waiting;
    expect(click.id).toBe('c-no');
    expectTypeOf(click.customId).toEqualTypeOf<'no'>();
    expect(handled).toEqual(['c-elsewhere', 'c-yes']);
  });

  it('from a component interaction, also takes later clicks on the same message', async () => {
    const { router, handled } = recordingRouter();
    const first = await dispatched<ComponentInteraction>(router, component('c-first', { message: { id: 'm-7', interaction_metadata: { id: 'cmd-7' } } }));
    const waiting = first.awaitComponent({ timeoutMs: 5_000 });
    await router.handle(createInteraction(component('c-same-message', { message: { id: 'm-7', interaction_metadata: { id: 'cmd-7' } } }), noop));
    expect((await waiting).id).toBe('c-same-message');
    expect(handled).toEqual(['c-first']);
  });

  it('a throwing filter rejects its wait with what it threw, and the interaction still reaches the handlers', async () => {
    const { router, handled } = recordingRouter();
    const original = await dispatched<CommandInteraction>(router, command('cmd-3'));
    const broken = new Error('filter broke');
    const waiting = original.awaitComponent({
      timeoutMs: 5_000,
      filter: () => {
        throw broken;
      },
    });
    await router.handle(createInteraction(component('c-3'), noop));
    await expect(waiting).rejects.toBe(broken);
    expect(handled).toEqual(['c-3']);
    expect(router.waiterCount).toBe(0);
  });
});

describe('awaitModalSubmit on the router', () => {
  it('takes the modal submit with the custom id, by the same user; others go to the handlers', async () => {
    const { router, handled } = recordingRouter();
    const original = await dispatched<CommandInteraction>(router, command('cmd-4'));
    const waiting = original.awaitModalSubmit({ customId: 'survey', timeoutMs: 5_000 });
    await router.handle(createInteraction(modalSubmit('s-other-form', 'feedback'), noop));
    await router.handle(createInteraction(modalSubmit('s-other-user', 'survey', { member: { user: OTHER } }), noop));
    await router.handle(createInteraction(modalSubmit('s-mine', 'survey'), noop));
    const submitted = await waiting;
    expect(submitted).toMatchObject({ id: 's-mine', customId: 'survey', fields: { name: 'Ada' } });
    expect(handled).toEqual(['s-other-form', 's-other-user']);
  });
});

describe('the end of a wait leaves nothing behind', () => {
  it('a timeout rejects with InteractionTimeoutError; no waiter, timer or abort listener remains, and later clicks reach the handlers', async () => {
    const { router, handled } = recordingRouter();
    const original = await dispatched<CommandInteraction>(router, command('cmd-5'));
    const controller = new AbortController();
    const timersBefore = activeTimers();
    const waiting = original.awaitComponent({ timeoutMs: 20, signal: controller.signal });
    expect(activeTimers()).toBe(timersBefore + 1);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    const error = await waiting.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InteractionTimeoutError);
    expect(isCommunityChatError(error, 'InteractionTimeoutError')).toBe(true);
    expect(error).toMatchObject({ name: 'InteractionTimeoutError', interactionId: 'cmd-5', waitedFor: 'component', timeoutMs: 20 });
    expect(router.waiterCount).toBe(0);
    expect(activeTimers()).toBe(timersBefore);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    await router.handle(createInteraction(component('c-late'), noop));
    expect(handled).toEqual(['c-late']);
  });

  it('an abort rejects with InteractionWaitAbortedError (the reason as cause), and cleans up', async () => {
    const { router } = recordingRouter();
    const original = await dispatched<CommandInteraction>(router, command('cmd-6'));
    const controller = new AbortController();
    const timersBefore = activeTimers();
    const waiting = original.awaitModalSubmit({ customId: 'survey', timeoutMs: 60_000, signal: controller.signal });
    controller.abort(new Error('user left'));
    const error = await waiting.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InteractionWaitAbortedError);
    expect(isCommunityChatError(error, 'InteractionWaitAbortedError')).toBe(true);
    expect(error).toMatchObject({ waitedFor: 'modalSubmit', cause: new Error('user left') });
    expect(router.waiterCount).toBe(0);
    expect(activeTimers()).toBe(timersBefore);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    const already = await original.awaitComponent({ timeoutMs: 1_000, signal: controller.signal }).catch((e: unknown) => e);
    expect(already).toBeInstanceOf(InteractionWaitAbortedError);
    expect(router.waiterCount).toBe(0);
  });

  it('router.close() (as gateway.close() does) ends every wait', async () => {
    const { router } = recordingRouter();
    const original = await dispatched<CommandInteraction>(router, command('cmd-7'));
    const timersBefore = activeTimers();
    const waits = [original.awaitComponent({ timeoutMs: 60_000 }), original.awaitModalSubmit({ customId: 'x', timeoutMs: 60_000 })];
    await router.close();
    const errors = await Promise.all(waits.map((wait) => wait.catch((e: unknown) => e)));
    expect(errors.map((e) => [isCommunityChatError(e, 'InteractionWaitAbortedError'), (e as Error).message.includes('the router was closed')])).toEqual([
      [true, true],
      [true, true],
    ]);
    expect(router.waiterCount).toBe(0);
    expect(activeTimers()).toBe(timersBefore);
  });

  it('refuses a wait without a usable timeout or custom id, past maxWaiters, or on an interaction no router dispatched; none holds a timer', async () => {
    const { router } = recordingRouter({ maxWaiters: 1 });
    const original = await dispatched<CommandInteraction>(router, command('cmd-8'));
    const timersBefore = activeTimers();
    const refused = [
      original.awaitComponent({} as { timeoutMs: number }),
      original.awaitComponent({ timeoutMs: Number.POSITIVE_INFINITY }),
      original.awaitModalSubmit({ timeoutMs: 1_000 } as { customId: string; timeoutMs: number }),
      (createInteraction(command('cmd-loose'), noop) as CommandInteraction).awaitComponent({ timeoutMs: 1_000 }),
    ];
    const errors = await Promise.all(refused.map((wait) => wait.catch((e: unknown) => e)));
    expect(errors.map((e) => isCommunityChatError(e, 'ValidationError'))).toEqual([true, true, true, true]);
    expect(errors.map((e) => (e as Error).message)).toEqual([
      expect.stringContaining('timeoutMs: required'),
      expect.stringContaining('timeoutMs: required'),
      expect.stringContaining('customId: required'),
      expect.stringContaining('not handled by an InteractionRouter (router.handle()'),
    ]);
    const first = original.awaitComponent({ timeoutMs: 60_000 });
    const second = await original.awaitComponent({ timeoutMs: 60_000 }).catch((e: unknown) => e);
    expect(String(second)).toMatch(/already holds 1 waits \(maxWaiters\)/);
    expect(activeTimers()).toBe(timersBefore + 1);
    await router.close();
    await first.catch(() => undefined);
    expect(() => createInteractionRouter({ maxWaiters: 0 })).toThrow(/maxWaiters: must be a whole number/);
  });
});

describe('awaitComponent over the Gateway and over HTTP', () => {
  it('Gateway with use(): the wait sits on the Gateway, so a matched click reaches no router handler', async () => {
    const client = new Client({ auth: { botToken: 'x' } });
    const { router, handled } = recordingRouter();
    client.gateway.use(router);
    const gatewaySaw: string[] = [];
    client.gateway.onInteraction('component', (interaction) => void gatewaySaw.push(interaction.id));
    let waiting: Promise<ComponentInteraction> | undefined;
    router.onCommand('confirm', (interaction) => {
      waiting = interaction.awaitComponent({ timeoutMs: 5_000 });
    });
    client.gateway.router.handle(createInteraction(command('cmd-g'), noop));
    expect(router.waiterCount).toBe(0);
    client.gateway.router.handle(createInteraction(component('c-g', { message: { id: 'm-g', interaction_metadata: { id: 'cmd-g' } } }), noop));
    expect((await waiting)?.id).toBe('c-g');
    expect([...handled, ...gatewaySaw]).toEqual([]);
    await client.close();
  });

  it('HTTP deliveries: the handler replies with a button, awaits the click, and answers it; each answer is one callback', async () => {
    const client = new Client({ baseUrl: service.url, auth: { botToken: SECRETS.botToken } });
    const receiver = createWebhookReceiver({ secret: WEBHOOK_SECRET, client, clock: () => NOW_MS });
    const handled: string[] = [];
    receiver.router.onInteraction('component', (interaction) => void handled.push(interaction.id));
    receiver.router.onCommand('confirm', async (interaction) => {
      await interaction.reply({ content: 'Sure?', components: [{ type: 1, components: [{ type: 2, style: 1, label: 'Yes', custom_id: 'yes' }] }] });
      const click = await interaction.awaitComponent({ timeoutMs: 10_000 });
      await click.reply(`Confirmed by ${click.user?.username ?? '?'}`);
    });
    const deliver = async (data: InteractionPayload) => {
      const { body, headers } = signedDelivery({ type: 'INTERACTION_CREATE', data });
      const outcome = await receiver.receive(body, headers);
      expect(outcome.status).toBe(200);
      return outcome.dispatch();
    };
    const flow = deliver(command('cmd-h'));
    await until(() => receiver.router.waiterCount > 0, { what: "the handler's wait registered" });
    await deliver(component('c-h-bob', { member: { user: OTHER }, message: { id: 'm-h', interaction_metadata: { id: 'cmd-h' } } }));
    await deliver(component('c-h-ada', { message: { id: 'm-h', interaction_metadata: { id: 'cmd-h' } } }));
    await flow;
    expect(handled).toEqual(['c-h-bob']);
    expect(receiver.router.waiterCount).toBe(0);
    const bodies = service.requests
      .filter((request) => request.url.includes('/c-h-ada/') || request.url.includes('/cmd-h/'))
      .map((request) => [request.url, JSON.parse(request.body) as unknown]);
    expect(bodies).toEqual([
      [
        '/api/v1/interactions/cmd-h/callback',
        { interaction_type: 4, data: { content: 'Sure?', components: [{ type: 1, components: [{ type: 2, style: 1, label: 'Yes', custom_id: 'yes' }] }] } },
      ],
      ['/api/v1/interactions/c-h-ada/callback', { interaction_type: 4, data: { content: 'Confirmed by ada' } }],
    ]);
    await client.close();
  });
});

// Checked by the type checker (npm test runs tsc over test/).
describe('types of awaitComponent and awaitModalSubmit', () => {
  it('resolve with the typed interaction; exist only where they make sense; need a timeout (and a custom id)', () => {
    const check = (
      command: CommandInteraction,
      click: ComponentInteraction,
      submitted: ModalSubmitInteraction,
      ping: PingInteraction,
      typing: AutocompleteInteraction,
    ) => {
      expectTypeOf(command.awaitComponent({ timeoutMs: 1 })).toEqualTypeOf<Promise<ComponentInteraction>>();
      expectTypeOf(command.awaitComponent({ timeoutMs: 1, filter: (i) => i.values.length > 0 })).toEqualTypeOf<Promise<ComponentInteraction>>();
      expectTypeOf(
        command.awaitComponent({ timeoutMs: 1, filter: (i): i is ComponentInteraction & { customId: 'a' | 'b' } => i.customId === 'a' || i.customId === 'b' }),
      ).toEqualTypeOf<Promise<ComponentInteraction & { customId: 'a' | 'b' }>>();
      expectTypeOf(command.awaitModalSubmit({ customId: 'f', timeoutMs: 1 })).toEqualTypeOf<Promise<ModalSubmitInteraction>>();
      expectTypeOf(click.awaitComponent({ timeoutMs: 1 })).toEqualTypeOf<Promise<ComponentInteraction>>();
      expectTypeOf(click.awaitModalSubmit({ customId: 'f', timeoutMs: 1 })).toEqualTypeOf<Promise<ModalSubmitInteraction>>();
      expectTypeOf(submitted.awaitComponent({ timeoutMs: 1 })).toEqualTypeOf<Promise<ComponentInteraction>>();
      // @ts-expect-error the timeout is required: a dismissed modal is never reported
      void command.awaitModalSubmit({ customId: 'f' });
      // @ts-expect-error the timeout is required
      void command.awaitComponent({});
      // @ts-expect-error the custom id is required
      void command.awaitModalSubmit({ timeoutMs: 1 });
      // @ts-expect-error a modal submit cannot open a modal, so it cannot await one
      void submitted.awaitModalSubmit({ customId: 'f', timeoutMs: 1 });
      // @ts-expect-error pings only pong
      void ping.awaitComponent({ timeoutMs: 1 });
      // @ts-expect-error autocomplete cannot reply with components
      void typing.awaitComponent({ timeoutMs: 1 });
      // @ts-expect-error the filter receives a ComponentInteraction
      void command.awaitComponent({ timeoutMs: 1, filter: (i: ModalSubmitInteraction) => i.customId === 'x' });
    };
    expectTypeOf(check).toBeFunction();
    expectTypeOf<InteractionTimeoutError['waitedFor']>().toEqualTypeOf<'component' | 'modalSubmit'>();
  });
});
