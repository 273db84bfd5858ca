/**
 * Shards shared by live processes through a coordinator (leases with fencing tokens): what a coordinator must do, and the
 * supervisor that runs a Gateway's part of the fleet: it renews its leases, starts the shards it acquires (resuming their
 * stored sessions), hands off the ones beyond its fair share, and stops dispatching on a shard the moment its lease may
 * have lapsed (a process paused past its lease, then woken).
 *
 * @module
 */

import { wait } from '../core/wait.js';
import { InFlightInteractions } from './in-flight.js';
import { type FleetEvent, FleetReporter, type PreviousHolder } from './fleet-events.js';

/** A shard held by a process: its id and the fencing token of the lease (rises with each acquisition). */
export interface ShardLease {
  /** The shard id. */
  shardId: number;
  /** The lease's fencing token. */
  fence: number;
}

/** What one coordinator step answers. */
export interface CoordinatorTick {
  /** Live members (processes), this one included. */
  members: number;
  /** This member's place among them (0-based, in a stable order), for spreading the shards. */
  index: number;
  /** The leases this member holds now (renewed by this step). */
  leases: ShardLease[];
  /** The shard count a reshard asked for, while one is under way. @default undefined */
  target?: number | undefined;
  /** How many shards of this step's count are READY somewhere in the fleet (during a reshard, for the new count). @default 0 */
  ready?: number | undefined;
  /** The fleet's shard count (the last one committed), when the coordinator keeps one: a member away for a whole reshard follows it. @default undefined */
  fleetCount?: number | undefined;
  /** This member's membership expired before the step (the process was away past `leaseMs`): it must join again under a new id. @default false */
  expired?: boolean | undefined;
  /** What the step found wrong and repaired (a value the coordinator did not write): its answer stands, and the host's `failed` hears it. @default undefined */
  report?: Error | undefined;
  /**
   * Who held each shard this step newly gave this member, when the coordinator knows (both of the SDK's do): an entry only for a
   * shard another member held (none for one never held, or last held by this member); `undefined` when no such shard.
   * A dead holder's `sinceRenewalMs`: the rule of {@link PreviousHolder.sinceRenewalMs} (within 40 leases, the fleet stepping). @default undefined
   */
  previous?: ReadonlyMap<number, PreviousHolder> | undefined;
}

/** Shares a bot's shards among live processes: `createRedisShardCoordinator()` (`/redis`), `MemoryShardCoordinator` (`/testing`), or your own. */
export interface ShardCoordinator {
  /** How long a lease (and a membership) lives without renewal, milliseconds. */
  readonly leaseMs: number;
  /**
   * One step, atomic: renews this member and the leases it holds, forgets members and leases that expired, and (when
   * `acquire`) takes free shards of `shardCount`, lowest first, up to a fair share (`ceil(shardCount / members)`), except for a count
   * the fleet is leaving: once every shard of a reshard's target is READY (the switch is under way, members release
   * their old shards with their sessions ended), or once another count was committed. Until then the old count takes
   * free shards as always (one handed off to rebalance is resumed by its taker), so no old shard stays dark while the
   * new set starts.
   */
  tick(member: string, shardCount: number, acquire: boolean, registered?: boolean): Promise<CoordinatorTick>;
  /**
   * Records which bot this process serves (its id, read from the bot token by the Gateway before its first step), so a
   * fleet refuses members of another bot. Optional: a coordinator without it serves whoever steps.
   */
  join?(bot: string): void;
  /** Gives a lease back (only if it is still this member's, with this fence). */
  release(member: string, shardCount: number, lease: ShardLease): Promise<void>;
  /** Leaves the fleet: the membership ends and every lease still held is given back. */
  leave(member: string, shardCount: number): Promise<void>;
  /**
   * The fleet's shard count: the first process's `proposed` one (`GET /gateway/bot`'s recommendation when it joined), then
   * what each reshard commits, so every process, started early or late, runs the same set. Optional: a coordinator without it
   * cannot reshard.
   */
  shardCount?(proposed?: number): Promise<number | undefined>;
  /** Asks every process of the fleet to reshard to `count` (each sees it on its next step). */
  requestReshard?(count: number): Promise<void>;
  /** Records that a shard of the set of `shardCount` is READY (a reshard switches once all are). */
  shardReady?(shardCount: number, shardId: number): Promise<void>;
  /** The reshard to `count` is done: it becomes the fleet's shard count, and the request ends. */
  commitReshard?(count: number): Promise<void>;
  /**
   * Claims an interaction for this member: `false` when another live member
   * holds it or it was answered (a replay after a failover or a reshard).
   * A claim of a member that is gone is taken over, so an interaction its
   * holder died on is still answered. `ttlMs`: how long the claim lives (@default the interaction claim's life: 16 minutes).
   */
  claimInteraction(member: string, interactionId: string, ttlMs?: number): Promise<boolean>;
  /** Records that the service accepted an answer to the interaction: no replay of it runs again. */
  answered(interactionId: string): Promise<void>;
}

