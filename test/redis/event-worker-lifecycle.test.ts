/**
 * A worker's edges against a real Redis: start() and close() racing, close() while Redis is down with an answered mark
 * due, two groups on one stream with one consumer name, an entry arriving at the end of a blocking read, and a deferred
 * handler working on past claimIdleMs after its answer.
 */
import { expect, it } from 'vitest';
import { makeSnowflake } from '../../src/core/constants.js';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { Client } from '../../src/index.js';
import { DIAGNOSTICS_CHANNELS, type StreamStepMessage } from '../../src/diagnostics.js';
import { createEventWorker, createRedisEventStream, type RedisNodeClientLike, type UnmarkedEvent } from '../../src/redis/index.js';
import { describeWithRedis, useRedis } from '../helpers/redis-server.js';
import { until } from '../helpers/until.js';

/** An interaction `ping` as the Gateway publishes it. */
function ping(seq: number) {
  const payload = { id: makeSnowflake(Date.now(), seq), application_id: '1', type: 2, token: 'interaction-token', version: 1, data: { id: '2', name: 'ping' } };
  return { t: 'INTERACTION_CREATE', s: seq, d: payload, shardId: 0 };
}

/** A client whose answers are only counted. */
function answering(answers: string[], name: string) {
  return { interactions: { respond: async () => void answers.push(name) } } as never;
}

