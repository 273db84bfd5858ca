/**
 * A pool of shard workers hosting a changing set of shards, as a fleet's
 * leases start and stop them: each shard placed in a worker with room (at
 * most `shardsPerWorker`), a stop that ends only that shard, a worker ended
 * once its last shard stopped, and a worker that dies restarted with the
 * shards it held then (its death before a leased shard's READY reported once,
 * an uncaught exception in it included; a restart that cannot start a thread
 * reported once and tried again).
 */
import { Worker } from 'node:worker_threads';
import { afterEach, expect, it, vi } from 'vitest';
import type { ConnectionReport } from '../../src/gateway/connection-host.js';
import { resolveGatewayOptions, type GatewayDispatchEvent } from '../../src/gateway/options.js';
import type { ShardPlan } from '../../src/gateway/shard-plan.js';
import type { ShardHandle, ShardHost } from '../../src/gateway/shards.js';
import { RECONNECT_AFTER_MS, startShard, type ShardStartTarget } from '../../src/gateway/shard-start.js';
import { workerShards } from '../../src/gateway/worker-pool.js';
import { runningShardWorkers } from '../../src/gateway/worker-thread.js';
import { guildIdOnShard, startShardedEmulator } from '../helpers/sharded-emulator.js';
import { behaveWell, startWsServer } from '../helpers/ws-server.js';
import { until } from '../helpers/until.js';

/** How the next worker starts go wrong, in order (then real workers): no thread (a thread limit), or a worker that throws uncaught. */
const nextStarts: ('no thread' | 'throws')[] = [];
vi.mock('../../src/gateway/worker-thread.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/gateway/worker-thread.js')>();
  return {
    ...original,
    startWorker: (data: Parameters<typeof original.startWorker>[0]) => {
      const how = nextStarts.shift();
      if (how === 'no thread') throw Object.assign(new Error('ERR_WORKER_INIT_FAILED: EAGAIN'), { code: 'ERR_WORKER_INIT_FAILED' });
      // As an out-of-memory or a bug in the worker would, before any READY.
      if (how === 'throws') return new Worker("setTimeout(() => { throw new Error('boom in the worker') }, 200)", { eval: true });
      return original.startWorker(data);
    },
  };
});

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  nextStarts.length = 0;
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A leased shard (connected while held, announced once READY) in a worker of a pool of its own, its reports kept as text. */
async function leasedWorkerShard(url: string) {
  const options = resolveGatewayOptions({ reconnectBaseDelayMs: 300, reconnectMaxDelayMs: 300 }, url);
  const reports: string[] = [];
  const keep = (source: string) => (report: ConnectionReport) =>
    void (report.event !== 'debug' || /worker/.test(report.payload)
      ? reports.push(`${source} ${report.event}: ${report.payload instanceof Error ? report.payload.message : String(report.payload)}`)
      : undefined);
  const host: ShardHost = {
    ...{ token: () => 'Bot token', now: () => Date.now(), allowInsecure: false, dispatch: () => undefined, changed: () => undefined },
    emit: keep('worker'),
  };
  const plan: ShardPlan = { sharded: true, ids: [0], count: 1, maxConcurrency: 1, perWorker: 1 };
  const create = workerShards(options, () => host);
  const target: ShardStartTarget = {
    ...{ list: [], savers: new Map(), count: 1, store: undefined, record: () => undefined, storeFailed: () => undefined },
    create: (id) => create(id, plan, {}),
    report: keep('lease'),
  };
  let announced = 0;
  const shard = await startShard(target, 0, { kind: 'lease', holds: () => true, connected: () => void announced++ });
  cleanups.push(() => shard?.destroy());
  return { shard, reports, errors: () => reports.filter((line) => / error: /.test(line)), announced: () => announced };
}

