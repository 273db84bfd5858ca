/**
 * The shard sets' dispatch rules that need no connection: what a successor skips of a predecessor's replay (bounded by the
 * stored record, and over at RESUMED).
 */
import { expect, it } from 'vitest';
import { dispatchedAhead, MAX_DISPATCHED_AHEAD } from '../../src/gateway/gateway-session-store.js';
import type { GatewayDispatchEvent } from '../../src/gateway/options.js';
import { ShardSets } from '../../src/gateway/shard-sets.js';

function sets(): ShardSets {
  return new ShardSets({
    newShard: () => {
      throw new Error('no shard is started here');
    },
    record: () => undefined,
    store: undefined,
    storeFailed: () => undefined,
    report: () => undefined,
    now: () => 0,
    maxShards: 16,
  });
}

it("a predecessor's `dispatched` is skipped during the replay only: RESUMED ends it, whatever the stored bound said", () => {
  const shards = sets();
  shards.current.replayed.set(0, Number.MAX_SAFE_INTEGER); // a planted value
  const out: string[] = [];
  const admit = (t: string, s: number) =>
    shards.admit(shards.current, { t, s, d: { id: String(s) }, shardId: 0 } satisfies GatewayDispatchEvent, () => out.push(`${t} ${s}`));
  admit('MESSAGE_CREATE', 6); // replayed: the predecessor emitted it
  admit('INTERACTION_CREATE', 7); // interactions have their own claim: never skipped here
  admit('RESUMED', 8);
  admit('MESSAGE_CREATE', 9);
  admit('MESSAGE_CREATE', 10);
  expect(out, 'after RESUMED every event is live again').toEqual(['INTERACTION_CREATE 7', 'RESUMED 8', 'MESSAGE_CREATE 9', 'MESSAGE_CREATE 10']);
});

it("a record's `dispatched` counts only above its sequence and at most MAX_DISPATCHED_AHEAD above it", () => {
  expect(dispatchedAhead({ sessionId: 's', sequence: 50, dispatched: 60 })).toBe(60);
  expect(dispatchedAhead({ sessionId: 's', sequence: 50, dispatched: 50 }), 'not above: nothing to skip').toBeUndefined();
  expect(dispatchedAhead({ sessionId: 's', sequence: 50, dispatched: 3 }), 'below: nothing to skip').toBeUndefined();
  expect(dispatchedAhead({ sessionId: 's', sequence: null, dispatched: 3 })).toBeUndefined();
  expect(dispatchedAhead({ sessionId: 's', sequence: 50 })).toBeUndefined();
  expect(dispatchedAhead({ sessionId: 's', sequence: 5, dispatched: Number.MAX_SAFE_INTEGER }), 'a planted value, bounded').toBe(5 + MAX_DISPATCHED_AHEAD);
});
