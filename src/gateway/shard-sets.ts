/**
 * The Gateway's shard sets: the current one, and during a reshard the next
 * one being started. Starts a fleet's supervisor for a set, follows a
 * fleet's reshard (the next set started when one is asked for, the switch
 * when all of it is READY), and reshards a Gateway that runs every shard
 * itself.
 *
 * @module
 */

import { wait } from '../core/wait.js';
import { GatewayError } from '../errors/index.js';
import type { StoreRecoveredEvent } from '../observe/events.js';
import type { ConnectionReport } from './connection-host.js';
import type { FleetSupervisor, ShardCoordinator } from './coordinator.js';
import { coordinatorOutages, createFleet } from './fleet.js';
import type { OutageReporter } from './outages.js';
import type { FleetEvent } from './fleet-events.js';
import { LastSessions, type GatewaySessionRecord, type GatewaySessionStore } from './gateway-session-store.js';
import { GatewayDispatch } from './protocol.js';
import {
  dropSet,
  finishSwitch,
  fleetReshardStep,
  fleetTarget,
  newShardSet,
  RecentInteractions,
  RESHARD_DEDUPE_MS,
  reshardDedupeMs,
  SwitchEvents,
  switchEventKey,
  SwitchPairs,
  switchPairMs,
  watchRecommendation,
  withCount,
  type ShardSet,
} from './reshard.js';
import type { ShardPlan } from './shard-plan.js';
import type { GatewayDispatchEvent } from './options.js';
import type { ShardHandle } from './shards.js';
import { connectFixed, startAll, type ShardStartTarget } from './shard-start.js';

/**
 * Whether the event is one a shard's predecessor already emitted: a resume replays from the sequence it left, which an interaction
 * still being handled held below what it had dispatched; the events other than interactions up to there are skipped. The shard
 * forgets that bound on a new session (READY), at the replay's end (RESUMED) and once past it.
 */
function replayedHere(replayed: Map<number, number>, event: GatewayDispatchEvent): boolean {
  const through = replayed.get(event.shardId);
  if (through === undefined) return false;
  const over = event.t === GatewayDispatch.Ready || event.t === GatewayDispatch.Resumed; // the service's replay ends at RESUMED
  if (over || (event.s !== null && event.s > through)) {
    replayed.delete(event.shardId);
    return false;
  }
  return event.s !== null && SwitchEvents.covers(event);
}

/** What the sets ask of their Gateway. */
export interface ShardSetsHost {
  /** A shard of a set, in this thread or in one of the set's workers (`shardsPerWorker`). */
  newShard(id: number, plan: ShardPlan, set: ShardSet): ShardHandle;
  /** The session record of a shard of a set, for the store. */
  record(shard: ShardHandle, set: ShardSet): GatewaySessionRecord | undefined;
  /** Where sessions are kept, if anywhere. */
  readonly store: GatewaySessionStore | undefined;
  /** The session store failed. */
  storeFailed(error: unknown): void;
  /** An outage of a set's coordinator ended (emitted by the Gateway as `storeRecovered`). @default undefined */
  storeRecovered?(event: StoreRecoveredEvent): void;
  /** Reports a debug line or an error as the Gateway's event (of shard `shardId`, when it is about one). */
  report(report: ConnectionReport, shardId?: number): void;
  /** The Gateway's clock. */
  now(): number;
  /** The most shards a set may have (`gateway.maxShards`): a fleet's reshard target past it is refused, not planned. */
  readonly maxShards: number;
  /** A fleet event of a set (emitted and published by the Gateway). @default undefined */
  fleetEvent?(event: FleetEvent): void;
}

