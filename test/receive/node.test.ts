import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { createWebhookReceiver, type WebhookDelivery, type WebhookErrorEvent, type WebhookReceiver } from '../../src/receiver.js';
import type { WebhookVerificationError } from '../../src/index.js';
import { NOW_MS, NOW_S, OLD_WEBHOOK_SECRET, post, settle, signedDelivery, waitFor, useReceiverServer, WEBHOOK_SECRET } from './helpers.js';

const serve = useReceiverServer();

function recorder<E extends object>(receiver: WebhookReceiver<E>) {
  const handled: WebhookDelivery[] = [];
  const rejected: WebhookVerificationError[] = [];
  const errors: WebhookErrorEvent[] = [];
  receiver.on('delivery', (delivery) => void handled.push(delivery));
  receiver.on('rejected', (error) => void rejected.push(error));
  receiver.on('error', (event) => void errors.push(event));
  return { handled, rejected, errors };
}

describe('the node:http adapter, on a real server', () => {
  it('handles a valid delivery once, typed by its event type, and answers 200', async () => {
    const receiver = createWebhookReceiver<{ ORDER_PAID: { total: number } }>({ secret: WEBHOOK_SECRET, clock: () => NOW_MS });
    const totals: number[] = [];
    receiver.onDelivery('ORDER_PAID', (delivery) => void totals.push(delivery.data.total));
    const { handled } = recorder(receiver);
    const url = await serve(receiver);
    const { body, headers } = signedDelivery({ type: 'ORDER_PAID', data: { total: 42 } });
    expect(await post(url, body, headers)).toEqual({ status: 200, json: { ok: true } });
    await waitFor(() => totals.length === 1);
    await settle();
    expect(totals).toEqual([42]);
    expect(handled).toHaveLength(1);
  });

  it('answers 401 to a tampered body, a tampered signature, a missing header, a stale timestamp either way and a replay; no handler runs', async () => {
    const receiver = createWebhookReceiver({ secret: WEBHOOK_SECRET, clock: () => NOW_MS });
    const { handled, rejected } = recorder(receiver);
    const url = await serve(receiver);
    const valid = signedDelivery();
    const signature = valid.headers['x-signature-256'] ?? '';
    const { 'x-signature-timestamp': _dropped, ...noTimestamp } = valid.headers;
    const past = signedDelivery({ timestamp: NOW_S - 3600 });
    const future = signedDelivery({ timestamp: NOW_S + 3600 });
    const attempts: [string, string, Record<string, string>][] = [
      ['bad-signature', valid.body.replace('world', 'w0rld'), valid.headers],
      ['bad-signature', valid.body, { ...valid.headers, 'x-signature-256': signature.replace(/.$/, (c) => (c === 'a' ? 'b' : 'a')) }],
      ['missing-header', valid.body, noTimestamp],
      ['stale', past.body, past.headers],
      ['stale', future.body, future.headers],
    ];
    for (const [reason, body, headers] of attempts) expect(await post(url, body, headers)).toEqual({ status: 401, json: { ok: false, reason } });
    expect(rejected.map((error) => error.reason)).toEqual(attempts.map(([reason]) => reason));
    expect(await post(url, valid.body, valid.headers)).toEqual({ status: 200, json: { ok: true } });
    expect(await post(url, valid.body, valid.headers)).toEqual({ status: 401, json: { ok: false, reason: 'replayed' } });
    await settle();
    expect(handled.map((delivery) => delivery.id)).toEqual([valid.id]);
  });

  it('handles a retry of the same delivery id (newly signed) once, answering 200 both times', async () => {
    let now = NOW_MS;
    const receiver = createWebhookReceiver({ secret: WEBHOOK_SECRET, clock: () => now });
    const { handled } = recorder(receiver);
    const duplicates: string[] = [];
    receiver.on('duplicate', (delivery) => void duplicates.push(delivery.id));
    const url = await serve(receiver);
    const first = signedDelivery({ id: 'dlv-retry' });
    expect((await post(url, first.body, first.headers)).status).toBe(200);
    now += 30_000;
    const retry = signedDelivery({ id: 'dlv-retry', timestamp: NOW_S + 30 });
    expect(await post(url, retry.body, retry.headers)).toEqual({ status: 200, json: { ok: true, duplicate: true } });
    await settle();
    expect(handled).toHaveLength(1);
    expect(duplicates).toEqual(['dlv-retry']);
  });

  it('verifies a body of emoji and other multibyte characters, and the rotated-secret array', async () => {
    const receiver = createWebhookReceiver({ secret: [WEBHOOK_SECRET, OLD_WEBHOOK_SECRET], clock: () => NOW_MS });
    const { handled } = recorder(receiver);
    const url = await serve(receiver);
    const text = '👩🏽‍💻 naïve café — 日本語 𝄞';
    const byNew = signedDelivery({ data: { text } });
    const byOld = signedDelivery({ data: { text }, secret: OLD_WEBHOOK_SECRET });
    const byStranger = signedDelivery({ data: { text }, secret: 'someone-else' });
    expect((await post(url, Buffer.from(byNew.body, 'utf8'), byNew.headers)).status).toBe(200);
    expect((await post(url, byOld.body, byOld.headers)).status).toBe(200);
    expect((await post(url, byStranger.body, byStranger.headers)).status).toBe(401);
    await waitFor(() => handled.length === 2);
    expect(handled.map((delivery) => (delivery.data as { text: string }).text)).toEqual([text, text]);
  });

  it('acknowledges before the handlers finish, and a throwing handler still gets its 2xx and becomes an error event', async () => {
    const receiver = createWebhookReceiver({ secret: WEBHOOK_SECRET, clock: () => NOW_MS });
    const { errors } = recorder(receiver);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let finished = false;
    receiver.onDelivery('SLOW', async () => {
      await gate;
      finished = true;
    });
    receiver.onDelivery('BROKEN', () => {
      throw new Error('handler blew up');
    });
    receiver.onDelivery('BROKEN_LATER', async () => {
      await settle(5);
      throw new Error('handler rejected');
    });
    const url = await serve(receiver);
    const slow = signedDelivery({ type: 'SLOW' });
    expect((await post(url, slow.body, slow.headers)).status).toBe(200);
    expect(finished).toBe(false);
    release();
    await waitFor(() => finished);
    for (const type of ['BROKEN', 'BROKEN_LATER']) {
      const delivery = signedDelivery({ type });
      expect(await post(url, delivery.body, delivery.headers)).toEqual({ status: 200, json: { ok: true } });
    }
    await waitFor(() => errors.length === 2);
    expect(errors.map((event) => [(event.error as Error).message, event.delivery?.type])).toEqual([
      ['handler blew up', 'BROKEN'],
      ['handler rejected', 'BROKEN_LATER'],
    ]);
  });

  it('answers 413 past the body limit (declared or streamed), 405 to other methods, and keeps serving', async () => {
    const receiver = createWebhookReceiver({ secret: WEBHOOK_SECRET, clock: () => NOW_MS, maxBodyBytes: 1024 });
    const { handled } = recorder(receiver);
    const url = await serve(receiver);
    const big = signedDelivery({ data: { text: 'x'.repeat(2000) } });
    expect((await post(url, big.body, big.headers)).status).toBe(413);
    const streamed = await new Promise<number>((resolve, reject) => {
      const request = http.request(`${url}/`, { method: 'POST', headers: { ...big.headers, 'transfer-encoding': 'chunked' } }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      request.on('error', reject);
      for (let i = 0; i < 4; i++) request.write('x'.repeat(512));
      request.end();
    });
    expect(streamed).toBe(413);
    expect((await fetch(url)).status).toBe(405);
    const small = signedDelivery();
    expect((await post(url, small.body, small.headers)).status).toBe(200);
    await waitFor(() => handled.length === 1);
    expect(handled.map((delivery) => delivery.id)).toEqual([small.id]);
  });

  it('answers 503 and emits an error when the replay store fails, without running a handler', async () => {
    const receiver = createWebhookReceiver({
      secret: WEBHOOK_SECRET,
      clock: () => NOW_MS,
      replayStore: { claim: () => Promise.reject(new Error('redis is down')) },
    });
    const { handled, errors } = recorder(receiver);
    const url = await serve(receiver);
    const delivery = signedDelivery();
    expect(await post(url, delivery.body, delivery.headers)).toEqual({ status: 503, json: { ok: false, reason: 'unavailable' } });
    await settle();
    expect(handled).toHaveLength(0);
    expect((errors[0]?.error as Error | undefined)?.message).toBe('redis is down');
  });
});
