/**
 * The public `RateLimitStore` interface: clients sharing a store never take
 * each other's settings, and a store written against the interface alone
 * (no fast paths) is driven correctly by the pipeline, webhook order included.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Client, ValidationError, isCommunityChatError } from '../../src/index.js';
import { MemoryRateLimitStore, type RateLimitStore } from '../../src/stores.js';
import { until } from '../helpers/until.js';
import { startLimitsServer, type LimitsServer } from '../helpers/limits-server.js';

/** A store that only forwards the interface's eight members, as a user's own store would implement them. */
function interfaceOnly(inner: RateLimitStore): RateLimitStore {
  return {
    attach: (settings) => inner.attach(settings),
    bucketKey: (routeKey, major) => inner.bucketKey(routeKey, major),
    acquire: (key, lane, signal, guard) => inner.acquire(key, lane, signal, guard),
    release: (key, signal) => inner.release(key, signal),
    learn: (routeKey, major, headers) => inner.learn(routeKey, major, headers),
    pause: (key, ms, global) => inner.pause(key, ms, global),
    webhookTurn: (webhookId, signal, guard) => inner.webhookTurn(webhookId, signal, guard),
    webhookDone: (webhookId, signal) => inner.webhookDone(webhookId, signal),
  };
}

describe('RateLimitStore', () => {
  let server: LimitsServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("clients sharing a store share its settings: one with other settings is refused, naming them, and the store keeps the first client's", async () => {
    const store = new MemoryRateLimitStore();
    const first = new Client({
      baseUrl: 'http://127.0.0.1:1',
      auth: { botToken: 'a-bot-token' },
      rateLimitStore: store,
      webhookRateLimit: { limit: 2, windowMs: 500 },
    });
    const error = (() => {
      try {
        new Client({ baseUrl: 'http://127.0.0.1:1', auth: { botToken: 'a-bot-token' }, rateLimitStore: store, globalRateLimit: { limit: 5, windowMs: 1000 } });
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(isCommunityChatError(error, 'ValidationError')).toBe(true);
    const issues = (error as ValidationError).issues.map((issue) => issue.path);
    expect(issues).toEqual(['webhookRateLimit', 'globalRateLimit']);
    expect(String(error)).toContain('2 per 500 ms');
    // The refused client changed nothing: another with the first client's settings attaches, one with the refused settings is still refused.
    const second = new Client({
      baseUrl: 'http://127.0.0.1:1',
      auth: { botToken: 'a-bot-token' },
      rateLimitStore: store,
      webhookRateLimit: { limit: 2, windowMs: 500 },
    });
    expect(
      () =>
        new Client({ baseUrl: 'http://127.0.0.1:1', auth: { botToken: 'a-bot-token' }, rateLimitStore: store, webhookRateLimit: { limit: 30, windowMs: 500 } }),
    ).toThrow(ValidationError);
    await Promise.all([first.close(), second.close()]);
  });

  it('a store created with settings keeps them: a client with the same is served, one with others is refused', () => {
    const store = new MemoryRateLimitStore({ webhookWindow: undefined });
    expect(() => new Client({ baseUrl: 'http://127.0.0.1:1', auth: { botToken: 'a-bot-token' }, rateLimitStore: store })).toThrow(
      /webhookRateLimit: 30 per 60000 ms, but the store already serves off/,
    );
    expect(
      () => new Client({ baseUrl: 'http://127.0.0.1:1', auth: { botToken: 'a-bot-token' }, rateLimitStore: store, webhookRateLimit: false }),
    ).not.toThrow();
  });

  it("a store implementing only the interface: the pipeline runs a webhook's executions in call order and inside its window", async () => {
    server = await startLimitsServer({ webhookLimit: 3, webhookWindowMs: 300 });
    const client = new Client({
      baseUrl: server.url,
      auth: { botToken: 'a-bot-token', webhookTokens: { wh1: 'a-webhook-token' } },
      rateLimitStore: interfaceOnly(new MemoryRateLimitStore()),
      webhookRateLimit: { limit: 3, windowMs: 300 },
    });
    try {
      const contents = Array.from({ length: 10 }, (_, i) => `message-${i}`);
      await Promise.all(contents.map((content) => client.webhooks.execute('wh1', { content })));
      expect(server.webhookViolations).toBe(0);
      expect(server.webhookAccepted.map((accepted) => accepted.content)).toEqual(contents);
    } finally {
      await client.close();
    }
  });
});

describe('RateLimitStore places', () => {
  let server: LimitsServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('each bucket place is released with the signal it was taken with, so a store holding several places of a bucket releases the right one', async () => {
    server = await startLimitsServer({ webhookLimit: 3, webhookWindowMs: 300 });
    const inner = new MemoryRateLimitStore();
    const taken: (AbortSignal | undefined)[] = [];
    const released: (AbortSignal | undefined)[] = [];
    const store: RateLimitStore = {
      ...interfaceOnly(inner),
      acquire: async (key, lane, signal, guard) => {
        await inner.acquire(key, lane, signal, guard);
        taken.push(signal);
      },
      release: (key, signal) => {
        released.push(signal);
        inner.release(key);
      },
    };
    const client = new Client({ baseUrl: server.url, auth: { botToken: 'a-bot-token' }, rateLimitStore: store });
    try {
      await Promise.all(Array.from({ length: 6 }, (_, i) => client.channels.get(String(100 + i)).catch(() => undefined)));
      expect(taken.length, 'places taken').toBe(6);
      expect(new Set(taken).size, 'each request its own signal').toBe(6);
      expect(released.map((signal) => taken.indexOf(signal)).sort(), 'the place each release names, by the request that took it').toEqual([0, 1, 2, 3, 4, 5]);
    } finally {
      await client.close();
    }
  });
});

describe('the deadline of a call that never waits', () => {
  let server: LimitsServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('a call that never waits creates no deadline timer (releasing its bucket place included)', async () => {
    server = await startLimitsServer({ routeLimit: 1000 });
    const client = new Client({ baseUrl: server.url, auth: { botToken: 'shared-bot-token' }, deadlineMs: 123_457 });
    try {
      await client.channels.get('100').catch(() => undefined); // warm-up (imports, bucket discovery)
      const spy = vi.spyOn(globalThis, 'setTimeout');
      for (let i = 0; i < 20; i++) await client.channels.get(String(200 + i)).catch(() => undefined);
      const deadlineTimers = spy.mock.calls.filter(([, ms]) => typeof ms === 'number' && ms > 100_000 && ms <= 123_457).length;
      spy.mockRestore();
      expect(deadlineTimers, 'deadline timers set by 20 calls that never waited').toBe(0);
    } finally {
      await client.close();
    }
  });
});

describe("RateLimitStore's optional synchronous tries", () => {
  let server: LimitsServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  /** A store over the in-memory one counting each member the pipeline calls; with `tries`, its synchronous tries too. */
  function counted(tries: boolean) {
    const inner = new MemoryRateLimitStore();
    const calls = { tryAcquire: 0, acquire: 0, tryWebhookTurn: 0, webhookTurn: 0 };
    const store: RateLimitStore = {
      ...interfaceOnly(inner),
      acquire: (key, lane, signal, guard) => (calls.acquire++, inner.acquire(key, lane, signal, guard)),
      webhookTurn: (webhookId, signal, guard) => (calls.webhookTurn++, inner.webhookTurn(webhookId, signal, guard)),
      ...(tries
        ? {
            tryAcquire: (key, lane) => (calls.tryAcquire++, inner.tryAcquire(key, lane)),
            tryWebhookTurn: (webhookId) => (calls.tryWebhookTurn++, inner.tryWebhookTurn(webhookId)),
          }
        : {}),
    };
    return { store, calls };
  }

  /** Executes the messages in order on webhook `wh1` through a client over `store` (a window of 3 a minute), then closes it. */
  async function executeThrough(store: RateLimitStore, contents: string[]): Promise<void> {
    const client = new Client({
      baseUrl: (server as LimitsServer).url,
      auth: { botToken: 'a-bot-token', webhookTokens: { wh1: 'a-webhook-token' } },
      rateLimitStore: store,
      webhookRateLimit: { limit: 3, windowMs: 60_000 },
    });
    try {
      for (const content of contents) await client.webhooks.execute('wh1', { content });
    } finally {
      await client.close();
    }
  }

  it('a store with them is tried first and not waited on when the try says yes; one without them is waited on for every request', async () => {
    // Room on the server for both clients' executions: each client's own window (3) is what the store keeps.
    server = await startLimitsServer({ webhookLimit: 6, webhookWindowMs: 60_000 });
    for (const tries of [true, false]) {
      const { store, calls } = counted(tries);
      await executeThrough(store, ['one', 'two', 'three']);
      const expected = tries
        ? { tryAcquire: 3, acquire: 0, tryWebhookTurn: 3, webhookTurn: 0 }
        : { tryAcquire: 0, acquire: 3, tryWebhookTurn: 0, webhookTurn: 3 };
      expect(calls, `the store's members the pipeline called for 3 executions with room (${tries ? 'with' : 'without'} the tries)`).toEqual(expected);
    }
  });

  it('a try that says no is followed by the asynchronous wait, once per request', async () => {
    server = await startLimitsServer({ webhookLimit: 3, webhookWindowMs: 60_000 });
    const { store, calls } = counted(false);
    const refusing: RateLimitStore = { ...store, tryAcquire: () => (calls.tryAcquire++, false), tryWebhookTurn: () => (calls.tryWebhookTurn++, false) };
    await executeThrough(refusing, ['one', 'two']);
    expect(calls, "the store's members the pipeline called for 2 executions whose tries said no").toEqual({
      tryAcquire: 2,
      acquire: 2,
      tryWebhookTurn: 2,
      webhookTurn: 2,
    });
    expect(server.webhookAccepted.map((accepted) => accepted.content)).toEqual(['one', 'two']);
  });
});

describe('the places a request takes from its store are given back once, whether or not it reaches its send', () => {
  let server: LimitsServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  /**
   * A store over the in-memory one recording each place the pipeline takes (a webhook turn, a bucket's place) and gives
   * back, with the signal of each turn; the wait of the member named by `holding` answers only when the test calls `grant()`.
   */
  function recording(holding: 'acquire' | 'webhookTurn') {
    const inner = new MemoryRateLimitStore();
    const log = { turns: [] as (AbortSignal | undefined)[], turnsBack: [] as (AbortSignal | undefined)[], places: 0, placesBack: 0, acquireCalls: 0 };
    let grant: () => void = () => undefined;
    const granted = new Promise<void>((resolve) => {
      grant = resolve;
    });
    const store: RateLimitStore = {
      ...interfaceOnly(inner),
      acquire: async (key, lane, signal, guard) => {
        log.acquireCalls++;
        if (holding === 'acquire') await granted;
        else await inner.acquire(key, lane, signal, guard);
        log.places++;
      },
      release: (key) => {
        log.placesBack++;
        inner.release(key);
      },
      webhookTurn: async (webhookId, signal, guard) => {
        if (holding === 'webhookTurn') await granted;
        else await inner.webhookTurn(webhookId, signal, guard);
        log.turns.push(signal);
      },
      webhookDone: (webhookId, signal) => {
        log.turnsBack.push(signal);
        inner.webhookDone(webhookId);
      },
    };
    return { store, log, grant: () => grant() };
  }

  function webhookClient(store: RateLimitStore, deadlineMs = 60_000) {
    return new Client({
      baseUrl: (server as LimitsServer).url,
      auth: { botToken: 'a-bot-token', webhookTokens: { wh1: 'a-webhook-token' } },
      rateLimitStore: store,
      webhookRateLimit: { limit: 3, windowMs: 60_000 },
      deadlineMs,
    });
  }

  it('the caller aborts while the bucket wait is pending: the webhook turn is given back at once, the bucket place when the store grants it later', async () => {
    server = await startLimitsServer({ webhookLimit: 6, webhookWindowMs: 60_000 });
    const { store, log, grant } = recording('acquire');
    const client = webhookClient(store);
    try {
      const controller = new AbortController();
      const call = client.webhooks.execute('wh1', { content: 'x' }, { signal: controller.signal }).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      await until(() => log.acquireCalls === 1, { what: 'the bucket wait to start' });
      controller.abort(new Error('the caller gave up'));
      expect(isCommunityChatError(await call, 'AbortError'), 'what the aborted caller got').toBe(true);
      expect(log.turnsBack, 'the webhook turn given back, with the signal it was taken with').toEqual(log.turns);
      expect(log.turns).toHaveLength(1);
      expect(log.placesBack, 'bucket places given back before the store granted one').toBe(0);
      grant();
      await until(() => log.places === 1 && log.placesBack === 1, {
        what: () => `the late grant given back (granted ${log.places}, given back ${log.placesBack})`,
      });
      expect(server.webhookAccepted, 'executions that reached the server').toEqual([]);
      // Nothing more is given back: a second release would free another request's place.
      await client.webhooks.execute('wh1', { content: 'after' });
      expect({ turns: log.turns.length, turnsBack: log.turnsBack.length, places: log.places, placesBack: log.placesBack }).toEqual({
        turns: 2,
        turnsBack: 2,
        places: 2,
        placesBack: 2,
      });
    } finally {
      await client.close();
    }
  });

  it('the deadline passes while the webhook turn is pending: the turn the store grants later is given back once, with its signal, and no bucket place is taken', async () => {
    server = await startLimitsServer({ webhookLimit: 6, webhookWindowMs: 60_000 });
    const { store, log, grant } = recording('webhookTurn');
    const client = webhookClient(store, 50);
    try {
      const error = await client.webhooks.execute('wh1', { content: 'x' }).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(isCommunityChatError(error, 'TimeoutError'), `what the caller got at its deadline: ${String(error)}`).toBe(true);
      expect(log.turnsBack, 'turns given back before the store granted one').toEqual([]);
      grant();
      await until(() => log.turnsBack.length === 1, { what: 'the late turn given back' });
      expect(log.turnsBack[0], 'the signal the turn was given back with').toBe(log.turns[0]);
      expect(log.turns[0]).toBeInstanceOf(AbortSignal);
      expect(log.acquireCalls, 'bucket waits started').toBe(0);
      expect(server.webhookAccepted).toEqual([]);
    } finally {
      await client.close();
    }
  });
});