/** The Gateway's current shard set and, during a reshard, the next one. */
export class ShardSets {
  /** The set that dispatches. */
  current: ShardSet = newShardSet(undefined, 0);
  /** The set a reshard is starting (it dispatches interactions only until the switch). */
  next: ShardSet | undefined;
  readonly #host: ShardSetsHost;
  /** Interaction ids (and during a fleet's switch, event keys) seen since a reshard began, so that one arriving on both sets runs once. */
  #recent: RecentInteractions | undefined;
  /** During a fleet's switch, the events other than interactions waiting for their claim, in order per set and shard. */
  readonly #events = new SwitchEvents();
  /** During a fleet's switch, the occurrences of its events paired across the two sets (made at the first such event). */
  #pairs: SwitchPairs | undefined;
  /** A fleet's reshard: when (on the monotonic clock) this process started the next set, and the fleet's `leaseMs`. */
  #nextSince = { at: 0, leaseMs: 0 };
  /** The monotonic clock for the quiet lease and the switch's wait (they count the fleet's lease steps, not the Gateway's clock). */
  readonly #monotonic = () => performance.now();
  /** Stops the automatic mode's checks. */
  #unwatch: (() => void) | undefined;
  /** Who waits for a fleet's reshard to switch here. */
  readonly #switched: (() => void)[] = [];
  /** The fleet's count this Gateway last refused (past `maxShards`): said once, not at every step. */
  #refused: number | undefined;
  /** The last session of each shard this process held in a fleet, for a store that lost them. */
  readonly #last = new LastSessions();
  /** The coordinator's outages: one report for both sets during a reshard. */
  readonly #coordinatorOutages: OutageReporter;

  constructor(host: ShardSetsHost) {
    this.#host = host;
    this.#coordinatorOutages = coordinatorOutages({ report: (report) => host.report(report), storeRecovered: (event) => host.storeRecovered?.(event) });
  }

