/**
 * The worker's dead letters on a real Redis: a poison event after
 * `maxDeliveries`, an expired interaction, an unreadable entry; listing,
 * replaying and purging them; no interaction token in what is reported.
 */
import { expect, it } from 'vitest';
import { makeSnowflake } from '../../src/core/constants.js';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { Client } from '../../src/index.js';
import { DIAGNOSTICS_CHANNELS, type StreamStepMessage } from '../../src/diagnostics.js';
import { createEventWorker, createRedisEventStream, type EventWorker, type EventWorkerEvents, type OrderKeyFunction } from '../../src/redis/index.js';
import { describeWithRedis, useRedis } from '../helpers/redis-server.js';
import { until } from '../helpers/until.js';

describeWithRedis('the event worker’s dead letters', () => {
  const redis = useRedis();
  let n = 0;

  function setup(options: { maxDeliveries?: number; claimIdleMs?: number } = {}) {
    const stream = createRedisEventStream({ client: redis.connection, stream: `worker-${++n}` });
    // Nothing is answered in these tests: the client never sends.
    const client = new Client({ baseUrl: 'http://127.0.0.1:1', auth: { botToken: 'a-bot-token' } });
    const worker = createEventWorker({ stream, group: 'g', consumer: 'w', client, pollMs: 5, claimIdleMs: 100, ...options });
    const dead: EventWorkerEvents['deadLetter'][0][] = [];
    worker.on('deadLetter', (event) => dead.push(event));
    return { stream, worker, client, dead };
  }

  async function stop(worker: EventWorker, client: Client) {
    await worker.close();
    await client.close();
  }

  it('a poison event goes to the dead letters after maxDeliveries, acknowledged and deleted; the stream keeps flowing', async () => {
    const { stream, worker, client, dead } = setup({ maxDeliveries: 3 });
    const seen: string[] = [];
    let attempts = 0;
    worker.onDispatch('MESSAGE_CREATE', (event) => {
      const content = (event.data as { content: string }).content;
      if (content === 'poison') {
        attempts++;
        throw new Error('the handler always fails on this one');
      }
      seen.push(content);
    });
    try {
      await worker.start();
      await stream.publish([
        { t: 'MESSAGE_CREATE', s: 1, d: { content: 'poison' }, shardId: 0 },
        { t: 'MESSAGE_CREATE', s: 2, d: { content: 'fine' }, shardId: 0 },
      ]);
      await until(() => dead.length === 1, { what: 'the poison event dead-lettered', timeoutMs: 5000 });
      expect(attempts).toBe(3);
      expect(dead[0]).toMatchObject({ type: 'MESSAGE_CREATE', reason: 'max-deliveries', deliveries: 3, error: 'the handler always fails on this one' });
      await stream.publish([{ t: 'MESSAGE_CREATE', s: 3, d: { content: 'after' }, shardId: 0 }]);
      await until(() => seen.includes('after'), { what: 'the stream flowing after the poison event' });
      const backlog = await stream.backlog();
      expect(backlog.groups[0]?.pending).toBe(0);
      expect(backlog.deadLetters).toBe(1);
      // The dead letter was deleted from the stream: only the two good entries remain (until trimmed).
      expect(backlog.length).toBe(2);
      const [letter] = await stream.deadLetters();
      expect(letter).toMatchObject({ type: 'MESSAGE_CREATE', reason: 'max-deliveries', deliveries: 3, data: { content: 'poison' } });

      // Replayed: a new entry, delivered afresh (and failing again); purged.
      attempts = 0;
      expect(await stream.replayDeadLetter(letter?.id ?? '')).toBeDefined();
      expect((await stream.backlog()).deadLetters).toBe(0);
      await until(() => dead.length === 2, { what: 'the replayed poison event dead-lettered again', timeoutMs: 5000 });
      expect(attempts).toBe(3);
      expect(await stream.replayDeadLetter('0-1')).toBeUndefined();
      expect(await stream.purgeDeadLetters()).toBe(1);
      expect(await stream.deadLetters()).toEqual([]);
    } finally {
      await stop(worker, client);
    }
  });

  it('a handler throwing what String() cannot read is reported (handlerFailed) and dead-lettered at maxDeliveries like any failure', async () => {
    const { stream, worker, client, dead } = setup({ maxDeliveries: 1 });
    const failed: EventWorkerEvents['handlerFailed'][0][] = [];
    worker.on('handlerFailed', (event) => void failed.push(event));
    worker.onDispatch('MESSAGE_CREATE', () => {
      throw Object.create(null);
    });
    try {
      await worker.start();
      await stream.publish([{ t: 'MESSAGE_CREATE', s: 1, d: { content: 'odd' }, shardId: 0 }]);
      await until(() => dead.length === 1, { what: () => `the entry dead-lettered (${failed.length} handlerFailed events)` });
      expect(failed.map((event) => [event.error.message, event.retried])).toEqual([['a thrown object that cannot be read as text', false]]);
      expect(dead[0]).toMatchObject({ reason: 'max-deliveries', deliveries: 1, error: 'a thrown object that cannot be read as text' });
      expect((await stream.backlog()).groups[0]?.pending).toBe(0);
    } finally {
      await stop(worker, client);
    }
  });

  it('an interaction past its 15 minutes goes to the dead letters as expired, without running; no token in the event or the error', async () => {
    const { stream, worker, client, dead } = setup();
    let ran = false;
    worker.onCommand('ping', () => {
      ran = true;
    });
    const token = 'interaction-token-that-must-not-leak';
    const old = makeSnowflake(Date.now() - 16 * 60_000, 1);
    const steps: StreamStepMessage[] = [];
    const listener = (message: unknown) => void steps.push(message as StreamStepMessage);
    subscribe(DIAGNOSTICS_CHANNELS.streamStep, listener);
    try {
      await worker.start();
      await stream.publish([
        { t: 'INTERACTION_CREATE', s: 1, d: { id: old, application_id: '1', type: 2, token, version: 1, data: { id: '2', name: 'ping' } }, shardId: 0 },
        // Not an interaction the SDK can type (no id, a type that is not a number): malformed.
        { t: 'INTERACTION_CREATE', s: 2, d: { type: 'command', token, data: { name: `leaks ${token}` } }, shardId: 0 },
      ]);
      await until(() => dead.length === 2, { what: 'the expired and the malformed interaction dead-lettered' });
      expect(ran).toBe(false);
      expect(dead.map((event) => event.reason).sort()).toEqual(['expired', 'malformed']);
      expect(JSON.stringify(dead)).not.toContain(token);
      const letters = await stream.deadLetters();
      expect(letters.map((letter) => letter.error).join(' ')).not.toContain(token);
      expect((await stream.backlog()).groups[0]?.pending).toBe(0);
      // Each step is on the diagnostics channel, with ids and reasons and no payload or token.
      expect(
        steps
          .filter((step) => step.step === 'deadLetter')
          .map((step) => step.reason)
          .sort(),
      ).toEqual(['expired', 'malformed']);
      expect(steps.every((step) => step.stream === stream.key && step.group === 'g' && step.consumer === 'w')).toBe(true);
      expect(JSON.stringify(steps)).not.toContain(token);
    } finally {
      unsubscribe(DIAGNOSTICS_CHANNELS.streamStep, listener);
      await stop(worker, client);
    }
  });

  it('the trim removes only what every group acknowledged: a second group that has not read keeps everything', async () => {
    const { stream, worker, client } = setup();
    const seen: number[] = [];
    worker.onDispatch('MESSAGE_CREATE', (event) => void seen.push(Number((event.data as { n: number }).n)));
    try {
      await worker.start();
      await redis.connection.sendCommand(['XGROUP', 'CREATE', stream.key, 'slow', '0']);
      await stream.publish(Array.from({ length: 10 }, (_, i) => ({ t: 'MESSAGE_CREATE', s: i + 1, d: { n: i }, shardId: 0 })));
      await until(() => seen.length === 10, { what: 'ten events handled' });
      await until(async () => (await stream.backlog()).groups.find((group) => group.name === 'g')?.pending === 0, { what: 'acknowledged' });
      expect(await stream.trim()).toBe(0);
      expect((await stream.backlog()).length).toBe(10);
      // The slow group reads and acknowledges six: those six go, four stay.
      const read = (await redis.connection.sendCommand(['XREADGROUP', 'GROUP', 'slow', 's1', 'COUNT', '6', 'STREAMS', stream.key, '>'])) as Record<
        string,
        [string][]
      >;
      const ids = (read[stream.key] ?? []).map((entry) => entry[0]);
      await redis.connection.sendCommand(['XACK', stream.key, 'slow', ...ids]);
      expect(await stream.trim()).toBe(6);
      expect((await stream.backlog()).length).toBe(4);
    } finally {
      await stop(worker, client);
    }
  });

  const byCommunity: OrderKeyFunction = (event) => `community:${(event.data as { guild_id: string }).guild_id}`;
  it.each([
    ["orderBy 'guild'", 'guild' as const],
    ['an orderBy key function', byCommunity],
  ])("%s: one community's events run one at a time in stream order, other communities meanwhile", async (_, orderBy) => {
    const stream = createRedisEventStream({ client: redis.connection, stream: `worker-${++n}` });
    const client = new Client({ baseUrl: 'http://127.0.0.1:1', auth: { botToken: 'a-bot-token' } });
    const worker = createEventWorker({ stream, group: 'g', consumer: 'w', client, pollMs: 5, orderBy, concurrency: 16 });
    const seen = new Map<string, number[]>();
    let running = 0;
    let peak = 0;
    let overlapped = false;
    const busy = new Map<string, boolean>();
    const held: (() => void)[] = [];
    const releaseNewestFirst = () => {
      for (const release of held.splice(0).reverse()) release();
    };
    worker.onDispatch('MESSAGE_CREATE', async (event) => {
      const { guild_id: guild, n: order } = event.data as { guild_id: string; n: number };
      if (busy.get(guild)) overlapped = true;
      busy.set(guild, true);
      running++;
      peak = Math.max(peak, running);
      // Handlers are held, and the held ones released newest first once the turn's starts are in: without the order,
      // the later events of a community would finish before the earlier ones.
      await new Promise<void>((release) => {
        held.push(release);
        if (held.length === 1) setImmediate(() => releaseNewestFirst());
      });
      running--;
      busy.set(guild, false);
      seen.set(guild, [...(seen.get(guild) ?? []), order]);
    });
    try {
      await worker.start();
      await stream.publish(
        Array.from({ length: 40 }, (_, i) => ({ t: 'MESSAGE_CREATE', s: i + 1, d: { guild_id: String(100 + (i % 4)), n: Math.floor(i / 4) }, shardId: 0 })),
      );
      await until(() => [...seen.values()].reduce((sum, list) => sum + list.length, 0) === 40, { what: 'forty events handled' });
      for (const list of seen.values()) expect(list).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      expect(overlapped).toBe(false);
      // Four communities ran side by side.
      expect(peak).toBeGreaterThan(1);
    } finally {
      await stop(worker, client);
    }
  });

  it('an orderBy key function that throws or gives an unusable key loses no event: each is reported and runs unordered', async () => {
    const stream = createRedisEventStream({ client: redis.connection, stream: `worker-${++n}` });
    const client = new Client({ baseUrl: 'http://127.0.0.1:1', auth: { botToken: 'a-bot-token' } });
    const orderBy: OrderKeyFunction = (event) => {
      const { key } = event.data as { key: string };
      if (key === 'throw') throw new Error(`no key for this one (token interaction-token-in-data)`);
      // Values String() cannot read: the entry is held already, so a throw here would leave it stuck forever.
      if (key === 'null-object') throw Object.create(null);
      if (key === 'unreadable') {
        const error = new Error('hidden');
        Object.defineProperty(error, 'message', {
          get() {
            throw new Error('message getter broke');
          },
        });
        throw error;
      }
      if (key === 'long') return 'k'.repeat(257);
      if (key === 'number') return 42 as unknown as string;
      return key;
    };
    const worker = createEventWorker({ stream, group: 'g', consumer: 'w', client, pollMs: 5, orderBy });
    const handled: string[] = [];
    const errors: Error[] = [];
    worker.on('error', (error) => void errors.push(error));
    worker.onDispatch('MESSAGE_CREATE', (event) => void handled.push((event.data as { key: string }).key));
    try {
      await worker.start();
      const ids = await stream.publish(
        ['throw', 'long', 'number', 'null-object', 'unreadable', 'fine'].map((key, i) => ({
          t: 'MESSAGE_CREATE',
          s: i + 1,
          d: { key, token: 'interaction-token-in-data' },
          shardId: 0,
        })),
      );
      await until(() => handled.length === 6 && errors.length === 5, {
        what: () => `six events handled and five key failures reported (handled ${handled.join(', ')}; ${errors.length} reported)`,
      });
      expect(handled.sort()).toEqual(['fine', 'long', 'null-object', 'number', 'throw', 'unreadable']);
      expect(errors.map((error) => error.message)).toEqual([
        `Invalid input for orderBy: stream entry ${ids[0]} (MESSAGE_CREATE): the key function threw: no key for this one (token [redacted]); it runs unordered`,
        `Invalid input for orderBy: stream entry ${ids[1]} (MESSAGE_CREATE): the key must be 1 to 256 characters (got 257); it runs unordered`,
        `Invalid input for orderBy: stream entry ${ids[2]} (MESSAGE_CREATE): the key must be a string (got number); it runs unordered`,
        `Invalid input for orderBy: stream entry ${ids[3]} (MESSAGE_CREATE): the key function threw: a thrown object that cannot be read as text; it runs unordered`,
        `Invalid input for orderBy: stream entry ${ids[4]} (MESSAGE_CREATE): the key function threw: a thrown object that cannot be read as text; it runs unordered`,
      ]);
      expect((await stream.backlog()).groups[0]?.pending).toBe(0);
    } finally {
      await stop(worker, client);
    }
  });

  it('warns with a backlog event when more than maxBacklog entries wait in its group', async () => {
    const stream = createRedisEventStream({ client: redis.connection, stream: `worker-${++n}` });
    const client = new Client({ baseUrl: 'http://127.0.0.1:1', auth: { botToken: 'a-bot-token' } });
    const worker = createEventWorker({ stream, group: 'g', consumer: 'w', client, pollMs: 5, concurrency: 2, trimEveryMs: 100, maxBacklog: 5 });
    let release: () => void = () => undefined;
    const blocked = new Promise<void>((resolve) => (release = resolve));
    worker.onDispatch('MESSAGE_CREATE', () => blocked);
    const warned = new Promise<EventWorkerEvents['backlog'][0]>((resolve) => worker.once('backlog', resolve));
    try {
      await worker.start();
      await stream.publish(Array.from({ length: 20 }, (_, i) => ({ t: 'MESSAGE_CREATE', s: i + 1, d: { n: i }, shardId: 0 })));
      const backlog = await warned;
      const group = backlog.groups.find((candidate) => candidate.name === 'g');
      expect((group?.pending ?? 0) + (group?.undelivered ?? 0)).toBeGreaterThan(5);
      expect(backlog.oldestAgeMs).toBeGreaterThanOrEqual(0);
    } finally {
      release();
      await stop(worker, client);
    }
  });

  it('entries Redis lost while they were pending are reported (lost) and acknowledged, not silently skipped', async () => {
    const stream = createRedisEventStream({ client: redis.connection, stream: `worker-${++n}` });
    await redis.connection.sendCommand(['XGROUP', 'CREATE', stream.key, 'g', '0', 'MKSTREAM']);
    const ids = await stream.publish(Array.from({ length: 3 }, (_, i) => ({ t: 'MESSAGE_CREATE', s: i + 1, d: { n: i }, shardId: 0 })));
    // A consumer reads them and dies; then the entries vanish from the stream (as after a restart that lost them).
    await redis.connection.sendCommand(['XREADGROUP', 'GROUP', 'g', 'ghost', 'COUNT', '3', 'STREAMS', stream.key, '>']);
    await redis.connection.sendCommand(['XDEL', stream.key, ...ids.slice(0, 2)]);
    const client = new Client({ baseUrl: 'http://127.0.0.1:1', auth: { botToken: 'a-bot-token' } });
    const worker = createEventWorker({ stream, group: 'g', consumer: 'w', client, pollMs: 5, claimIdleMs: 50 });
    const handled: number[] = [];
    worker.onDispatch('MESSAGE_CREATE', (event) => void handled.push((event.data as { n: number }).n));
    const lost = new Promise<string[]>((resolve) => worker.once('lost', (event) => resolve(event.ids)));
    try {
      await worker.start();
      expect((await lost).sort()).toEqual(ids.slice(0, 2).sort());
      await until(() => handled.length === 1, { what: 'the entry still there handled' });
      expect(handled).toEqual([2]);
      await until(async () => (await stream.backlog()).groups[0]?.pending === 0, { what: 'nothing left pending' });
    } finally {
      await stop(worker, client);
    }
  });
});
