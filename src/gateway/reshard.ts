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
import { DEFAULT_MAX_SHARDS } from '../core/bounds.js';
import type { GatewayShardingOptions } from './options.js';
import { readGatewayBot, type ShardPlan } from './shard-plan.js';
import { stopShards } from './closing.js';
import { stopAttempts } from './shard-start.js';
import type { CoordinatorTick, FleetSupervisor, ShardCoordinator } from './coordinator.js';
import type { SessionSaver } from './gateway-session-store.js';
import type { ShardHandle } from './shards.js';
import { GatewayDispatch } from './protocol.js';
import type { GatewayDispatchEvent } from './options.js';

/** How long after a switch interactions are still de-duplicated: the two sets' copies of one event arrive close together. */
export const RESHARD_DEDUPE_MS = 60_000;

/** A fleet's dedupe window after a switch, given its `leaseMs`: a member may switch up to two leases after another's next set started. */
export function reshardDedupeMs(leaseMs: number): number {
  return Math.max(RESHARD_DEDUPE_MS, 3 * leaseMs);
}

/** Interaction ids seen while two shard sets overlap (and a while after), so that an interaction on both runs once. */
export class RecentInteractions {
  readonly #seen = new Map<string, number>();
  readonly #now: () => number;
  readonly #windowMs: number;
  /** Until when (on `now`) ids are kept; `Infinity` while the sets overlap. */
  until = Number.POSITIVE_INFINITY;

  /** `windowMs`: how long an id is kept. @default windowMs {@link RESHARD_DEDUPE_MS} */
  constructor(now: () => number, windowMs = RESHARD_DEDUPE_MS) {
    this.#now = now;
    this.#windowMs = windowMs;
  }

