/**
 * A coordinator outage during a fleet's reshard (two shard sets, each its own supervisor, stepping on one coordinator) is one
 * outage of the Gateway: one `error` when it starts and one `storeRecovered` counting the failed steps of both sets
 * (`fleet.ts` `coordinatorOutages`, shared by `shard-sets.ts`).
 */
import { expect, it } from 'vitest';
import { Client } from '../../src/index.js';
import type { StoreRecoveredEvent } from '../../src/diagnostics.js';
import { MemoryGatewaySessionStore } from '../../src/stores.js';
import { MemoryShardCoordinator } from '../../src/testing/index.js';
import { useEmulatorWithAdmin } from '../helpers/emulators.js';
import { until } from '../helpers/until.js';

const start = useEmulatorWithAdmin();

/** Fails every step while `down` (counting them per shard count); the new count's shards never all READY, so both sets keep stepping. */
class FlakyCoordinator extends MemoryShardCoordinator {
  down = false;
  readonly steps = new Map<number, number>();
  readonly failedSteps = new Map<number, number>();
  override async tick(...args: Parameters<MemoryShardCoordinator['tick']>): Promise<Awaited<ReturnType<MemoryShardCoordinator['tick']>>> {
    const count = args[1];
    this.steps.set(count, (this.steps.get(count) ?? 0) + 1);
    if (this.down) {
      this.failedSteps.set(count, (this.failedSteps.get(count) ?? 0) + 1);
      throw new Error('Redis did not answer within 2000 ms');
    }
    return super.tick(...args);
  }
  override async shardReady(shardCount: number, shardId: number): Promise<void> {
    if (shardCount !== 4) await super.shardReady(shardCount, shardId);
  }
}

it('a coordinator outage while both sets of a reshard step is one error and one storeRecovered counting the failed steps of both', async () => {
  const { emulator } = await start({ gateway: { shards: 2, maxConcurrency: 16 } });
  const coordinator = new FlakyCoordinator({ leaseMs: 600 });
  const client = new Client({
    baseUrl: emulator.url,
    auth: { botToken: emulator.seed.botToken },
    gateway: { coordinator, sessionStore: new MemoryGatewaySessionStore() },
  });
  const errors: string[] = [];
  const recovered: StoreRecoveredEvent[] = [];
  client.gateway.on('error', (error) => errors.push(error.message));
  client.gateway.on('storeRecovered', (event) => recovered.push(event));
  const steps = (count: number) => coordinator.steps.get(count) ?? 0;
  try {
    await client.gateway.connect();
    await coordinator.requestReshard(4);
    await until(() => steps(4) >= 3, { what: 'the next set (4 shards) stepping beside the current one (2)' });
    coordinator.down = true;
    const [two, four] = [steps(2), steps(4)];
    await until(() => steps(2) > two && steps(4) > four, { what: 'a failed step of each set' });
    coordinator.down = false;
    await until(() => recovered.length > 0, { what: 'storeRecovered' });
    // Both sets step on after it (each answered): a second report would have come with them.
    const [twoAfter, fourAfter] = [steps(2), steps(4)];
    await until(() => steps(2) >= twoAfter + 2 && steps(4) >= fourAfter + 2, { what: 'two more answered steps of each set' });
    const failed = (coordinator.failedSteps.get(2) ?? 0) + (coordinator.failedSteps.get(4) ?? 0);
    const outage = errors.filter((message) => message.includes('shard coordinator failed'));
    expect(outage, 'one error for the outage, whichever set failed first').toHaveLength(1);
    expect(
      recovered.filter((event) => event.store === 'shardCoordinator').map((event) => event.failures),
      `one storeRecovered counting the ${failed} failed steps of both sets`,
    ).toEqual([failed]);
  } finally {
    await client.close();
  }
}, 30_000);
