/**
 * A coordinator step that repaired something answers its leases and a report together: the supervisor acts on the answer
 * (the leases are renewed, so the renewal margin is kept) and reports through its host's failure path in the same step.
 */
import { afterEach, expect, it, vi } from 'vitest';
import { type CoordinatorTick, FleetSupervisor, type FleetHost, type ShardCoordinator } from '../../src/gateway/coordinator.js';
import { ShardCoordinatorError } from '../../src/errors/index.js';

/** A coordinator that grants shard 0 every step, the next answer carrying `report` when set. */
function coordinator(): ShardCoordinator & { report: Error | undefined } {
  return {
    leaseMs: 1000,
    report: undefined,
    async tick(): Promise<CoordinatorTick> {
      const report = this.report;
      this.report = undefined;
      return { members: 1, index: 0, leases: [{ shardId: 0, fence: 7 }], report };
    },
    async release() {},
    async leave() {},
    async claimInteraction() {
      return true;
    },
    async answered() {},
  };
}

afterEach(() => {
  vi.restoreAllMocks();
});

it("a step's report arrives in that step, and the step still renews the lease it answered", async () => {
  const c = coordinator();
  const failures: unknown[] = [];
  const host: FleetHost = {
    start: async () => undefined,
    stop: async () => undefined,
    ready: () => true,
    debug: () => undefined,
    failed: (error) => failures.push(error),
  };
  const supervisor = new FleetSupervisor(c, 1, 'a', host);
  const t0 = performance.now();
  const clock = vi.spyOn(performance, 'now').mockReturnValue(t0);
  await supervisor.tick();
  expect(supervisor.holds(0)).toBe(true);
  // 700 ms later (valid until 800 ms after the first step), a step repairs something: its answer renews shard 0's lease.
  const report = new ShardCoordinatorError('found values the SDK did not write, and repaired them: {k}:free:1 held a string', { keys: ['{k}:free:1'] });
  c.report = report;
  clock.mockReturnValue(t0 + 700);
  await supervisor.tick();
  expect(failures, 'the report, through the host, in the step that found it').toEqual([report]);
  // 1,000 ms after the first step: shard 0 is still held, on the renewal of the step that reported.
  clock.mockReturnValue(t0 + 1000);
  expect(supervisor.holds(0), 'shard 0 renewed by the step that reported').toBe(true);
  expect(supervisor.shardIds).toEqual([0]);
});
