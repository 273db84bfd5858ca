/**
 * A replay store that fails mid-request must not lose the delivery: over a
 * real loopback server, the sender's retry (byte for byte the same, signed
 * in the same second) is handled exactly once with a 2xx, and a replay of
 * the handled request is still refused with 401.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createWebhookReceiver } from '../../src/receiver.js';
import { MemoryReplayStore, type ReplayStore } from '../../src/stores.js';
import { startRawLoopbackServer } from '../helpers/index.js';
import { NOW_MS, NOW_S, post, settle, signedDelivery, WEBHOOK_SECRET } from './helpers.js';

let closeServer: (() => Promise<void>) | undefined;
afterEach(async () => {
  await closeServer?.();
  closeServer = undefined;
});

/** A memory store whose claims fail (503) while `failing(key, index)` says so; `index` counts every claim from 0. */
function flakyStore(failing: (key: string, index: number) => boolean): ReplayStore & { claims: string[] } {
  const inner = new MemoryReplayStore({ clock: () => NOW_MS });
  const claims: string[] = [];
  return {
    claims,
    claim(key, ttlMs) {
      const index = claims.push(key.split(':')[0] ?? '') - 1;
      return failing(key, index) ? Promise.reject(new Error('the replay store is down')) : Promise.resolve(inner.claim(key, ttlMs));
    },
  };
}

async function serveReceiver(replayStore: ReplayStore) {
  const receiver = createWebhookReceiver({ secret: WEBHOOK_SECRET, clock: () => NOW_MS, replayStore });
  const handled: string[] = [];
  const errors: unknown[] = [];
  receiver.on('delivery', (delivery) => void handled.push(delivery.id));
  receiver.on('error', (event) => void errors.push(event.error));
  const server = await startRawLoopbackServer(receiver.node);
  closeServer = server.close;
  return { url: server.url, handled, errors };
}

describe('a replay store that fails mid-request', () => {
  it("the reviewer's case: the delivery id claim rejects (503); the identical retry is handled once (200); a replay after that is 401", async () => {
    let failed = false;
    const store = flakyStore((key) => key.startsWith('delivery:') && !failed && (failed = true));
    const { url, handled, errors } = await serveReceiver(store);
    const delivery = signedDelivery({ id: 'dlv-flaky' });
    expect(await post(url, delivery.body, delivery.headers)).toEqual({ status: 503, json: { ok: false, reason: 'unavailable' } });
    expect(await post(url, delivery.body, delivery.headers)).toEqual({ status: 200, json: { ok: true } });
    await settle();
    expect(handled).toEqual(['dlv-flaky']);
    expect(await post(url, delivery.body, delivery.headers)).toEqual({ status: 401, json: { ok: false, reason: 'replayed' } });
    const retry = signedDelivery({ id: 'dlv-flaky', timestamp: NOW_S + 1 });
    expect(await post(url, retry.body, retry.headers)).toEqual({ status: 200, json: { ok: true, duplicate: true } });
    await settle();
    expect(handled).toEqual(['dlv-flaky']);
    expect((errors[0] as Error).message).toBe('the replay store is down');
  });

  it.each([
    ['the delivery id claim fails once', (key: string, state: { failed: boolean }) => key.startsWith('delivery:') && !state.failed],
    ['the signature claim fails once', (key: string, state: { failed: boolean }) => key.startsWith('sig:') && !state.failed],
    ['the second claim fails once', (_key: string, state: { failed: boolean; index: number }) => state.index === 1 && !state.failed],
  ])('%s: the sender retrying the identical request until a 2xx gets it handled exactly once', async (_name, rule) => {
    const state = { failed: false, index: 0 };
    const store = flakyStore((key, index) => {
      state.index = index;
      const fail = rule(key, state);
      if (fail) state.failed = true;
      return fail;
    });
    const { url, handled } = await serveReceiver(store);
    const delivery = signedDelivery();
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      const { status } = await post(url, delivery.body, delivery.headers);
      statuses.push(status);
      if (status >= 200 && status < 300) break;
    }
    await settle();
    expect(statuses.at(-1)).toBe(200);
    expect(statuses.every((status) => status === 200 || status === 503)).toBe(true);
    expect(handled).toEqual([delivery.id]);
    // A retry under a new signature is a duplicate, not handled again.
    const retry = signedDelivery({ id: delivery.id, timestamp: NOW_S + 2 });
    expect(await post(url, retry.body, retry.headers)).toEqual({ status: 200, json: { ok: true, duplicate: true } });
    await settle();
    expect(handled).toEqual([delivery.id]);
  });
});
