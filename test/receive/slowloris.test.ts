/**
 * The receiver against an attacker who opens header-only connections faster
 * than `maxPendingBodies` a second, over real sockets and the real clock:
 * every valid signed delivery is still answered 200.
 */
import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { IDLE_EVICTION_MS } from '../../src/receive/pending-bodies.js';
import { createWebhookReceiver } from '../../src/receiver.js';
import { NOW_MS, post, signedDelivery, waitFor, useReceiverServer, WEBHOOK_SECRET } from './helpers.js';

const serve = useReceiverServer();

/** Opens `perTick` header-only connections (1,000 bytes promised, none sent) from `localAddress` every 10 ms until stopped. */
function attack(url: URL, localAddress: string, perTick: number): { opened: () => number; stop: () => void } {
  const sockets = new Set<Socket>();
  let opened = 0;
  const open = () => {
    const socket = connect({ port: Number(url.port), host: url.hostname, localAddress }, () => {
      socket.write(`POST / HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n`);
    });
    opened += 1;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  };
  const timer = setInterval(() => {
    for (let i = 0; i < perTick; i++) open();
  }, 10);
  return {
    opened: () => opened,
    stop: () => {
      clearInterval(timer);
      for (const socket of sockets) socket.destroy();
    },
  };
}

describe('the receiver against fresh header-only connections', () => {
  for (const [label, localAddress, perTick] of [
    ['from another address, 100 a second (silent places are evicted after 100 ms)', '127.0.0.2', 1],
    ['from the deliveries own address, 100 a second', '127.0.0.1', 1],
    ['from another address, 400 a second (faster than places go silent: the address over its share gives way)', '127.0.0.2', 4],
  ] as const) {
    it(`answers every valid signed delivery 200 while an attacker opens connections ${label}, with maxPendingBodies 16`, async () => {
      const receiver = createWebhookReceiver({ secret: WEBHOOK_SECRET, maxPendingBodies: 16 });
      const handled: string[] = [];
      receiver.on('delivery', (delivery) => void handled.push(delivery.id));
      const url = new URL(await serve(receiver));
      const attacker = attack(url, localAddress, perTick);
      try {
        // Every place is taken and the attacker has opened more than max in the last second before the first delivery.
        await waitFor(() => attacker.opened() > 16 * 2, 10_000);
        const statuses: Record<number, number> = {};
        for (let i = 0; i < 30; i++) {
          const delivery = signedDelivery({ id: `during-attack-${i}`, timestamp: Math.floor(Date.now() / 1000) });
          const { status } = await post(url.origin, delivery.body, delivery.headers);
          statuses[status] = (statuses[status] ?? 0) + 1;
        }
        expect(statuses, `answers to 30 deliveries while the attacker opened ${attacker.opened()} connections`).toEqual({ 200: 30 });
        await waitFor(() => handled.length === 30);
      } finally {
        attacker.stop();
      }
    }, 30_000);
  }

  it('evicts a silent body on its own steady clock: a frozen signature clock does not stop it', async () => {
    // Eight places, a share of two per address: four addresses holding two each leave nobody over their share.
    const receiver = createWebhookReceiver({ secret: WEBHOOK_SECRET, maxPendingBodies: 8, clock: () => NOW_MS });
    const url = new URL(await serve(receiver));
    const sockets: Socket[] = [];
    try {
      for (const localAddress of ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5'])
        for (let i = 0; i < 2; i++) {
          const socket = connect({ port: Number(url.port), host: url.hostname, localAddress }, () =>
            socket.write(`POST / HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n`),
          );
          socket.on('error', () => undefined);
          sockets.push(socket);
        }
      await waitFor(() => receiver.toJSON()['pendingBodies'] === 8);
      const filled = performance.now();
      // What the eviction waits for is silence itself: IDLE_EVICTION_MS with no byte on any place.
      await waitFor(() => performance.now() - filled > IDLE_EVICTION_MS * 1.5);
      const delivery = signedDelivery({ id: 'after-silence' });
      expect((await post(url.origin, delivery.body, delivery.headers)).status, 'a delivery once every place has been silent 150 ms').toBe(200);
    } finally {
      for (const socket of sockets) socket.destroy();
    }
  });
});
