/**
 * The worker pool's interaction claims against the emulator and a real Redis: a slow but live handler runs once; a worker
 * paused (SIGSTOP) past `claimIdleMs` whose entry was reclaimed has its late answer refused before any request; a Redis
 * outage while the "answered" mark is due runs no handler twice.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'redis';
import { expect, it } from 'vitest';
import { makeSnowflake } from '../../src/core/constants.js';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { Client } from '../../src/index.js';
import { DIAGNOSTICS_CHANNELS, type StreamStepMessage } from '../../src/diagnostics.js';
import { createEventWorker, createRedisEventStream, type EventWorker, type RedisEventStream, type RedisNodeClientLike } from '../../src/redis/index.js';
import { acquireClaim, type ClaimScriptRunner, releaseClaim } from '../../src/redis/interaction-claim.js';
import { useEmulatorWithAdmin } from '../helpers/emulators.js';
import { startScript } from '../helpers/index.js';
import { describeWithRedis, startRedisServer, useRedis } from '../helpers/redis-server.js';
import { until } from '../helpers/until.js';

const start = useEmulatorWithAdmin();

/** The emulator with `ping`, and a Gateway publishing to `stream`. */
async function publishing(stream: RedisEventStream) {
  const { emulator, admin } = await start();
  await admin.commands.sync(emulator.seed.applicationId, [{ name: 'ping', description: 'Ping' }]);
  const gateway = new Client({ baseUrl: emulator.url, auth: { botToken: emulator.seed.botToken } });
  gateway.gateway.publishTo(stream);
  await gateway.gateway.connect();
  return { emulator, gateway };
}

/** Calls `seen` each time a worker of `stream` takes entries over, its own included (the stream-step channel's `reclaim`). */
function onReclaim(stream: RedisEventStream, seen: () => void): () => void {
  const listener = (message: unknown) => {
    const step = message as StreamStepMessage;
    if (step.step === 'reclaim' && step.stream === stream.key) seen();
  };
  subscribe(DIAGNOSTICS_CHANNELS.streamStep, listener);
  return () => unsubscribe(DIAGNOSTICS_CHANNELS.streamStep, listener);
}