  #debug(line: string): void {
    this.#host.report({ event: 'debug', payload: line });
  }

  /** Whether a set's dispatch goes through: the current set's all, the next set's interactions only. */
  dispatches(set: ShardSet, event: GatewayDispatchEvent): boolean {
    const current = this.current.generation;
    return set.generation === current || (set.generation > current && event.t === GatewayDispatch.InteractionCreate);
  }

  /**
   * Passes a set's dispatch on (`run`) by {@link dispatches}; but during a fleet's switch (see {@link SwitchEvents}), an event
   * other than an interaction on the current or the next set goes on only where the fleet's claim on it is won, once across
   * the fleet; and while events of the shard wait for their claims, the ones after them wait too. `run(event, set, true)`: its claim was won
   * (after a hand-off too: this member emits it, as the successor's copy is refused). `run` gets the event and its set, so
   * that the host passes one function for every dispatch rather than a closure per dispatch.
   */
  admit(set: ShardSet, event: GatewayDispatchEvent, run: (event: GatewayDispatchEvent, set: ShardSet, claimed?: boolean) => void): void {
    const { fleet, generation } = set;
    if (set.replayed.size > 0 && replayedHere(set.replayed, event)) return;
    let recent = this.#recent; // undefined outside a reshard: the usual path costs these few reads
    const live = set === this.current || set === this.next;
    const now = recent === undefined ? 0 : this.#host.now();
    if (recent !== undefined && now > recent.until) [recent, this.#recent, this.#pairs] = [undefined, undefined, undefined]; // window over
    if (fleet !== undefined && recent !== undefined && live && SwitchEvents.covers(event) && now <= recent.until) {
      // Quiet for a lease after the next set started: a member that has not seen the reshard yet emits from its old set unclaimed.
      if (set === this.next && this.#monotonic() < this.#nextSince.at + this.#nextSince.leaseMs) return;
      const pairs = (this.#pairs ??= new SwitchPairs(() => this.#host.now(), switchPairMs(this.#nextSince.leaseMs)));
      const key = pairs.pair(generation, event.shardId, switchEventKey(event.t, event.d), event.s);
      if (key === undefined) return; // the other set's copy of it came first here, or this is a replay of a copy seen here
      const hold = () => fleet.inFlight.begin(event.shardId, key, event.s, true);
      // A claim that keeps failing: only the current set emits the event (the rule outside a switch; see assumption 96).
      const decide = () => fleet.claim(key, event.shardId, pairs.pairMs).catch(() => this.dispatches(set, event) && fleet.holds(event.shardId));
      return this.#events.queue(generation, event, decide, () => run(event, set, true), hold);
    }
    // A new session's sequences start again: a copy at a sequence the shard's last session delivered is not a replay of it.
    if (recent !== undefined && event.t === GatewayDispatch.Ready) this.#pairs?.newSession(generation, event.shardId);
    // Interactions have their own claim: they pass a shard's queue of switch events.
    if (event.t !== GatewayDispatch.InteractionCreate && this.#events.queued(generation, event.shardId)) {
      return this.#events.queue(
        generation,
        event,
        () => this.dispatches(set, event),
        () => run(event, set),
        () => () => undefined,
      );
    }
    if (this.dispatches(set, event)) run(event, set);
  }

  /** A shard of the set of this generation published further: its session is saved (unless its fleet lost it). */
  published(shardId: number, generation: number): void {
    const set = [this.current, this.next].find((candidate) => candidate?.generation === generation);
    if (set !== undefined && set.fleet?.saves(shardId) !== false) set.savers.get(shardId)?.schedule();
  }

  /** Whether an interaction was already seen on the other set during a reshard (it runs once). */
  seenTwice(payload: unknown): boolean {
    return this.#recent?.first(String((payload as { id?: unknown } | null)?.id)) === false;
  }

  /** What a shard of `set` starts with (see {@link startShard}): the set's factory, shards, savers and replay marks, and the store. */
  #target(set: ShardSet): ShardStartTarget {
    const host = this.#host;
    const plan = set.plan as ShardPlan;
    return {
      ...{ create: (id) => host.newShard(id, plan, set), list: set.shards, savers: set.savers, replayed: set.replayed, count: plan.count, store: host.store },
      ...{
        record: (shard) => host.record(shard, set),
        storeFailed: (error) => host.storeFailed(error),
        report: (report, shardId) => host.report(report, shardId),
      },
    };
  }

  /** A fixed shard list: every shard of the current set's plan started, its stored session restored; {@link connect} connects them. */
  async startFixed(): Promise<ShardHandle[]> {
    const set = this.current;
    const target = this.#target(set);
    await startAll(target, (set.plan as ShardPlan).ids, { kind: 'fixed', restore: true });
    return set.shards;
  }

  /** Connects the current set: a fixed list in `maxConcurrency` buckets (a failure rejects); a fleet's shards, which their leases connect, awaited. */
  async connect(signal: AbortSignal | undefined): Promise<void> {
    const { fleet, shards, plan } = this.current;
    if (fleet !== undefined) await Promise.all(shards.map((shard) => shard.connect(signal)));
    else await connectFixed(shards, plan?.maxConcurrency ?? 1, signal);
  }

  /** The supervisor of a set's part of the fleet (a reshard's next set shares this process's member id). */
  fleetOf(set: ShardSet, coordinator: ShardCoordinator, member?: string): FleetSupervisor {
    const plan = set.plan as ShardPlan;
    const host = this.#host;
    const fleet = createFleet(
      coordinator,
      plan.count,
      {
        ...this.#target(set),
        ...{ last: this.#last, holds: (id) => set.fleet?.has(id) === true },
        ready: (id) => coordinator.shardReady?.(plan.count, id),
        ticked: (answer) => this.#fleetStep(set, coordinator, fleetReshardStep(set, this.current, this.next, answer), fleetTarget(answer)),
        event: (event) => host.fleetEvent?.(event),
        outages: this.#coordinatorOutages,
      },
      member,
    );
    set.fleet = fleet;
    return fleet;
  }

  #fleetStep(set: ShardSet, coordinator: ShardCoordinator, step: 'start' | 'switch' | undefined, target: number | undefined): void {
    if (step === 'start' && target !== undefined && target > this.#host.maxShards) {
      // A count from Redis (another process, a planted value) is trusted only within this Gateway's maxShards; refused once per count.
      if (this.#refused === target) return;
      this.#refused = target;
      const message = `the fleet asks to reshard to ${target} shards, more than gateway.maxShards (${this.#host.maxShards}): not started`;
      this.#host.report({ event: 'error', payload: new GatewayError(message) });
    } else if (step === 'start' && target !== undefined) {
      const next = (this.next = newShardSet(withCount(set.plan as ShardPlan, target), set.generation + 1));
      const windowMs = reshardDedupeMs(coordinator.leaseMs);
      this.#recent = new RecentInteractions(() => this.#host.now(), windowMs); // one member may get an interaction on both sets
      this.#pairs = undefined;
      this.#nextSince = { at: this.#monotonic(), leaseMs: coordinator.leaseMs };
      this.#debug(`reshard: identifying ${target} shards with the fleet while the current set serves`);
      void this.fleetOf(next, coordinator, set.fleet?.member).start();
    } else if (step === 'switch' && this.#monotonic() >= this.#nextSince.at + 2 * this.#nextSince.leaseMs) {
      // Not before two leases after this set started: every live member has seen the reshard within one (it steps at least once a
      // lease) and has passed its next set's quiet lease by the second, so from any member's switch every set claims its events.
      const old = this.current;
      [this.current, this.next] = [set, undefined];
      if (this.#recent !== undefined) this.#recent.until = this.#host.now() + reshardDedupeMs(this.#nextSince.leaseMs);
      void finishSwitch(old, set, (line) => this.#debug(line))
        .then(() => coordinator.commitReshard?.(set.plan?.count ?? 0))
        .catch((error: unknown) =>
          this.#host.report({ event: 'error', payload: new GatewayError('finishing the reshard failed', undefined, { cause: error }) }),
        )
        .finally(() => {
          for (const resolve of this.#switched.splice(0)) resolve();
        });
    }
  }

  /** A fleet's reshard: asks every process, and resolves once this one switched. */
  async reshardFleet(coordinator: ShardCoordinator, count: number, signal: AbortSignal | undefined): Promise<void> {
    if (this.current.plan?.count === count && this.next === undefined) return;
    let resolve = () => undefined as void;
    const switched = new Promise<void>((done) => this.#switched.push((resolve = done)));
    try {
      await coordinator.requestReshard?.(count);
      await wait(switched, { signal });
      // Resolved only once this count runs: a switch to another count (a request that was not this one's) is not success.
      const running = this.current.plan?.count;
      if (running !== count) throw new GatewayError(`the fleet switched to ${running} shards, not the ${count} asked for`);
    } finally {
      const index = this.#switched.indexOf(resolve);
      if (index >= 0) this.#switched.splice(index, 1);
    }
  }

  /** A reshard of a Gateway that runs every shard itself: the next set started, its sessions restored or saved, the switch. */
  async reshard(plan: ShardPlan, signal: AbortSignal | undefined): Promise<void> {
    if (this.next !== undefined) throw new GatewayError(`a reshard to ${this.next.plan?.count} shards is under way`);
    if (this.current.plan?.count === plan.count) return;
    const host = this.#host;
    const recent = (this.#recent = new RecentInteractions(() => host.now()));
    const next = (this.next = newShardSet(plan, this.current.generation + 1));
    try {
      // Started without loading: the new set identifies, so a record a store may hold for its count is stale (overwritten, never loaded).
      const target = this.#target(next);
      // A failure to start or connect drops the new set (its sessions end, their records forgotten); the old one never stopped.
      const started = async () => {
        await startAll(target, plan.ids, { kind: 'fixed', restore: false });
        this.#debug(`reshard: identifying ${plan.count} shards in the background while the current set serves`);
        await connectFixed(next.shards, plan.maxConcurrency, signal);
      };
      await started().catch(async (error: unknown) => {
        await dropSet(next, (line) => this.#debug(line));
        throw error;
      });
      const old = this.current;
      this.current = next; // the switch: from here only the new set dispatches
      await finishSwitch(old, next, (line) => this.#debug(line));
    } finally {
      this.next = undefined;
      recent.until = host.now() + RESHARD_DEDUPE_MS;
    }
  }

  /** Starts the automatic mode (`autoReshard`), once: see {@link watchRecommendation}. */
  watch(intervalMs: number, read: () => Promise<unknown>, reshard: (count: number) => Promise<void>): void {
    const report = (line: string, cause?: unknown) =>
      this.#host.report(cause === undefined ? { event: 'debug', payload: line } : { event: 'error', payload: new GatewayError(line, undefined, { cause }) });
    this.#unwatch ??= watchRecommendation(intervalMs, read, () => this.current.plan?.count, reshard, report);
  }

  /** Closing: the automatic mode stops, and the set a reshard was starting is dropped. */
  async close(): Promise<void> {
    this.#unwatch?.();
    if (this.next !== undefined) await dropSet(this.next, (line) => this.#debug(line));
  }
}
