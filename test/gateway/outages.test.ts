/**
 * Coordinator failures reported once per outage, named by their source (`gateway/outages.ts`, used by `gateway/fleet.ts`):
 * a Redis paused for seconds is one error when it starts and one `storeRecovered` event with its duration and count when it
 * ends, not one per call; a session store's failure is the store's event, not the coordinator's.
 */
import { expect, it } from 'vitest';
import type { ConnectionReport } from '../../src/gateway/connection-host.js';
import { createFleet } from '../../src/gateway/fleet.js';
import { LastSessions, type GatewaySessionStore } from '../../src/gateway/gateway-session-store.js';
import { Outage, OutageReporter } from '../../src/gateway/outages.js';
import type { StoreRecoveredEvent } from '../../src/observe/events.js';
import type { ShardHandle } from '../../src/gateway/shards.js';
import { SessionStoreError, ShardCoordinatorError } from '../../src/errors/index.js';
import { ScriptedCoordinator, step } from '../helpers/scripted-coordinator.js';
import { until } from '../helpers/until.js';

it('an outage is reported when it starts, counted while it lasts, and ends with its duration and count', () => {
  const clock = { now: 100 };
  const outage = new Outage(() => clock.now);
  expect(outage.recovered(), 'no outage: nothing ends').toBeUndefined();
  expect(outage.failed(), 'the first failure starts it').toEqual({ starts: true, ended: undefined });
  clock.now = 2100;
  expect(outage.failed().starts).toBe(false);
  expect(outage.failed().starts).toBe(false);
  clock.now = 8100;
  expect(outage.recovered()).toEqual({ durationMs: 8000, failures: 3 });
  expect(outage.recovered(), 'ended once').toBeUndefined();
  expect(outage.failed().starts, 'a new outage').toBe(true);
  expect(outage.recovered()).toEqual({ durationMs: 0, failures: 1 });
});

it('with settleMs, a component that flaps (fails, answers, fails ...) is one outage, ended by an answer settleMs after its last failure', () => {
  const clock = { now: 0 };
  const outage = new Outage(() => clock.now, 5000);
  expect(outage.failed().starts).toBe(true);
  for (let flip = 0; flip < 10; flip++) {
    clock.now += 400;
    expect(outage.recovered(), `answer ${flip}, ${clock.now} ms in, 400 ms after a failure`).toBeUndefined();
    clock.now += 400;
    expect(outage.failed(), `failure ${flip}: the same outage`).toEqual({ starts: false, ended: undefined });
  }
  clock.now += 4999;
  expect(outage.recovered(), '4999 ms after the last failure').toBeUndefined();
  clock.now += 1;
  expect(outage.recovered()).toEqual({ durationMs: 13_000, failures: 11 });
  // A wall clock set back an hour does not hold the next outage open for that hour, nor make its duration negative.
  expect(outage.failed().starts).toBe(true);
  clock.now -= 3_600_000;
  expect(outage.recovered(), 'an answer after the clock was set back').toEqual({ durationMs: 0, failures: 1 });
});

it('with settleMs, an outage answered soon after its last failure, then left alone, ends at the next failure, which starts the next outage', () => {
  const clock = { now: 0 };
  const outage = new Outage(() => clock.now, 5000);
  expect(outage.failed().starts).toBe(true);
  clock.now = 1000;
  expect(outage.failed().starts).toBe(false);
  clock.now = 2000; // answered a second after its last failure: not settled yet
  expect(outage.recovered()).toBeUndefined();
  clock.now = 2500;
  expect(outage.recovered(), 'a later answer within the settle time').toBeUndefined();
  // Nothing for a day, then a failure: the first outage ended at its first answer after its last failure, the second starts.
  clock.now = 86_400_000;
  expect(outage.failed(), 'the failure a day later').toEqual({ starts: true, ended: { durationMs: 2000, failures: 2 } });
  clock.now += 5000;
  expect(outage.recovered(), 'the second outage ends on its own').toEqual({ durationMs: 5000, failures: 1 });
  // A failure within settleMs of an answer is the same outage (flapping), however the answers fell.
  expect(outage.failed().starts).toBe(true);
  clock.now += 100;
  expect(outage.recovered()).toBeUndefined();
  clock.now += 4000;
  expect(outage.failed(), '4,100 ms after the last failure: still flapping').toEqual({ starts: false, ended: undefined });
});

it('a reporter tells the end of an outage that settled unseen before the failure that starts the next one, in that order', () => {
  const clock = { now: 0 };
  const seen: string[] = [];
  const reporter = new OutageReporter(
    'identifyThrottle',
    (error) => seen.push(`failed: ${String(error)}`),
    (event) => seen.push(`recovered: ${event.store} ${event.durationMs} ms, ${event.failures} failed`),
    () => clock.now,
    5000,
  );
  expect(reporter.failed('first')).toBe(true);
  clock.now = 1000;
  reporter.answered(); // a second later: not settled, nothing reported
  clock.now = 86_400_000;
  expect(reporter.failed('a day later'), 'the failure a day later starts an outage').toBe(true);
  expect(seen).toEqual(['failed: first', 'recovered: identifyThrottle 1000 ms, 1 failed', 'failed: a day later']);
});

