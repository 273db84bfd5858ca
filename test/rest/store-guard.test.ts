/**
 * A rate-limit store of the caller's that throws or rejects on the way to a
 * send: the caller gets a typed `RateLimitStoreError` that names the member
 * and never quotes what the store threw (it may hold the store's connection
 * secrets), nothing is sent, and a webhook turn already taken is given back.
 */
import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { Client, isCommunityChatError } from '../../src/index.js';
import { MemoryRateLimitStore, type RateLimitStore } from '../../src/stores.js';
import type { StoreErrorEvent } from '../../src/diagnostics.js';
import { startLimitsServer, type LimitsServer } from '../helpers/limits-server.js';

const SECRET = 'redis://ops:secret-password-in-url@cache.internal:6379';

type Member = 'bucketKey' | 'tryAcquire' | 'acquire' | 'tryWebhookTurn' | 'webhookTurn';

/** A store over the in-memory one whose `member` fails as `how`, counting the webhook turns taken and given back. */
function failing(member: Member, how: 'throw' | 'reject' | 'throwString') {
  const inner = new MemoryRateLimitStore();
  const thrown = how === 'throwString' ? `store lost its connection to ${SECRET}` : new TypeError(`store lost its connection to ${SECRET}`);
  const turns = { taken: 0, givenBack: 0 };
  const fail = () => {
    if (how === 'reject') return Promise.reject(thrown);
    throw thrown;
  };
  const store: RateLimitStore = {
    attach: (settings) => inner.attach(settings),
    bucketKey: (routeKey, major) => (member === 'bucketKey' ? (fail() as never) : inner.bucketKey(routeKey, major)),
    tryAcquire: (key, lane) => (member === 'tryAcquire' ? (fail() as never) : inner.tryAcquire(key, lane)),
    acquire: (key, lane, signal, guard) => (member === 'acquire' ? (fail() as never) : inner.acquire(key, lane, signal, guard)),
    release: (key) => inner.release(key),
    learn: (routeKey, major, headers) => inner.learn(routeKey, major, headers),
    pause: (key, ms, global) => inner.pause(key, ms, global),
    tryWebhookTurn: (webhookId) => {
      if (member === 'tryWebhookTurn') return fail() as never;
      const taken = inner.tryWebhookTurn(webhookId);
      if (taken) turns.taken++;
      return taken;
    },
    webhookTurn: (webhookId, signal, guard) =>
      member === 'webhookTurn' ? (fail() as never) : inner.webhookTurn(webhookId, signal, guard).then(() => void turns.taken++),
    webhookDone: (webhookId) => {
      turns.givenBack++;
      inner.webhookDone(webhookId);
    },
  };
  // `acquire` and `webhookTurn` are only reached when the synchronous try says no.
  if (member === 'acquire') store.tryAcquire = () => false;
  if (member === 'webhookTurn') store.tryWebhookTurn = () => false;
  return { store, thrown, turns };
}

