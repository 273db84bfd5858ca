/**
 * Gateway events to a pool of workers on a real Redis stream: a Gateway on
 * the emulator publishes, workers answer, each interaction exactly once;
 * duplicates, a dead consumer's entries, poison events, expired interactions,
 * dead letters and the trim.
 */
import { describe, expect, it } from 'vitest';
import { Client, type DuplicateEvent } from '../../src/index.js';
import { idBefore } from '../../src/redis/event-stream.js';
import { createEventWorker, createRedisEventStream, type EventWorker, type RedisEventStream } from '../../src/redis/index.js';
import type { Emulator } from '../../src/testing/index.js';
import { useEmulatorWithAdmin } from '../helpers/emulators.js';
import { describeWithRedis, useRedis } from '../helpers/redis-server.js';
import { until } from '../helpers/until.js';

const start = useEmulatorWithAdmin();

describeWithRedis('Gateway events to workers on a Redis stream', () => {
  const redis = useRedis();
  let n = 0;
  const closers: { close(): Promise<unknown> }[] = [];

  async function cleanup() {
    for (const item of closers.splice(0).reverse()) await item.close();
  }

  /** A fresh stream, and `count` workers answering /ping through their own clients. */
  async function pool(emulator: Emulator, count: number, options: { claimIdleMs?: number; maxDeliveries?: number } = {}) {
    const stream = createRedisEventStream({ client: redis.connection, stream: `events-${++n}` });
    const workers: EventWorker[] = [];
    for (let i = 0; i < count; i++) {
      const client = new Client({ baseUrl: emulator.url, auth: { botToken: emulator.seed.botToken }, clock: emulator.clock });
      const worker = createEventWorker({ stream, group: 'bots', consumer: `worker-${i}`, client, pollMs: 5, ...options });
      worker.onCommand('ping', (interaction) => interaction.reply(`pong from worker-${i}`));
      closers.push(client, worker);
      await worker.start();
      workers.push(worker);
    }
    return { stream, workers };
  }

  async function pendingOf(stream: RedisEventStream): Promise<number> {
    return (await stream.backlog()).groups.reduce((sum, group) => sum + group.pending, 0);
  }

  it('a Gateway publishes, two workers answer 60 commands: each exactly once, nothing left pending, the stream trimmed', async () => {
    const { emulator, admin } = await start();
    try {
      await admin.commands.sync(emulator.seed.applicationId, [{ name: 'ping', description: 'Ping' }]);
      const { stream, workers } = await pool(emulator, 2);
      const errors: unknown[] = [];
      for (const worker of workers) worker.on('interactionError', (event) => errors.push(event.error));
      const gateway = new Client({ baseUrl: emulator.url, auth: { botToken: emulator.seed.botToken } });
      closers.push(gateway);
      // The Gateway process runs no handler: it publishes.
      gateway.gateway.onCommand('ping', () => errors.push(new Error('the Gateway process handled an interaction')));
      gateway.gateway.publishTo(stream);
      await gateway.gateway.connect();

      const runs = Array.from({ length: 60 }, () => emulator.invokeCommand({ name: 'ping' }));
      const answers = await Promise.all(runs.map((run) => run.response));
      expect(answers.every((answer) => /^pong from worker-[01]$/.test(String(answer.data?.['content'])))).toBe(true);
      await emulator.waitForIdle();
      expect(emulator.messages()).toHaveLength(60);
      expect(errors).toEqual([]);
      await until(async () => (await pendingOf(stream)) === 0, { what: 'every entry acknowledged' });
      await stream.trim();
      expect((await stream.backlog()).length).toBe(0);
    } finally {
      await cleanup();
    }
  });

  it('the same interaction published twice (a replay) runs once; the second is acknowledged as a duplicate', async () => {
    const { emulator, admin } = await start();
    try {
      await admin.commands.sync(emulator.seed.applicationId, [{ name: 'ping', description: 'Ping' }]);
      const { stream, workers } = await pool(emulator, 2);
      const duplicates: DuplicateEvent[] = [];
      for (const worker of workers) worker.on('duplicate', (event) => duplicates.push(event));
      // Delivered by the emulator to a Gateway that only publishes, then published again by hand.
      const gateway = new Client({ baseUrl: emulator.url, auth: { botToken: emulator.seed.botToken } });
      closers.push(gateway);
      const seen: unknown[] = [];
      gateway.gateway.on('dispatch', (event) => event.t === 'INTERACTION_CREATE' && seen.push(event));
      gateway.gateway.publishTo(stream);
      await gateway.gateway.connect();
      const run = emulator.invokeCommand({ name: 'ping' });
      await run.response;
      const [again] = await stream.publish([{ t: 'INTERACTION_CREATE', s: 99, d: run.payload, shardId: 0 }]);
      await until(() => duplicates.length === 1, { what: 'the duplicate acknowledged' });
      // The webhook receiver's shape: what came again (the entry), its type, the interaction.
      expect(duplicates).toEqual([{ id: again, type: 'INTERACTION_CREATE', interactionId: run.id }]);
      await emulator.waitForIdle();
      expect(emulator.messages()).toHaveLength(1);
      expect(await pendingOf(stream)).toBe(0);
    } finally {
      await cleanup();
    }
  });

  it("a dead consumer's pending entries are reclaimed after claimIdleMs and answered; a trim keeps what is pending", async () => {
    const { emulator, admin } = await start();
    try {
      await admin.commands.sync(emulator.seed.applicationId, [{ name: 'ping', description: 'Ping' }]);
      const stream = createRedisEventStream({ client: redis.connection, stream: `events-${++n}` });
      await redis.connection.sendCommand(['XGROUP', 'CREATE', stream.key, 'bots', '0', 'MKSTREAM']);
      const gateway = new Client({ baseUrl: emulator.url, auth: { botToken: emulator.seed.botToken } });
      closers.push(gateway);
      gateway.gateway.publishTo(stream);
      await gateway.gateway.connect();
      const runs = Array.from({ length: 5 }, () => emulator.invokeCommand({ name: 'ping' }));
      await until(async () => (await stream.backlog()).length === 5, { what: 'five entries published' });
      // A consumer reads them and dies before acknowledging.
      await redis.connection.sendCommand(['XREADGROUP', 'GROUP', 'bots', 'ghost', 'COUNT', '5', 'STREAMS', stream.key, '>']);
      expect(await pendingOf(stream)).toBe(5);
      expect(await stream.trim()).toBe(0);
      expect((await stream.backlog()).length).toBe(5);
      const worker = createEventWorker({
        stream,
        group: 'bots',
        consumer: 'alive',
        client: new Client({ baseUrl: emulator.url, auth: { botToken: emulator.seed.botToken }, clock: emulator.clock }),
        claimIdleMs: 200,
        pollMs: 5,
      });
      const answered: string[] = [];
      worker.onCommand('ping', async (interaction) => {
        await interaction.reply('pong');
        answered.push(interaction.id);
      });
      closers.push(worker);
      await worker.start();
      await Promise.all(runs.map((run) => run.response));
      await until(() => answered.length === 5, { what: 'the reclaimed entries answered' });
      await until(async () => (await pendingOf(stream)) === 0, { what: 'every entry acknowledged' });
      expect(new Set(answered)).toEqual(new Set(runs.map((run) => run.id)));
      await stream.trim();
      expect((await stream.backlog()).length).toBe(0);
    } finally {
      await cleanup();
    }
  });
});

describe('stream ids', () => {
  it('sort by their numbers, not as text', () => {
    expect(idBefore('5-9', '5-10')).toBe(true);
    expect(idBefore('5-10', '5-9')).toBe(false);
    expect(idBefore('10-0', '9-99')).toBe(false);
    expect(idBefore('9-99', '10-0')).toBe(true);
    expect(idBefore('7-1', '7-1')).toBe(false);
  });
});
