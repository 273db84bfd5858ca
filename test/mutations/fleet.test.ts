/**
 * The fleet supervisor's rules that the mutation measure (`npm run mutate`, area `fleet`) found unguarded, on a
 * coordinator whose every answer the test gives and a clock the test moves.
 */
import { expect, it } from 'vitest';
import { FleetSupervisor, type FleetHost } from '../../src/gateway/coordinator.js';
import type { SessionSaver } from '../../src/gateway/gateway-session-store.js';
import { newShardSet } from '../../src/gateway/reshard.js';
import { ShardSets, type ShardSetsHost } from '../../src/gateway/shard-sets.js';
import { ScriptedCoordinator, step } from '../helpers/scripted-coordinator.js';
import { until } from '../helpers/until.js';

/** A supervisor of 2 shards holding shards 0 and 1 (fences 1 and 2), both started; `ready` says which are READY. */
async function holdingTwo(ready: Set<number>, clock = { now: 0 }) {
  const coordinator = new ScriptedCoordinator(1000);
  const log: string[] = [];
  const host: FleetHost = {
    start: async (shardId) => void log.push(`start ${shardId}`),
    stop: async (shardId, handOff) => void log.push(`stop ${shardId} ${handOff ? 'handOff' : 'lost'}`),
    ready: (shardId) => ready.has(shardId),
    debug: () => undefined,
    failed: (error) => log.push(`failed ${String(error)}`),
  };
  const fleet = new FleetSupervisor(coordinator, 2, 'm', host, () => clock.now);
  const answer = async (tick: ReturnType<typeof step>) => {
    const ticking = fleet.tick();
    (await coordinator.next('tick')).resolve(tick);
    await ticking;
  };
  await answer(step({}));
  await answer(step({ 0: 1, 1: 2 }));
  expect(log).toEqual(['start 0', 'start 1']);
  return { coordinator, fleet, log, answer };
}

it('only READY shards are handed off to rebalance: none while none is READY, then the READY one even if it is this member’s home', async () => {
  const ready = new Set<number>();
  const { fleet, log, answer } = await holdingTwo(ready);
  // A second member joined: the fair share is 1, one shard is extra, but neither is READY.
  await answer(step({ 0: 1, 1: 2 }, 2, 0));
  expect(log, 'a shard that is not READY handed off (its successor would Identify while it still connects)').toEqual(['start 0', 'start 1']);
  expect(fleet.shardIds).toEqual([0, 1]);
  // Shard 0 (this member's home, handed off last when both are READY) is READY, shard 1 is not: shard 0 goes.
  ready.add(0);
  await answer(step({ 0: 1, 1: 2 }, 2, 0));
  await until(() => log.includes('stop 0 handOff'), { what: 'the READY shard 0 handed off' });
  expect(log, 'shard 1, not READY, handed off').not.toContain('stop 1 handOff');
  expect(fleet.shardIds).toEqual([1]);
});

it('after close(), an answer on a shard held until then is refused: the claims pass to live members, which run the replays', async () => {
  const { coordinator, fleet } = await holdingTwo(new Set([0, 1]));
  expect(fleet.mayAnswer(0)).toBe(true);
  const closing = fleet.close(async () => undefined);
  (await coordinator.next('leave')).resolve(undefined);
  await closing;
  expect(fleet.mayAnswer(0), 'an answer on shard 0 after this member left the fleet').toBe(false);
  expect(fleet.mayAnswer(1), 'an answer on shard 1 after this member left the fleet').toBe(false);
});

/** Shard sets whose host does nothing (the tests below ask only the sets' own rules). */
function shardSets(): ShardSets {
  const host = { store: undefined, maxShards: 64, storeFailed: () => undefined, report: () => undefined, now: () => 0 } as unknown as ShardSetsHost;
  return new ShardSets(host);
}

it('during a reshard the next set dispatches interactions only: any other event of it would be dispatched twice across the switch', () => {
  const sets = shardSets();
  const next = newShardSet(undefined, sets.current.generation + 1);
  const event = (t: string) => ({ shardId: 0, t, s: 1, d: {} });
  expect(sets.dispatches(sets.current, event('MESSAGE_CREATE'))).toBe(true);
  expect(sets.dispatches(next, event('INTERACTION_CREATE')), "the next set's interaction").toBe(true);
  expect(sets.dispatches(next, event('MESSAGE_CREATE')), "the next set's MESSAGE_CREATE before the switch").toBe(false);
  expect(sets.dispatches(newShardSet(undefined, sets.current.generation - 1), event('INTERACTION_CREATE')), 'an old set').toBe(false);
});

it('a shard its fleet fenced saves no session when it publishes (its new holder saves it), a held one does', async () => {
  const clock = { now: 0 };
  const { fleet } = await holdingTwo(new Set([0, 1]), clock);
  const sets = shardSets();
  const saves: number[] = [];
  for (const id of [0, 1]) sets.current.savers.set(id, { schedule: () => void saves.push(id) } as unknown as SessionSaver);
  sets.current.fleet = fleet;
  sets.published(0, sets.current.generation);
  expect(saves, 'a held shard saves on publishing').toEqual([0]);
  clock.now = 10_000; // past every lease: the shards are fenced
  expect(fleet.saves(0)).toBe(false);
  sets.published(0, sets.current.generation);
  sets.published(1, sets.current.generation);
  expect(saves, 'a fenced shard saved its session over its new holder').toEqual([0]);
});