/** What the supervisor asks of the Gateway. */
export interface FleetHost {
  /** Starts a shard (restoring its stored session, so it resumes); resolves once it is connecting. `lease`: its fence and former holder. */
  start(shardId: number, lease?: { fence: number; from: PreviousHolder | undefined }): Promise<void>;
  /** Stops a shard: `handOff` saves its session for the successor first; otherwise (its lease was lost) nothing is saved. */
  stop(shardId: number, handOff: boolean): Promise<void>;
  /** Whether a shard is READY (only ready shards are handed off to rebalance). */
  ready(shardId: number): boolean;
  /** A debug line. */
  debug(line: string): void;
  /** A coordinator failure (the shards keep running while their leases are known valid). */
  failed(error: unknown): void;
  /** Each step's answer, after the supervisor acted on it (a reshard follows `target` and `ready`). @default undefined */
  ticked?(answer: CoordinatorTick): void;
  /** This process found its membership gone (it was away, or the coordinator lost its state) and joins again. @default undefined */
  rejoining?(): void;
  /** A fleet event (a shard taken over, released, fenced; members changed; serving). @default undefined */
  event?(event: FleetEvent): void;
}

/** A shard held here, one acquisition. */
interface Held {
  readonly fence: number;
  /** Until when (monotonic ms) the lease is known valid: counted from when the step that renewed it was sent. */
  validUntil: number;
  /** Handed off to rebalance: the claims made under it stay this member's (a successor's replay is refused them). */
  handedOff?: boolean;
}
/** Part of a lease's life kept as a safety margin: a shard stops dispatching this long before the lease could expire. */
const MARGIN = 0.2;

/** The shards of one process in a fleet. */
export class FleetSupervisor {
  readonly #coordinator: ShardCoordinator;
  readonly #host: FleetHost;
  readonly #count: number;
  /** This process's member id (a new one after its membership expired while it was away). */
  member: string;
  /** The interactions being handled on the shards of this process. */
  readonly inFlight = new InFlightInteractions();
  /**
   * Shards running here: their lease's fence, and until when (monotonic ms) dispatching on them is safe. Each acquisition is a
   * new object, so a claim sent under one is known stale once the shard was fenced, even if the same lease is taken again.
   */
  readonly #held = new Map<number, Held>();
  /** Shards being started or stopped. */
  readonly #busy = new Map<number, Promise<void>>();
  /** Shards fenced here (their lease lapsed or was taken) and not acquired again since. */
  readonly #fenced = new Set<number>();
  #timer: ReturnType<typeof setInterval> | undefined;
  #ticking: Promise<void> | undefined;
  #ticks = 0;
  /** Whether a step registered this member (a later step that finds it gone means it was away past its membership). */
  #registered = false;
  #incarnation = 0;
  /** Until when (monotonic ms) this member's membership, and so its interaction claims, are known valid. */
  #memberUntil = 0;
  #closing = false;
  /** Closing: shards stopping and draining; leases renewed, none taken, none handed off. */
  #leaving = false;
  /** The monotonic clock, milliseconds. */
  readonly #now: () => number;
  /** This set's fleet events (what changed in the members and in what is served here is said once). */
  readonly #events: FleetReporter;

