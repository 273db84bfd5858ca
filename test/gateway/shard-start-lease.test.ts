/**
 * A leased shard that cannot be started at once (`gateway/shard-start.ts`, `startLeased`): a factory that throws (a worker thread
 * that cannot start) is tried again while the lease is held, reported once as the shard's failure (not the coordinator's), and
 * the tries stop once the lease is lost; a connect failure its source reported already (a shard worker's exit, reported with its
 * restart: `test/gateway/worker-pool.test.ts`) is counted, not reported again.
 */
import { afterEach, expect, it, vi } from 'vitest';
import type { ConnectionReport } from '../../src/gateway/connection-host.js';
import { createFleet } from '../../src/gateway/fleet.js';
import type { FleetSupervisor } from '../../src/gateway/coordinator.js';
import { LastSessions } from '../../src/gateway/gateway-session-store.js';
import { connectWhileHeld, RECONNECT_AFTER_MS, reportedAlready } from '../../src/gateway/shard-start.js';
import type { ShardHandle } from '../../src/gateway/shards.js';
import { MemoryShardCoordinator } from '../../src/testing/index.js';
import { ScriptedCoordinator, step } from '../helpers/scripted-coordinator.js';
import { until } from '../helpers/until.js';

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A shard of this thread that is READY once connected. */
function fakeShard(id: number): ShardHandle {
  const shard: ShardHandle = {
    ...{ id, status: 'idle', sessionId: undefined, sequence: null, latency: undefined, lastAckAt: undefined, resumeUrl: undefined },
    restore: () => undefined,
    connect: async () => void (shard.status = 'ready'),
    destroy: async () => undefined,
  };
  return shard;
}

/**
 * A fleet member of one shard whose factory throws `failures` times (a worker that cannot start), then creates; every report
 * kept as `<event> [shard <id>]: <text>`.
 */
function memberWith(coordinator: ScriptedCoordinator | MemoryShardCoordinator, failures: number) {
  const list: ShardHandle[] = [];
  const reports: string[] = [];
  let creates = 0;
  let ready = 0;
  const fleet: FleetSupervisor = createFleet(
    coordinator,
    1,
    {
      ...{ list, savers: new Map(), store: undefined, last: new LastSessions(), holds: (id) => fleet.has(id), record: () => undefined },
      storeFailed: () => undefined,
      report: (report: ConnectionReport, shardId?: number) =>
        void reports.push(`${report.event} [shard ${shardId}]: ${report.payload instanceof Error ? report.payload.message : String(report.payload)}`),
      ready: () => void ready++,
      create: (id) => {
        if (++creates <= failures) throw new Error(`ERR_WORKER_INIT_FAILED (try ${creates})`);
        return fakeShard(id);
      },
    },
    'me',
  );
  return { fleet, list, reports, counts: () => ({ creates, ready }), errors: () => reports.filter((line) => line.startsWith('error')) };
}

it('a factory that throws twice under a held lease is tried again until the shard runs: one error naming the shard, none for the coordinator, the lease kept', async () => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'] });
  const coordinator = new MemoryShardCoordinator({ leaseMs: 3000, clock: () => performance.now() });
  const member = memberWith(coordinator, 2);
  cleanups.push(() => member.fleet.close(async () => undefined));
  await member.fleet.start();
  expect(member.counts().creates, 'the first try, as the lease was acquired').toBe(1);
  // Waits of 1 s, then 2 s (those of a failed connect), the lease renewed by the steps meanwhile.
  await vi.advanceTimersByTimeAsync(RECONNECT_AFTER_MS);
  expect(member.counts().creates, 'tried again after 1 s').toBe(2);
  await vi.advanceTimersByTimeAsync(RECONNECT_AFTER_MS * 2);
  expect(member.counts(), 'created on the third try, then connected and announced READY').toEqual({ creates: 3, ready: 1 });
  expect(
    member.list.map((shard) => `${shard.id} ${shard.status}`),
    'the shard runs',
  ).toEqual(['0 ready']);
  expect(member.errors(), 'one error for the run of failures, naming the shard and the cause').toEqual([
    expect.stringMatching(
      /^error \[shard 0\]: shard 0 could not be created \(ERR_WORKER_INIT_FAILED \(try 1\)\); tried again while this process holds its lease$/,
    ),
  ]);
  expect(
    member.reports.filter((line) => /coordinator/i.test(line)),
    'reported as a coordinator failure',
  ).toEqual([]);
  expect(member.reports, 'the end of the run, a debug line').toContainEqual(expect.stringMatching(/shard 0 was created after 2 failed attempts/));
  expect([...coordinator.holders(1)], 'the lease still held here').toEqual([[0, 'me']]);
  expect(member.fleet.shardIds).toEqual([0]);
});

