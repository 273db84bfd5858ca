/**
 * Resharding while serving: the new shard set identifies in the background
 * (under the Identify throttle and the session start budget) while the old
 * set keeps serving; once every new shard is READY the Gateway switches
 * (the old set stops dispatching, then closes). During the overlap an
 * interaction may arrive on both sets: it runs once (by its id).
 *
 * @module
 */

import { ValidationError } from '../errors/index.js';
import type { ShardPlan } from './shard-plan.js';
import { restoreSessions, type GatewaySessionRecord, type GatewaySessionStore, type SessionSaver } from './gateway-session-store.js';
import { connectShards, type ShardHandle } from './shards.js';

/** How long after a switch interactions are still de-duplicated: the two sets' copies of one event arrive close together. */
export const RESHARD_DEDUPE_MS = 60_000;

/** Interaction ids seen while two shard sets overlap (and a while after), so that an interaction on both runs once. */
export class RecentInteractions {
  readonly #seen = new Map<string, number>();
  readonly #now: () => number;
  /** Until when (on `now`) ids are kept; `Infinity` while the sets overlap. */
  until = Number.POSITIVE_INFINITY;

  constructor(now: () => number) {
    this.#now = now;
  }

  /** Whether this is the first time the interaction is seen (it is recorded); ids older than {@link RESHARD_DEDUPE_MS} are forgotten, and every id once past `until`. */
  first(id: string): boolean {
    const now = this.#now();
    if (now > this.until) {
      this.#seen.clear();
      return true;
    }
    for (const [seen, at] of this.#seen) {
      if (now - at <= RESHARD_DEDUPE_MS) break;
      this.#seen.delete(seen);
    }
    if (this.#seen.has(id)) return false;
    this.#seen.set(id, now);
    return true;
  }
}

/** What a reshard asks of the Gateway. */
export interface ReshardHost {
  /** A shard of the new set (it dispatches interactions only until the switch). */
  create(shardId: number, plan: ShardPlan): ShardHandle;
  /** Debug lines. */
  report(line: string): void;
  /** Where the sessions are kept, when they are. */
  readonly store: { store: GatewaySessionStore; record(shard: ShardHandle): GatewaySessionRecord | undefined; failed(error: unknown): void } | undefined;
  /** The Gateway's shards and savers (replaced in place at the switch). */
  readonly shards: ShardHandle[];
  readonly savers: Map<number, SessionSaver>;
  /** The switch: from now on only the new set dispatches. */
  switched(): void;
}

/** Checks a reshard's target: a whole number of at least 1, and a Gateway this process shards on its own. */
export function checkReshard(count: number, plan: ShardPlan | undefined, fleet: boolean): ShardPlan {
  const fail = (message: string) => new ValidationError('gateway.reshard', [{ path: 'count', message }]);
  if (!Number.isInteger(count) || count < 1) throw fail('must be a whole number of at least 1');
  if (plan === undefined) throw fail('connect() first: a reshard replaces a running shard set');
  if (fleet) throw fail('not with a coordinator yet: reshard one process, or restart the fleet with the new count');
  if (plan.perWorker !== undefined) throw fail('not with shardsPerWorker yet');
  if (plan.sharded && plan.ids.length !== plan.count) throw fail('this process runs only some shards (gateway.shards): every process must reshard together');
  return { ...plan, sharded: true, count, ids: Array.from({ length: count }, (_, id) => id) };
}

/**
 * Starts the new set and resolves with its shards once every one is READY. A failure closes the new set and rejects; the old one
 * never stopped.
 */
export async function startNextSet(next: ShardPlan, host: ReshardHost, signal: AbortSignal | undefined): Promise<ShardHandle[]> {
  const shards = next.ids.map((id) => host.create(id, next));
  host.report(`reshard: identifying ${next.count} shards in the background while the current set serves`);
  try {
    await connectShards(shards, next.maxConcurrency, signal);
  } catch (error) {
    await Promise.all(shards.map((shard) => shard.destroy()));
    throw error;
  }
  return shards;
}

/**
 * A reshard: the new set started (see {@link startNextSet}), its sessions given savers, then the switch: the Gateway's shards and
 * savers replaced in place, the old set closed (1000: those sessions end) and its stored sessions forgotten.
 */
export async function reshardShards(next: ShardPlan, signal: AbortSignal | undefined, host: ReshardHost): Promise<void> {
  const shards = await startNextSet(next, host, signal);
  const { store } = host;
  const savers = store === undefined ? undefined : await restoreSessions(store.store, shards, next.count, store.record, store.failed);
  host.switched();
  const old = host.shards.splice(0, host.shards.length, ...shards);
  const oldSavers = [...host.savers.values()];
  host.savers.clear();
  for (const [id, saver] of savers ?? []) {
    host.savers.set(id, saver);
    saver.schedule();
  }
  host.report(`reshard: switched to ${next.count} shards; closing the ${old.length} of the previous set`);
  await Promise.all(old.map((shard) => shard.destroy()));
  for (const saver of oldSavers) saver.end();
}
