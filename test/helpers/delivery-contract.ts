/**
 * The one delivery path, checked on each host (the Gateway, the webhook
 * receiver, the event worker) through what the host really receives (a frame,
 * a signed delivery, a stream entry): every interaction goes to
 * `host.router.handle()` with the host's shard, a click a wait takes reaches
 * that wait only, a click nothing takes is reported as `interactionUnhandled`,
 * and what a handler or a listener throws as `interactionError`, on the host.
 * A host that ran its own steps instead of `handle()` fails the first case.
 */
import { expect, it, vi } from 'vitest';
import type {
  ComponentInteraction,
  Interaction,
  InteractionErrorEvent,
  InteractionPayload,
  InteractionRouterEvents,
  InteractionUnhandledEvent,
} from '../../src/index.js';
import type { InteractionHost } from '../../src/interactions/host.js';
import { createTestPayload } from '../../src/testing/index.js';
import { until } from './until.js';

/** A host under test, with the way to hand it an interaction as it would receive one. */
export interface DeliveryHost {
  readonly host: InteractionHost<InteractionRouterEvents>;
  /** Hands the host a payload through its real entry; resolves once it was handed over (not once handled). */
  send(payload: InteractionPayload): Promise<void>;
  /** The shard the host says an interaction arrived on (`interactionCreate`'s second argument). */
  readonly shardId: number | undefined;
  close(): Promise<void>;
}

/** The first `interactionUnhandled` event on `host`. */
function nextUnhandled(host: DeliveryHost['host']): Promise<InteractionUnhandledEvent> {
  return new Promise((resolve) => host.once('interactionUnhandled', resolve));
}

/** `promise`, or a failure naming what did not happen within 5 s (the click's hold is 1.5 s). */
function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within 5000 ms`)), 5000);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/** Runs the delivery contract on the host `start()` gives (one per case, closed after it). */
export function deliveryContract(name: string, start: () => Promise<DeliveryHost>): void {
  const withHost = (run: (subject: DeliveryHost) => Promise<void>) => async () => {
    const subject = await start();
    try {
      await run(subject);
    } finally {
      await subject.close();
    }
  };

  it(
    `${name}: hands every interaction to router.handle() with its shard; interactionCreate has the same arguments on the host and the router`,
    withHost(async ({ host, send, shardId }) => {
      const handle = vi.spyOn(host.router, 'handle');
      const onHost: [string, number | undefined][] = [];
      const onRouter: [string, number | undefined][] = [];
      host.on('interactionCreate', (interaction, shard) => void onHost.push([interaction.id, shard]));
      host.router.on('interactionCreate', (interaction, shard) => void onRouter.push([interaction.id, shard]));
      const ran = new Promise<Interaction>((resolve) => host.onCommand('quiz', resolve));
      const payload = createTestPayload({ name: 'quiz' });
      await send(payload);
      const interaction = await within(ran, `${name}: the handler of ${payload.id} running`);
      expect(interaction.id).toBe(payload.id);
      expect(
        handle.mock.calls.map(([handled, shard]) => [handled.id, shard]),
        `${name} did not hand ${payload.id} to router.handle()`,
      ).toEqual([[payload.id, shardId]]);
      expect(onHost).toEqual([[payload.id, shardId]]);
      expect(onRouter).toEqual([[payload.id, shardId]]);
    }),
  );

  it(
    `${name}: offers a click to the waits first; one a wait takes reaches no handler nor listener`,
    withHost(async ({ host, send }) => {
      const seen: string[] = [];
      const clicksHandled: string[] = [];
      host.on('interactionCreate', (interaction) => void seen.push(interaction.id));
      host.onInteraction('component', (interaction) => void clicksHandled.push(interaction.id));
      let taken!: (click: ComponentInteraction) => void;
      const took = new Promise<ComponentInteraction>((resolve) => (taken = resolve));
      host.onCommand('vote', async (interaction) => taken(await interaction.awaitComponent({ timeoutMs: 10_000 })));
      const command = createTestPayload({ name: 'vote' });
      await send(command);
      await until(() => host.router.waiterCount === 1, { what: `${name}: the wait of ${command.id} registered` });
      const click = createTestPayload({
        kind: 'component',
        customId: 'yes',
        payload: { message: { id: 'm-1', interaction_metadata: { id: command.id, type: 2 } } },
      });
      await send(click);
      expect((await within(took, `${name}: the wait taking the click ${click.id}`)).id).toBe(click.id);
      expect(seen, `${name}: the click ${click.id} reached an interactionCreate listener`).toEqual([command.id]);
      expect(clicksHandled, `${name}: the click ${click.id} reached a component handler`).toEqual([]);
    }),
  );

  it(
    `${name}: reports a click nothing took as interactionUnhandled on the host, with its shard`,
    withHost(async ({ host, send, shardId }) => {
      const unhandled = nextUnhandled(host);
      const click = createTestPayload({
        kind: 'component',
        customId: 'orphan',
        payload: { message: { id: 'm-2', interaction_metadata: { id: 'cmd-gone', type: 2 } } },
      });
      await send(click);
      const event = await within(unhandled, `${name}: interactionUnhandled for the click ${click.id}`);
      expect([event.interaction.id, event.customId, event.answers, event.shardId]).toEqual([click.id, 'orphan', 'cmd-gone', shardId]);
    }),
  );

  it(
    `${name}: reports what a handler and an interactionCreate listener throw as interactionError on the host`,
    withHost(async ({ host, send }) => {
      const errors: InteractionErrorEvent[] = [];
      host.on('interactionCreate', () => {
        throw new Error('listener broke');
      });
      const both = new Promise<void>((resolve) =>
        host.on('interactionError', (event) => {
          errors.push(event);
          if (errors.length === 2) resolve();
        }),
      );
      host.onCommand('boom', async () => {
        throw new Error('handler broke');
      });
      const payload = createTestPayload({ name: 'boom' });
      await send(payload);
      await within(both, `${name}: two interactionError events for ${payload.id}`);
      expect(errors.map((event) => [event.interaction.id, event.error.message]).sort()).toEqual([
        [payload.id, 'handler broke'],
        [payload.id, 'listener broke'],
      ]);
    }),
  );
}