it('places shards where there is room, stops one shard alone, resumes one started again, restarts a dead worker with what it held, ends an empty worker', async () => {
  const emulator = await startShardedEmulator({ gateway: { shards: 4, maxConcurrency: 4 }, guildOnShard: 1 });
  cleanups.push(() => emulator.close());
  const options = resolveGatewayOptions({ reconnectBaseDelayMs: 200, reconnectMaxDelayMs: 200 }, emulator.gatewayUrl);
  const reports: { shardId: number; event: string }[] = [];
  const dispatches: GatewayDispatchEvent[] = [];
  const host: ShardHost = {
    token: () => emulator.seed.botToken,
    now: () => Date.now(),
    allowInsecure: false,
    emit: (report: ConnectionReport, shardId) => void reports.push({ shardId, event: report.event }),
    dispatch: (event) => void dispatches.push(event),
    changed: () => undefined,
  };
  const plan: ShardPlan = { sharded: true, ids: [0, 1, 2, 3], count: 4, maxConcurrency: 4, perWorker: 2 };
  const set = {};
  const start = workerShards(options, () => host);
  const running = new Map<number, ShardHandle>();
  cleanups.push(() => Promise.all([...running.values()].map((shard) => shard.destroy())));
  const create = (id: number) => {
    const shard = start(id, plan, set);
    running.set(id, shard);
    return shard;
  };

  for (const id of [0, 1, 2]) create(id);
  expect(runningShardWorkers.size, 'workers for 3 shards, 2 a worker').toBe(2);
  await Promise.all([...running.values()].map((shard) => shard.connect(undefined)));
  expect([...running.values()].map((shard) => shard.status)).toEqual(['ready', 'ready', 'ready']);
  const identifies = emulator.gatewayStats.forBot().identifies;
  expect(identifies).toBe(3);

  // Shard 0 handed off: only its socket closes; its worker stays for shard 1, which still dispatches.
  const stopped = running.get(0) as ShardHandle;
  const session = stopped.sessionId;
  const stopping = stopped.destroy({ handOff: true });
  // Sent once the stop began: not handled by this run, so not counted in its saved sequence; the run that resumes gets it.
  emulator.dispatchEvent('MESSAGE_CREATE', { id: '88', channel_id: '1', guild_id: guildIdOnShard(0, 4), content: 'during the stop' });
  await stopping;
  running.delete(0);
  expect(
    dispatches.filter((event) => (event.d as { id?: string }).id === '88'),
    'handled by the run being stopped',
  ).toEqual([]);
  expect(stopped.sessionId, 'the stopped shard keeps its last state, for its saved session').toBe(session);
  expect(runningShardWorkers.size, 'the worker of shard 1 runs on').toBe(2);
  expect(running.get(1)?.status).toBe('ready');
  emulator.dispatchEvent('MESSAGE_CREATE', { id: '77', channel_id: '1', guild_id: emulator.seed.guildId, content: 'after the stop' });
  await until(() => dispatches.some((event) => event.t === 'MESSAGE_CREATE' && event.shardId === 1), { what: 'shard 1 dispatching after shard 0 stopped' });

  // Started again (a lease regained): placed in the worker with room, no new worker, and it resumes the handed-off session.
  const again = create(0);
  expect(runningShardWorkers.size, 'shard 0 placed in the worker with room').toBe(2);
  again.restore({ sessionId: session as string, sequence: stopped.sequence });
  await again.connect(undefined);
  expect(again.sessionId).toBe(session);
  expect(emulator.gatewayStats.forBot(), 'shard 0 resumed, not identified').toMatchObject({ identifies, resumes: 1 });
  await until(() => dispatches.some((event) => (event.d as { id?: string }).id === '88'), {
    what: 'the message sent during the stop, replayed to the resumed run',
  });
  expect(
    dispatches.filter((event) => (event.d as { id?: string }).id === '88').map((event) => event.shardId),
    'the message sent during the stop: handled once, by the resumed run',
  ).toEqual([0]);
  await expect(stopped.connect(undefined), "the stopped run's handle does not reach the new run of its id").rejects.toThrow(/shard 0 was stopped/);

  // The worker holding shards 1 and 0 dies: a new one runs both again, each resuming its session.
  const resumedBefore = reports.filter((report) => report.event === 'resumed').length;
  await [...runningShardWorkers][0]?.terminate();
  await until(() => reports.filter((report) => report.event === 'resumed').length === resumedBefore + 2, { what: 'shards 0 and 1 resumed by a new worker' });
  expect(
    reports
      .filter((report) => report.event === 'resumed')
      .slice(resumedBefore)
      .map((report) => report.shardId)
      .sort(),
  ).toEqual([0, 1]);
  await until(() => running.get(0)?.status === 'ready' && running.get(1)?.status === 'ready', { what: 'shards 0 and 1 ready again' });
  expect(emulator.gatewayStats.forBot().identifies, 'no Identify for a restarted worker').toBe(identifies);
  expect(runningShardWorkers.size).toBe(2);

  // The last shard of a worker stopped: the worker ends; the other runs on.
  await running.get(2)?.destroy();
  running.delete(2);
  expect(runningShardWorkers.size, 'the emptied worker ended').toBe(1);
  expect(running.get(0)?.status).toBe('ready');
  await Promise.all([0, 1].map((id) => running.get(id)?.destroy()));
  running.clear();
  expect(runningShardWorkers.size, 'every worker ended').toBe(0);
  await until(() => !emulator.isBotConnected(), { what: 'every socket closed' });
}, 30_000);

