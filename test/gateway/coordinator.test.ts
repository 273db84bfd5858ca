/**
 * A Gateway in a fleet, with a coordinator whose answers the test controls:
 * shards start on the leases it gives; once the lease may have lapsed (the
 * process slept past it), the next dispatch is not delivered, the shard is
 * fenced and stopped, and its stored session keeps the last sequence
 * dispatched, so the new holder's resume replays the rest.
 */
import { afterEach, expect, it, vi } from 'vitest';
import { Client, MemoryGatewaySessionStore, type CoordinatorTick, type ShardCoordinator } from '../../src/index.js';
import { createEmulator, type Emulator } from '../../src/testing/index.js';
import { until } from '../helpers/until.js';

/** A coordinator that grants what `leases` says, and whose next tick can be held. */
class ScriptedCoordinator implements ShardCoordinator {
  readonly leaseMs = 1000;
  leases = [
    { shardId: 0, fence: 1 },
    { shardId: 1, fence: 2 },
  ];
  hold: Promise<void> | undefined;
  readonly claims: string[] = [];
  async tick(): Promise<CoordinatorTick> {
    await this.hold;
    return { members: 1, index: 0, leases: this.leases };
  }
  async release(): Promise<void> {}
  async leave(): Promise<void> {}
  async claimInteraction(_member: string, id: string): Promise<boolean> {
    this.claims.push(id);
    return true;
  }
  async answered(): Promise<void> {}
}

let emulator: Emulator | undefined;
afterEach(async () => {
  await emulator?.close();
});

it('a shard whose lease may have lapsed dispatches nothing more: fenced, stopped, its stored sequence the last one dispatched', async () => {
  emulator = await createEmulator({ gateway: { shards: 2, maxConcurrency: 2 } });
  const coordinator = new ScriptedCoordinator();
  const sessionStore = new MemoryGatewaySessionStore();
  const client = new Client({ baseUrl: emulator.url, auth: { botToken: emulator.seed.botToken }, gateway: { coordinator, sessionStore } });
  const seen: string[] = [];
  const debug: string[] = [];
  client.gateway.on('dispatch', (event) => event.t === 'MESSAGE_CREATE' && seen.push((event.d as { content: string }).content));
  client.gateway.on('debug', (line) => debug.push(line));
  try {
    await client.gateway.connect();
    expect(client.gateway.shards.map((shard) => shard.id)).toEqual([0, 1]);
    emulator.dispatchEvent('MESSAGE_CREATE', { content: 'before' });
    await until(() => seen.includes('before'), { what: 'a dispatch while the lease is valid' });
    await until(async () => (await sessionStore.load(0, 2))?.sequence === client.gateway.shards[0]?.sequence, { what: 'the session saved' });
    const saved = await sessionStore.load(0, 2);

    // The process sleeps past its lease: no renewal answers, and the monotonic clock has moved on.
    let wake = () => undefined as void;
    coordinator.hold = new Promise<void>((resolve) => (wake = resolve));
    const now = performance.now();
    vi.spyOn(performance, 'now').mockReturnValue(now + 5000);
    emulator.dispatchEvent('MESSAGE_CREATE', { content: 'after' });
    await until(() => debug.some((line) => line.includes('shard 0 fenced')), { what: 'shard 0 fenced' });
    await until(() => !client.gateway.shards.some((shard) => shard.id === 0), { what: 'shard 0 stopped' });
    expect(seen).toEqual(['before']);
    expect(await sessionStore.load(0, 2)).toEqual(saved);

    // The coordinator answers again: the lease was lost to another process.
    coordinator.leases = [{ shardId: 1, fence: 2 }];
    wake();
  } finally {
    await client.close();
  }
});
