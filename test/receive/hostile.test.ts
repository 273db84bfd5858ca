/**
 * The receiver against a hostile sender, over a real node:http server: one
 * signature has one spelling, a replay is remembered as long as its signature
 * is accepted, a full replay store says so, one interaction delivered twice
 * runs once, and no listener can change what a handler sees.
 */
import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createInteractionRouter, type DuplicateEvent, isCommunityChatError } from '../../src/index.js';
import { createWebhookReceiver, type WebhookErrorEvent } from '../../src/receiver.js';
import { MemoryReplayStore } from '../../src/stores.js';
import { hmacHex, NOW_MS, NOW_S, post, signedDelivery, waitFor, useReceiverServer, WEBHOOK_SECRET } from './helpers.js';

const serve = useReceiverServer();

describe('the receiver against a hostile sender', () => {
  it('refuses every other spelling of a signature, so a captured delivery cannot be replayed once per spelling after its id is forgotten', async () => {
    let now = NOW_MS;
    // The id is remembered only 600 s; the signed request as long as its signature is accepted.
    const receiver = createWebhookReceiver({ secret: WEBHOOK_SECRET, clock: () => now });
    const handled: string[] = [];
    receiver.on('delivery', (delivery) => void handled.push(delivery.id));
    const url = await serve(receiver);
    const captured = signedDelivery({ id: 'dlv-captured' });
    expect((await post(url, captured.body, captured.headers)).status).toBe(200);
    const digest = captured.headers['x-signature-256']?.slice('sha256='.length) ?? '';
    now = NOW_MS + 299_000;
    // (Leading or trailing spaces never arrive: HTTP strips them; verify.test.ts checks them.)
    for (const spelling of [`sha256=${digest.toUpperCase()}`, `SHA256=${digest}`, `sha256=${digest}0`, `sha256=${digest}f`]) {
      const answer = await post(url, captured.body, { ...captured.headers, 'x-signature-256': spelling });
      expect(answer, spelling).toEqual({ status: 401, json: { ok: false, reason: 'malformed' } });
    }
    expect(await post(url, captured.body, captured.headers)).toEqual({ status: 401, json: { ok: false, reason: 'replayed' } });
    expect(handled).toEqual(['dlv-captured']);
  });

  it('remembers a delivery signed 300 s in the future until its signature is stale: replayed 600 s later, it is refused', async () => {
    let now = NOW_MS;
    const receiver = createWebhookReceiver({ secret: WEBHOOK_SECRET, clock: () => now });
    const handled: string[] = [];
    receiver.on('delivery', (delivery) => void handled.push(delivery.id));
    const url = await serve(receiver);
    const ahead = signedDelivery({ id: 'dlv-ahead', timestamp: NOW_S + 300 });
    expect((await post(url, ahead.body, ahead.headers)).status).toBe(200);
    now = NOW_MS + 600_000;
    expect(await post(url, ahead.body, ahead.headers)).toEqual({ status: 401, json: { ok: false, reason: 'replayed' } });
    // A retry re-signed now (same id, new signature) is a duplicate, not handled again.
    const retry = signedDelivery({ id: 'dlv-ahead', timestamp: NOW_S + 600, body: ahead.body });
    expect(await post(url, retry.body, retry.headers)).toEqual({ status: 200, json: { ok: true, duplicate: true } });
    expect(handled).toEqual(['dlv-ahead']);
  });

  it('refuses a dedupeTtlMs that does not cover the span in which a signature is accepted', () => {
    let error: unknown;
    try {
      createWebhookReceiver({ secret: WEBHOOK_SECRET, toleranceMs: 300_000, dedupeTtlMs: 599_999 });
    } catch (caught) {
      error = caught;
    }
    expect(isCommunityChatError(error, 'ValidationError')).toBe(true);
    expect(String(error)).toMatch(/dedupeTtlMs.*600000 ms/);
    expect(() => createWebhookReceiver({ secret: WEBHOOK_SECRET, toleranceMs: 300_000, dedupeTtlMs: 600_000 })).not.toThrow();
  });

  it('keeps accepting deliveries once expired keys make room, and says so (an error event, 503) when its store is full of live keys', async () => {
    let now = NOW_MS;
    const store = new MemoryReplayStore({ maxEntries: 10, clock: () => now });
    const receiver = createWebhookReceiver({ secret: WEBHOOK_SECRET, replayStore: store, clock: () => now });
    const errors: WebhookErrorEvent[] = [];
    receiver.on('error', (event) => void errors.push(event));
    const url = await serve(receiver);
    for (let i = 0; i < 5; i++) {
      const delivery = signedDelivery({ id: `first-${i}` });
      expect((await post(url, delivery.body, delivery.headers)).status).toBe(200);
    }
    expect(store.size).toBe(10);
    const refused = signedDelivery({ id: 'refused' });
    expect(await post(url, refused.body, refused.headers)).toEqual({ status: 503, json: { ok: false, reason: 'unavailable' } });
    expect(errors.map((event) => isCommunityChatError(event.error, 'ReplayStoreFullError'))).toEqual([true]);
    now += 600_001;
    for (let i = 0; i < 5; i++) {
      const delivery = signedDelivery({ id: `later-${i}`, timestamp: Math.floor(now / 1000) });
      expect((await post(url, delivery.body, delivery.headers)).status).toBe(200);
    }
  });

  it('runs one interaction delivered by two subscriptions (two deliveries, one interaction id) once', async () => {
    const router = createInteractionRouter();
    const responses: string[] = [];
    const client = { interactions: { respond: (id: string) => Promise.resolve(void responses.push(id)) } };
    const receiver = createWebhookReceiver({ secret: WEBHOOK_SECRET, client, clock: () => NOW_MS });
    receiver.use(router);
    const ran: string[] = [];
    router.onCommand('ping', async (interaction) => {
      ran.push(interaction.id);
      await interaction.reply('pong');
    });
    const duplicates: DuplicateEvent[] = [];
    receiver.on('duplicate', (event) => void duplicates.push(event));
    const url = await serve(receiver);
    const payload = {
      id: 'int-twice',
      type: 2,
      token: 'tok-twice',
      application_id: 'app1',
      channel_id: 'c1',
      user: { id: 'u1' },
      data: { name: 'ping' },
      created_at: new Date(NOW_MS).toISOString(),
    };
    const viaA = signedDelivery({ id: 'dlv-hook-a', type: 'INTERACTION_CREATE', data: payload });
    const viaB = signedDelivery({ id: 'dlv-hook-b', type: 'INTERACTION_CREATE', data: payload });
    expect((await post(url, viaA.body, viaA.headers)).json).toEqual({ ok: true });
    expect((await post(url, viaB.body, viaB.headers)).json).toEqual({ ok: true, duplicate: true });
    await waitFor(() => responses.length === 1);
    expect(ran).toEqual(['int-twice']);
    // The event worker's shape: what came again, its type, the interaction; no payload (it holds the token).
    expect(duplicates).toEqual([{ id: 'dlv-hook-b', type: 'INTERACTION_CREATE', interactionId: 'int-twice' }]);
  });

  it('hands every listener and handler the data as signed: a delivery listener cannot change it for the typed handler', async () => {
    const receiver = createWebhookReceiver<{ ORDER_PAID: { total: number; items: { sku: string }[] } }>({ secret: WEBHOOK_SECRET, clock: () => NOW_MS });
    const failures: unknown[] = [];
    receiver.on('delivery', (delivery) => {
      const data = delivery.data as { total: number; items: { sku: string }[] };
      for (const change of [() => (data.total = 0), () => (data.items[0] = { sku: 'evil' }), () => ((data.items[0] as { sku: string }).sku = 'evil')]) {
        try {
          change();
        } catch (error) {
          failures.push(error);
        }
      }
    });
    const seen: unknown[] = [];
    receiver.onDelivery('ORDER_PAID', (delivery) => void seen.push(structuredClone(delivery.data)));
    const url = await serve(receiver);
    const order = signedDelivery({ type: 'ORDER_PAID', data: { total: 42, items: [{ sku: 'book' }] } });
    expect((await post(url, order.body, order.headers)).status).toBe(200);
    await waitFor(() => seen.length === 1);
    expect(seen).toEqual([{ total: 42, items: [{ sku: 'book' }] }]);
    expect(failures).toHaveLength(3);
  });

  it('lets no slow body hold a socket: past maxPendingBodies, with every place fed within 100 ms and no address over its share, a request gets 503 at once; a body not all there in bodyTimeoutMs gets 408; both connections close', async () => {
    const receiver = createWebhookReceiver({ secret: WEBHOOK_SECRET, clock: () => NOW_MS, bodyTimeoutMs: 300, maxPendingBodies: 3 });
    const url = new URL(await serve(receiver));
    const feeders = new Set<NodeJS.Timeout>();
    /** A slow sender from its own loopback address: headers promise 1,000 bytes, then one byte every 20 ms. */
    const trickle = (localAddress: string) =>
      new Promise<{ socket: Socket; answer: Promise<string> }>((resolve) => {
        const socket = connect({ port: Number(url.port), host: url.hostname, localAddress }, () => {
          socket.write(`POST / HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`);
          const feeder = setInterval(() => socket.write(' '), 20);
          feeders.add(feeder);
          let text = '';
          socket.on('error', () => undefined);
          socket.on('data', (chunk: Buffer) => void (text += chunk.toString()));
          resolve({ socket, answer: new Promise((done) => socket.on('close', () => done(text))) });
        });
      });
    try {
      const slow = [await trickle('127.0.0.2'), await trickle('127.0.0.3'), await trickle('127.0.0.4')];
      // The three are being read; wait until the server has taken all three places before the fourth arrives.
      await waitFor(() => receiver.toJSON()['pendingBodies'] === 3);
      const fourth = await trickle('127.0.0.5');
      const refused = await fourth.answer;
      expect(refused, 'the fourth body, every place fed and no address over its share').toMatch(/^HTTP\/1\.1 503 /);
      expect(refused).toContain('too-many-pending-bodies');
      for (const { answer } of slow) {
        const text = await answer;
        expect(text).toMatch(/^HTTP\/1\.1 408 /);
        expect(text).toContain('body-timeout');
      }
    } finally {
      for (const feeder of feeders) clearInterval(feeder);
    }
    expect(receiver.toJSON()['pendingBodies']).toBe(0);
    // The places are free again: a whole delivery is handled.
    const delivery = signedDelivery({ id: 'after-slowloris' });
    expect((await post(url.origin, delivery.body, delivery.headers)).status).toBe(200);
  });

  it('serves valid deliveries while 256 connections trickle bodies and reconnect when dropped: the slowest pending body is evicted for them', async () => {
    // A frozen signature clock: eviction ages on a steady clock of its own, so the attack is evicted all the same.
    const receiver = createWebhookReceiver({ secret: WEBHOOK_SECRET, clock: () => NOW_MS });
    const handled: string[] = [];
    receiver.on('delivery', (delivery) => void handled.push(delivery.id));
    const url = new URL(await serve(receiver));
    const answers: string[] = [];
    const sockets = new Set<Socket>();
    let attacking = true;
    /** A slowloris sender that opens a new connection as soon as its last one is dropped. */
    const attacker = (): void => {
      const socket = connect(Number(url.port), url.hostname, () => {
        socket.write(`POST / HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`);
      });
      sockets.add(socket);
      let text = '';
      socket.on('data', (chunk: Buffer) => void (text += chunk.toString()));
      socket.on('error', () => undefined);
      socket.on('close', () => {
        sockets.delete(socket);
        answers.push(text);
        if (attacking) attacker();
      });
    };
    try {
      for (let i = 0; i < 256; i++) attacker();
      await waitFor(() => receiver.toJSON()['pendingBodies'] === 256, 10_000);
      const statuses: number[] = [];
      for (let i = 0; i < 20; i++) {
        const delivery = signedDelivery({ id: `during-attack-${i}` });
        statuses.push((await post(url.origin, delivery.body, delivery.headers)).status);
      }
      expect(statuses, 'valid deliveries during the attack').toEqual(Array(20).fill(200));
      expect(handled).toHaveLength(20);
      // Each delivery that found every place taken evicted a trickling body (408, connection closed); the attacker reconnected.
      await waitFor(() => answers.length > 0 && receiver.toJSON()['pendingBodies'] === 256);
      for (const text of answers) expect(text, 'what an evicted attacker is answered').toMatch(/^HTTP\/1\.1 408 [\s\S]*body-timeout/);
      expect(sockets.size).toBe(256);
    } finally {
      attacking = false;
      for (const socket of sockets) socket.destroy();
    }
  }, 30_000);

  it('still takes the hand-made canonical signature', async () => {
    const receiver = createWebhookReceiver({ secret: WEBHOOK_SECRET, clock: () => NOW_MS });
    const url = await serve(receiver);
    const body = JSON.stringify({ id: 'dlv-hand', type: 'T', created_at: new Date(NOW_MS).toISOString(), data: {} });
    const headers = {
      'content-type': 'application/json',
      'x-signature-timestamp': String(NOW_S),
      'x-signature-256': `sha256=${hmacHex(WEBHOOK_SECRET, NOW_S, body)}`,
      'x-delivery-id': 'dlv-hand',
      'x-event-type': 'T',
    };
    expect((await post(url, body, headers)).status).toBe(200);
  });
});
