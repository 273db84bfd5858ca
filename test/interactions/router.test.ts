import type { EventEmitter } from 'eventemitter3';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it, vi } from 'vitest';
import {
  Client,
  createInteraction,
  createInteractionRouter,
  defineCommand,
  type AutocompleteInteraction,
  type InteractionRouter,
  type CommandInteraction,
  type ComponentInteraction,
  type Interaction,
  type InteractionErrorEvent,
  type InteractionPayload,
  type InteractionRouterEvents,
  type InteractionUnhandledEvent,
  type ModalSubmitInteraction,
  type PingInteraction,
} from '../../src/index.js';
import { createWebhookReceiver } from '../../src/receiver.js';
import { createTestGateway } from '../../src/testing/index.js';
import { SECRETS, startLoopbackServer, type LoopbackServer } from '../helpers/index.js';
import { NOW_MS, signedDelivery, WEBHOOK_SECRET } from '../receive/helpers.js';

let service: LoopbackServer;
beforeAll(async () => {
  service = await startLoopbackServer((_req, res) => {
    res.statusCode = 204;
    res.end();
  });
});
afterAll(() => service.close());

const quiz = defineCommand({
  name: 'Quiz',
  description: 'Start a quiz',
  options: [
    { type: 3, name: 'topic', description: 'Topic', required: true },
    { type: 4, name: 'rounds', description: 'Rounds' },
  ],
});

function payload(id: string, overrides: Partial<InteractionPayload> = {}): InteractionPayload {
  return {
    id,
    type: 2,
    token: `tok-${id}-secret`,
    created_at: NOW_MS,
    data: { name: 'quiz', options: [{ name: 'topic', type: 3, value: 'space' }] },
    ...overrides,
  };
}

/** One bot's handlers, written once. */
function quizBot() {
  const router = createInteractionRouter();
  const answered: string[] = [];
  router.onCommand(quiz, async (interaction) => {
    await interaction.reply(`Quiz about ${interaction.options.topic}`);
    answered.push(interaction.id);
  });
  router.onInteraction('autocomplete', (interaction) => interaction.autocomplete([{ name: 'space', value: 'space' }]));
  return { router, answered };
}

