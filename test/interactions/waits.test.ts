/**
 * The router's waits and what happens to a click nobody takes: a fast click
 * that overtakes the reply is held for the wait, a click nobody takes is
 * reported, a click a wait takes reaches no listener, and matching is indexed.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createInteractionRouter,
  type CommandInteraction,
  type ComponentInteraction,
  type InteractionUnhandledEvent,
  isCommunityChatError,
} from '../../src/index.js';
import { createInteraction, type Interaction } from '../../src/interactions/interaction.js';
import { createTestGateway, createTestInteraction, createTestPayload } from '../../src/testing/index.js';

/** A click on the message that answers interaction `answers` (Discord's `message.interaction_metadata`). */
function click(answers: string, customId = 'yes', user = 'test-user'): ComponentInteraction {
  const payload = createTestPayload({
    kind: 'component',
    customId,
    payload: { member: { user: { id: user } }, message: { id: `msg-of-${answers}`, interaction_metadata: { id: answers, type: 2 } } },
  });
  return createInteraction(payload, async () => undefined) as ComponentInteraction;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('answers', () => {
  it('after reply(), respond(8, choices) rejects with InteractionAlreadyAcknowledgedError and sends nothing', async () => {
    const { interaction, responses } = createTestInteraction<CommandInteraction>({ name: 'quiz' });
    await interaction.reply('done');
    const second = await interaction.respond(8, { choices: [] }).catch((error: unknown) => error);
    expect(isCommunityChatError(second, 'InteractionAlreadyAcknowledgedError')).toBe(true);
    expect(responses).toHaveLength(1);
  });
});

describe('a click nobody takes', () => {
  it('is held for a wait about to register: reply first, then await, finds a click that overtook the reply', async () => {
    const { gateway } = createTestGateway();
    let releaseReply!: () => void;
    const replied = new Promise<void>((resolve) => (releaseReply = resolve));
    const taken: string[] = [];
    gateway.onCommand('vote', async (interaction) => {
      await replied; // the reply's answer arrives late
      const chosen = await interaction.awaitComponent({ timeoutMs: 5_000 });
      taken.push(chosen.customId);
    });
    const unhandled: InteractionUnhandledEvent[] = [];
    gateway.on('interactionUnhandled', (event) => void unhandled.push(event));
    const command = createInteraction(createTestPayload({ name: 'vote' }), async () => undefined);
    const handling = gateway.router.handle(command);
    await gateway.router.handle(click(command.id, 'yes'));
    releaseReply();
    await handling;
    expect(taken).toEqual(['yes']);
    expect(unhandled).toEqual([]);
  });

  it('is neither taken nor lost when a wait whose filter threw on an earlier held click registers: it is reported', async () => {
    vi.useFakeTimers();
    const { gateway } = createTestGateway();
    const unhandled: InteractionUnhandledEvent[] = [];
    gateway.on('interactionUnhandled', (event) => void unhandled.push(event));
    let releaseReply!: () => void;
    const replied = new Promise<void>((resolve) => (releaseReply = resolve));
    let outcome: string | undefined;
    gateway.onCommand('vote', async (interaction) => {
      await replied;
      // Reads a select menu's values: throws on a button click.
      const filter = (candidate: ComponentInteraction) => (candidate.data['values'] as string[])[0] !== undefined;
      outcome = await interaction.awaitComponent({ timeoutMs: 5_000, filter }).then(
        (taken) => `took ${taken.customId}`,
        (error: Error) => `rejected: ${error.name}`,
      );
    });
    const command = createInteraction(createTestPayload({ name: 'vote' }), async () => undefined);
    const handling = gateway.router.handle(command);
    // Two clicks overtake the reply: a button (the filter throws on it), then a select (the filter matches it).
    await gateway.router.handle(click(command.id, 'button'));
    const select = click(command.id, 'select');
    (select.data as Record<string, unknown>)['values'] = ['a'];
    await gateway.router.handle(select);
    releaseReply();
    await handling;
    expect(outcome, 'the wait ends with what its filter threw on the button').toBe('rejected: TypeError');
    await vi.advanceTimersByTimeAsync(1_500);
    expect(unhandled.map((event) => event.customId).sort(), 'both held clicks are reported, the select not marked taken by the rejected wait').toEqual([
      'button',
      'select',
    ]);
  });

  it('is reported when no wait takes it in time: an interactionUnhandled event naming the custom id and the interaction it belongs to', async () => {
    vi.useFakeTimers();
    const { gateway } = createTestGateway();
    const unhandled: InteractionUnhandledEvent[] = [];
    gateway.on('interactionUnhandled', (event) => void unhandled.push(event));
    await gateway.router.handle(click('cmd-42', 'second-click'));
    expect(unhandled).toEqual([]);
    await vi.advanceTimersByTimeAsync(1_500);
    expect(unhandled.map((event) => [event.customId, event.answers])).toEqual([['second-click', 'cmd-42']]);
  });

  it('is not reported when a handler or an interactionCreate listener takes it', async () => {
    vi.useFakeTimers();
    const { gateway } = createTestGateway();
    const unhandled: InteractionUnhandledEvent[] = [];
    gateway.on('interactionUnhandled', (event) => void unhandled.push(event));
    const off = gateway.onInteraction('component', () => undefined);
    await gateway.router.handle(click('cmd-1'));
    off();
    gateway.on('interactionCreate', () => undefined);
    await gateway.router.handle(click('cmd-2'));
    await vi.advanceTimersByTimeAsync(1_500);
    expect(unhandled).toEqual([]);
  });
});

describe('a click a wait takes', () => {
  it('reaches that wait only: no interactionCreate listener (of the Gateway or a router) sees it', async () => {
    const { gateway } = createTestGateway();
    const router = createInteractionRouter();
    gateway.use(router);
    const seen: Interaction[] = [];
    gateway.on('interactionCreate', (interaction) => void seen.push(interaction));
    router.on('interactionCreate', (interaction) => void seen.push(interaction));
    let waiting!: Promise<ComponentInteraction>;
    gateway.onCommand('wipe', (interaction) => {
      waiting = interaction.awaitComponent({ timeoutMs: 5_000 });
    });
    const command = createInteraction(createTestPayload({ name: 'wipe' }), async () => undefined);
    await gateway.router.handle(command);
    seen.length = 0;
    const confirm = click(command.id, 'confirm');
    await gateway.router.handle(confirm);
    expect(await waiting).toBe(confirm);
    expect(seen).toEqual([]);
  });
});

describe('matching waits', () => {
  it('consults only the waits filed under what a click matches: with 10,000 waits, an unrelated click is looked at a few times, not once per wait', async () => {
    const router = createInteractionRouter({ maxWaiters: 20_000 });
    let consulted = 0;
    const filter = () => {
      consulted++;
      return true;
    };
    /** The click, counting every property a matcher reads of it. */
    let reads = 0;
    const watched = (interaction: ComponentInteraction) =>
      new Proxy(interaction, {
        get(target, property, receiver) {
          reads++;
          return Reflect.get(target, property, receiver) as unknown;
        },
      });
    const originals: Interaction[] = [];
    for (let i = 0; i < 10_000; i++) {
      const original = createInteraction(createTestPayload({ name: 'poll' }), async () => undefined);
      await router.handle(original);
      originals.push(original);
      if (original.kind === 'command') void original.awaitComponent({ timeoutMs: 60_000, filter }).catch(() => undefined);
    }
    expect(router.waiterCount).toBe(10_000);
    await router.handle(watched(click('some-other-interaction')));
    expect(consulted).toBe(0);
    expect(reads).toBeLessThan(50);
    await router.handle(click(originals[1234]?.id ?? ''));
    expect(consulted).toBe(1);
    expect(router.waiterCount).toBe(9_999);
    await router.close();
  });
});
