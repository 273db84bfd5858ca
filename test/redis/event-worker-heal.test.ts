/**
 * The worker pool heals and reads right on a real Redis: a consumer group destroyed, or the whole database flushed, is
 * created again (a `recreated` event saying from which id) and no event published meanwhile is lost, the trim working
 * again; reads block on Redis on a connection of their own; `backlog()` counts undelivered entries even when Redis cannot
 * tell its lag; an entry whose shard field is not a shard id, and an interaction whose `created_at` says it expired,
 * never reach a handler.
 */
import { expect, it } from 'vitest';
import { Client } from '../../src/index.js';
import { createEventWorker, createRedisEventStream, type EventWorkerEvents, type RecreatedEvent } from '../../src/redis/index.js';
import { UNDELIVERED_COUNT_CAP } from '../../src/redis/stream-backlog.js';
import { commandCalls, describeWithRedis, useRedis } from '../helpers/redis-server.js';
import { until } from '../helpers/until.js';

describeWithRedis('the worker pool heals', () => {
  const redis = useRedis();
  let n = 0;

  function setup(options: { maxBacklog?: number; trimEveryMs?: number } = {}) {
    const stream = createRedisEventStream({ client: redis.connection, stream: `heal-${++n}` });
    // Nothing is answered in these tests: the client never sends.
    const client = new Client({ baseUrl: 'http://127.0.0.1:1', auth: { botToken: 'a-bot-token' } });
    const worker = createEventWorker({ stream, group: 'g', consumer: 'w', client, claimIdleMs: 500, trimEveryMs: 100, ...options });
    const seen: number[] = [];
    worker.onDispatch('MESSAGE_CREATE', (event) => void seen.push((event.data as { n: number }).n));
    const recreated: RecreatedEvent[] = [];
    worker.on('recreated', (event) => recreated.push(event));
    const errors: Error[] = [];
    worker.on('error', (error) => errors.push(error));
    const publish = (from: number, count: number) =>
      stream.publish(Array.from({ length: count }, (_, i) => ({ t: 'MESSAGE_CREATE', s: from + i, d: { n: from + i }, shardId: 0 })));
    return { stream, worker, client, seen, recreated, errors, publish };
  }

  for (const [how, vanish, from] of [
    ['XGROUP DESTROY', (key: string) => redis.connection.sendCommand(['XGROUP', 'DESTROY', key, 'g']), 'acknowledged'],
    ['FLUSHALL', () => redis.connection.sendCommand(['FLUSHALL']), '0-0'],
  ] as const) {
    it(`a group gone by ${how} is created again within 5 s; every event published after is handled, and the trim works again`, async () => {
      const { stream, worker, client, seen, recreated, publish } = setup();
      try {
        await worker.start();
        await publish(0, 5);
        await until(async () => seen.length === 5 && (await stream.backlog()).groups[0]?.pending === 0, {
          what: 'the first five events handled and acknowledged',
        });
        await vanish(stream.key);
        await publish(5, 5);
        const started = Date.now();
        await until(() => recreated.length > 0, { what: `the group recreated after ${how}`, timeoutMs: 5000 });
        // Destroyed: from the id through which it had acknowledged everything; flushed (that record gone too): from 0-0.
        expect(recreated[0]?.from).toMatch(from === '0-0' ? /^0-0$/ : /^[1-9]\d*-\d+$/);
        await until(() => [5, 6, 7, 8, 9].every((i) => seen.includes(i)), { what: `the five events published after ${how} handled`, timeoutMs: 5000 });
        expect(Date.now() - started).toBeLessThan(5000);
        await until(async () => (await stream.backlog()).length === 0, { what: 'the stream trimmed again by the worker' });
      } finally {
        await worker.close();
        await client.close();
      }
    });
  }

  it('a destroyed group is created again from what it had acknowledged: no event handled before runs again (nothing trimmed)', async () => {
    const { stream, worker, client, seen, recreated, publish } = setup({ trimEveryMs: 0 });
    try {
      await worker.start();
      const ids = await publish(0, 5);
      await until(async () => seen.length === 5 && (await stream.backlog()).groups[0]?.pending === 0, { what: 'the first five handled and acknowledged' });
      await redis.connection.sendCommand(['XGROUP', 'DESTROY', stream.key, 'g']);
      await publish(5, 2);
      await until(() => seen.includes(5) && seen.includes(6), { what: 'the events published after the destroy handled' });
      expect(recreated).toEqual([{ group: 'g', from: ids[4] }]);
      expect(seen, 'events handled, in order (an acknowledged one delivered again shows twice)').toEqual([0, 1, 2, 3, 4, 5, 6]);
    } finally {
      await worker.close();
      await client.close();
    }
  });

  it('with an entry still pending, a group is recorded as acknowledged through the id just below it, and created again from there', async () => {
    const { stream, client, publish } = setup();
    try {
      await stream.createGroup('g', '0');
      const ids = await publish(0, 3);
      await redis.connection.sendCommand(['XREADGROUP', 'GROUP', 'g', 'c', 'COUNT', '3', 'STREAMS', stream.key, '>']);
      expect(await stream.ack('g', [ids[0] as string, ids[2] as string])).toBe(2);
      const [ms = '0', seq = '0'] = (ids[1] as string).split('-');
      const below = seq === '0' ? `${BigInt(ms) - 1n}-18446744073709551615` : `${ms}-${BigInt(seq) - 1n}`;
      expect(await redis.connection.sendCommand(['HGET', stream.ackedKey, 'g'])).toBe(below);
      await redis.connection.sendCommand(['XGROUP', 'DESTROY', stream.key, 'g']);
      expect(await stream.recreateGroup('g')).toBe(below);
      // The entry never acknowledged comes again (and the one after it, acknowledged out of order).
      const again = await redis.connection.sendCommand(['XREADGROUP', 'GROUP', 'g', 'c', 'COUNT', '5', 'STREAMS', stream.key, '>']);
      expect(JSON.stringify(again)).toContain(ids[1] as string);
      expect(JSON.stringify(again)).not.toContain(ids[0] as string);
      // Another worker recreating it at the same time is told it exists.
      expect(await stream.recreateGroup('g')).toBeUndefined();
    } finally {
      await client.close();
    }
  });

  it('reads block on Redis on a connection of their own: an idle worker sends a handful of reads, and other commands never wait behind them', async () => {
    const stream = createRedisEventStream({ client: redis.connection, stream: `heal-${++n}` });
    const client = new Client({ baseUrl: 'http://127.0.0.1:1', auth: { botToken: 'a-bot-token' } });
    // Defaults: each read blocks up to 1 s.
    const worker = createEventWorker({ stream, group: 'g', consumer: 'w', client });
    const seen: string[] = [];
    worker.onDispatch('MESSAGE_CREATE', (event) => void seen.push(event.id));
    try {
      await worker.start();
      const before = await commandCount('xreadgroup');
      // Until the idle worker has sent two more reads (the read under way returned, within its second, and one more blocked
      // its full second), a command on the shared connection at each poll: none waits behind a blocked read. A polling
      // worker (pollMs 25) would send two reads in about 50 ms.
      const idle = Date.now();
      const latencies: number[] = [];
      await until(
        async () => {
          const asked = Date.now();
          await stream.backlog();
          latencies.push(Date.now() - asked);
          return (await commandCount('xreadgroup')) - before >= 2;
        },
        { what: 'two more reads by the idle worker', timeoutMs: 5000 },
      );
      expect(Math.max(...latencies), `latencies of the shared connection's commands: ${latencies.join(', ')} ms`).toBeLessThan(300);
      expect(Date.now() - idle, 'milliseconds the idle worker took to send two reads').toBeGreaterThanOrEqual(900);
      const [id] = await stream.publish([{ t: 'MESSAGE_CREATE', s: 1, d: {}, shardId: 0 }]);
      await until(() => seen.includes(id as string), { what: 'the entry handled' });
    } finally {
      await worker.close();
      await client.close();
    }
  });

  const commandCount = (name: string) => commandCalls(redis.connection, name);

  it('backlog() counts undelivered entries when Redis cannot tell the lag (an entry deleted after the last read); maxBacklog warns on pending ones', async () => {
    const { stream, worker, client, publish } = setup({ maxBacklog: 2 });
    const warnings: EventWorkerEvents['backlog'][0][] = [];
    worker.on('backlog', (event) => warnings.push(event));
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (open = resolve));
    worker.onDispatch('MESSAGE_CREATE', () => gate);
    try {
      // A group that never reads: four entries, one deleted, so Redis's lag for it is unknown.
      await stream.createGroup('idle', '0');
      const ids = await publish(0, 4);
      await redis.connection.sendCommand(['XDEL', stream.key, ids[1] as string]);
      const backlog = await stream.backlog();
      expect(backlog.groups.find((group) => group.name === 'idle')).toEqual({ name: 'idle', pending: 0, undelivered: 3, consumers: [] });
      expect(backlog.length).toBe(3);
      // The worker's group, checked before its first read (lag unknown there too): three undelivered > maxBacklog 2.
      await worker.start();
      await until(() => warnings.length > 0, { what: 'the backlog warning' });
      expect(warnings[0]?.groups.find((candidate) => candidate.name === 'g')).toMatchObject({ pending: 0, undelivered: 3 });
      // Then held by a handler that waits: three pending.
      await until(async () => (await stream.backlog()).groups.find((candidate) => candidate.name === 'g')?.consumers[0]?.pending === 3, {
        what: 'three entries pending with w',
      });
      open();
      await until(async () => (await stream.backlog()).groups.find((candidate) => candidate.name === 'g')?.pending === 0, {
        what: 'g acknowledged everything',
      });
    } finally {
      open();
      await worker.close();
      await client.close();
    }
  });

  it('when Redis cannot tell the lag, the trim reads one entry per group and backlog() counts only as far as it needs', async () => {
    const { stream, client, publish } = setup();
    try {
      // 2,000 entries for a group that never read, one deleted: Redis's lag for it is unknown.
      await stream.createGroup('idle', '0');
      const ids = await publish(0, 2000);
      await redis.connection.sendCommand(['XDEL', stream.key, ids[1] as string]);
      const trim = await stream.trimmed();
      expect(trim, 'the trim: entries read in Redis, entries removed').toEqual({ trimmed: 0, examined: 1 });
      // maxBacklog 10 needs to know whether more than 10 wait: 11 counted (and the first entry read once).
      const measured = await stream.measure(11);
      expect(measured.backlog.groups[0]?.undelivered).toBe(11);
      expect(measured.examined, 'entries read in Redis to measure against 11').toBe(12);
      // backlog(): counted up to 1,000, not the 1,999 there are.
      const backlog = await stream.measure(UNDELIVERED_COUNT_CAP);
      expect(backlog.backlog.groups[0]?.undelivered).toBe(1000);
      expect(backlog.examined).toBe(1001);
      expect((await stream.backlog()).groups[0]?.undelivered).toBe(1000);
    } finally {
      await client.close();
    }
  });

  it('an entry whose shard field is not a shard id is reported and dead-lettered, never handed on with shardId NaN', async () => {
    const { stream, worker, client, seen, errors } = setup();
    const dead: EventWorkerEvents['deadLetter'][0][] = [];
    worker.on('deadLetter', (event) => dead.push(event));
    const shards: number[] = [];
    worker.onDispatch('GUILD_UPDATE', (event) => void shards.push(event.shardId));
    try {
      await worker.start();
      for (const sh of ['abc', '1e1', '-3', '']) {
        await redis.connection.sendCommand(['XADD', stream.key, '*', 't', 'GUILD_UPDATE', 's', '1', 'sh', sh, 'd', '{}', 'at', '0']);
      }
      await redis.connection.sendCommand(['XADD', stream.key, '*', 't', 'GUILD_UPDATE', 's', '2', 'sh', '7', 'd', '{}', 'at', '0']);
      await until(() => dead.length === 4 && shards.length === 1, { what: 'four entries dead-lettered and the good one handled' });
      expect(shards).toEqual([7]);
      expect(seen).toEqual([]);
      expect(dead.map((event) => event.reason)).toEqual(['malformed', 'malformed', 'malformed', 'malformed']);
      expect(dead[0]?.error).toBe('its shard field "abc" is not a shard id');
      expect(errors.map((error) => error.name)).toContain('EventStreamError');
      expect(errors.some((error) => /stream entry \S+ \(GUILD_UPDATE\) moved to the dead letters: its shard field "abc"/.test(error.message))).toBe(true);
      expect((await stream.deadLetters()).map((letter) => letter.shardId)).toEqual([-1, -1, -1, -1]);
    } finally {
      await worker.close();
      await client.close();
    }
  });

  it('an interaction whose id is not a snowflake and whose created_at is 20 minutes old is dead-lettered as expired, its handler never run', async () => {
    const { stream, worker, client } = setup();
    const dead: EventWorkerEvents['deadLetter'][0][] = [];
    worker.on('deadLetter', (event) => dead.push(event));
    const ran: boolean[] = [];
    worker.onCommand('ping', (interaction) => void ran.push(interaction.expired));
    const interaction = (id: string, createdAt: number) => ({
      id,
      application_id: '1',
      type: 2,
      token: 'interaction-token',
      version: 1,
      created_at: new Date(createdAt).toISOString(),
      data: { id: '2', name: 'ping' },
    });
    try {
      await worker.start();
      await stream.publish([
        { t: 'INTERACTION_CREATE', s: 1, d: interaction('not-a-snowflake', Date.now() - 20 * 60_000), shardId: 0 },
        { t: 'INTERACTION_CREATE', s: 2, d: interaction('fresh-one', Date.now()), shardId: 0 },
      ]);
      await until(() => dead.length === 1 && ran.length === 1, { what: 'the old one dead-lettered and the fresh one run' });
      expect(dead[0]).toMatchObject({ reason: 'expired', type: 'INTERACTION_CREATE' });
      expect(ran).toEqual([false]);
    } finally {
      await worker.close();
      await client.close();
    }
  });

  it('close() ends a blocking read at once, waits for the handlers under way (acknowledged as usual) and closes its read connection', async () => {
    const { stream, worker, client } = setup();
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const started: string[] = [];
    worker.onDispatch('GUILD_UPDATE', async (event) => {
      started.push(event.id);
      await gate;
    });
    // Connections whose last command was a read of the group: the worker's read connection.
    const readers = async () => (String(await redis.connection.sendCommand(['CLIENT', 'LIST'])).match(/cmd=xreadgroup/g) ?? []).length;
    try {
      await until(async () => (await readers()) === 0, { what: 'no read connection left by earlier tests' });
      await worker.start();
      await until(async () => (await readers()) === 1, { what: "the worker's read connection blocking" });
      await stream.publish([{ t: 'GUILD_UPDATE', s: 1, d: {}, shardId: 0 }]);
      await until(() => started.length === 1, { what: 'the handler started' });
      let closed = false;
      const closing = worker.close().then(() => (closed = true));
      await until(async () => (await readers()) === 0, { what: 'the read connection closed' });
      expect(closed, 'close() resolved while a handler was still running').toBe(false);
      open();
      await closing;
      expect((await stream.backlog()).groups[0]?.pending).toBe(0);
    } finally {
      open();
      await worker.close();
      await client.close();
    }
  });
});