describe('the interaction router', () => {
  it('runs the same handlers over the Gateway and over HTTP, each answering once through the callback', async () => {
    const { router, answered } = quizBot();
    const client = new Client({ baseUrl: service.url, auth: { botToken: SECRETS.botToken } });
    client.gateway.use(router);
    const respond = (id: string, body: { interaction_type: 1 | 4 | 5 | 6 | 8 | 9; data: Record<string, unknown> }) => client.interactions.respond(id, body);
    const overGateway = client.gateway.router.handle(createInteraction(payload('over-gateway'), respond, () => NOW_MS));
    const receiver = createWebhookReceiver({ secret: WEBHOOK_SECRET, client, clock: () => NOW_MS });
    receiver.use(router);
    const { body, headers } = signedDelivery({ type: 'INTERACTION_CREATE', data: payload('over-http') });
    const outcome = await receiver.receive(body, headers);
    expect(outcome.status).toBe(200);
    await outcome.dispatch();
    await overGateway;
    expect(answered.sort()).toEqual(['over-gateway', 'over-http']);
    expect(service.requests.map((request) => request.url).sort()).toEqual([
      '/api/v1/interactions/over-gateway/callback',
      '/api/v1/interactions/over-http/callback',
    ]);
    expect(service.requests.map((request) => JSON.parse(request.body) as unknown)).toEqual([
      { interaction_type: 4, data: { content: 'Quiz about space' } },
      { interaction_type: 4, data: { content: 'Quiz about space' } },
    ]);
    await client.close();
  });

  it('keeps gateway.onCommand and onInteraction working; the Gateway runs its own handlers, then used routers, until unused', () => {
    const client = new Client({ auth: { botToken: 'x' } });
    const gateway = client.gateway;
    const order: string[] = [];
    gateway.onCommand('quiz', () => void order.push('gateway:quiz'));
    const removeKind = gateway.onInteraction('command', () => void order.push('gateway:command'));
    const router = createInteractionRouter();
    router.onCommand('QUIZ', () => void order.push('router:quiz'));
    const stop = gateway.use(router);
    const noop = () => Promise.resolve();
    gateway.router.handle(createInteraction(payload('a'), noop));
    expect(order).toEqual(['gateway:command', 'gateway:quiz', 'router:quiz']);
    order.length = 0;
    stop();
    removeKind();
    gateway.router.handle(createInteraction(payload('b'), noop));
    expect(order).toEqual(['gateway:quiz']);
  });

  it('turns throws and rejections into interactionError on the router and on the Gateway, and runs the other handlers', async () => {
    const client = new Client({ auth: { botToken: 'x' } });
    const router = createInteractionRouter();
    const onRouter: InteractionErrorEvent[] = [];
    const onGateway: InteractionErrorEvent[] = [];
    router.on('interactionError', (event) => void onRouter.push(event));
    client.gateway.on('interactionError', (event) => void onGateway.push(event));
    client.gateway.use(router);
    let ranAfter = false;
    router.onInteraction('command', () => {
      throw new Error('sync failure');
    });
    router.onInteraction('command', async () => {
      await Promise.resolve();
      throw new Error('async failure');
    });
    router.onInteraction('command', () => void (ranAfter = true));
    await client.gateway.router.handle(createInteraction(payload('c'), () => Promise.resolve()));
    expect(ranAfter).toBe(true);
    expect(onRouter.map((event) => (event.error as Error).message)).toEqual(['sync failure', 'async failure']);
    expect(onGateway.map((event) => event.interaction.id)).toEqual(['c', 'c']);
  });

  it('carries an Error as error when a handler throws something else, the value kept as its cause', async () => {
    const router = createInteractionRouter();
    const events: InteractionErrorEvent[] = [];
    router.on('interactionError', (event) => void events.push(event));
    router.onInteraction('command', () => {
      throw 'a string';
    });
    await router.handle(createInteraction(payload('s'), () => Promise.resolve()));
    expect(events.map((event) => [event.error instanceof Error, event.error.cause])).toEqual([[true, 'a string']]);
  });

  it('handle() resolves once every handler has settled, never rejects, and survives a throwing error listener', async () => {
    const router = createInteractionRouter();
    let done = false;
    router.onInteraction('command', async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      done = true;
    });
    router.onInteraction('command', () => Promise.reject(new Error('no')));
    router.on('interactionError', () => {
      throw new Error('listener broke');
    });
    await expect(router.handle(createInteraction(payload('d'), () => Promise.resolve()))).resolves.toBeUndefined();
    expect(done).toBe(true);
    expect(router.handlerCount).toBe(2);
    await router.close();
    expect(router.handlerCount).toBe(0);
  });
});

