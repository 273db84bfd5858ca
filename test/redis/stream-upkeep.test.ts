/**
 * The worker pool, operated (`redis/stream-upkeep.ts`, `redis/event-worker.ts`, `redis/stream-status.ts`) on a real Redis:
 * each failed handler attempt is an event; `reclaimed` names the consumers entries were taken from and stays silent for a
 * worker taking back its own; consumers idle past a bound are removed from the group; a backlog monitor warns from a
 * process that runs no worker; the stream's status counts pending entries by age.
 */
import { expect, it } from 'vitest';
import { Client } from '../../src/index.js';
import {
  createBacklogMonitor,
  createEventWorker,
  createRedisEventStream,
  type EventWorkerEvents,
  readStreamStatus,
  streamStatusText,
} from '../../src/redis/index.js';
import type { RedisEventStream } from '../../src/redis/event-stream.js';
import { upkeep } from '../../src/redis/stream-upkeep.js';
import { describeWithRedis, useRedis } from '../helpers/redis-server.js';
import { validationRefusal } from '../helpers/refusal.js';
import { until } from '../helpers/until.js';

describeWithRedis('the worker pool, operated', () => {
  const redis = useRedis();
  let n = 0;
  const client = () => new Client({ baseUrl: 'http://127.0.0.1:1', auth: { botToken: 'a-bot-token' } });

  it('each failed handler attempt is a handlerFailed event, the first one included, saying whether it comes again', async () => {
    const stream = createRedisEventStream({ client: redis.connection, stream: `upkeep-${++n}` });
    const c = client();
    const worker = createEventWorker({ stream, group: 'g', consumer: 'w', client: c, pollMs: 5, claimIdleMs: 100, maxDeliveries: 2 });
    const failed: EventWorkerEvents['handlerFailed'][0][] = [];
    worker.on('handlerFailed', (event) => failed.push(event));
    worker.onDispatch('MESSAGE_CREATE', () => {
      throw new Error('the handler throws');
    });
    try {
      await worker.start();
      const [id] = await stream.publish([{ t: 'MESSAGE_CREATE', s: 1, d: { content: 'x' }, shardId: 3 }]);
      await until(() => failed.length === 1, { what: 'the first failed attempt reported' });
      expect(failed[0]).toMatchObject({ id, type: 'MESSAGE_CREATE', shardId: 3, deliveries: 1, retried: true });
      expect(failed[0]?.error).toBeInstanceOf(Error);
      expect(failed[0]?.error.message).toBe('the handler throws');
      await until(() => failed.length === 2, { what: 'the second (last) attempt reported' });
      expect(failed[1]).toMatchObject({ deliveries: 2, retried: false });
    } finally {
      await worker.close();
      await c.close();
    }
  });

  it('reclaimed names the consumer an entry was taken from, and a worker taking back its own entries after a restart says nothing', async () => {
    const stream = createRedisEventStream({ client: redis.connection, stream: `upkeep-${++n}` });
    await stream.createGroup('g', '0');
    await stream.publish([
      { t: 'MESSAGE_CREATE', s: 1, d: { content: 'a' }, shardId: 0 },
      { t: 'MESSAGE_CREATE', s: 2, d: { content: 'b' }, shardId: 0 },
    ]);
    // Consumer "dead" read the first entry and died; consumer "w" read the second, then restarted.
    await redis.connection.sendCommand(['XREADGROUP', 'GROUP', 'g', 'dead', 'COUNT', '1', 'STREAMS', stream.key, '>']);
    await redis.connection.sendCommand(['XREADGROUP', 'GROUP', 'g', 'w', 'COUNT', '1', 'STREAMS', stream.key, '>']);
    const c = client();
    const worker = createEventWorker({ stream, group: 'g', consumer: 'w', client: c, pollMs: 5, claimIdleMs: 100 });
    const reclaimed: EventWorkerEvents['reclaimed'][0][] = [];
    const handled: string[] = [];
    worker.on('reclaimed', (event) => reclaimed.push(event));
    worker.onDispatch('MESSAGE_CREATE', (event) => void handled.push((event.data as { content: string }).content));
    try {
      await worker.start();
      await until(() => handled.length === 2, { what: 'both entries handled by w' });
      expect(handled.sort()).toEqual(['a', 'b']);
      const [first] = await stream.command(['XRANGE', stream.key, '-', '+', 'COUNT', '1']).then((r) => r as [string][]);
      expect(reclaimed).toEqual([{ ids: [first?.[0]], from: ['dead'] }]);
    } finally {
      await worker.close();
      await c.close();
    }
  });

  it('consumers idle past removeIdleConsumersMs with nothing pending are removed from the group; one with entries pending stays', async () => {
    const stream = createRedisEventStream({ client: redis.connection, stream: `upkeep-${++n}` });
    await stream.createGroup('g', '0');
    await stream.publish([{ t: 'MESSAGE_CREATE', s: 1, d: {}, shardId: 0 }]);
    await redis.connection.sendCommand(['XGROUP', 'CREATECONSUMER', stream.key, 'g', 'stopped']);
    // "holding" has an entry pending; claimIdleMs is long, so the worker does not take it over during the test.
    await redis.connection.sendCommand(['XREADGROUP', 'GROUP', 'g', 'holding', 'COUNT', '1', 'STREAMS', stream.key, '>']);
    const c = client();
    const worker = createEventWorker({
      stream,
      group: 'g',
      consumer: 'w',
      client: c,
      pollMs: 5,
      claimIdleMs: 600_000,
      blockMs: 100,
      trimEveryMs: 100,
      removeIdleConsumersMs: 1000,
    });
    const removed: EventWorkerEvents['consumersRemoved'][0][] = [];
    worker.on('consumersRemoved', (event) => removed.push(event));
    try {
      await worker.start();
      await until(() => removed.length > 0, { what: 'the idle consumer removed', timeoutMs: 10_000 });
      expect(removed).toEqual([{ group: 'g', consumers: ['stopped'] }]);
      const consumers = (await stream.backlog()).groups[0]?.consumers.map((consumer) => consumer.name);
      expect(consumers).toContain('holding');
      expect(consumers).not.toContain('stopped');
    } finally {
      await worker.close();
      await c.close();
    }
    expect(validationRefusal(() => createEventWorker({ stream, group: 'g', consumer: 'x', client: c, removeIdleConsumersMs: 999 })).issues[0]?.path).toBe(
      'removeIdleConsumersMs',
    );
    // A live worker blocked in a read looks idle for up to blockMs: the bound must be at least twice that.
    const blocking = validationRefusal(() => createEventWorker({ stream, group: 'g', consumer: 'x', client: c, blockMs: 5000, removeIdleConsumersMs: 9999 }))
      .issues[0];
    expect(blocking).toMatchObject({ path: 'removeIdleConsumersMs', message: expect.stringContaining('10000') });
    expect(createEventWorker({ stream, group: 'g', consumer: 'x', client: c, blockMs: 5000, removeIdleConsumersMs: 10_000 })).toBeDefined();
  });

  it('an idle consumer that reads between the measure and the removal keeps its entry (not dropped by DELCONSUMER)', async () => {
    const stream = createRedisEventStream({ client: redis.connection, stream: `upkeep-${++n}` });
    await stream.createGroup('g', '0');
    await stream.publish([{ t: 'MESSAGE_CREATE', s: 1, d: {}, shardId: 0 }]);
    await redis.connection.sendCommand(['XGROUP', 'CREATECONSUMER', stream.key, 'g', 'late']);
    await until(async () => ((await stream.backlog()).groups[0]?.consumers[0]?.idleMs ?? 0) > 20, { what: "'late' idle past 20 ms" });
    // The measure sees 'late' idle with nothing pending; then 'late' reads the entry, before the removal.
    const racing = {
      key: stream.key,
      measure: async (countUpTo: number) => {
        const measured = await stream.measure(countUpTo);
        await redis.connection.sendCommand(['XREADGROUP', 'GROUP', 'g', 'late', 'COUNT', '1', 'STREAMS', stream.key, '>']);
        return measured;
      },
      script: stream.script.bind(stream),
      command: stream.command.bind(stream),
    } as unknown as RedisEventStream;
    const removed: string[][] = [];
    await upkeep(
      racing,
      { group: 'g', consumer: 'w', maxBacklog: undefined, removeIdleConsumersMs: 20 },
      {
        backlog: () => undefined,
        removed: (event) => removed.push(event.consumers),
      },
    );
    expect(removed, 'a consumer that just read was removed').toEqual([]);
    const late = (await stream.backlog()).groups[0]?.consumers.find((consumer) => consumer.name === 'late');
    expect(late?.pending, "'late' and its pending entry").toBe(1);
  });

  it('a backlog monitor warns from a process that runs no worker, per group over the bound, and reports a failed read as an error', async () => {
    const stream = createRedisEventStream({ client: redis.connection, stream: `upkeep-${++n}` });
    await stream.createGroup('behind', '0');
    await stream.publish([1, 2, 3].map((s) => ({ t: 'MESSAGE_CREATE', s, d: {}, shardId: 0 })));
    await stream.createGroup('fine', '$');
    const monitor = createBacklogMonitor({ stream, maxBacklog: 2, intervalMs: 60_000 });
    const warned: string[] = [];
    monitor.on('backlog', (event) => warned.push(`${event.group} ${event.backlog.groups.find((g) => g.name === event.group)?.undelivered}`));
    try {
      await monitor.check();
      expect(warned).toEqual(['behind 3']);
      const strict = createBacklogMonitor({ stream, maxBacklog: 3, intervalMs: 60_000 });
      const none: unknown[] = [];
      strict.on('backlog', (event) => none.push(event));
      await strict.check();
      strict.close();
      expect(none, 'three entries waiting are not more than 3').toEqual([]);
      const onlyFine = createBacklogMonitor({ stream, groups: ['fine'], maxBacklog: 0, intervalMs: 60_000 });
      onlyFine.on('backlog', (event) => none.push(event));
      await onlyFine.check();
      onlyFine.close();
      expect(none, 'the group behind is not watched').toEqual([]);
    } finally {
      monitor.close();
    }
    const offline = createRedisEventStream({ client: { isReady: false, sendCommand: async () => null } as never, stream: 'offline' });
    const failing = createBacklogMonitor({ stream: offline, maxBacklog: 0 });
    const errors: Error[] = [];
    failing.on('error', (error) => errors.push(error));
    await failing.check();
    failing.close();
    expect(errors.map((error) => error.name)).toEqual(['EventStreamError']);
    expect(validationRefusal(() => createBacklogMonitor({ stream } as never)).issues[0]?.path).toBe('maxBacklog');
  });

  it("the stream's status counts each group's pending entries by age and lists the last dead letters", async () => {
    const stream = createRedisEventStream({ client: redis.connection, stream: `upkeep-${++n}` });
    await stream.createGroup('g', '0');
    await stream.publish([1, 2].map((s) => ({ t: 'MESSAGE_CREATE', s, d: {}, shardId: 0 })));
    await redis.connection.sendCommand(['XREADGROUP', 'GROUP', 'g', 'c1', 'COUNT', '2', 'STREAMS', stream.key, '>']);
    // One of the two was delivered 15 s ago (XCLAIM ... IDLE sets its idle time).
    const [first] = (await stream.command(['XRANGE', stream.key, '-', '+', 'COUNT', '1'])) as [string][];
    await redis.connection.sendCommand(['XCLAIM', stream.key, 'g', 'c1', '0', String(first?.[0]), 'IDLE', '15000']);
    const [id] = await stream.publish([{ t: 'GUILD_CREATE', s: 3, d: {}, shardId: 0 }]);
    await stream.deadLetter('g', id as string, { t: 'GUILD_CREATE', s: '3', sh: '0', d: '{}', at: '1' }, 'max-deliveries', 'it failed', 5);
    const status = await readStreamStatus({ client: redis.connection, stream: `upkeep-${n}` });
    expect(status.pendingByAge).toEqual([{ group: 'g', counts: [1, 1, 0, 0], truncated: false, maxDeliveries: 2 }]);
    expect(status.deadLetters).toMatchObject([{ type: 'GUILD_CREATE', reason: 'max-deliveries', deliveries: 5, error: 'it failed' }]);
    const text = streamStatusText(status);
    expect(text).toContain('group g: 2 pending (by age: <10s 1, <1m 1, <5m 0, >=5m 0)');
    expect(text).toContain('consumer c1: 2 pending');
    expect(text).toMatch(/dead letter \S+: GUILD_CREATE, max-deliveries after 5 deliveries: it failed/);
  });

  it("the stream's status never reads a planted group of 200,000 consumers, nor more groups than maxListed: it says what it left out", async () => {
    const stream = createRedisEventStream({ client: redis.connection, stream: `upkeep-${++n}` });
    await stream.createGroup('g', '0');
    await stream.publish([{ t: 'MESSAGE_CREATE', s: 1, d: {}, shardId: 0 }]);
    await redis.connection.eval("for i = 1, 200000 do redis.call('XGROUP', 'CREATECONSUMER', KEYS[1], 'g', 'c' .. i) end", { keys: [stream.key] });
    await redis.connection.sendCommand(['CONFIG', 'RESETSTAT']);
    const status = await readStreamStatus({ client: redis.connection, stream: `upkeep-${n}`, maxListed: 100 });
    const stats = String(await redis.connection.sendCommand(['INFO', 'commandstats']));
    expect(stats, 'the consumers read').not.toMatch(/cmdstat_xinfo\|consumers:/);
    expect(status.backlog.groups).toMatchObject([{ name: 'g', undelivered: 1, consumers: [] }]);
    expect(status.truncated).toEqual(['group g: 200000 consumers, more than 100: none listed']);
    expect(streamStatusText(status)).toContain('not read whole: group g: 200000 consumers, more than 100: none listed');
    // Three groups, at most two read: none is (XINFO GROUPS cannot read part of them).
    await stream.createGroup('h', '0');
    await stream.createGroup('i', '0');
    await redis.connection.sendCommand(['CONFIG', 'RESETSTAT']);
    const few = await readStreamStatus({ client: redis.connection, stream: `upkeep-${n}`, maxListed: 2 });
    expect(String(await redis.connection.sendCommand(['INFO', 'commandstats'])), 'the groups read').not.toMatch(/cmdstat_xinfo\|groups:/);
    expect(few.backlog.groups).toEqual([]);
    expect(few.truncated).toEqual(['3 groups, more than 2: none read']);
    // Under the bound, everything is read and nothing is said left out.
    const all = await readStreamStatus({ client: redis.connection, stream: `upkeep-${n}`, maxListed: 3, groups: ['h'] });
    expect(all.backlog.groups.map((group) => group.name).sort()).toEqual(['g', 'h', 'i']);
    expect(all.truncated).toEqual(['group g: 200000 consumers, more than 3: none listed']);
    await expect(readStreamStatus({ client: redis.connection, groups: ['a', 'b', 'c'], maxListed: 2 })).rejects.toThrow(/groups/);
  }, 60_000);
});