describe('a rate-limit store that fails on the way to a send', () => {
  let server: LimitsServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  const cases: [Member, 'throw' | 'reject' | 'throwString'][] = [
    ['bucketKey', 'throw'],
    ['tryAcquire', 'throw'],
    ['tryAcquire', 'throwString'],
    ['acquire', 'throw'],
    ['acquire', 'reject'],
    ['tryWebhookTurn', 'throw'],
    ['webhookTurn', 'throw'],
    ['webhookTurn', 'reject'],
  ];

  it.each(cases)(
    '%s that fails (%s): a RateLimitStoreError naming it, the store secret nowhere, nothing sent, the webhook turn given back',
    async (member, how) => {
      server = await startLimitsServer({ webhookLimit: 6, webhookWindowMs: 60_000 });
      const { store, thrown, turns } = failing(member, how);
      const client = new Client({
        baseUrl: server.url,
        auth: { botToken: 'a-bot-token', webhookTokens: { wh1: 'a-webhook-token' } },
        rateLimitStore: store,
        webhookRateLimit: { limit: 3, windowMs: 60_000 },
      });
      try {
        const error = await client.webhooks.execute('wh1', { content: 'x' }).then(
          () => undefined,
          (caught: unknown) => caught,
        );
        expect(isCommunityChatError(error, 'RateLimitStoreError'), `what the caller got when ${member} failed: ${String(error)}`).toBe(true);
        const storeError = error as Error;
        expect(storeError.message).toContain(`its ${member} threw ${how === 'throwString' ? 'a string' : 'a TypeError'}`);
        // What the store threw is kept for the caller's debugging, but no text of the error shows it.
        expect(storeError.cause).toBe(thrown);
        for (const [where, text] of [
          ['message', storeError.message],
          ['stack', storeError.stack ?? ''],
          ['String()', String(storeError)],
          ['JSON', JSON.stringify(storeError)],
          ['util.inspect', inspect(storeError, { depth: 10 })],
        ] as const) {
          expect(text, `the store's secret in the error's ${where}`).not.toContain('secret-password-in-url');
        }
        expect(server.webhookAccepted, 'executions that reached the server').toEqual([]);
        expect(turns.givenBack, `webhook turns given back (taken: ${turns.taken})`).toBe(turns.taken);
      } finally {
        await client.close();
      }
    },
  );

  it("the SDK's own errors from a store pass unchanged: a wait the guard refuses is a RateLimitError, and its webhook turn is given back", async () => {
    server = await startLimitsServer({ webhookLimit: 6, webhookWindowMs: 60_000 });
    const { store, turns } = failing('bucketKey', 'throw');
    const inner = new MemoryRateLimitStore();
    const paused: RateLimitStore = {
      ...store,
      attach: (settings) => inner.attach(settings),
      bucketKey: (routeKey, major) => inner.bucketKey(routeKey, major),
      tryAcquire: () => false,
      acquire: (key, lane, signal, guard) => {
        inner.pause(key, 60_000, true);
        return inner.acquire(key, lane, signal, guard);
      },
    };
    const client = new Client({
      baseUrl: server.url,
      auth: { botToken: 'a-bot-token', webhookTokens: { wh1: 'a-webhook-token' } },
      rateLimitStore: paused,
      webhookRateLimit: { limit: 3, windowMs: 60_000 },
      deadlineMs: 5_000,
    });
    try {
      const error = await client.webhooks.execute('wh1', { content: 'x' }).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(isCommunityChatError(error, 'RateLimitError'), `what the caller got for a 60 s global pause within a 5 s deadline: ${String(error)}`).toBe(true);
      expect(turns, 'webhook turns taken and given back').toEqual({ taken: 1, givenBack: 1 });
    } finally {
      await client.close();
    }
  });

  it.each(['release', 'learn', 'webhookDone'] as const)(
    '%s that throws once the request was sent: the call keeps its outcome, the places are still given back, and a storeError names it without its text',
    async (member) => {
      server = await startLimitsServer({ webhookLimit: 6, webhookWindowMs: 60_000 });
      const inner = new MemoryRateLimitStore();
      const thrown = new Error(`store lost its connection to ${SECRET}`);
      const given = { releases: 0, turnsBack: 0 };
      const store: RateLimitStore = {
        attach: (settings) => inner.attach(settings),
        bucketKey: (routeKey, major) => inner.bucketKey(routeKey, major),
        acquire: (key, lane, signal, guard) => inner.acquire(key, lane, signal, guard),
        release: (key) => {
          given.releases++;
          inner.release(key);
          if (member === 'release') throw thrown;
        },
        learn: (routeKey, major, headers) => {
          inner.learn(routeKey, major, headers);
          if (member === 'learn') throw thrown;
        },
        pause: (key, ms, global) => inner.pause(key, ms, global),
        webhookTurn: (webhookId, signal, guard) => inner.webhookTurn(webhookId, signal, guard),
        webhookDone: (webhookId) => {
          given.turnsBack++;
          inner.webhookDone(webhookId);
          if (member === 'webhookDone') throw thrown;
        },
      };
      const client = new Client({
        baseUrl: (server as LimitsServer).url,
        auth: { botToken: 'a-bot-token', webhookTokens: { wh1: 'a-webhook-token' } },
        rateLimitStore: store,
        webhookRateLimit: { limit: 3, windowMs: 60_000 },
      });
      const reported: StoreErrorEvent[] = [];
      client.on('storeError', (event) => reported.push(event));
      try {
        await client.webhooks.execute('wh1', { content: 'sent' });
        expect(server.webhookAccepted.map((accepted) => accepted.content)).toEqual(['sent']);
        expect(given, 'bucket places and webhook turns given back for one execution').toEqual({ releases: 1, turnsBack: 1 });
        expect(reported.map((event) => event.store)).toEqual(['rateLimit']);
        const error = reported[0]?.error as Error;
        expect(error.message).toContain(`its ${member} threw an Error`);
        expect(error.cause).toBe(thrown);
        expect(`${error.message} ${error.stack} ${inspect(error, { depth: 10 })}`, "the store's secret in the reported error").not.toContain(
          'secret-password-in-url',
        );
      } finally {
        await client.close();
      }
    },
  );
});
