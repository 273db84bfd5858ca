/**
 * When a dead shard worker is replaced (`gateway/worker-restart.ts`): after the reconnect backoff; a replacement whose thread
 * cannot start (`new Worker` throws at a thread limit) is reported once per run of failures, naming the shards, never thrown
 * out of its timer, and tried again 1 s, 2 s, 4 s … (at most 30 s) later while the worker is wanted; ending the worker clears
 * every wait. With real worker threads: `test/gateway/worker-pool.test.ts`.
 */
import { afterEach, expect, it, vi } from 'vitest';
import type { ConnectionReport } from '../../src/gateway/connection-host.js';
import { RECONNECT_AFTER_MS } from '../../src/gateway/shard-start.js';
import { WorkerRestart } from '../../src/gateway/worker-restart.js';

afterEach(() => void vi.useRealTimers());

/** A restart of a worker running shards 2 and 5 whose thread fails to start `failures` times, every report kept as text. */
function restartFailing(failures: number) {
  const reports: string[] = [];
  let starts = 0;
  let open = true;
  const restart = new WorkerRestart(
    { baseDelayMs: 100, maxDelayMs: 100 },
    {
      shards: () => [2, 5],
      start: () => {
        if (++starts <= failures) throw Object.assign(new Error(`ERR_WORKER_INIT_FAILED: EAGAIN (start ${starts})`), { code: 'ERR_WORKER_INIT_FAILED' });
      },
      open: () => open,
      report: (report: ConnectionReport) =>
        void reports.push(`${report.event}: ${report.payload instanceof Error ? report.payload.message : String(report.payload)}`),
    },
  );
  return { restart, reports, starts: () => starts, close: () => void ((open = false), restart.stop()) };
}

it('a replacement whose thread cannot start: one error naming the shards for the run, tried again 1 s then 2 s later, a debug line once it starts', async () => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  const { restart, reports, starts } = restartFailing(2);
  const { delayMs, attempt } = restart.crashed();
  expect(attempt, 'the first crash').toBe(1);
  await vi.advanceTimersByTimeAsync(delayMs);
  expect(starts(), 'the replacement tried once the backoff passed').toBe(1);
  expect(reports).toEqual([
    'error: a new shard worker for shard(s) 2, 5 could not start (ERR_WORKER_INIT_FAILED: EAGAIN (start 1)); tried again while they run here',
  ]);
  await vi.advanceTimersByTimeAsync(RECONNECT_AFTER_MS - 1);
  expect(starts(), 'not before 1 s').toBe(1);
  await vi.advanceTimersByTimeAsync(1);
  expect(starts(), 'tried again after 1 s').toBe(2);
  expect(reports, 'the second failure of the run is counted, not reported').toHaveLength(1);
  await vi.advanceTimersByTimeAsync(RECONNECT_AFTER_MS * 2);
  expect(starts(), 'tried again after 2 s more, and started').toBe(3);
  expect(reports.slice(1)).toEqual([expect.stringMatching(/^debug: a new shard worker for shard\(s\) 2, 5 started after 2 failed attempts over 3\d{3} ms$/)]);
  expect(vi.getTimerCount(), 'nothing left waiting once it started').toBe(0);
});

it('crashes in a row wait longer; a restarted shard that connects brings the backoff back to its first step', () => {
  vi.spyOn(Math, 'random').mockReturnValue(0.999);
  const policy = new WorkerRestart(
    { baseDelayMs: 100, maxDelayMs: 1000 },
    { shards: () => [0], start: () => undefined, open: () => false, report: () => undefined },
  );
  expect([policy.crashed(), policy.crashed(), policy.crashed()], 'the reconnect backoff, growing').toEqual([
    { attempt: 1, delayMs: 99 },
    { attempt: 2, delayMs: 199 },
    { attempt: 3, delayMs: 399 },
  ]);
  policy.connected();
  expect(policy.crashed(), 'after a connect, the first step again').toEqual({ attempt: 1, delayMs: 99 });
  policy.stop();
});

it('ending the worker while its replacement waits (the backoff, or a wait after a failed start) clears the wait: no start after, no timer left', async () => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  const during = restartFailing(0);
  during.restart.crashed();
  during.close();
  expect(vi.getTimerCount(), 'the backoff cleared').toBe(0);

  const failing = restartFailing(10);
  const { delayMs } = failing.restart.crashed();
  await vi.advanceTimersByTimeAsync(delayMs + RECONNECT_AFTER_MS * (1 + 2 + 4));
  expect(failing.starts(), 'four starts failed (the waits now 8 s)').toBe(4);
  failing.close();
  expect(vi.getTimerCount(), 'the 8 s wait cleared').toBe(0);
  await vi.advanceTimersByTimeAsync(60_000);
  expect(failing.starts(), 'no start once ended').toBe(4);
  expect(during.starts(), 'the worker ended during its backoff never restarted').toBe(0);
  expect(failing.reports, 'one error for the whole run').toHaveLength(1);
});

it('the waits between failed starts double up to 30 s and stay there', async () => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  const { restart, starts, close } = restartFailing(Number.POSITIVE_INFINITY);
  const { delayMs } = restart.crashed();
  await vi.advanceTimersByTimeAsync(delayMs);
  const waits: number[] = [];
  for (let i = 0; i < 7; i++) {
    const before = starts();
    let waited = 0;
    while (starts() === before) {
      await vi.advanceTimersByTimeAsync(1000);
      waited += 1000;
    }
    waits.push(waited);
  }
  close();
  expect(waits, 'the waits between starts, in ms').toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000]);
});