/** Two steps of a scripted coordinator: registered, then the lease of shard 0 with `fence`. */
async function acquire(coordinator: ScriptedCoordinator, fleet: FleetSupervisor, answers: ReturnType<typeof step>[]): Promise<void> {
  for (const answer of answers) {
    const ticking = fleet.tick();
    (await coordinator.next('tick')).resolve(answer);
    await ticking;
  }
}

it('a lease lost while its shard is tried again: no shard created after, no further tries', async () => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'] });
  const coordinator = new ScriptedCoordinator(60_000);
  const member = memberWith(coordinator, Number.POSITIVE_INFINITY);
  await acquire(coordinator, member.fleet, [step({}), step({ 0: 7 })]);
  await vi.advanceTimersByTimeAsync(RECONNECT_AFTER_MS);
  expect(member.counts().creates, 'tried again while held').toBe(2);
  await acquire(coordinator, member.fleet, [step({})]); // the step no longer lists it: lost (fenced)
  expect(member.fleet.shardIds, 'fenced').toEqual([]);
  await vi.advanceTimersByTimeAsync(0);
  expect(vi.getTimerCount(), 'the retry waiting when the lease was lost: cleared at once, not left to find the lease gone').toBe(0);
  await vi.advanceTimersByTimeAsync(RECONNECT_AFTER_MS * 2 ** 10);
  expect(member.counts().creates, 'tries after the lease was lost').toBe(2);
  expect(member.list, 'no shard').toEqual([]);
  expect(vi.getTimerCount(), 'a retry still waiting').toBe(0);
});

it('a lease lost and acquired again while the first acquisition waits to try again: one shard, created by the second', async () => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'] });
  const coordinator = new ScriptedCoordinator(60_000);
  const member = memberWith(coordinator, 1);
  await acquire(coordinator, member.fleet, [step({}), step({ 0: 7 })]);
  expect(member.counts().creates, 'the first try failed').toBe(1);
  await acquire(coordinator, member.fleet, [step({})]); // lost (fenced) during the 1 s wait ...
  await vi.advanceTimersByTimeAsync(0);
  await acquire(coordinator, member.fleet, [step({ 0: 8 })]); // ... and acquired again (fence 8) before it ended
  await until(() => member.list.length > 0, { what: 'the second acquisition creating the shard' });
  await vi.advanceTimersByTimeAsync(RECONNECT_AFTER_MS * 4);
  expect(member.counts().creates, "the first acquisition's retry ran after the shard was stopped").toBe(2);
  expect(
    member.list.map((shard) => shard.id),
    'shard 0 once',
  ).toEqual([0]);
});

it("a held shard's connect failure its source reported already (a worker's exit) is counted in its run, not reported again", async () => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
  const reports: string[] = [];
  const outcomes = [reportedAlready(new Error('the shard worker exited (code 1)')), new Error('connect timed out'), undefined];
  let connects = 0;
  connectWhileHeld(
    async () => {
      const outcome = outcomes[connects++];
      if (outcome !== undefined) throw outcome;
    },
    () => true,
    (report) => void reports.push(`${report.event}: ${report.payload instanceof Error ? report.payload.message : String(report.payload)}`),
  );
  await vi.advanceTimersByTimeAsync(RECONNECT_AFTER_MS * 3); // waits of 1 s and 2 s: the third connect succeeds
  expect(connects, 'connected on the third attempt').toBe(3);
  expect(reports, 'the run begun by a failure reported elsewhere: counted, ended by a debug line').toEqual([
    expect.stringMatching(/^debug: the shard is up after 2 failed attempts/),
  ]);
});
