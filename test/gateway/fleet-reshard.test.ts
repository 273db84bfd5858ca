/**
 * A fleet's reshard in one process: two Gateways sharing the emulator's
 * shards through the in-memory coordinator. `reshard(n)` resolves once n
 * shards run, never on a switch to another count; a set the fleet reshards
 * away from takes no more shards.
 */
import { expect, it } from 'vitest';
import { Client, MemoryGatewaySessionStore } from '../../src/index.js';
import { MemoryShardCoordinator } from '../../src/testing/index.js';
import { useEmulatorWithAdmin } from '../helpers/emulators.js';
import { until } from '../helpers/until.js';

const start = useEmulatorWithAdmin();

/** A coordinator that accepts a reshard request whatever is pending (as a faulty one may): the Gateway must not take it for its own. */
class LenientCoordinator extends MemoryShardCoordinator {
  override async requestReshard(count: number): Promise<void> {
    await super.requestReshard(count).catch(() => undefined);
  }
}

/** Two members of one fleet on the emulator. */
async function twoMembers(coordinator: MemoryShardCoordinator, shards: number, maxShards?: number) {
  const { emulator } = await start({ gateway: { shards, maxConcurrency: 16 } });
  const gateway = { coordinator, sessionStore: new MemoryGatewaySessionStore(), maxShards };
  const clients = [0, 1].map(() => new Client({ baseUrl: emulator.url, auth: { botToken: emulator.seed.botToken }, gateway }));
  await Promise.all(clients.map((client) => client.gateway.connect()));
  const running = () => clients.reduce((sum, client) => sum + client.gateway.shards.length, 0);
  await until(() => running() === shards, { what: `the ${shards} shards shared` });
  return { emulator, clients, running };
}

it('reshard(n) in a fleet resolves once n shards run across the members, with one Identify per new shard', async () => {
  const coordinator = new MemoryShardCoordinator({ leaseMs: 600 });
  const { emulator, clients, running } = await twoMembers(coordinator, 2);
  try {
    const [a] = clients as [Client, Client];
    await a.gateway.reshard(4);
    expect(a.gateway.shardCount).toBe(4);
    await until(() => running() === 4 && clients.every((client) => client.gateway.shardCount === 4), { what: 'both members on 4 shards' });
    expect(emulator.gatewayStats.forBot().identifies).toBe(2 + 4);
  } finally {
    for (const client of clients) await client.close();
  }
});

it('reshard(n) rejects when the fleet switched to another count (a request another reshard was pending for)', async () => {
  const coordinator = new LenientCoordinator({ leaseMs: 600 });
  const { clients } = await twoMembers(coordinator, 2);
  try {
    const [a] = clients as [Client, Client];
    await coordinator.requestReshard(1);
    await expect(a.gateway.reshard(3)).rejects.toThrow(/switched to 1 shards, not the 3 asked for/);
    expect(a.gateway.shardCount).toBe(1);
  } finally {
    for (const client of clients) await client.close();
  }
});

it("a fleet's reshard target past gateway.maxShards is reported and not planned (a count from Redis is trusted only within it)", async () => {
  const coordinator = new MemoryShardCoordinator({ leaseMs: 600 });
  const { clients, running } = await twoMembers(coordinator, 2, 3);
  const refused: string[] = [];
  for (const client of clients) client.gateway.on('error', (error) => refused.push(error.message));
  try {
    await coordinator.requestReshard(4);
    await until(() => refused.length === 2, { what: `both members refusing the target of 4 (errors so far: ${refused.length})` });
    expect(refused).toEqual(Array(2).fill('the fleet asks to reshard to 4 shards, more than gateway.maxShards (3): not started'));
    expect(clients.map((client) => client.gateway.shardCount)).toEqual([2, 2]);
    // The refused target stops no set from taking shards: both stay served (a hand-off to rebalance included).
    await until(() => running() === 2 && coordinator.holders(2).size === 2, { what: 'both shards served while the target is pending' });
  } finally {
    for (const client of clients) await client.close();
  }
});