describe('router.handle(), the one delivery path', () => {
  const noop = () => Promise.resolve();
  const click = (id: string, answers: string) =>
    createInteraction(
      payload(id, {
        type: 3,
        data: { custom_id: 'yes', component_type: 2 },
        message: { id: `m-${answers}`, interaction_metadata: { id: answers } },
      } as Partial<InteractionPayload>),
      noop,
    );

  it('runs its handlers, then those of the routers it uses, nested, in the order used; listeners are told the shard', async () => {
    const top = createInteractionRouter();
    const middle = createInteractionRouter();
    const leaf = createInteractionRouter();
    const order: string[] = [];
    top.on('interactionCreate', (interaction, shardId) => void order.push(`top:create:${interaction.id}:${shardId}`));
    top.onCommand('quiz', () => void order.push('top'));
    middle.onCommand('quiz', () => void order.push('middle'));
    leaf.on('interactionCreate', (_interaction, shardId) => void order.push(`leaf:create:${shardId}`));
    leaf.onInteraction('command', () => void order.push('leaf'));
    middle.use(leaf);
    const stop = top.use(middle);
    await top.handle(createInteraction(payload('h1'), noop), 7);
    expect(order).toEqual(['top:create:h1:7', 'top', 'middle', 'leaf:create:7', 'leaf']);
    order.length = 0;
    stop();
    await top.handle(createInteraction(payload('h2'), noop));
    expect(order).toEqual(['top:create:h2:undefined', 'top']);
  });

  it('refuses to use itself or a router that uses it (its handlers would run twice for one interaction)', () => {
    const a = createInteractionRouter();
    const b = createInteractionRouter();
    const c = createInteractionRouter();
    a.use(b);
    b.use(c);
    expect(() => a.use(a)).toThrow(/router: must not be this router, nor one that uses it/);
    expect(() => c.use(a)).toThrow(/router: must not be this router, nor one that uses it/);
    expect(() => b.use(a)).toThrow(/router: must not be this router, nor one that uses it/);
    for (const notARouter of [undefined, null, {}, 'router'])
      expect(() => a.use(notARouter as never)).toThrow(/Invalid input for router.use: router: must be a router from createInteractionRouter\(\)/);
  });

  it('refuses a router that would be reached twice (a diamond), in either order of the use() calls, naming it; each handler runs once', async () => {
    const diamond =
      /Invalid input for router\.use: router: (the router given|a router it uses) \(with handlers for "command:ping"\) is already used by this router/;
    for (const order of ['shared first', 'feature first', 'feature uses shared last'] as const) {
      const client = new Client({ baseUrl: service.url, auth: { botToken: SECRETS.botToken } });
      const { gateway } = client;
      const shared = createInteractionRouter();
      const feature = createInteractionRouter();
      const ran: string[] = [];
      shared.onCommand('ping', (interaction) => void ran.push(interaction.id));
      if (order === 'shared first') {
        feature.use(shared);
        gateway.use(shared);
        expect(() => gateway.use(feature), order).toThrow(diamond);
      } else if (order === 'feature first') {
        feature.use(shared);
        gateway.use(feature);
        expect(() => gateway.use(shared), order).toThrow(diamond);
      } else {
        gateway.use(shared);
        gateway.use(feature);
        expect(() => feature.use(shared), order).toThrow(diamond);
      }
      await gateway.router.handle(createInteraction(payload(`ping-${order}`, { data: { name: 'ping' } }), noop));
      expect(ran, `${order}: handler runs for one interaction`).toEqual([`ping-${order}`]);
      await client.close();
    }
  });

  it('refuses a diamond further up and further down, and forgets a link once stopped or closed', async () => {
    const [top, left, right, bottom] = [0, 1, 2, 3].map(() => createInteractionRouter());
    if (!top || !left || !right || !bottom) throw new Error('four routers');
    bottom.onInteraction('component', noop);
    top.use(left);
    const stopRight = top.use(right);
    left.use(bottom);
    // right reaches bottom through a router it uses: refused, the used router named by its handlers.
    const middle = createInteractionRouter();
    middle.use(bottom);
    expect(() => right.use(middle)).toThrow(
      /router: a router it uses \(with handlers for "component"\) is already used by this router, by a router it uses or by one that uses it/,
    );
    expect(() => right.use(bottom)).toThrow(/router: the router given \(with handlers for "component"\)/);
    // Once top stops using right, right is free to use bottom; then top cannot use right again.
    stopRight();
    right.use(bottom);
    expect(() => top.use(right)).toThrow(/is already used by this router/);
    // Using the same router again changes nothing; a closed user lets go of what it used.
    expect(() => left.use(bottom)).not.toThrow();
    await top.close();
    const other = createInteractionRouter();
    other.use(left);
    expect(() => other.use(right)).toThrow(/the router given|a router it uses/);
    await left.close();
    expect(() => other.use(right)).not.toThrow();
  });

  it('refuses the second half of a ladder of diamonds at once, so handle() walks each router once (linear)', async () => {
    const bottom = createInteractionRouter();
    let runs = 0;
    bottom.onCommand('quiz', () => void runs++);
    let top = bottom;
    let refused = 0;
    for (let level = 0; level < 22; level++) {
      const [left, right, joined] = [createInteractionRouter(), createInteractionRouter(), createInteractionRouter()];
      left.use(top);
      right.use(top);
      joined.use(left);
      try {
        joined.use(right);
      } catch {
        refused++;
      }
      top = joined;
    }
    expect(refused).toBe(22);
    await top.handle(createInteraction(payload('ladder-1'), noop));
    expect(runs, 'the bottom handler ran once for one interaction').toBe(1);
  });

  it('a closed router refuses use(), onCommand and onInteraction, naming the call; so does a closed host', async () => {
    const router = createInteractionRouter();
    const shared = createInteractionRouter();
    await router.close();
    expect(() => router.use(shared)).toThrow(/Invalid input for router\.use: router: was closed: a closed router takes no handler nor router/);
    expect(() => router.onCommand('quiz', noop)).toThrow(/Invalid input for router\.onCommand: router: was closed/);
    expect(() => router.onCommand(quiz, noop)).toThrow(/Invalid input for router\.onCommand: router: was closed/);
    expect(() => router.onInteraction('component', noop)).toThrow(/Invalid input for router\.onInteraction: router: was closed/);
    expect(router.handlerCount).toBe(0);
    expect(shared.userRouters().size, 'the shared router is used by nobody').toBe(0);
    const client = new Client({ baseUrl: service.url, auth: { botToken: SECRETS.botToken } });
    const { gateway } = client;
    await client.close();
    expect(() => gateway.use(shared)).toThrow(/router\.use: router: was closed/);
    expect(() => gateway.onCommand('quiz', noop)).toThrow(/router\.onCommand: router: was closed/);
  });

  it('one throwing interactionCreate listener silences none of the others (of the router or of its host); a once listener hears one interaction', async () => {
    const { gateway } = createTestGateway();
    const router = createInteractionRouter();
    gateway.use(router);
    const heard: string[] = [];
    const errors: string[] = [];
    gateway.on('interactionError', (event) => void errors.push(`${event.interaction.id}: ${event.error.message}`));
    const emitters: [string, EventEmitter<InteractionRouterEvents>][] = [
      ['gateway', gateway as never],
      ['router', router],
    ];
    for (const [name, emitter] of emitters) {
      emitter.on('interactionCreate', () => {
        throw new Error(`${name} listener broke`);
      });
      emitter.on('interactionCreate', (interaction) => void heard.push(`${name} ${interaction.id}`));
      emitter.once('interactionCreate', (interaction) => void heard.push(`${name} once ${interaction.id}`));
    }
    await gateway.router.handle(createInteraction(payload('l1'), noop));
    await gateway.router.handle(createInteraction(payload('l2'), noop));
    expect(heard).toEqual(['gateway l1', 'gateway once l1', 'router l1', 'router once l1', 'gateway l2', 'router l2']);
    expect(errors).toEqual(['l1: gateway listener broke', 'l1: router listener broke', 'l2: gateway listener broke', 'l2: router listener broke']);
    // One listener: emit() itself, its throw reported the same way.
    const alone = createInteractionRouter();
    const aloneErrors: string[] = [];
    alone.on('interactionError', (event) => void aloneErrors.push(event.error.message));
    alone.on('interactionCreate', () => {
      throw new Error('the only listener broke');
    });
    await alone.handle(createInteraction(payload('l3'), noop));
    expect(aloneErrors).toEqual(['the only listener broke']);
  });

  it('offers a click to the waits of the routers it uses too, before any handler runs', async () => {
    const top = createInteractionRouter();
    const shared = createInteractionRouter();
    const ran: string[] = [];
    top.onInteraction('component', () => void ran.push('top'));
    shared.onInteraction('component', () => void ran.push('shared'));
    shared.onCommand('quiz', (interaction) => interaction.awaitComponent({ timeoutMs: 5000 }).then((taken) => void ran.push(`waited:${taken.id}`)));
    // The command is handled by the shared router alone: its wait is filed there.
    const command = createInteraction(payload('cmd-1'), noop);
    const handling = shared.handle(command);
    top.use(shared);
    await top.handle(click('click-1', 'cmd-1'));
    await handling;
    expect(ran).toEqual(['waited:click-1']);
  });

  it('reports a click nothing took as interactionUnhandled on the router, with the shard, after holdUnclaimedMs', async () => {
    vi.useFakeTimers();
    try {
      const router = createInteractionRouter({ holdUnclaimedMs: 200 });
      const unhandled: InteractionUnhandledEvent[] = [];
      router.on('interactionUnhandled', (event) => void unhandled.push(event));
      await router.handle(click('lost-1', 'cmd-9'), 4);
      await vi.advanceTimersByTimeAsync(199);
      expect(unhandled).toEqual([]);
      await vi.advanceTimersByTimeAsync(1);
      expect(unhandled.map((event) => [event.interaction.id, event.answers, event.shardId])).toEqual([['lost-1', 'cmd-9', 4]]);
      // A used router's handler takes it: nothing reported.
      const used = createInteractionRouter();
      used.onInteraction('component', () => undefined);
      router.use(used);
      await router.handle(click('taken-1', 'cmd-9'));
      await vi.advanceTimersByTimeAsync(1000);
      expect(unhandled).toHaveLength(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('emits a used router’s handler error on that router, not on the router handling it', async () => {
    const top = createInteractionRouter();
    const used = createInteractionRouter();
    const onTop: string[] = [];
    const onUsed: string[] = [];
    top.on('interactionError', (event) => void onTop.push(event.error.message));
    used.on('interactionError', (event) => void onUsed.push(event.error.message));
    used.onCommand('quiz', async () => {
      throw new Error('used broke');
    });
    top.use(used);
    await expect(top.handle(createInteraction(payload('e1'), noop))).resolves.toBeUndefined();
    expect([onTop, onUsed]).toEqual([[], ['used broke']]);
  });
});

// Checked by the type checker (npm test runs tsc over test/), as test/interactions/types.test.ts does for the Gateway.
describe('types of router handlers', () => {
  const router = createInteractionRouter();

  it('narrows onInteraction handlers to their kind', () => {
    router.onInteraction('autocomplete', (interaction) => {
      expectTypeOf(interaction).toEqualTypeOf<AutocompleteInteraction>();
      // @ts-expect-error autocomplete interactions cannot reply with a message
      void interaction.reply('no');
    });
    router.onInteraction('ping', (interaction) => {
      expectTypeOf(interaction).toEqualTypeOf<PingInteraction>();
      // @ts-expect-error pings only pong
      void interaction.defer();
    });
    router.onInteraction('component', (interaction) => expectTypeOf(interaction).toEqualTypeOf<ComponentInteraction>());
    router.onInteraction('modalSubmit', (interaction) => expectTypeOf(interaction).toEqualTypeOf<ModalSubmitInteraction>());
    router.on('interactionCreate', (interaction) => expectTypeOf(interaction).toEqualTypeOf<Interaction>());
    // @ts-expect-error not a kind
    router.onInteraction('button', () => undefined);
  });

  it('types command options from a definition, and plain names as CommandInteraction', () => {
    router.onCommand(quiz, (interaction) => {
      expectTypeOf(interaction.options.topic).toEqualTypeOf<string>();
      expectTypeOf(interaction.options.rounds).toEqualTypeOf<number | undefined>();
      // @ts-expect-error not an option of this command
      void interaction.options.colour;
    });
    router.onCommand('plain', (interaction) => expectTypeOf(interaction).toEqualTypeOf<CommandInteraction>());
    expectTypeOf(new Client({}).gateway.use).parameter(0).toEqualTypeOf<InteractionRouter>();
  });
});

describe('createInteractionRouter options', () => {
  it('refuses unknown names and a holdUnclaimedMs past 2^31 - 1 ms, naming each', () => {
    expect(() => createInteractionRouter({ holdMs: 5 } as never)).toThrow(/holdMs: is not an option of createInteractionRouter/);
    for (const holdUnclaimedMs of [3e9, Number.POSITIVE_INFINITY, -1])
      expect(() => createInteractionRouter({ holdUnclaimedMs })).toThrow(/holdUnclaimedMs: must/);
    expect(() => createInteractionRouter({ holdUnclaimedMs: 0, maxWaiters: 3 })).not.toThrow();
  });
});
