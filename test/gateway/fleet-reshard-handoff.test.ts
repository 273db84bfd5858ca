/**
 * A fleet's switch and a hand-off: an event other than an interaction whose claim this member asked while it held the shard, answered
 * only after the shard was handed off. Won, this member emits it (the successor's copy is refused the claim: dropped here, it would be
 * lost); lost, nobody here does. Either way a resume's replay of it (the shard taken back) is not emitted again.
 */
import { expect, it } from 'vitest';
import { switchEventKey } from '../../src/gateway/reshard.js';
import type { ShardCoordinator } from '../../src/gateway/coordinator.js';
import { Client } from '../../src/index.js';
import { MemoryGatewaySessionStore } from '../../src/stores.js';
import { MemoryShardCoordinator } from '../../src/testing/index.js';
import { useEmulators } from '../helpers/emulators.js';
import { until } from '../helpers/until.js';

const start = useEmulators();

/** The fleet's count before the reshard. */
const OLD = 2;
const LEASE_MS = 3000;

/**
 * A memory coordinator scripted for one hand-off during a reshard: the next set is never READY across the fleet (no switch; the old
 * count keeps taking free shards), and once {@link handOffAfterClaim} was called, the member's steps of the old count wait until it
 * asked the claim of a switch event; its answers to that claim wait until the member handed a shard of the old count off (released it).
 */
class HandOffDuringClaim extends MemoryShardCoordinator {
  /** The other member (not gated). */
  other = '';
  /** The switch event claims the member asked, in order. */
  readonly asked: string[] = [];
  /** The old count's shard the member released, once it did. */
  readonly released: Promise<number>;
  #release: (shardId: number) => void = () => undefined;
  #asked: Promise<void> | undefined;
  #claimAsked: () => void = () => undefined;

  constructor() {
    super({ leaseMs: LEASE_MS });
    this.released = new Promise((resolve) => (this.#release = resolve));
  }

  /** From now on the member's old-count steps (so its rebalance) wait until it asked a switch event's claim. */
  handOffAfterClaim(): void {
    this.#asked = new Promise((resolve) => (this.#claimAsked = resolve));
  }

  override async tick(member: string, shardCount: number, acquire: boolean, registered?: boolean) {
    if (shardCount === OLD && member !== this.other && this.#asked !== undefined) await this.#asked;
    return super.tick(member, shardCount, acquire, registered);
  }

  override async shardReady(): Promise<void> {} // the next set never all READY: no switch while the test runs

  override async claimInteraction(member: string, key: string, ttlMs?: number): Promise<boolean> {
    const answer = await super.claimInteraction(member, key, ttlMs); // won or lost now, while the member holds the shard
    if (member === this.other || !key.startsWith('e:MESSAGE_CREATE:')) return answer;
    this.asked.push(key);
    this.#claimAsked();
    await this.released; // ... and answered after the hand-off
    return answer;
  }

  override async release(...args: Parameters<ShardCoordinator['release']>): Promise<void> {
    await super.release(...args);
    const [member, shardCount, lease] = args;
    if (member !== this.other && shardCount === OLD) this.#release(lease.shardId);
  }
}

/**
 * One member holding both shards of 2; a reshard to 1 under way; another member registers (it takes nothing) when a MESSAGE_CREATE
 * on shard 1 arrives, and the member hands shard 1 off while that event's claim is out. `claimedElsewhere`: the other member won
 * the claim first. Once the claim was answered, the other member leaves, the member takes shard 1 back and resumes it (the service
 * replays the event); its RESUMED (or READY), queued behind the event's claim, says the event was decided. Returns who emitted what.
 */
async function handOffDuringClaim(claimedElsewhere: boolean) {
  const emulator = await start({ gateway: { shards: OLD, maxConcurrency: 16 } });
  const coordinator = new HandOffDuringClaim();
  const client = new Client({
    baseUrl: emulator.url,
    auth: { botToken: emulator.seed.botToken },
    gateway: { coordinator, sessionStore: new MemoryGatewaySessionStore() },
  });
  const emitted: string[] = [];
  // Shard 1's session events once it was handed off: only the old set has a shard 1 (the next set has 1 shard).
  const back: string[] = [];
  let handedOff = false;
  client.gateway.on('dispatch', (event) => {
    if (event.t === 'MESSAGE_CREATE') emitted.push(`message ${(event.d as { id: string }).id} on shard ${event.shardId}`);
    if ((event.t === 'RESUMED' || event.t === 'READY') && event.shardId === 1 && handedOff) back.push(event.t);
  });
  const started = new Promise<void>((resolve) =>
    client.gateway.on('debug', (line) => {
      if (line.includes('reshard: identifying')) resolve();
    }),
  );
  try {
    await client.gateway.connect();
    await until(() => client.gateway.shards.filter((shard) => shard.status === 'ready').length === OLD, { what: 'both shards of 2 READY here' });
    const [member] = coordinator.members() as [string];
    coordinator.other = `${member} elsewhere`; // sorts after this member: shard 1 is the one not "at home" here, so it is handed off
    await coordinator.requestReshard(1);
    await started; // the switch's claims begin (the next set's shard is quiet for a lease, and not connected yet)
    const message = { id: '2000001', guild_id: String((1n << 22n) + 7n), channel_id: '1', content: 'during the switch' }; // shard 1 of 2
    const key = `${switchEventKey('MESSAGE_CREATE', message)}#1`;
    coordinator.handOffAfterClaim();
    await coordinator.tick(coordinator.other, OLD, false); // a second member: this one's fair share is 1 shard
    if (claimedElsewhere) await coordinator.claimInteraction(coordinator.other, key, 5_000);
    emulator.dispatchEvent('MESSAGE_CREATE', message);
    expect(await coordinator.released, 'the shard handed off while the claim was out').toBe(1);
    handedOff = true;
    expect([...new Set(coordinator.asked)], "the claim this member asked (the event's key on the old set; a try that timed out asks again)").toEqual([key]);
    await coordinator.leave(coordinator.other, OLD);
    await until(() => back.length > 0, { what: () => `shard 1 taken back here (messages emitted: ${emitted.join(', ') || 'none'})` });
    return emitted;
  } finally {
    await client.close();
  }
}

it("a switch event whose claim this member won while holding the shard is emitted here once, though the claim's answer came after the shard was handed off", async () => {
  expect(await handOffDuringClaim(false), 'emitted by the claim winner, once (not dropped as no longer held, not again on the replay)').toEqual([
    'message 2000001 on shard 1',
  ]);
});

it('a switch event whose claim another member won is not emitted here, though its answer came after the shard was handed off', async () => {
  expect(await handOffDuringClaim(true), 'the claim was lost: not emitted here, nor on the replay').toEqual([]);
});