describeWithRedis('interaction claims in the worker pool', () => {
  const redis = useRedis();
  let n = 0;

  it('a live handler taking three times claimIdleMs runs once, though another worker is idle and reclaiming', async () => {
    const stream = createRedisEventStream({ client: redis.connection, stream: `claims-${++n}` });
    const { emulator, gateway } = await publishing(stream);
    const bot = new Client({ baseUrl: emulator.url, auth: { botToken: emulator.seed.botToken } });
    const runs: string[] = [];
    const reclaimed: string[][] = [];
    const workers: EventWorker[] = ['a', 'b'].map((consumer) => {
      const worker = createEventWorker({ stream, group: 'g', consumer, client: bot, claimIdleMs: 300 });
      worker.onCommand('ping', async (interaction) => {
        runs.push(consumer);
        // The handler's own slow work: 900 ms, three times claimIdleMs.
        await new Promise((resolve) => setTimeout(resolve, 900));
        await interaction.reply(`pong from ${consumer}`);
      });
      worker.on('reclaimed', (event) => reclaimed.push(event.ids));
      return worker;
    });
    try {
      await Promise.all(workers.map((worker) => worker.start()));
      const invoked = emulator.invokeCommand({ name: 'ping' });
      const answer = await invoked.response;
      expect(answer.data['content']).toMatch(/^pong from [ab]$/);
      await until(async () => (await stream.backlog()).groups[0]?.pending === 0, { what: 'the entry acknowledged' });
      expect(runs, `handler runs (reclaimed: ${JSON.stringify(reclaimed)})`).toHaveLength(1);
      expect(invoked.callbacks()).toHaveLength(1);
      expect(reclaimed).toEqual([]);
    } finally {
      await Promise.all(workers.map((worker) => worker.close()));
      await Promise.all([bot.close(), gateway.close()]);
    }
  }, 30_000);

  it('a worker paused (SIGSTOP) past claimIdleMs: another answers, and the paused one’s late answer is refused before any request', async () => {
    const stream = createRedisEventStream({ client: redis.connection, stream: `claims-${++n}` });
    const { emulator, gateway } = await publishing(stream);
    const sleeper = await startScript('test/helpers/event-worker-process.ts', {
      env: {
        REDIS_URL: redis.server.url,
        BASE_URL: emulator.url,
        BOT_TOKEN: emulator.seed.botToken,
        STREAM: `claims-${n}`,
        GROUP: 'g',
        CONSUMER: 'sleeper',
        CLAIM_IDLE_MS: '400',
        HANDLER_MS: '300',
      },
    });
    const bot = new Client({ baseUrl: emulator.url, auth: { botToken: emulator.seed.botToken } });
    let live: EventWorker | undefined;
    try {
      await sleeper.waitForOutput(/^ready$/m);
      const invoked = emulator.invokeCommand({ name: 'ping' });
      await sleeper.waitForOutput(new RegExp(`^started ${invoked.id}$`, 'm'));
      sleeper.kill('SIGSTOP');
      // The live worker starts only now, so the paused one took the interaction first.
      const liveRuns: string[] = [];
      live = createEventWorker({ stream, group: 'g', consumer: 'live', client: bot, claimIdleMs: 400 });
      live.onCommand('ping', async (interaction) => {
        liveRuns.push(interaction.id);
        await interaction.reply('pong from live');
      });
      await live.start();
      const answer = await invoked.response;
      expect(answer.data['content']).toBe('pong from live');
      sleeper.kill('SIGCONT');
      const [refusal] = await sleeper.waitForOutput(new RegExp(`^(refused|answered) ${invoked.id}.*$`, 'm'));
      expect(refusal, `the paused worker's output: ${sleeper.stdout()}`).toMatch(/^refused .*claim on it lapsed/);
      expect(sleeper.stdout(), 'requests the paused worker sent').not.toMatch(/^request /m);
      expect(liveRuns).toEqual([invoked.id]);
      expect(invoked.callbacks()).toHaveLength(1);
      await until(async () => (await stream.backlog()).groups[0]?.pending === 0, { what: 'the entry acknowledged by the live worker' });
    } finally {
      sleeper.kill('SIGCONT');
      sleeper.kill('SIGTERM');
      await sleeper.exited;
      await live?.close();
      await Promise.all([bot.close(), gateway.close()]);
    }
  }, 40_000);

  it('a claim whose answer came back too late to be known valid is dropped: the handler runs only when the entry comes again', async () => {
    const name = `claims-${++n}`;
    // A slow Redis for the first acquire only: it is taken there, and the reply arrives 700 ms later (the claim is valid 400 ms from the send).
    let late = true;
    const client: RedisNodeClientLike = {
      get isReady() {
        return redis.connection.isReady;
      },
      async sendCommand(args) {
        const reply = await redis.connection.sendCommand(args);
        if (late && args.includes('acquire')) {
          late = false;
          await new Promise((resolve) => setTimeout(resolve, 700));
        }
        return reply;
      },
    };
    const stream = createRedisEventStream({ client, stream: name });
    const bot = new Client({ baseUrl: 'http://127.0.0.1:1', auth: { botToken: 'a-bot-token' } });
    const worker = createEventWorker({ stream, group: 'g', consumer: 'w', client: bot, claimIdleMs: 500 });
    const happened: string[] = [];
    // The worker takes back its own entry: no `reclaimed` event (another consumer's only), the reclaim step on the channel.
    const ownReclaims = onReclaim(stream, () => happened.push('reclaimed'));
    worker.on('reclaimed', () => happened.push('reclaimed event'));
    worker.onCommand('ping', () => void happened.push('ran'));
    const payload = { id: makeSnowflake(Date.now(), 7), application_id: '1', type: 2, token: 'interaction-token', version: 1, data: { id: '2', name: 'ping' } };
    try {
      await worker.start();
      await stream.publish([{ t: 'INTERACTION_CREATE', s: 1, d: payload, shardId: 0 }]);
      await until(() => happened.includes('ran'), { what: 'the handler run', timeoutMs: 5000 });
      expect(happened).toEqual(['reclaimed', 'ran']);
      await until(async () => (await stream.backlog()).groups[0]?.pending === 0, { what: 'the entry acknowledged' });
    } finally {
      ownReclaims();
      await worker.close();
      await bot.close();
    }
  });

  it('an entry reclaimed while another worker still holds its claim is left pending, not acknowledged as a duplicate; it runs once the claim is given up', async () => {
    const stream = createRedisEventStream({ client: redis.connection, stream: `claims-${++n}` });
    const run: ClaimScriptRunner = (script, keys, args) => stream.script(script, keys, args);
    const bot = new Client({ baseUrl: 'http://127.0.0.1:1', auth: { botToken: 'a-bot-token' } });
    const worker = createEventWorker({ stream, group: 'g', consumer: 'b', client: bot, claimIdleMs: 100 });
    const happened: string[] = [];
    // Taken from a first, then back from itself: the reclaim steps (the `reclaimed` event names a's once).
    const reclaims = onReclaim(stream, () => happened.push('reclaimed'));
    const from: string[][] = [];
    worker.on('reclaimed', (event) => from.push(event.from));
    worker.on('duplicate', () => happened.push('duplicate'));
    worker.onCommand('ping', () => void happened.push('ran'));
    const id = makeSnowflake(Date.now(), 9);
    const payload = { id, application_id: '1', type: 2, token: 'interaction-token', version: 1, data: { id: '2', name: 'ping' } };
    try {
      // Worker a read the entry and claimed its interaction (a live claim of a minute), then went quiet.
      await stream.createGroup('g', '0');
      const [entry] = await stream.publish([{ t: 'INTERACTION_CREATE', s: 1, d: payload, shardId: 0 }]);
      await redis.connection.sendCommand(['XREADGROUP', 'GROUP', 'g', 'a', 'COUNT', '1', 'STREAMS', stream.key, '>']);
      const keys = { claim: stream.claimKey(id) };
      // A worker's holder: the entry, then its group (length-prefixed), consumer and instance.
      const holder = `${entry}@1:g/a/an-instance`;
      const held = await acquireClaim(run, keys, holder, 60_000, { retake: false });
      await worker.start();
      await until(() => happened.filter((step) => step === 'reclaimed').length >= 2, { what: 'b reclaiming the entry twice' });
      expect(happened.filter((step) => step !== 'reclaimed')).toEqual([]);
      expect((await stream.backlog()).groups[0]?.pending).toBe(1);
      // a gives its claim up: b's next reclaim runs it, once.
      await releaseClaim(run, keys, holder, held.status === 'taken' ? held.fence : -1);
      await until(() => happened.includes('ran'), { what: 'the handler run by b' });
      await until(async () => (await stream.backlog()).groups[0]?.pending === 0, { what: 'the entry acknowledged' });
      expect(happened.filter((step) => step !== 'reclaimed')).toEqual(['ran']);
      expect(from, 'the reclaimed event: from a, once').toEqual([['a']]);
    } finally {
      reclaims();
      await worker.close();
      await bot.close();
    }
  });

  it('a worker taking back its own entry never reports it reclaimed from an unknown consumer, however late its read of the owners', async () => {
    const stream = createRedisEventStream({ client: redis.connection, stream: `claims-${++n}` });
    const run: ClaimScriptRunner = (script, keys, args) => stream.script(script, keys, args);
    const bot = new Client({ baseUrl: 'http://127.0.0.1:1', auth: { botToken: 'a-bot-token' } });
    const worker = createEventWorker({ stream, group: 'g', consumer: 'b', client: bot, claimIdleMs: 100 });
    const from: string[][] = [];
    worker.on('reclaimed', (event) => from.push(event.from));
    let reclaims = 0;
    const stopCounting = onReclaim(stream, () => reclaims++);
    const id = makeSnowflake(Date.now(), 11);
    const payload = { id, application_id: '1', type: 2, token: 'interaction-token', version: 1, data: { id: '2', name: 'ping' } };
    // Each time the worker reads who holds the idle entries, the entry then goes idle past the bound before the worker's next
    // command: the widest window a held event loop or a slow network opens between reading the owners and taking the entries.
    const idleOf = async (entry: string) => {
      const rows = (await redis.connection.sendCommand(['XPENDING', stream.key, 'g', entry, entry, '1'])) as [string, string, number][];
      return rows[0]?.[2] ?? 0;
    };
    let entry = '';
    const command = stream.command.bind(stream);
    stream.command = async (args: string[]) => {
      const reply = await command(args);
      if (args[0] === 'XPENDING' && args.includes('IDLE') && entry !== '')
        await until(async () => (await idleOf(entry)) > 150, { what: `entry ${entry} idle past claimIdleMs` });
      return reply;
    };
    try {
      await stream.createGroup('g', '0');
      [entry = ''] = await stream.publish([{ t: 'INTERACTION_CREATE', s: 1, d: payload, shardId: 0 }]);
      await redis.connection.sendCommand(['XREADGROUP', 'GROUP', 'g', 'a', 'COUNT', '1', 'STREAMS', stream.key, '>']);
      // a holds the interaction's claim for a minute: b takes the entry over and leaves it pending, again and again.
      await acquireClaim(run, { claim: stream.claimKey(id) }, `${entry}@1:g/a/an-instance`, 60_000, { retake: false });
      await worker.start();
      await until(() => reclaims >= 4, { what: 'b taking the entry over four times' });
      expect(from, 'each reclaimed event names the consumer the entry was taken from: a once, never b itself as unknown').toEqual([['a']]);
    } finally {
      stopCounting();
      await worker.close();
      await bot.close();
    }
  });

  it('Redis paused past claimIdleMs while a handler runs: its answer is refused, the entry is not acknowledged, and it runs again and is answered once', async () => {
    const stream = createRedisEventStream({ client: redis.connection, stream: `claims-${++n}` });
    const { emulator, gateway } = await publishing(stream);
    const bot = new Client({ baseUrl: emulator.url, auth: { botToken: emulator.seed.botToken } });
    const worker = createEventWorker({ stream, group: 'g', consumer: 'w', client: bot, claimIdleMs: 300 });
    const outcomes: string[] = [];
    let paused: () => void = () => undefined;
    const redisPaused = new Promise<void>((resolve) => (paused = resolve));
    worker.onCommand('ping', async (interaction) => {
      outcomes.push('ran');
      if (outcomes.length === 1) {
        await redisPaused;
        // The handler's own work, longer than the claim can be relied on while Redis cannot renew it.
        await new Promise((resolve) => setTimeout(resolve, 400));
      }
      try {
        await interaction.reply('pong');
        outcomes.push('answered');
      } catch (error) {
        outcomes.push(`refused: ${error instanceof Error ? error.message : String(error)}`);
      }
    });
    try {
      await worker.start();
      const invoked = emulator.invokeCommand({ name: 'ping' });
      await until(() => outcomes.length === 1, { what: 'the handler started' });
      process.kill(redis.server.pid, 'SIGSTOP');
      try {
        paused();
        await until(() => outcomes.length === 2, { what: 'the first answer settled' });
      } finally {
        process.kill(redis.server.pid, 'SIGCONT');
      }
      expect(outcomes[1]).toMatch(/^refused: .*this worker's claim on it lapsed/);
      await invoked.response;
      await until(async () => (await stream.backlog()).groups[0]?.pending === 0, { what: 'the entry acknowledged after its second run' });
      expect(outcomes.slice(2)).toEqual(['ran', 'answered']);
      expect(invoked.callbacks()).toHaveLength(1);
    } finally {
      await worker.close();
      await Promise.all([bot.close(), gateway.close()]);
    }
  }, 30_000);
});

describeWithRedis('the answered mark across a Redis restart', () => {
  it('an answer sent while Redis is down is marked once Redis is back: the handler never runs again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ccsdk-aof-'));
    let server = await startRedisServer({ appendOnlyDir: dir });
    const connection = createClient({ url: server.url, socket: { reconnectStrategy: () => 50 } });
    connection.on('error', () => undefined);
    await connection.connect();
    const stream = createRedisEventStream({ client: connection, stream: 'answered-mark', commandTimeoutMs: 300 });
    const { emulator, gateway } = await publishing(stream);
    const bot = new Client({ baseUrl: emulator.url, auth: { botToken: emulator.seed.botToken } });
    // claimIdleMs 3 s: the handler answers within its claim, while Redis is down.
    const worker = createEventWorker({ stream, group: 'g', consumer: 'w', client: bot, claimIdleMs: 3000 });
    const errors: string[] = [];
    worker.on('error', (error) => errors.push(error.message));
    let runs = 0;
    let redisDown: () => void = () => undefined;
    const down = new Promise<void>((resolve) => (redisDown = resolve));
    worker.onCommand('ping', async (interaction) => {
      runs++;
      await down;
      await interaction.reply('pong');
    });
    try {
      await worker.start();
      const invoked = emulator.invokeCommand({ name: 'ping' });
      await until(() => runs === 1, { what: 'the handler started' });
      await server.stop();
      redisDown();
      await invoked.response;
      await until(() => errors.some((message) => /did not answer|not connected|failed/.test(message)), {
        what: 'the answered mark failing while Redis is down',
      });
      server = await startRedisServer({ port: server.port, appendOnlyDir: dir });
      await until(async () => (await stream.backlog().catch(() => undefined))?.groups[0]?.pending === 0, {
        what: 'the entry acknowledged after Redis came back',
        timeoutMs: 15_000,
      });
      // Stored after the outage: a reclaimed delivery is acknowledged without running again.
      const claim = await connection.get(stream.claimKey(invoked.id));
      expect(claim).toBe('answered');
      expect(runs).toBe(1);
      expect(invoked.callbacks()).toHaveLength(1);
    } finally {
      await worker.close();
      await Promise.all([bot.close(), gateway.close()]);
      await connection.close().catch(() => undefined);
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('two workers, Redis down longer than claimIdleMs while one answers: the other takes the lapsed claim over but does not run it again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ccsdk-aof-'));
    let server = await startRedisServer({ appendOnlyDir: dir });
    // a's client comes back a second after b's: b takes the lapsed claim over before a's mark can be stored.
    const connect = async (reconnectMs: number) => {
      const connection = createClient({ url: server.url, socket: { reconnectStrategy: () => reconnectMs } });
      connection.on('error', () => undefined);
      await connection.connect();
      return connection;
    };
    const [ca, cb] = [await connect(1000), await connect(50)];
    const sa = createRedisEventStream({ client: ca, stream: 'outage', commandTimeoutMs: 300 });
    const sb = createRedisEventStream({ client: cb, stream: 'outage', commandTimeoutMs: 300 });
    const runs: string[] = [];
    const answers: string[] = [];
    const client = (name: string) => ({ interactions: { respond: async () => void answers.push(name) } }) as never;
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const a = createEventWorker({ stream: sa, group: 'g', consumer: 'a', client: client('a'), claimIdleMs: 600 });
    const b = createEventWorker({ stream: sb, group: 'g', consumer: 'b', client: client('b'), claimIdleMs: 600 });
    for (const [name, worker] of [['a', a] as const, ['b', b] as const]) {
      worker.on('error', () => undefined);
      worker.onCommand('ping', async (interaction) => {
        runs.push(name);
        if (name === 'a') await gate;
        await interaction.reply('pong');
      });
    }
    const id = makeSnowflake(Date.now(), 7);
    const payload = { id, application_id: '1', type: 2, token: 'interaction-token', version: 1, data: { id: '2', name: 'ping' } };
    try {
      await a.start();
      await sa.publish([{ t: 'INTERACTION_CREATE', s: 1, d: payload, shardId: 0 }]);
      await until(() => runs.length === 1, { what: 'a running the handler' });
      await b.start();
      await server.stop();
      // a answers while Redis is down; its answered mark cannot be stored. The outage outlasts claimIdleMs on Redis's clock.
      release();
      await until(() => answers.length === 1, { what: "a's answer" });
      await new Promise((resolve) => setTimeout(resolve, 2000));
      server = await startRedisServer({ port: server.port, appendOnlyDir: dir });
      await until(async () => (await sb.backlog().catch(() => undefined))?.groups[0]?.pending === 0, {
        what: 'the entry acknowledged after Redis came back',
        timeoutMs: 20_000,
      });
      expect(await ca.get(sa.claimKey(id))).toBe('answered');
      expect(runs, 'workers that ran the handler').toEqual(['a']);
      expect(answers, 'workers that answered').toEqual(['a']);
    } finally {
      release();
      await Promise.all([a.close(), b.close()]);
      await Promise.all([ca.close().catch(() => undefined), cb.close().catch(() => undefined)]);
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 40_000);
});
