import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Client, InteractionCallbackType } from '../../src/index.js';
import type { Transport, TransportRequest } from '../../src/transport.js';
import { SECRETS, startLoopbackServer } from '../helpers/index.js';
import { until } from '../helpers/until.js';
import { MemoryRateLimitStore } from '../../src/rest/rate-limiter.js';
import { loadSchemas } from '../../src/schemas/validate.js';

/** A transport with no sockets: records the (fake) time of every send and answers 204. */
function recordingTransport(): Transport & { sends: { at: number; body: string }[] } {
  const sends: { at: number; body: string }[] = [];
  return {
    sends,
    async send(request: TransportRequest) {
      sends.push({ at: Date.now(), body: String(request.body) });
      return { status: 204, headers: {}, text: async () => '', discard: async () => undefined };
    },
    async close() {},
  };
}

describe('webhook rolling window with the contract defaults (fake timers)', () => {
  beforeEach(async () => {
    // Load the lazily imported schemas on real time, before the clock is faked.
    await loadSchemas();
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('spreads a burst of 100 messages to one webhook over time, in order, never more than 30 per rolling minute', async () => {
    const transport = recordingTransport();
    const client = new Client({ baseUrl: 'https://chat.test', transport, auth: { webhookTokens: { wh1: 'secret-token' } }, deadlineMs: 3_600_000 });
    const settled: number[] = [];
    const sends = Array.from({ length: 100 }, (_, i) =>
      client.webhooks.execute('wh1', { content: `message ${i}` }).then(() => {
        settled.push(i);
      }),
    );
    await vi.advanceTimersByTimeAsync(0);
    expect(transport.sends).toHaveLength(30);
    await vi.advanceTimersByTimeAsync(4 * 60_000 + 10);
    await Promise.all(sends);
    expect(settled).toEqual(Array.from({ length: 100 }, (_, i) => i));
    const bodies = transport.sends.map((send) => JSON.parse(send.body).content as string);
    expect(bodies).toEqual(Array.from({ length: 100 }, (_, i) => `message ${i}`));
    for (const first of transport.sends) {
      expect(transport.sends.filter((send) => send.at >= first.at && send.at < first.at + 60_000).length).toBeLessThanOrEqual(30);
    }
    // Another webhook is not held back by the first one's window.
    await client.webhooks.execute({ id: 'wh2', token: 'other' }, { content: 'independent' });
    expect(transport.sends).toHaveLength(101);
  });

  it('the window is configurable, and can be switched off', async () => {
    const transport = recordingTransport();
    const client = new Client({ baseUrl: 'https://chat.test', transport, auth: { webhookTokens: { wh1: 't' } }, webhookRateLimit: false });
    await Promise.all(Array.from({ length: 40 }, (_, i) => client.webhooks.execute('wh1', { content: `m${i}` })));
    expect(transport.sends).toHaveLength(40);
  });
});

describe('rate-limit state stays bounded', () => {
  it('evicts buckets learned for distinct ids once their reset has passed', () => {
    let clock = 1_000_000;
    const limiter = new MemoryRateLimitStore({ now: () => clock, webhookWindow: { limit: 30, windowMs: 60_000 } });
    const route = 'GET /channels/{channel_id}';
    for (let i = 0; i < 5000; i++) {
      const key = limiter.bucketKey(route, `c${i}`);
      expect(limiter.tryAcquire(key, 'normal')).toBe(true);
      limiter.release(key);
      limiter.learn(route, `c${i}`, { limit: 5, remaining: 4, resetAfterMs: 1000, bucket: `hash-${i % 3}` });
      clock += 1;
    }
    // Only the buckets whose reset lies ahead (about the last second of ids) survive the sweeps.
    expect(limiter.size.buckets).toBeLessThan(1400);
    clock += 2_000;
    limiter.sweep();
    expect(limiter.size.buckets).toBe(0);
    expect(limiter.size.routeHashes).toBe(1);
  });

  it('drops blank buckets (nothing learned) when their request ends', () => {
    const limiter = new MemoryRateLimitStore({ now: () => 0, webhookWindow: undefined });
    for (let i = 0; i < 10_000; i++) {
      const key = limiter.bucketKey('POST /interactions/{interaction_id}/callback', `i${i}`);
      limiter.tryAcquire(key, 'priority');
      limiter.release(key);
    }
    expect(limiter.size.buckets).toBeLessThanOrEqual(65);
  });

  it('keeps a paused bucket until its pause ends', () => {
    let clock = 0;
    const limiter = new MemoryRateLimitStore({ now: () => clock, webhookWindow: undefined });
    for (let i = 0; i < 100; i++) limiter.pause(limiter.bucketKey('GET /x', `m${i}`), 5_000, false);
    limiter.sweep();
    expect(limiter.size.buckets).toBe(100);
    clock = 5_001;
    limiter.sweep();
    expect(limiter.size.buckets).toBe(0);
  });

  it('evicts webhook windows once their executions have left the window', async () => {
    let clock = 0;
    const limiter = new MemoryRateLimitStore({ now: () => clock, webhookWindow: { limit: 30, windowMs: 60_000 } });
    for (let i = 0; i < 1000; i++) {
      await limiter.serializeWebhook(`w${i}`, async () => limiter.webhookDone(`w${i}`), undefined);
    }
    // Every window still holds an execution of the last minute, so none may go yet.
    expect(limiter.size.webhooks).toBe(1000);
    clock = 60_001;
    limiter.sweep();
    expect(limiter.size.webhooks).toBe(0);
  });
});

describe('webhook lanes run executions in order', () => {
  it('a waiter aborted mid-queue rejects at once, and the rest keep their order', async () => {
    const limiter = new MemoryRateLimitStore({ now: () => 0, webhookWindow: { limit: 30, windowMs: 60_000 } });
    const order: string[] = [];
    let releaseFirst!: () => void;
    const first = limiter.serializeWebhook(
      'w',
      () => new Promise<string>((resolve) => (releaseFirst = () => resolve('first'))).then((v) => (order.push(v), v)),
      undefined,
    );
    const controller = new AbortController();
    const second = limiter.serializeWebhook('w', async () => (order.push('second'), 'second'), controller.signal);
    const third = limiter.serializeWebhook('w', async () => (order.push('third'), 'third'), new AbortController().signal);
    controller.abort(new Error('gave up'));
    await expect(second).rejects.toThrow('gave up');
    expect(order).toEqual([]);
    releaseFirst();
    await expect(first).resolves.toBe('first');
    await expect(third).resolves.toBe('third');
    expect(order).toEqual(['first', 'third']);
    // The lane is idle again: the next task starts at once, in the same turn.
    let ran = false;
    const next = limiter.serializeWebhook(
      'w',
      async () => {
        ran = true;
      },
      undefined,
    );
    expect(ran).toBe(true);
    await next;
  });
});

describe('discovery of an unknown bucket', () => {
  const headers = { limit: 2, remaining: 1, resetAfterMs: 1000, bucket: 'shared-id' };

  it('through a client, a first answer without rate-limit headers makes the bucket known: the next requests go together', async () => {
    const sent: string[] = [];
    const answers: (() => void)[] = [];
    const transport: Transport = {
      send(request: TransportRequest) {
        sent.push(request.path);
        return new Promise((resolve) =>
          answers.push(() => resolve({ status: 200, headers: {}, text: async () => '{"id":"c1"}', discard: async () => undefined })),
        );
      },
      async close() {},
    };
    const client = new Client({ baseUrl: 'https://chat.test', transport, auth: { botToken: SECRETS.botToken } });
    const first = client.channels.get('c1');
    await until(() => sent.length === 1);
    answers.shift()?.();
    await first;
    const next = [client.channels.get('c1'), client.channels.get('c1'), client.channels.get('c1')];
    await until(() => sent.length === 4, { timeoutMs: 1000, what: () => `the three after the first all sent before any answer (sent ${sent.length - 1})` });
    for (const answer of answers.splice(0)) answer();
    await expect(Promise.all(next)).resolves.toHaveLength(3);
  });

  it('lets one request discover it; the others wait for its headers, then go as far as the bucket allows', async () => {
    let clock = 0;
    const limiter = new MemoryRateLimitStore({ now: () => clock, webhookWindow: undefined });
    const route = 'GET /channels/{channel_id}';
    const key = limiter.bucketKey(route, '1');
    expect(limiter.tryAcquire(key, 'normal')).toBe(true);
    // The bucket is being discovered: nobody else passes the fast path.
    expect(limiter.tryAcquire(key, 'normal')).toBe(false);
    const started: number[] = [];
    const waiters = [1, 2].map((n) => limiter.acquire(key, 'normal', undefined, () => undefined).then(() => started.push(n)));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(started).toEqual([]);
    // The response arrives: release, then learn in the same turn (as the pipeline does).
    limiter.release(key);
    limiter.learn(route, '1', headers);
    // One place was left in the window: the first waiter goes, the second waits for the reset.
    await waiters[0];
    expect(started).toEqual([1]);
    clock = 1100;
    await Promise.all(waiters);
    expect(started).toEqual([1, 2]);
    // The bucket id is learned for the route, and the bucket is known there too.
    expect(limiter.bucketKey(route, '1')).toBe('shared-id:1');
  });

  it('when the discovering request fails (no response), the next one discovers', async () => {
    const limiter = new MemoryRateLimitStore({ now: () => 0, webhookWindow: undefined });
    const key = limiter.bucketKey('GET /x', '');
    expect(limiter.tryAcquire(key, 'normal')).toBe(true);
    let second = false;
    const waiter = limiter.acquire(key, 'normal', undefined, () => undefined).then(() => (second = true));
    limiter.release(key); // no learn: the attempt failed
    await waiter;
    expect(second).toBe(true);
    // The second is now the one discovering: a third waits again.
    expect(limiter.tryAcquire(key, 'normal')).toBe(false);
    limiter.release(key);
    limiter.learn('GET /x', '', undefined); // a response without headers: known, and unlimited
    expect(limiter.tryAcquire(key, 'normal')).toBe(true);
    expect(limiter.tryAcquire(key, 'normal')).toBe(true);
  });

  it('a waiter aborted while the bucket is discovered rejects at once', async () => {
    const limiter = new MemoryRateLimitStore({ now: () => 0, webhookWindow: undefined });
    const key = limiter.bucketKey('GET /y', '');
    limiter.tryAcquire(key, 'normal');
    const controller = new AbortController();
    const waiter = limiter.acquire(key, 'normal', controller.signal, () => undefined);
    controller.abort(new Error('gave up'));
    await expect(waiter).rejects.toThrow('gave up');
  });

  it('waiters of a bucket go in turn; one aborted mid-queue rejects at once and the others keep their order', async () => {
    const limiter = new MemoryRateLimitStore({ now: () => 0, webhookWindow: undefined });
    const route = 'GET /channels/{channel_id}';
    const key = limiter.bucketKey(route, '7');
    expect(limiter.tryAcquire(key, 'normal')).toBe(true);
    const started: string[] = [];
    const controller = new AbortController();
    const first = limiter.acquire(key, 'normal', undefined, () => undefined).then(() => started.push('first'));
    const second = limiter.acquire(key, 'normal', controller.signal, () => undefined).then(() => started.push('second'));
    const third = limiter.acquire(key, 'normal', new AbortController().signal, () => undefined).then(() => started.push('third'));
    controller.abort(new Error('gave up'));
    await expect(second).rejects.toThrow('gave up');
    expect(started, 'nobody passes while the bucket is discovered').toEqual([]);
    limiter.release(key);
    limiter.learn(route, '7', { limit: 10, remaining: 9, resetAfterMs: 1000, bucket: undefined });
    await Promise.all([first, third]);
    expect(started).toEqual(['first', 'third']);
  });

  it('a bucket whose requests queued in turn is forgotten once idle: 2,000 such buckets leave none behind', async () => {
    let clock = 0;
    const limiter = new MemoryRateLimitStore({ now: () => clock, webhookWindow: undefined });
    const route = 'GET /channels/{channel_id}';
    for (let i = 0; i < 2000; i++) {
      const key = limiter.bucketKey(route, `c${i}`);
      expect(limiter.tryAcquire(key, 'normal')).toBe(true);
      // Three requests queue behind the one discovering the bucket (its slow path: the bucket's lane).
      const waiters = [1, 2, 3].map(() => limiter.acquire(key, 'normal', undefined, () => undefined));
      limiter.release(key);
      limiter.learn(route, `c${i}`, { limit: 10, remaining: 9, resetAfterMs: 1000, bucket: undefined });
      await Promise.all(waiters);
      for (const _ of waiters) limiter.release(key);
    }
    clock += 2_000;
    limiter.sweep();
    expect(limiter.size.buckets, 'buckets held once every queue drained and every reset passed').toBe(0);
  });

  it('interaction callbacks (priority lane) never wait for a discovery', () => {
    const limiter = new MemoryRateLimitStore({ now: () => 0, webhookWindow: undefined });
    const key = limiter.bucketKey('POST /interactions/{interaction_id}/callback', '');
    expect(limiter.tryAcquire(key, 'priority')).toBe(true);
    expect(limiter.tryAcquire(key, 'priority')).toBe(true);
  });
});

describe('the proactive global cap', () => {
  it('is off by default, and with globalRateLimit lets at most `limit` requests through per rolling window', async () => {
    let clock = 0;
    const off = new MemoryRateLimitStore({ now: () => clock, webhookWindow: undefined });
    for (let i = 0; i < 100; i++) {
      const key = off.bucketKey('GET /z', String(i));
      expect(off.tryAcquire(key, 'normal')).toBe(true);
      off.release(key);
      off.learn('GET /z', String(i), undefined);
    }
    const capped = new MemoryRateLimitStore({ now: () => clock, webhookWindow: undefined, globalRateLimit: { limit: 3, windowMs: 1000 } });
    const keys = [0, 1, 2, 3].map((i) => capped.bucketKey('GET /z', String(i)));
    for (const key of keys.slice(0, 3)) expect(capped.tryAcquire(key, 'normal')).toBe(true);
    expect(capped.tryAcquire(keys[3] as string, 'normal')).toBe(false);
    for (const key of keys.slice(0, 3)) capped.release(key);
    // Counted until a second after each response.
    expect(capped.tryAcquire(keys[3] as string, 'normal')).toBe(false);
    const waits: number[] = [];
    const waiting = capped.acquire(keys[3] as string, 'normal', undefined, (ms) => void waits.push(ms));
    clock = 1001;
    await waiting;
    expect(waits[0]).toBe(1001);
  });
});

describe('answers that overtake each other', () => {
  const route = 'GET /channels/{channel_id}';
  const headers = (remaining: number, resetAtMs: number) => ({ limit: 3, remaining, resetAfterMs: 1000, bucket: 'b', resetAtMs });

  it('within one window (same X-RateLimit-Reset), a later answer with a higher remaining does not widen it', () => {
    const limiter = new MemoryRateLimitStore({ now: () => 0, webhookWindow: undefined });
    limiter.learn(route, 'c1', headers(0, 5_000));
    limiter.learn(route, 'c1', headers(2, 5_000));
    expect(limiter.tryAcquire(limiter.bucketKey(route, 'c1'), 'normal')).toBe(false);
  });

  it('an answer of an earlier window is not learned; one of a later window is', () => {
    const limiter = new MemoryRateLimitStore({ now: () => 0, webhookWindow: undefined });
    limiter.learn(route, 'c1', headers(0, 6_000));
    limiter.learn(route, 'c1', headers(2, 5_000));
    expect(limiter.tryAcquire(limiter.bucketKey(route, 'c1'), 'normal')).toBe(false);
    limiter.learn(route, 'c1', headers(2, 7_000));
    expect(limiter.tryAcquire(limiter.bucketKey(route, 'c1'), 'normal')).toBe(true);
  });

  it('after a reset, a whole bucket is sent, and the next request waits for the new window’s first answer instead of going over', () => {
    let clock = 0;
    const limiter = new MemoryRateLimitStore({ now: () => clock, webhookWindow: undefined });
    limiter.learn(route, 'c1', headers(0, 1_000));
    const key = limiter.bucketKey(route, 'c1');
    expect(limiter.tryAcquire(key, 'normal')).toBe(false);
    clock = 2_000;
    expect([1, 2, 3].map(() => limiter.tryAcquire(key, 'normal'))).toEqual([true, true, true]);
    expect(limiter.tryAcquire(key, 'normal')).toBe(false);
    limiter.release(key);
    limiter.learn(route, 'c1', headers(2, 3_000));
    // Two still in flight and the new window says 2 remain: nothing more fits until one answers.
    expect(limiter.tryAcquire(key, 'normal')).toBe(false);
  });
});

describe('the incremental sweep', () => {
  it('drops idle webhook windows as new ones are created, without a full sweep, within about an eighth of those held', async () => {
    let clock = 0;
    const limiter = new MemoryRateLimitStore({ now: () => clock, webhookWindow: { limit: 30, windowMs: 60_000 } });
    for (let i = 0; i < 4000; i++) await limiter.serializeWebhook(`old${i}`, async () => limiter.webhookDone(`old${i}`), undefined);
    expect(limiter.size.webhooks).toBe(4000);
    clock = 60_001;
    for (let i = 0; i < 600; i++) await limiter.serializeWebhook(`new${i}`, async () => limiter.webhookDone(`new${i}`), undefined);
    expect(limiter.size.webhooks).toBe(600);
  });

  it('holds little more than the live webhook windows while new ones keep coming (about 1,000 live of 20,000)', async () => {
    let clock = 0;
    const limiter = new MemoryRateLimitStore({ now: () => clock, webhookWindow: { limit: 30, windowMs: 1_000 } });
    // A new webhook every millisecond, each executed once: about 1,000 are live (executed within the last second) at any time.
    let most = 0;
    for (let i = 0; i < 20_000; i++) {
      await limiter.serializeWebhook(`w${i}`, async () => limiter.webhookDone(`w${i}`), undefined);
      clock += 1;
      most = Math.max(most, limiter.size.webhooks);
    }
    expect(most, `the most webhook windows held at once, with about 1,000 live`).toBeLessThanOrEqual(1_400);
  });

  it('never sweeps a lane while one of its executions runs: its window holds across the sweep', async () => {
    let clock = 0;
    const limiter = new MemoryRateLimitStore({ now: () => clock, webhookWindow: { limit: 1, windowMs: 60_000 } });
    const lane = limiter.webhookLane('busy');
    let finish!: () => void;
    const running = limiter.serializeWebhook('busy', () => new Promise<void>((resolve) => (finish = resolve)), undefined);
    // A long execution: meanwhile the clock passes the window and many new webhooks sweep past the busy one.
    clock = 120_000;
    for (let i = 0; i < 100; i++) await limiter.serializeWebhook(`other${i}`, async () => limiter.webhookDone(`other${i}`), undefined);
    expect(limiter.webhookLane('busy'), 'the busy webhook kept its lane while it ran').toBe(lane);
    lane.done();
    finish();
    await running;
    expect(limiter.tryWebhookTurn('busy'), 'a second execution within the minute of a 1-per-minute window').toBe(false);
  });

  it('after a full sweep, a webhook back again keeps its new lane while new ones sweep past', async () => {
    let clock = 0;
    const limiter = new MemoryRateLimitStore({ now: () => clock, webhookWindow: { limit: 30, windowMs: 60_000 } });
    for (let i = 0; i < 10; i++) await limiter.serializeWebhook(`w${i}`, async () => limiter.webhookDone(`w${i}`), undefined);
    clock = 60_001;
    limiter.sweep();
    expect(limiter.size.webhooks).toBe(0);
    const back = limiter.webhookLane('w0');
    let finish!: () => void;
    const running = limiter.serializeWebhook('w0', () => new Promise<void>((resolve) => (finish = resolve)), undefined);
    for (let i = 0; i < 20; i++) await limiter.serializeWebhook(`new${i}`, async () => limiter.webhookDone(`new${i}`), undefined);
    expect(limiter.webhookLane('w0'), 'the lane of w0, running, after new webhooks swept').toBe(back);
    finish();
    await running;
  });

  it('keeps every live webhook window (50,000 within the minute) while sweeping', async () => {
    let clock = 0;
    const limiter = new MemoryRateLimitStore({ now: () => clock, webhookWindow: { limit: 30, windowMs: 60_000 } });
    for (let i = 0; i < 50_000; i++) {
      await limiter.serializeWebhook(`w${i}`, async () => limiter.webhookDone(`w${i}`), undefined);
      if (i % 1000 === 0) clock += 1000;
    }
    expect(limiter.size.webhooks).toBe(50_000);
  });
});

describe('a server that keeps every bucket alive', () => {
  it('cannot make the limiter hold more than about 10,000 buckets, however long their resets', () => {
    const clock = 1_000_000;
    const limiter = new MemoryRateLimitStore({ now: () => clock, webhookWindow: undefined, maxPauseMs: 600_000 });
    const route = 'GET /channels/{channel_id}';
    for (let i = 0; i < 20_000; i++) {
      const key = limiter.bucketKey(route, `c${i}`);
      limiter.tryAcquire(key, 'normal');
      limiter.release(key);
      limiter.learn(route, `c${i}`, { limit: 1, remaining: 0, resetAfterMs: 1e12, bucket: undefined });
    }
    expect(limiter.size.buckets).toBeLessThanOrEqual(10_000 + 256);
  });
});

describe('the interaction-callback lane through a client (real loopback server)', () => {
  it('1,000 callbacks for distinct interactions, each answered with rate-limit headers, leave one bucket, not one per interaction', async () => {
    const server = await startLoopbackServer((_request, response) => {
      response.writeHead(204, {
        'x-ratelimit-limit': '5',
        'x-ratelimit-remaining': '4',
        'x-ratelimit-reset-after': '60',
        'x-ratelimit-bucket': 'interaction-callback',
      });
      response.end();
    });
    const store = new MemoryRateLimitStore();
    const client = new Client({ baseUrl: server.url, auth: { botToken: SECRETS.botToken }, rateLimitStore: store });
    try {
      for (let i = 0; i < 1000; i += 50) {
        await Promise.all(
          Array.from({ length: 50 }, (_, j) =>
            client.interactions.respond(`${1_000_000 + i + j}`, {
              interaction_type: InteractionCallbackType.ChannelMessageWithSource,
              data: { content: 'ok' },
            }),
          ),
        );
      }
      expect(server.requests).toHaveLength(1000);
      // Every learned window lies 60 s ahead, so a bucket per interaction would all still be held.
      expect(store.size.buckets).toBeLessThanOrEqual(2);
      expect(store.size.routeHashes).toBe(1);
    } finally {
      await client.close();
      await server.close();
    }
  });
});