  /** Whether this is the first time the interaction is seen (it is recorded); ids older than the window are forgotten, and every id once past `until`. */
  first(id: string): boolean {
    const now = this.#now();
    if (now > this.until) {
      this.#seen.clear();
      return true;
    }
    for (const [seen, at] of this.#seen) {
      if (now - at <= this.#windowMs) break;
      this.#seen.delete(seen);
    }
    if (this.#seen.has(id)) return false;
    this.#seen.set(id, now);
    return true;
  }
}

/** Events of a session's own life: each session has its own, so they are never the same event on two sets. */
const SESSION_EVENTS: ReadonlySet<string> = new Set([GatewayDispatch.Ready, GatewayDispatch.Resumed]);

/**
 * The key of one event across a fleet's two sets: its type and a 53-bit digest of its payload (the service sends one event to
 * both sessions with the same payload, so the key is the same on both; two different events of one type with byte-identical
 * payloads are told apart by {@link SwitchPairs}).
 */
export function switchEventKey(type: string, payload: unknown): string {
  const text = JSON.stringify(payload) ?? '';
  // cyrb53: two 32-bit lanes mixed into 53 bits (no node:crypto, so the Gateway's files stay free of Node-only imports).
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  const digest = 4294967296 * (2097151 & h2) + (h1 >>> 0);
  return `e:${type}:${text.length.toString(36)}:${digest.toString(36)}`;
}

/** How long a fleet's switch claims an event, given the fleet's `leaseMs` (at least 5 s: the two sets' copies arrive about a second apart). */
export function switchPairMs(leaseMs: number): number {
  return Math.max(5_000, leaseMs);
}

/**
 * Pairs the two sets' copies of one event during a fleet's switch: the k-th occurrence of a {@link switchEventKey} on a set's
 * shard is keyed `key#k`, so the k-th copy on the old set pairs with the k-th on the next one (both see the same events of a
 * guild in the same order) and an identical payload sent again (a reaction added, removed, added) is another event. A key's count
 * starts again once it was not seen for twice {@link switchPairMs} (its claims, living that long, are gone by then). A copy with
 * a sequence this set's shard already delivered it at is a resume's replay of that occurrence, not another one: it is not counted
 * and gets no key (the first delivery was already claimed, emitted or dropped here).
 */
export class SwitchPairs {
  /** Per set, shard and key: the last count and when it was seen, in the order they were last seen. */
  readonly #counts = new Map<string, { n: number; at: number }>();
  readonly #seen: RecentInteractions;
  /** Per set, shard and session, the sequences each key was delivered at (a resume replays them with the same sequence). */
  readonly #delivered: RecentInteractions;
  /** Per set and shard, how many new sessions (READY) it started since the pairing began. */
  readonly #sessions = new Map<string, number>();
  readonly #now: () => number;
  /** How long a claim of one of the keys lives (see {@link switchPairMs}). */
  readonly pairMs: number;

  constructor(now: () => number, pairMs: number) {
    this.#now = now;
    this.pairMs = pairMs;
    this.#seen = new RecentInteractions(now, pairMs);
    this.#delivered = new RecentInteractions(now, 2 * pairMs);
  }

  /**
   * The fleet's key of this occurrence of `key` on the set's shard, or `undefined` when the other set's copy of it came first here
   * or when the shard delivered `key` at this `sequence` already in its session (a resume's replay; without a sequence, no such check).
   */
  pair(generation: number, shardId: number, key: string, sequence: number | null = null): string | undefined {
    const scope = `${generation}/${shardId}/${key}`;
    const session = this.#sessions.get(`${generation}/${shardId}`) ?? 0;
    if (sequence !== null && !this.#delivered.first(`${scope}@${session}:${sequence}`)) return undefined;
    const now = this.#now();
    for (const [old, entry] of this.#counts) {
      if (now - entry.at <= 2 * this.pairMs) break;
      this.#counts.delete(old);
    }
    const n = (this.#counts.get(scope)?.n ?? 0) + 1;
    this.#counts.delete(scope);
    this.#counts.set(scope, { n, at: now });
    const paired = `${key}#${n}`;
    return this.#seen.first(paired) ? paired : undefined;
  }

  /** The set's shard started a new session (READY): its sequences start again, so they no longer mark replays of the last one's. */
  newSession(generation: number, shardId: number): void {
    const shard = `${generation}/${shardId}`;
    this.#sessions.set(shard, (this.#sessions.get(shard) ?? 0) + 1);
  }
}

/**
 * A fleet's switch for events other than interactions (interactions have their own claim). Members switch at different steps, so
 * while the sets overlap one event could reach a current set here and a current set elsewhere (emitted twice), or only sets that
 * do not dispatch it (lost). So from the next set's start until {@link RESHARD_DEDUPE_MS} after this member's switch, both sets
 * pass each such event on only where the fleet's claim on its {@link switchEventKey} is won (a copy seen here on the other set
 * first is dropped at once). Events of one set and shard keep their order: while a claim is pending, the shard's later events
 * queue behind it; the claim waits in the shard's in-flight list, so its saved sequence stays below it (a successor replays it).
 */
export class SwitchEvents {
  /** Per set and shard, the tail of its queue and how many events wait in it. */
  readonly #queues = new Map<string, { tail: Promise<void>; waiting: number }>();

  /** Whether events of this set and shard are queued (a later one queues too, to keep their order). */
  queued(generation: number, shardId: number): boolean {
    return this.#queues.size > 0 && this.#queues.has(`${generation}/${shardId}`);
  }

  /** Whether the event is one the switch rule covers: not an interaction, not a session's own event. */
  static covers(event: GatewayDispatchEvent): boolean {
    return event.t !== GatewayDispatch.InteractionCreate && !SESSION_EVENTS.has(event.t);
  }

  /**
   * Queues the event of a set's shard: `decide` says (once the events before it passed) whether it goes on; `run` passes it on.
   * `hold` keeps the shard's saved sequence below the event while it waits, and returns what lets go.
   */
  queue(generation: number, event: GatewayDispatchEvent, decide: () => Promise<boolean> | boolean, run: () => void, hold: () => () => void): void {
    const key = `${generation}/${event.shardId}`;
    const queue = this.#queues.get(key) ?? { tail: Promise.resolve(), waiting: 0 };
    queue.waiting++;
    const release = hold();
    queue.tail = queue.tail
      .then(decide)
      .then((passes) => {
        if (passes) run();
      })
      .catch(() => undefined) // decide never rejects (a claim retries, then says no); run reports what its listeners throw
      .finally(() => {
        release();
        if (--queue.waiting === 0) this.#queues.delete(key);
      });
    this.#queues.set(key, queue);
  }
}

/** A set of shards for one count: the Gateway's current one, or the one a reshard is starting. */
export interface ShardSet {
  /** Its plan (`undefined` until the Gateway loaded). */
  plan: ShardPlan | undefined;
  /** Its shards (changed in place). */
  readonly shards: ShardHandle[];
  /** Its session savers, by shard id. */
  readonly savers: Map<number, SessionSaver>;
  /** Per shard resumed from a predecessor's record, the last sequence the predecessor dispatched (its replay up to there is not emitted again). */
  readonly replayed: Map<number, number>;
  /** With a coordinator: this process's supervisor of the set's leases. */
  fleet: FleetSupervisor | undefined;
  /** Which set it is: the one with the Gateway's current generation dispatches; the next (higher) one dispatches interactions only. */
  readonly generation: number;
}

/** An empty shard set. */
export function newShardSet(plan: ShardPlan | undefined, generation: number): ShardSet {
  return { plan, shards: [], savers: new Map(), replayed: new Map(), fleet: undefined, generation };
}

/** The plan for `count` shards, every one of them. */
export function withCount(plan: ShardPlan, count: number): ShardPlan {
  return { ...plan, sharded: true, count, ids: Array.from({ length: count }, (_, id) => id) };
}

/**
 * Checks a reshard's target: a whole number from 1 to `maxShards` (checked before anything is planned: `autoReshard`
 * following a recommendation past it is refused here too), a connected Gateway, and one that runs every shard (or a fleet
 * that can reshard).
 */
export function checkReshard(count: number, plan: ShardPlan | undefined, coordinator: ShardCoordinator | undefined, maxShards = DEFAULT_MAX_SHARDS): ShardPlan {
  const fail = (message: string) => new ValidationError('gateway.reshard', [{ path: 'count', message }]);
  if (!Number.isInteger(count) || count < 1) throw fail('must be a whole number of at least 1');
  if (count > maxShards) throw fail(`must be at most gateway.maxShards (${maxShards}; got ${count})`);
  if (plan === undefined) throw fail('connect() first: a reshard replaces a running shard set');
  if (coordinator !== undefined && coordinator.requestReshard === undefined) throw fail('this coordinator cannot reshard (no requestReshard)');
  if (coordinator === undefined && plan.sharded && plan.ids.length !== plan.count)
    throw fail('this process runs only some shards (gateway.shards): use a coordinator to reshard processes together');
  return withCount(plan, count);
}

/** What a coordinator step means for a fleet's reshard: start the next set (a reshard was asked for), switch to it (all READY), or nothing. */
export function fleetReshardStep(set: ShardSet, current: ShardSet, next: ShardSet | undefined, answer: CoordinatorTick): 'start' | 'switch' | undefined {
  const count = set.plan?.count;
  const asked = fleetTarget(answer);
  if (set === current && next === undefined && asked !== undefined && asked !== count) return 'start';
  // Every shard of the new count READY in the fleet; or the fleet already runs this count (a member that was away for the whole
  // reshard follows it: its old set takes nothing any more, whatever is left of the READY record).
  const committed = answer.target === undefined && answer.fleetCount === count;
  if (set === next && count !== undefined && ((answer.ready ?? 0) >= count || committed)) return 'switch';
  return undefined;
}

/** The count a step says the fleet is going to: a reshard's target while one is under way, else the fleet's committed count. */
export function fleetTarget(answer: CoordinatorTick): number | undefined {
  return answer.target ?? answer.fleetCount;
}

/** Stops a set for good: its shards closed with 1000 (their sessions end) and its stored sessions forgotten; in a fleet, its leases given back. */
export async function dropSet(set: ShardSet, report: (line: string) => void): Promise<void> {
  const stop = () => stopShards({ shards: set.shards, inFlight: undefined, publisher: undefined, savers: set.savers, report }, false, 0);
  try {
    await (set.fleet === undefined ? stop() : set.fleet.retire(stop));
  } finally {
    stopAttempts(set.shards); // its leased shards' retries waiting: none once the set is dropped
  }
}

/** After the switch to `next`: its sessions saved, the old set dropped (see {@link dropSet}). */
export async function finishSwitch(old: ShardSet, next: ShardSet, report: (line: string) => void): Promise<void> {
  for (const saver of next.savers.values()) saver.schedule();
  report(`reshard: switched to ${next.plan?.count} shards; closing the ${old.shards.length} of the previous set`);
  await dropSet(old, report);
}

/** How often `autoReshard: true` asks `GET /gateway/bot`. */
const AUTO_RESHARD_INTERVAL_MS = 3_600_000;

/** The interval of the `autoReshard` option, or `undefined` when it is off (checked by `checkGatewayOptions`: 1000 ms to `MAX_TIMER_MS`). */
export function autoReshardInterval(option: GatewayShardingOptions['autoReshard']): number | undefined {
  if (option === undefined || option === false) return undefined;
  return option === true ? AUTO_RESHARD_INTERVAL_MS : (option.intervalMs ?? AUTO_RESHARD_INTERVAL_MS);
}

/**
 * The automatic mode: every `intervalMs`, asks `read()` (`GET /gateway/bot`) and reshards to its recommendation when it is more
 * than `running()` (one reshard at a time). Returns the function that stops it.
 */
export function watchRecommendation(
  intervalMs: number,
  read: () => Promise<unknown>,
  running: () => number | undefined,
  reshard: (count: number) => Promise<void>,
  report: (line: string, error?: unknown) => void,
): () => void {
  let busy = false;
  const check = async () => {
    if (busy) return;
    busy = true;
    try {
      const { shards } = readGatewayBot(await read());
      const current = running();
      if (shards !== undefined && current !== undefined && shards > current) {
        report(`reshard: GET /gateway/bot recommends ${shards} shards, ${current} run; resharding`);
        await reshard(shards);
      }
    } catch (error) {
      report('the automatic reshard failed (tried again at the next check)', error);
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(() => void check(), intervalMs);
  timer.unref?.();
  return () => clearInterval(timer);
}
