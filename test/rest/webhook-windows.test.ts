import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Client } from '../../src/index.js';
import type { Transport, TransportRequest, TransportResponse } from '../../src/transport.js';
import { MemoryRateLimitStore } from '../../src/rest/rate-limiter.js';
import { loadSchemas } from '../../src/schemas/validate.js';

const NO_CONTENT: TransportResponse = { status: 204, headers: {}, text: async () => '', discard: async () => undefined };

/** A transport whose sends answer only when told: records each send's body, and `answer()` answers the oldest unanswered one. */
function heldTransport(): Transport & { sent: string[]; answer(): void } {
  const sent: string[] = [];
  const waiting: (() => void)[] = [];
  return {
    sent,
    answer: () => waiting.shift()?.(),
    send(request: TransportRequest) {
      sent.push(String(request.body));
      return new Promise((resolve) => waiting.push(() => resolve(NO_CONTENT)));
    },
    async close() {},
  };
}

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** The heap in use after a full collection, in bytes. */
function heapBytes(): number {
  gc();
  return process.memoryUsage().heapUsed;
}

describe('a webhook executed once is held as its one execution time', () => {
  it('50,000 webhooks executed once within the minute hold under 100 bytes each (a lane each held about 180)', async () => {
    const ids = Array.from({ length: 50_000 }, (_, i) => `webhook-${i}`);
    const before = heapBytes();
    const limiter = new MemoryRateLimitStore({ now: () => 0, webhookWindow: { limit: 30, windowMs: 60_000 } });
    for (const id of ids) await limiter.serializeWebhook(id, async () => limiter.webhookDone(id), undefined);
    const perWebhook = (heapBytes() - before) / ids.length;
    expect(limiter.size.webhooks, 'every webhook is live: all held').toBe(ids.length);
    expect(perWebhook, 'heap bytes held per webhook executed once').toBeLessThan(100);
  });

  it('and a later execution counts it exactly: a 1-a-second window opens again at the second, not before', async () => {
    let clock = 5_000;
    const limiter = new MemoryRateLimitStore({ now: () => clock, webhookWindow: { limit: 1, windowMs: 1_000 } });
    await limiter.serializeWebhook('w', async () => limiter.webhookDone('w'), undefined);
    expect(limiter.size.webhooks, 'the webhook executed once is still held').toBe(1);
    clock = 5_999;
    expect(limiter.tryWebhookTurn('w'), 'a second execution 999 ms after the first, in a 1-a-second window').toBe(false);
    const waits: number[] = [];
    const turn = limiter.webhookTurn('w', AbortSignal.abort(new Error('stop')), (ms) => waits.push(ms));
    await expect(turn).rejects.toThrow('stop');
    expect(waits, 'the wait announced: until the first execution leaves the window, plus a millisecond').toEqual([2]);
    clock = 6_000;
    expect(limiter.tryWebhookTurn('w'), 'a second execution once the first has left the window').toBe(true);
  });

  it('a second execution in the window makes a lane that counts both: the third waits for the first to leave', async () => {
    let clock = 0;
    const limiter = new MemoryRateLimitStore({ now: () => clock, webhookWindow: { limit: 2, windowMs: 1_000 } });
    await limiter.serializeWebhook('w', async () => limiter.webhookDone('w'), undefined);
    clock = 400;
    expect(limiter.tryWebhookTurn('w'), 'the second of 2 a second').toBe(true);
    await limiter.serializeWebhook('w', async () => limiter.webhookDone('w'), undefined);
    clock = 999;
    expect(limiter.tryWebhookTurn('w'), 'a third within the second of the first').toBe(false);
    clock = 1_000;
    expect(limiter.tryWebhookTurn('w'), 'a third once the first has left the window').toBe(true);
    clock = 1_400;
    limiter.sweep();
    expect(limiter.size.webhooks, 'both executions have left the window: nothing held').toBe(0);
  });

  it('a webhook the sweep passes while it runs is dropped by new ones once it has settled and left the window', async () => {
    let clock = 0;
    const limiter = new MemoryRateLimitStore({ now: () => clock, webhookWindow: { limit: 30, windowMs: 1_000 } });
    let finish!: () => void;
    const running = limiter.serializeWebhook('busy', () => new Promise<void>((resolve) => (finish = resolve)), undefined);
    clock = 2_000;
    // New webhooks meet the busy one at the head of the sweep's queue while it runs.
    for (let i = 0; i < 3; i++) await limiter.serializeWebhook(`a${i}`, async () => limiter.webhookDone(`a${i}`), undefined);
    limiter.webhookDone('busy');
    finish();
    await running;
    clock = 3_001;
    for (let i = 0; i < 10; i++) await limiter.serializeWebhook(`b${i}`, async () => limiter.webhookDone(`b${i}`), undefined);
    expect(limiter.size.webhooks, 'held after the busy one and the first three left the window: the ten new ones').toBe(10);
  });

  it('with the window off, a settled webhook holds nothing after a sweep', async () => {
    const limiter = new MemoryRateLimitStore({ now: () => 0, webhookWindow: undefined });
    await limiter.serializeWebhook('w', async () => limiter.webhookDone('w'), undefined);
    limiter.sweep();
    expect(limiter.size.webhooks).toBe(0);
  });
});