it('a stopped shard handles nothing its worker sent after the stop began (the saved sequence stays at what was handled); its successor gets it, once', async () => {
  const emulator = await startShardedEmulator({ gateway: { shards: 2, maxConcurrency: 2 } });
  cleanups.push(() => emulator.close());
  const options = resolveGatewayOptions({}, emulator.gatewayUrl);
  const handled: string[] = [];
  let stopping: Promise<void> | undefined;
  let shard: ShardHandle | undefined;
  let run = 'the first run';
  const host: ShardHost = {
    token: () => emulator.seed.botToken,
    now: () => Date.now(),
    allowInsecure: false,
    emit: () => undefined,
    // The first message stops the shard from inside its handler: the second, already on its way from the worker, is not handled.
    dispatch: (event) => {
      if (event.t !== 'MESSAGE_CREATE') return;
      handled.push(`${(event.d as { id: string }).id} by ${run}`);
      if (handled.length === 1) stopping = shard?.destroy({ handOff: true });
    },
    changed: () => undefined,
  };
  const plan: ShardPlan = { sharded: true, ids: [0, 1], count: 2, maxConcurrency: 2, perWorker: 2 };
  const start = workerShards(options, () => host);
  shard = start(1, plan, {});
  await shard.connect(undefined);
  for (const id of ['a', 'b']) emulator.dispatchEvent('MESSAGE_CREATE', { id, channel_id: '1', guild_id: guildIdOnShard(1, 2), content: id });
  await until(() => stopping !== undefined, { what: 'the shard stopped by its first message' });
  await stopping;
  expect(handled, 'handled by the run being stopped').toEqual(['a by the first run']);
  run = 'the successor';
  const successor = start(1, plan, {});
  cleanups.push(() => successor.destroy());
  successor.restore({ sessionId: shard.sessionId as string, sequence: shard.sequence });
  await successor.connect(undefined);
  await until(() => handled.length === 2, { what: 'the second message, replayed to the successor' });
  expect(handled).toEqual(['a by the first run', 'b by the successor']);
}, 30_000);

it('outside a fleet, a shard whose worker died before its first READY and whose restarted connect fails is reported and connected again', async () => {
  // A scripted Gateway that never says Hello until the test says so: the first run is killed, the restarted one's connect times out.
  const server = await startWsServer();
  cleanups.push(() => server.close());
  const options = resolveGatewayOptions({ connectTimeoutMs: 1000, reconnectBaseDelayMs: 100, reconnectMaxDelayMs: 100 }, server.url);
  const errors: string[] = [];
  const host: ShardHost = {
    token: () => 'Bot token',
    now: () => Date.now(),
    allowInsecure: false,
    emit: (report, shardId) => void (report.event === 'error' && errors.push(`shard ${shardId}: ${report.payload.message}`)),
    dispatch: () => undefined,
    changed: () => undefined,
  };
  const plan: ShardPlan = { sharded: false, ids: [0], count: 1, maxConcurrency: 1, perWorker: 1 };
  const shard = workerShards(options, () => host)(0, plan, {});
  cleanups.push(() => shard.destroy());
  const first = shard.connect(undefined).catch((error: unknown) => error);
  await server.peer(0);
  expect(runningShardWorkers.size, 'one worker for the one shard').toBe(1);
  await [...runningShardWorkers][0]?.terminate();
  expect(String(await first), "the first run's connect").toMatch(/exited/);
  const timedOut = () => errors.filter((line) => line.includes('connectTimeoutMs'));
  // Without the retry, the restarted shard's failed connect is dropped: nobody hears of it, and the shard stays idle.
  await until(() => timedOut().length > 0, { what: `the restarted shard's failed connect reported (errors: ${errors.join(' | ')})`, timeoutMs: 6000 });
  expect(timedOut()).toEqual([expect.stringMatching(/^shard 0: no Gateway session was ready within 1000 ms/)]);
  server.onConnection((peer) => behaveWell(peer));
  await until(() => shard.status === 'ready', { what: `shard 0 ready, connected again after its failed connect (status ${shard.status})`, timeoutMs: 6000 });
}, 30_000);

it('a shard worker that dies before READY under a lease is reported once (the worker, with its restart), then READY and announced', async () => {
  // A scripted Gateway that never says Hello until the test says so: the worker dies while the leased shard connects.
  const server = await startWsServer();
  cleanups.push(() => server.close());
  const leased = await leasedWorkerShard(server.url);
  await server.peer(0);
  expect(runningShardWorkers.size, 'one worker for the leased shard').toBe(1);
  await [...runningShardWorkers][0]?.terminate();
  server.onConnection((peer) => behaveWell(peer));
  await until(() => leased.announced() === 1, {
    what: () => `the leased shard READY in the restarted worker and announced (reports: ${leased.reports.join(' | ')})`,
    timeoutMs: 8000,
  });
  expect(leased.shard?.status).toBe('ready');
  expect(leased.errors(), 'the crash before READY, reported').toEqual([expect.stringMatching(/^worker error: the worker running shard 0 exited/)]);
}, 30_000);