/** A fleet whose shards restore from `store`, recording what it reports and what the session store's path got. */
function fleetWith(store?: GatewaySessionStore) {
  const coordinator = new ScriptedCoordinator(1000);
  const reports: ConnectionReport[] = [];
  const storeFailures: unknown[] = [];
  const recovered: StoreRecoveredEvent[] = [];
  const shard = (id: number): ShardHandle => ({
    ...{ id, status: 'idle', sessionId: undefined, sequence: null, latency: undefined, lastAckAt: undefined, resumeUrl: undefined },
    restore: () => undefined,
    connect: async () => undefined,
    destroy: async () => undefined,
  });
  const fleet = createFleet(
    coordinator,
    1,
    {
      ...{ create: shard, list: [], savers: new Map(), store, last: new LastSessions(), holds: () => true, record: () => undefined },
      ...{ storeFailed: (error) => storeFailures.push(error), storeRecovered: (event) => recovered.push(event), report: (report) => reports.push(report) },
    },
    'me',
  );
  const answer = async (outcome: ReturnType<typeof step> | Error) => {
    const ticking = fleet.tick();
    const call = await coordinator.next('tick');
    if (outcome instanceof Error) call.reject(outcome);
    else call.resolve(outcome);
    await ticking;
  };
  return { fleet, reports, storeFailures, recovered, answer };
}

it('ten failed steps in a row are one error naming the coordinator, and the step that answers again is one storeRecovered with its duration and count', async () => {
  const { reports, recovered, answer } = fleetWith();
  await answer(step({}));
  expect(recovered, 'no outage: nothing ends').toEqual([]);
  const started = performance.now();
  for (let i = 0; i < 10; i++) await answer(new ShardCoordinatorError('Redis did not answer within 2000 ms'));
  const errors = reports.filter((report) => report.event === 'error');
  expect(errors.map((report) => (report.payload as Error).message)).toEqual([
    'The shard coordinator failed: Redis did not answer within 2000 ms (further failures are counted until it answers again)',
  ]);
  expect(recovered, 'nothing ends while it fails').toEqual([]);
  await answer(step({}));
  const elapsed = performance.now() - started;
  expect(recovered, 'the answer after ten failures').toEqual([{ store: 'shardCoordinator', durationMs: expect.any(Number), failures: 10 }]);
  expect(recovered[0]?.durationMs, 'from the first failure to the answer (ms)').toBeGreaterThanOrEqual(0);
  expect(recovered[0]?.durationMs, `within the ${elapsed} ms the test took`).toBeLessThanOrEqual(Math.ceil(elapsed));
  await answer(step({}));
  expect(recovered, 'ended once').toHaveLength(1);
  await answer(new ShardCoordinatorError('Redis failed: ECONNRESET'));
  expect(
    reports.filter((report) => report.event === 'error'),
    'a new outage is reported again',
  ).toHaveLength(2);
  await answer(step({}));
  expect(
    recovered.map((event) => event.failures),
    'the second outage ends with its own count',
  ).toEqual([10, 1]);
});

it('values a step repaired are reported each time, and do not open an outage that hides the next failure', async () => {
  const { reports, recovered, answer } = fleetWith();
  await answer(step({}));
  const repair = new ShardCoordinatorError('found values the SDK did not write, and repaired them: k held x', { keys: ['k'] });
  await answer({ ...step({}), report: repair });
  await answer({ ...step({}), report: repair });
  await answer(new ShardCoordinatorError('Redis did not answer within 2000 ms'));
  const messages = reports.filter((report) => report.event === 'error').map((report) => (report.payload as Error).message);
  expect(messages).toHaveLength(3);
  expect(messages[2]).toContain('Redis did not answer');
  expect(recovered, 'a repair is no outage').toEqual([]);
  await answer(step({}));
  expect(recovered, 'the failure after the repairs opened an outage of its own, ended by the next answer').toEqual([
    { store: 'shardCoordinator', durationMs: expect.any(Number), failures: 1 },
  ]);
});

it("a session store failing while a shard starts is the session store's failure, not the coordinator's", async () => {
  const failing: GatewaySessionStore = {
    load: async () => {
      throw new SessionStoreError('Redis did not answer within 2000 ms');
    },
    save: async () => undefined,
  };
  const { reports, storeFailures, answer } = fleetWith(failing);
  await answer(step({}));
  await answer(step({ 0: 1 }));
  await until(() => storeFailures.length > 0, { what: "the session store's failure reported as the store's" });
  expect(storeFailures[0]).toBeInstanceOf(SessionStoreError);
  expect(
    reports.filter((report) => report.event === 'error'),
    'nothing blamed on the coordinator',
  ).toEqual([]);
});
