import { describe, expect, it } from 'vitest';
import { createWebhookReceiver, type WebhookDelivery } from '../../src/receiver.js';
import { NOW_MS, NOW_S, settle, signedDelivery, waitFor, WEBHOOK_SECRET } from './helpers.js';

function request(body: string | null, headers: Record<string, string>, method = 'POST'): Request {
  return new Request('https://bot.example/webhooks', { method, body, headers });
}

describe('the fetch adapter (global Request and Response)', () => {
  it('answers 408 to a body that never finishes, 503 past maxPendingBodies, and frees the places for the next', async () => {
    const receiver = createWebhookReceiver({ secret: WEBHOOK_SECRET, clock: () => NOW_MS, bodyTimeoutMs: 200, maxPendingBodies: 1 });
    const cancelled: unknown[] = [];
    const never = new ReadableStream<Uint8Array>({
      start: (controller) => controller.enqueue(new TextEncoder().encode('{')),
      cancel: (reason) => void cancelled.push(reason),
    });
    const slow = receiver.fetch(
      new Request('https://bot.example/webhooks', {
        method: 'POST',
        body: never,
        headers: { 'content-type': 'application/json' },
        duplex: 'half',
      } as RequestInit),
    );
    const busy = await receiver.fetch(request('{}', {}));
    expect(busy.status).toBe(503);
    expect(await busy.json()).toEqual({ ok: false, reason: 'too-many-pending-bodies' });
    const timedOut = await slow;
    expect(timedOut.status).toBe(408);
    expect(await timedOut.json()).toEqual({ ok: false, reason: 'body-timeout' });
    expect(cancelled).toHaveLength(1);
    const { body, headers } = signedDelivery();
    expect((await receiver.fetch(request(body, headers))).status).toBe(200);
  });

  it('answers 200 with a Response before the handlers finish, and hands them to waitUntil', async () => {
    const receiver = createWebhookReceiver({ secret: WEBHOOK_SECRET, clock: () => NOW_MS });
    const handled: WebhookDelivery[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    receiver.onDelivery('TEST_EVENT', async (delivery) => {
      await gate;
      handled.push(delivery);
    });
    const kept: Promise<unknown>[] = [];
    const { body, headers } = signedDelivery({ data: { text: 'emoji 🚀 ok' } });
    const response = await receiver.fetch(request(body, headers), { waitUntil: (promise) => void kept.push(promise) });
    expect(response).toBeInstanceOf(Response);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toEqual({ ok: true });
    expect(handled).toHaveLength(0);
    expect(kept).toHaveLength(1);
    release();
    await kept[0];
    expect(handled.map((delivery) => delivery.data)).toEqual([{ text: 'emoji 🚀 ok' }]);
  });

  it('answers 401 to a bad signature, a stale delivery and a replay, without running handlers', async () => {
    const receiver = createWebhookReceiver({ secret: WEBHOOK_SECRET, clock: () => NOW_MS });
    let calls = 0;
    receiver.on('delivery', () => void calls++);
    const valid = signedDelivery();
    const stale = signedDelivery({ timestamp: NOW_S - 301 });
    expect((await receiver.fetch(request(valid.body.replace('world', 'World'), valid.headers))).status).toBe(401);
    expect(await (await receiver.fetch(request(stale.body, stale.headers))).json()).toEqual({ ok: false, reason: 'stale' });
    expect((await receiver.fetch(request(valid.body, valid.headers))).status).toBe(200);
    expect(await (await receiver.fetch(request(valid.body, valid.headers))).json()).toEqual({ ok: false, reason: 'replayed' });
    await settle();
    expect(calls).toBe(1);
  });

  it('answers 413 past the limit (declared or streamed) and 405 to other methods', async () => {
    const receiver = createWebhookReceiver({ secret: WEBHOOK_SECRET, clock: () => NOW_MS, maxBodyBytes: 100 });
    const big = signedDelivery({ data: { text: 'y'.repeat(200) } });
    expect((await receiver.fetch(request(big.body, { ...big.headers, 'content-length': String(big.body.length) }))).status).toBe(413);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 5; i++) controller.enqueue(new TextEncoder().encode('z'.repeat(40)));
        controller.close();
      },
    });
    const streamed = new Request('https://bot.example/webhooks', { method: 'POST', body: stream, headers: big.headers, duplex: 'half' } as RequestInit);
    expect((await receiver.fetch(streamed)).status).toBe(413);
    const get = await receiver.fetch(request(null, {}, 'GET'));
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });

  it('keeps working without waitUntil: handlers still run after the answer', async () => {
    const receiver = createWebhookReceiver({ secret: WEBHOOK_SECRET, clock: () => NOW_MS });
    const seen: string[] = [];
    receiver.onDelivery('TEST_EVENT', (delivery) => void seen.push(delivery.id));
    const { body, headers, id } = signedDelivery();
    expect((await receiver.fetch(request(body, headers))).status).toBe(200);
    await waitFor(() => seen.length === 1);
    expect(seen).toEqual([id]);
  });
});