describeWithRedis('a worker at its edges', () => {
  const redis = useRedis();
  let n = 0;
  const connections = async () =>
    String(await redis.connection.sendCommand(['CLIENT', 'LIST']))
      .trim()
      .split('\n').length;

  it('close() during start() leaves no connection open, nor does start() after close(); two concurrent start() calls open one read connection and run one loop', async () => {
    const stream = createRedisEventStream({ client: redis.connection, stream: `edges-${++n}` });
    const client = new Client({ baseUrl: 'http://127.0.0.1:1', auth: { botToken: 'a-bot-token' } });
    const before = await connections();
    try {
      const closed = createEventWorker({ stream, group: 'g', consumer: 'w1', client });
      const starting = closed.start();
      await closed.close();
      await starting;
      await until(async () => (await connections()) === before, { what: `connections back to ${before} after close() during start()` });
      // Closed before it ever started: start() opens nothing.
      const never = createEventWorker({ stream, group: 'g', consumer: 'w3', client });
      await never.close();
      await never.start();
      expect(await connections(), 'connections after start() on a closed worker').toBe(before);
      const twice = createEventWorker({ stream, group: 'g', consumer: 'w2', client });
      await Promise.all([twice.start(), twice.start()]);
      expect(await connections(), 'connections with one worker started twice at once').toBe(before + 1);
      await twice.close();
      await until(async () => (await connections()) === before, { what: `connections back to ${before} after close()` });
    } finally {
      await client.close();
    }
  });

  it('close() settles while Redis is down with an answered mark due, naming the interaction left unmarked', async () => {
    let down = false;
    const client: RedisNodeClientLike = {
      get isReady() {
        return !down && redis.connection.isReady;
      },
      sendCommand: (args) => redis.connection.sendCommand(args),
    };
    const stream = createRedisEventStream({ client, stream: `edges-${++n}`, commandTimeoutMs: 300 });
    // The answer is accepted, then Redis goes away before the mark.
    const bot = {
      interactions: {
        respond: async () => {
          down = true;
        },
      },
    } as never;
    const worker = createEventWorker({ stream, group: 'g', consumer: 'w', client: bot, claimIdleMs: 3000 });
    worker.on('error', () => undefined);
    const unmarked: UnmarkedEvent[] = [];
    worker.on('unmarked', (event) => unmarked.push(event));
    let answered = false;
    worker.onCommand('ping', async (interaction) => {
      await interaction.reply('pong');
      answered = true;
    });
    await worker.start();
    const event = ping(1);
    const [entry] = await stream.publish([event]);
    await until(() => answered, { what: 'the handler answering' });
    let closed = false;
    const closing = worker.close().then(() => (closed = true));
    try {
      // Its mark would be retried for 15 minutes: close() stops it within the command timeout.
      await until(() => closed, { what: 'close() settling with Redis down', timeoutMs: 5000 });
      expect(unmarked).toEqual([{ ids: [entry], interactionIds: [event.d.id] }]);
    } finally {
      down = false;
      await closing;
    }
  });

  it('two groups on one stream with the same consumer name: the interaction runs once, the other group acknowledges it as a duplicate', async () => {
    const stream = createRedisEventStream({ client: redis.connection, stream: `edges-${++n}` });
    const runs: string[] = [];
    const answers: string[] = [];
    const duplicates: string[] = [];
    // Each group's decision on the entry (it claimed the interaction, or acknowledged it as a duplicate), from the stream-step channel.
    const decide = new Map<string, () => void>();
    const decided = new Map(['g1', 'g2'].map((group) => [group, new Promise<void>((resolve) => decide.set(group, resolve))]));
    const onStep = (message: unknown) => {
      const step = message as StreamStepMessage;
      if (step.stream === stream.key && (step.step === 'claim' || step.step === 'duplicate')) decide.get(step.group ?? '')?.();
    };
    subscribe(DIAGNOSTICS_CHANNELS.streamStep, onStep);
    const workers = ['g1', 'g2'].map((group) => {
      const worker = createEventWorker({ stream, group, consumer: 'host-1', client: answering(answers, group), claimIdleMs: 3000 });
      worker.onCommand('ping', async (interaction) => {
        runs.push(group);
        // Answers only once the other group read the entry and decided, so both groups meet the claim while it is held.
        await decided.get(group === 'g1' ? 'g2' : 'g1');
        await interaction.reply('pong');
      });
      worker.on('duplicate', () => duplicates.push(group));
      return worker;
    });
    try {
      await Promise.all(workers.map((worker) => worker.start()));
      await stream.publish([ping(2)]);
      await until(async () => (await stream.backlog()).groups.every((group) => group.pending === 0 && group.undelivered === 0) && runs.length > 0, {
        what: () => `both groups done with the entry (handler runs: ${runs.join(', ') || 'none'}; duplicates: ${duplicates.join(', ') || 'none'})`,
      });
      expect(runs, 'groups whose worker ran the handler').toHaveLength(1);
      expect(answers).toEqual(runs);
      expect(duplicates, 'groups that acknowledged it as a duplicate').toEqual(['g1', 'g2'].filter((group) => !runs.includes(group)));
    } finally {
      unsubscribe(DIAGNOSTICS_CHANNELS.streamStep, onStep);
      // A handler still waiting for the other group's decision (which never came) lets close() finish.
      for (const release of decide.values()) release();
      await Promise.all(workers.map((worker) => worker.close()));
    }
  });

  it('an entry arriving at the end of a blocking read is touched at once: a handler well within claimIdleMs is answered', async () => {
    const stream = createRedisEventStream({ client: redis.connection, stream: `edges-${++n}` });
    const reader = redis.connection.duplicate();
    await reader.connect();
    // Stands for an entry published 2.2 s into a blocking read: its reply comes 2.2 s after the read was sent
    // (claimIdleMs 3 s: its hold, counted from the send, has 0.2 s left, and the next heartbeat is 0.8 s away).
    const readClient: RedisNodeClientLike = {
      get isReady() {
        return reader.isReady;
      },
      async sendCommand(args) {
        const reply = await reader.sendCommand(args);
        if (reply !== null && args[0] === 'XREADGROUP') await new Promise((resolve) => setTimeout(resolve, 2200));
        return reply;
      },
    };
    const outcomes: string[] = [];
    const worker = createEventWorker({ stream, group: 'g', consumer: 'w', client: answering([], 'w'), claimIdleMs: 3000, readClient });
    worker.onCommand('ping', async (interaction) => {
      // Well within claimIdleMs.
      await new Promise((resolve) => setTimeout(resolve, 400));
      try {
        await interaction.reply('pong');
        outcomes.push('answered');
      } catch (error) {
        outcomes.push(`refused: ${(error as Error).message}`);
      }
    });
    try {
      await stream.createGroup('g', '0');
      await stream.publish([ping(3)]);
      await worker.start();
      await until(() => outcomes.length > 0, { what: 'the handler answering', timeoutMs: 10_000 });
      expect(outcomes).toEqual(['answered']);
    } finally {
      await worker.close();
      await reader.close();
    }
  });

  it('a deferred handler working on past claimIdleMs after its answer keeps its entry: no other worker reclaims it as a duplicate', async () => {
    const key = `edges-${++n}`;
    const happened: string[] = [];
    // Each worker's take-over passes, counted from when the handler's answer is stored plus 500 ms (a heartbeat, then
    // claimIdleMs and more: an entry no longer touched is idle past the bound by then, and the next pass takes it).
    let answeredAt: number | undefined;
    const passes = new Map<string, number>();
    const workers = ['a', 'b'].map((consumer) => {
      const stream = createRedisEventStream({ client: redis.connection, stream: key });
      const script = stream.script.bind(stream);
      stream.script = async (...args: Parameters<typeof stream.script>) => {
        const sentAt = performance.now();
        const reply = await script(...args);
        const [, , values] = args;
        const takeOver = values.length === 4 && values[1] === consumer;
        if (takeOver && answeredAt !== undefined && sentAt - answeredAt > 500) passes.set(consumer, (passes.get(consumer) ?? 0) + 1);
        return reply;
      };
      const worker = createEventWorker({ stream, group: 'g', consumer, client: answering([], consumer), claimIdleMs: 300 });
      worker.onCommand('ping', async (interaction) => {
        happened.push(`ran on ${consumer}`);
        await interaction.defer();
        answeredAt = performance.now();
        // Its follow-up work: until the other worker made three take-over passes after the entry would have gone idle.
        const other = consumer === 'a' ? 'b' : 'a';
        await until(() => (passes.get(other) ?? 0) >= 3, { what: `three take-over passes by ${other} while ${consumer} works on` });
        happened.push('done');
      });
      worker.on('duplicate', () => happened.push(`duplicate on ${consumer}`));
      worker.on('reclaimed', () => happened.push(`reclaimed by ${consumer}`));
      return { worker, stream };
    });
    const stream = createRedisEventStream({ client: redis.connection, stream: key });
    try {
      await Promise.all(workers.map(({ worker }) => worker.start()));
      await stream.publish([ping(4)]);
      await until(async () => happened.includes('done') && (await stream.backlog()).groups[0]?.pending === 0, {
        what: () => `the handler done, its entry acknowledged (happened: ${happened.join('; ')})`,
      });
      expect(happened.filter((step) => !step.startsWith('ran on'))).toEqual(['done']);
    } finally {
      await Promise.all(workers.map(({ worker }) => worker.close()));
    }
  });
});