  /** @param now - the monotonic clock in milliseconds (@default performance.now) */
  constructor(coordinator: ShardCoordinator, count: number, member: string, host: FleetHost, now: () => number = () => performance.now()) {
    this.#coordinator = coordinator;
    this.#count = count;
    this.member = member;
    this.#host = host;
    this.#now = now;
    this.#events = new FleetReporter(
      (event) => host.event?.(event),
      () => this.member,
      count,
    );
  }

  /** The shard ids held here. */
  get shardIds(): number[] {
    return [...this.#held.keys()].sort((a, b) => a - b);
  }

  /** Whether the shard is held here (without checking that its lease is still known valid). */
  has(shardId: number): boolean {
    return !this.#leaving && !this.#closing && this.#held.has(shardId);
  }

  /**
   * Claims an interaction that arrived on the shard, for handlers about to start: `true` only if the coordinator granted it and,
   * when its answer arrives, the shard is still held under the same acquisition with its lease known valid on the monotonic
   * clock. A claim that fails is tried again while the lease lasts; one that hangs is given up when the lease may lapse; one
   * answered late (the process slept, the coordinator was cut off, the shard was fenced meanwhile) is dropped. In each of those
   * the interaction holds the shard's saved sequence below it, so the shard's next holder resumes, is sent it again and runs it.
   * With `ttlMs` (an event of a fleet's switch, claimed for that long): each try waits at most `ttlMs`, and the third failure rejects.
   */
  async claim(interactionId: string, shardId: number, ttlMs?: number): Promise<boolean> {
    const held = this.#held.get(shardId);
    const { member } = this;
    if (held === undefined) return false;
    for (let attempt = 0; ; attempt++) {
      const left = this.#validFor(shardId, held, member);
      if (left <= 0) return false;
      try {
        const claimed = await wait(this.#coordinator.claimInteraction(member, interactionId, ttlMs), {
          timeoutMs: Math.min(left, ttlMs ?? left),
          onTimeout: () => new Error(`the claim of interaction ${interactionId} had no answer while shard ${shardId}'s lease lasted`),
        });
        if (this.#validFor(shardId, held, member) > 0) return claimed;
        this.#host.debug(`interaction ${interactionId}: its claim was answered after shard ${shardId}'s lease lapsed; dropped (its next holder runs it)`);
        return false;
      } catch (error) {
        if (attempt === 0) this.#host.failed(error); // once per claim: an outage at 25 interactions a second is not 200 errors a second
        if (ttlMs !== undefined && attempt >= 2) throw error; // an event's claim (a fleet's switch, `ttlMs`): three tries, then its rule
        await wait(Math.min(Math.max(20, this.#coordinator.leaseMs / 10), Math.max(0, this.#validFor(shardId, held, member))));
      }
    }
  }

  /** How long the acquisition `held` of the shard is still known valid (0 once it is not; the shard is fenced then). */
  #validFor(shardId: number, held: Held, member: string): number {
    if (member !== this.member) return 0; // joined again: the old id's claims pass to live members
    // Handed off: the successor's replay finds this member's claim and skips it, so this member runs it while its membership lasts.
    if (held.handedOff === true) return this.#memberUntil - this.#now();
    if (this.#held.get(shardId) !== held || !this.holds(shardId)) return 0;
    return held.validUntil - this.#now();
  }

  /** Joins (a first step only registers, so processes started together see each other), then acquires; ticks every third of a lease. */
  async start(): Promise<void> {
    await this.tick();
    await this.tick();
    this.#timer = setInterval(() => void this.tick(), Math.max(50, Math.floor(this.#coordinator.leaseMs / 3)));
    this.#timer.unref?.();
  }

  /**
   * Whether dispatching on the shard is safe now: it holds a lease known valid. The first time it is not (the process
   * was paused past its lease), the shard is fenced: stopped without saving, so what it received and did not dispatch
   * is replayed to whoever holds the shard.
   */
  holds(shardId: number): boolean {
    const held = this.#held.get(shardId);
    if (held === undefined) return false;
    if (this.#now() < held.validUntil) return true;
    this.#fence(shardId, 'its lease may have lapsed (this process was paused or Redis did not answer)');
    return false;
  }

  /** Whether the shard's session is saved from here now: it is held, and this process is not leaving (closing saves it once, last). */
  saves(shardId: number): boolean {
    return !this.#leaving && this.holds(shardId);
  }

  /**
   * Whether an answer to an interaction that arrived on the shard may still be sent from here: not once the shard was fenced (its
   * successor replays the interaction and answers it), but still after a hand-off (this process keeps its claim).
   */
  mayAnswer(shardId: number): boolean {
    return this.#held.has(shardId) ? this.holds(shardId) : !this.#fenced.has(shardId);
  }

  #fence(shardId: number, why: string): void {
    if (!this.#held.delete(shardId)) return;
    this.#fenced.add(shardId);
    this.#host.debug(`shard ${shardId} fenced: ${why}; it dispatches nothing more here`);
    this.#events.fenced(shardId, why, this.shardIds);
    this.#run(shardId, () => this.#host.stop(shardId, false));
    void this.tick();
  }

  /**
   * Runs a start or a stop of the shard after the ones before it (a start and a stop of one shard never overlap); the shard is
   * busy (not acquired again, not handed off) until the last one ends.
   */
  #run(shardId: number, task: () => Promise<void>): Promise<void> {
    const ran = (this.#busy.get(shardId) ?? Promise.resolve()).then(task).catch((error: unknown) => this.#host.failed(error));
    const done = ran.finally(() => {
      if (this.#busy.get(shardId) === done) this.#busy.delete(shardId);
    });
    this.#busy.set(shardId, done);
    return done;
  }

  /** One coordinator step (one at a time). */
  tick(): Promise<void> {
    this.#ticking ??= this.#tick().finally(() => {
      this.#ticking = undefined;
    });
    return this.#ticking;
  }

  async #tick(): Promise<void> {
    if (this.#closing) return;
    const sentAt = this.#now();
    let answer: CoordinatorTick;
    let acquire = false;
    try {
      // During a reshard the old count takes free shards until the coordinator says the switch is under way (it decides, not this).
      acquire = ++this.#ticks > 1 && !this.#leaving;
      answer = await this.#coordinator.tick(this.member, this.#count, acquire, this.#registered);
    } catch (error) {
      this.#host.failed(error);
      return;
    }
    this.#events.acting(); // what this answer changes in what is held here is said once, at its end
    await this.#act(answer, acquire, sentAt).finally(() => this.#events.settled(this.shardIds));
  }

  /** Acts on a step's answer: fences what was lost, starts what was acquired, hands off what is beyond the fair share. */
  async #act(answer: CoordinatorTick, acquire: boolean, sentAt: number): Promise<void> {
    if (this.#closing) return this.#report(answer);
    if (answer.expired === true) {
      this.#rejoin();
      return this.#report(answer);
    }
    this.#registered = true;
    const validUntil = sentAt + this.#coordinator.leaseMs * (1 - MARGIN);
    this.#memberUntil = validUntil;
    const leases = new Map(answer.leases.map((lease) => [lease.shardId, lease.fence]));
    for (const [shardId, held] of this.#held) {
      if (leases.get(shardId) !== held.fence) this.#fence(shardId, 'its lease is held by another process');
    }
    const starting: Promise<void>[] = [];
    for (const [shardId, fence] of leases) {
      const held = this.#held.get(shardId);
      if (held !== undefined) held.validUntil = validUntil;
      else if (!this.#busy.has(shardId) && !this.#leaving) {
        this.#held.set(shardId, { fence, validUntil });
        this.#fenced.delete(shardId);
        this.#host.debug(`shard ${shardId} acquired (fence ${fence})`);
        const from = answer.previous?.get(shardId);
        this.#events.acquired(shardId, from);
        starting.push(this.#run(shardId, () => this.#host.start(shardId, { fence, from })));
      }
    }
    if (!this.#leaving) this.#rebalance(answer);
    const renewalMs = this.#now() - sentAt;
    this.#report(answer);
    await Promise.all(starting);
    // Once the shards acquired are starting (listed by the Gateway): `serving` tells what runs here.
    if (acquire && !this.#closing) this.#events.step(answer.members, this.shardIds, renewalMs);
    if (!this.#leaving) this.#host.ticked?.(answer);
  }

  /** Reports what a step repaired, once the supervisor acted on its answer. */
  #report(answer: CoordinatorTick): void {
    if (answer.report !== undefined) this.#host.failed(answer.report);
  }

  /**
   * This process was away past its membership (paused, or cut off from the coordinator): every shard is fenced, and it joins
   * again under a new member id, so the claims the old id held pass to live members (its handlers' answers are refused).
   */
  #rejoin(): void {
    this.#memberUntil = 0;
    for (const shardId of [...this.#held.keys()]) this.#fence(shardId, 'this process was away past its membership');
    this.member = `${this.member.replace(/~\d+$/, '')}~${++this.#incarnation}`;
    this.#registered = false;
    // Two steps only register before taking shards again: every process that lost its membership with this one (Redis restarted
    // empty) has written back the sessions it kept by then (see fleet.ts), so whoever takes a shard resumes it.
    this.#ticks = -1;
    this.#host.debug(`joining the fleet again as ${this.member}`);
    this.#host.rejoining?.();
  }

  /** Hands off ready shards beyond the fair share, those another member would hold first. */
  #rebalance(answer: CoordinatorTick): void {
    const fair = Math.ceil(this.#count / Math.max(1, answer.members));
    const extra = this.#held.size - fair;
    if (extra <= 0) return;
    const home = (shardId: number) => shardId % answer.members === answer.index;
    const candidates = [...this.#held.keys()].filter((id) => !this.#busy.has(id) && this.#host.ready(id)).sort((a, b) => Number(home(a)) - Number(home(b)));
    for (const shardId of candidates.slice(0, extra)) {
      const held = this.#held.get(shardId) as Held;
      const { fence } = held;
      held.handedOff = true;
      this.#held.delete(shardId);
      this.#host.debug(`shard ${shardId} handed off to rebalance (${answer.members} processes, ${fair} shards each at most)`);
      this.#run(shardId, async () => {
        await this.#host.stop(shardId, true);
        await this.#coordinator.release(this.member, this.#count, { shardId, fence });
        this.#events.released(shardId, 'rebalance');
      });
    }
  }

  /** Leaves this shard set but not the fleet (a reshard switched away from it): stops ticking, runs `stopAll`, gives each lease back. */
  async retire(stopAll: () => Promise<void>): Promise<void> {
    this.#closing = true;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    await this.#ticking;
    await stopAll();
    const leases = [...this.#held].map(([shardId, held]) => ({ shardId, fence: held.fence }));
    // The member stays (it runs the next set): a claim still waiting is its own, as after a hand-off (the next set's copy of the
    // interaction is skipped as seen twice, so dropping it would lose it).
    for (const held of this.#held.values()) held.handedOff = true;
    this.#held.clear();
    this.#events.changed([]);
    const release = (lease: ShardLease) =>
      this.#coordinator.release(this.member, this.#count, lease).then(() => this.#events.released(lease.shardId, 'reshard'));
    await Promise.all(leases.map((lease) => release(lease).catch((error: unknown) => this.#host.failed(error))));
  }

  /** Leaves the fleet: runs `stopAll` (stop the shards, let what is handled settle, save the sessions) while the leases are still renewed (none taken, none handed off), then stops ticking and gives the leases back. */
  async close(stopAll: () => Promise<void>): Promise<void> {
    this.#leaving = true;
    try {
      await stopAll();
    } finally {
      this.#closing = true;
      if (this.#timer !== undefined) clearInterval(this.#timer);
      await this.#ticking;
      // Once gone, an answer from here is refused: the claims pass to live members, which run the replays.
      const given = [...this.#held.keys()];
      for (const shardId of given) this.#fenced.add(shardId);
      this.#held.clear();
      this.#events.changed([]);
      this.#memberUntil = 0; // gone: a claim answered from now on is not this member's to run
      const leave = this.#coordinator.leave(this.member, this.#count).then(() => this.#events.released(given, 'closing'));
      await leave.catch((error: unknown) => this.#host.failed(error));
    }
  }
}
