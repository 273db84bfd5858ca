/**
 * The one delivery path and the one way to register, on the Gateway and the
 * webhook receiver (the event worker's run is in test/redis/event-worker-delivery.test.ts):
 * the same methods on each host, each a door to its router, and the same steps
 * through `router.handle()` for what each really receives.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Client, createInteractionRouter, type InteractionPayload, type InteractionRouterEvents } from '../../src/index.js';
import { createWebhookReceiver } from '../../src/receiver.js';
import type { InteractionHost } from '../../src/interactions/host.js';
import { GatewayServer } from '../../src/testing/gateway-server.js';
import { deliveryContract } from '../helpers/delivery-contract.js';
import { SECRETS } from '../helpers/index.js';
import { NOW_MS, signedDelivery, WEBHOOK_SECRET } from '../receive/helpers.js';

const answered = { interactions: { respond: async () => undefined } };

describe('the Gateway delivers through its router', () => {
  deliveryContract('the Gateway', async () => {
    const server = new GatewayServer({ heartbeatIntervalMs: 1000 });
    await server.listening();
    const client = new Client({
      baseUrl: 'http://127.0.0.1:9',
      auth: { botToken: SECRETS.botToken },
      gateway: { url: server.url, minHeartbeatIntervalMs: 1 },
    });
    await client.gateway.connect();
    return {
      host: client.gateway as unknown as InteractionHost<InteractionRouterEvents>,
      send: async (payload: InteractionPayload) => void server.dispatch('INTERACTION_CREATE', payload),
      shardId: 0,
      close: async () => {
        await client.close();
        await server.close();
      },
    };
  });
});

describe('the webhook receiver delivers through its router', () => {
  deliveryContract('the webhook receiver', async () => {
    const receiver = createWebhookReceiver({ secret: WEBHOOK_SECRET, client: answered, clock: () => NOW_MS });
    return {
      host: receiver as unknown as InteractionHost<InteractionRouterEvents>,
      send: async (payload: InteractionPayload) => {
        const { body, headers } = signedDelivery({ type: 'INTERACTION_CREATE', data: payload });
        const outcome = await receiver.receive(body, headers);
        expect(outcome.status, `the delivery of ${payload.id}`).toBe(200);
        void outcome.dispatch();
      },
      shardId: undefined,
      close: () => receiver.close(),
    };
  });
});

describe('one way to register, on every host', () => {
  const hosts: { close(): Promise<unknown> }[] = [];
  afterEach(async () => {
    for (const host of hosts.splice(0)) await host.close();
  });

  it('onCommand, onInteraction and use register on the host’s router; its removers remove them there', () => {
    const client = new Client({ auth: { botToken: 'x' } });
    const receiver = createWebhookReceiver({ secret: WEBHOOK_SECRET });
    hosts.push(client, receiver);
    for (const host of [client.gateway, receiver] as InteractionHost<InteractionRouterEvents>[]) {
      const shared = createInteractionRouter();
      shared.onCommand('shared', () => undefined);
      const offCommand = host.onCommand('quiz', () => undefined);
      const offKind = host.onInteraction('autocomplete', () => undefined);
      const stop = host.use(shared);
      expect(host.router.handlerCount).toBe(2);
      expect(host.router.usedRouters().has(shared)).toBe(true);
      expect(host.router.wouldHandle({ kind: 'command', commandName: 'SHARED' })).toBe(true);
      offCommand();
      offKind();
      stop();
      expect(host.router.handlerCount).toBe(0);
      expect(host.router.usedRouters().has(shared)).toBe(false);
    }
  });

  it('refuses createWebhookReceiver({ router }), naming receiver.use(router)', () => {
    const router = createInteractionRouter();
    expect(() => createWebhookReceiver({ secret: WEBHOOK_SECRET, router } as never)).toThrow(/router.*receiver\.use\(router\)/);
  });

  it('closes the host’s own router with the host, and leaves a router it uses to its owner', async () => {
    const receiver = createWebhookReceiver({ secret: WEBHOOK_SECRET });
    const shared = createInteractionRouter();
    shared.onCommand('kept', () => undefined);
    receiver.onCommand('gone', () => undefined);
    receiver.use(shared);
    await receiver.close();
    expect(receiver.router.handlerCount).toBe(0);
    expect(receiver.router.wouldHandle({ kind: 'command', commandName: 'kept' })).toBe(false);
    expect(shared.handlerCount).toBe(1);
  });
});