it('a leased shard whose worker throws uncaught before READY: its death reported once, with what it threw; then READY in a new worker', async () => {
  const server = await startWsServer(behaveWell);
  cleanups.push(() => server.close());
  nextStarts.push('throws');
  const leased = await leasedWorkerShard(server.url);
  await until(() => leased.announced() === 1, { what: `READY in the restarted worker, announced (reports: ${leased.reports.join(' | ')})`, timeoutMs: 10_000 });
  // Node emits the worker's `error`, then its `exit`: one report, the crash's, carrying the exception's message.
  expect(leased.errors(), 'one error for the death').toEqual([
    expect.stringMatching(/^worker error: the worker running shard 0 exited \(code 1: boom in the worker\); a new worker resumes its session in \d+ ms$/),
  ]);
}, 30_000);

it('a crashed worker whose replacement cannot start a thread: reported once, tried again, and the leased shard READY and announced once it starts', async () => {
  const uncaught: unknown[] = [];
  const onUncaught = (error: unknown) => void uncaught.push(error);
  process.on('uncaughtException', onUncaught);
  cleanups.push(() => process.off('uncaughtException', onUncaught));
  // A scripted Gateway that never says Hello until the test says so: the worker dies while the leased shard connects.
  const server = await startWsServer();
  cleanups.push(() => server.close());
  const leased = await leasedWorkerShard(server.url);
  await server.peer(0);
  nextStarts.push('no thread', 'no thread');
  await [...runningShardWorkers][0]?.terminate();
  server.onConnection((peer) => behaveWell(peer));
  await until(() => leased.announced() === 1, {
    what: () => `the leased shard READY in a new worker once one could start, and announced (reports: ${leased.reports.join(' | ')})`,
    timeoutMs: 15_000,
  });
  expect(uncaught, 'exceptions thrown out of the restart').toEqual([]);
  expect(leased.shard?.status).toBe('ready');
  expect(leased.errors(), 'the crash, then one error for the run of failed starts naming the shard').toEqual([
    expect.stringMatching(/^worker error: the worker running shard 0 exited \(code 1\)/),
    'worker error: a new shard worker for shard(s) 0 could not start (ERR_WORKER_INIT_FAILED: EAGAIN); tried again while they run here',
  ]);
  expect(leased.reports).toContainEqual(expect.stringMatching(/^worker debug: a new shard worker for shard\(s\) 0 started after 2 failed attempts/));
}, 30_000);

it("a restarted shard's connect retry waiting when its worker is ended is cleared with it (no timer outlives the worker)", async () => {
  const server = await startWsServer();
  cleanups.push(() => server.close());
  const options = resolveGatewayOptions({ connectTimeoutMs: 1000, reconnectBaseDelayMs: 100, reconnectMaxDelayMs: 100 }, server.url);
  const errors: string[] = [];
  const host: ShardHost = {
    token: () => 'Bot token',
    now: () => Date.now(),
    allowInsecure: false,
    emit: (report) => void (report.event === 'error' && errors.push(report.payload.message)),
    dispatch: () => undefined,
    changed: () => undefined,
  };
  // The retry's wait is the one timer of RECONNECT_AFTER_MS set on this thread: which ones are set and which cleared.
  const set = new Set<unknown>();
  const cleared = new Set<unknown>();
  const realSet = globalThis.setTimeout;
  const realClear = globalThis.clearTimeout;
  vi.spyOn(globalThis, 'setTimeout').mockImplementation(((fn: () => void, ms?: number) => {
    const timer = realSet(fn, ms);
    if (ms === RECONNECT_AFTER_MS) set.add(timer);
    return timer;
  }) as typeof setTimeout);
  vi.spyOn(globalThis, 'clearTimeout').mockImplementation(((timer?: ReturnType<typeof setTimeout>) => {
    cleared.add(timer);
    realClear(timer);
  }) as typeof clearTimeout);
  const plan: ShardPlan = { sharded: false, ids: [0], count: 1, maxConcurrency: 1, perWorker: 1 };
  const shard = workerShards(options, () => host)(0, plan, {});
  const first = shard.connect(undefined).catch((error: unknown) => error);
  await server.peer(0);
  await [...runningShardWorkers][0]?.terminate();
  await first;
  await until(() => errors.some((line) => line.includes('connectTimeoutMs')), { what: "the restarted shard's failed connect reported", timeoutMs: 6000 });
  expect(set.size, 'the retry waiting').toBe(1);
  await shard.destroy();
  expect(
    [...set].filter((timer) => !cleared.has(timer)),
    'retry waits left after the worker ended',
  ).toEqual([]);
}, 30_000);