describe('a second execution arriving while the first is in flight (through a client)', () => {
  beforeEach(async () => {
    // Load the lazily imported schemas on real time, before the clock is faked.
    await loadSchemas();
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('after a first execution that failed (its transport threw), the next one of the webhook is sent', async () => {
    const sent: string[] = [];
    let fail = true;
    const transport: Transport = {
      async send(request: TransportRequest) {
        sent.push(String(request.body));
        if (fail) throw new TypeError('transport bug');
        return NO_CONTENT;
      },
      async close() {},
    };
    const client = new Client({ baseUrl: 'https://chat.test', transport, webhookRateLimit: { limit: 2, windowMs: 60_000 } });
    const hook = { id: 'wh', token: 'webhook-token' };
    await expect(client.webhooks.execute(hook, { content: 'one' })).rejects.toThrow('transport bug');
    fail = false;
    const second = client.webhooks.execute(hook, { content: 'two' });
    await vi.advanceTimersByTimeAsync(0);
    expect(
      sent.map((body) => JSON.parse(body).content),
      'sent after the first failed',
    ).toEqual(['one', 'two']);
    await second;
  });

  it('is sent only once the first has settled, and the window counts both', async () => {
    const transport = heldTransport();
    const client = new Client({ baseUrl: 'https://chat.test', transport, webhookRateLimit: { limit: 2, windowMs: 60_000 }, deadlineMs: 600_000 });
    const held: string[] = [];
    client.on('requestHeld', (event) => held.push(event.reason));
    const hook = { id: 'wh', token: 'webhook-token' };
    const first = client.webhooks.execute(hook, { content: 'one' });
    await vi.advanceTimersByTimeAsync(0);
    const second = client.webhooks.execute(hook, { content: 'two' });
    await vi.advanceTimersByTimeAsync(0);
    expect(
      transport.sent.map((body) => JSON.parse(body).content),
      'sent while the first is in flight',
    ).toEqual(['one']);
    transport.answer();
    await first;
    await vi.advanceTimersByTimeAsync(0);
    expect(
      transport.sent.map((body) => JSON.parse(body).content),
      'sent once the first settled',
    ).toEqual(['one', 'two']);
    transport.answer();
    await second;
    const third = client.webhooks.execute(hook, { content: 'three' });
    await vi.advanceTimersByTimeAsync(59_000);
    expect(transport.sent, 'a third within the minute of 2 a minute').toHaveLength(2);
    expect(held, 'the third was held by the webhook window').toEqual(['webhook']);
    await vi.advanceTimersByTimeAsync(1_001);
    expect(transport.sent.map((body) => JSON.parse(body).content)).toEqual(['one', 'two', 'three']);
    transport.answer();
    await third;
  });
});
