/**
 * A shard coordinator in memory, for tests of fleet code without Redis:
 * several Gateways (members) in one process share a bot's shards with the
 * same rules as `createRedisShardCoordinator()` (leases with fencing tokens,
 * fair shares taken lowest free shard first, interaction claims a dead member
 * gives up, reshard requests, the same checks of what a caller gives), on a
 * clock the test may move. `test/helpers/coordinator-contract.ts` runs one
 * contract on both.
 *
 * @module
 */

import { optionNames, refuseUnknownOptions } from '../core/bounds.js';
import { INTERACTION_CLAIM_TTL_MS as CLAIM_TTL_MS } from '../core/constants.js';
import {
  checkCoordinatorId,
  checkProposedCount,
  checkReadyShard,
  checkRelease,
  checkShardCount,
  joinedBot,
  leaseMsOption,
  maxShardsOption,
  maxSinceRenewalMs,
  reshardUnderWay,
  TAKEN_PER_STEP,
  claimTtl,
} from '../gateway/coordinator-rules.js';
import type { CoordinatorTick, ShardCoordinator, ShardLease } from '../gateway/coordinator.js';
import type { PreviousHolder } from '../gateway/fleet-events.js';

/** Options of {@link MemoryShardCoordinator}. */
export interface MemoryShardCoordinatorOptions {
  /** How long a lease (and a membership) lives without renewal, milliseconds (300 to 2^31 - 1, whole, as on Redis). @default 10000 */
  leaseMs?: number | undefined;
  /** The coordinator's clock, milliseconds (a test may move it: leases expire on it). @default performance.now */
  clock?: (() => number) | undefined;
  /** The largest shard count the fleet runs or reshards to, as the Redis coordinator's. @default 10000 (`DEFAULT_MAX_SHARDS`) */
  maxShards?: number | undefined;
}

/** How many leases a count's records outlive its last step (the Redis coordinator's keys expire after 3 leases). */
const RECORDS_KEPT_LEASES = 3;

const OPTIONS = optionNames<MemoryShardCoordinatorOptions>({ leaseMs: true, clock: true, maxShards: true });

interface Lease {
  readonly member: string;
  readonly fence: number;
  expires: number;
}

/**
 * A shard's last holder: who, when it last renewed (on the coordinator's clock), whether it left the fleet, and whether it lost
 * the lease by dying (as the Redis coordinator records `holder|ms` only when a step frees a dead holder's lease).
 */
interface LastHolder {
  readonly member: string;
  renewed: number;
  left: boolean;
  died?: boolean;
}

/**
 * The {@link ShardCoordinator} of a fleet whose members live in one process, for tests: pass one instance as
 * `gateway: { coordinator }` to several clients.
 */
export class MemoryShardCoordinator implements ShardCoordinator {
  /** How long a lease (and a membership) lives without renewal, milliseconds. */
  readonly leaseMs: number;
  readonly #now: () => number;
  /** Member id to the expiry of its membership. */
  readonly #members = new Map<string, number>();
  /** Per shard count, shard id to its last holder (as the Redis coordinator's `:last:` record: who a new holder takes it from). */
  readonly #last = new Map<number, Map<number, LastHolder>>();
  /** Per shard count, shard id to its lease. */
  readonly #leases = new Map<number, Map<number, Lease>>();
  /** Per shard count, when a step of it last ran (its leases are forgotten 3 leases after, as the Redis coordinator's keys expire). */
  readonly #stepped = new Map<number, number>();
  #fence = 0;
  /** Interaction id to its holder (a member id, or `answered`) and the claim's expiry. */
  readonly #claims = new Map<string, { holder: string; expires: number }>();
  #count: number | undefined;
  #target: number | undefined;
  /** Per shard count, the shards READY somewhere. */
  readonly #ready = new Map<number, Set<number>>();
  /** Every shard of the target is READY: the switch is under way, and the count the fleet leaves takes no shard. */
  #switching: number | undefined;
  /** The bot the fleet serves, once a Gateway joined. */
  #bot: string | undefined;

  /** The largest shard count the fleet runs or reshards to. */
  readonly maxShards: number;

  constructor(options: MemoryShardCoordinatorOptions = {}) {
    refuseUnknownOptions('MemoryShardCoordinator', options, OPTIONS, { now: 'clock' });
    this.leaseMs = leaseMsOption('MemoryShardCoordinator', options.leaseMs);
    this.maxShards = maxShardsOption('MemoryShardCoordinator', options.maxShards);
    this.#now = options.clock ?? (() => performance.now());
  }

  #leasesOf(count: number): Map<number, Lease> {
    let leases = this.#leases.get(count);
    if (leases === undefined) this.#leases.set(count, (leases = new Map()));
    return leases;
  }

  #live(member: string, now: number): boolean {
    return (this.#members.get(member) ?? Number.NEGATIVE_INFINITY) > now;
  }

  /** Records the bot the fleet serves (the Gateway gives it from its token); another bot is refused with a `ValidationError`. */
  join(bot: string): void {
    this.#bot = joinedBot(this.#bot, bot);
  }

  async tick(member: string, shardCount: number, acquire: boolean, registered = false): Promise<CoordinatorTick> {
    checkCoordinatorId('ShardCoordinator.tick', 'member', member);
    checkShardCount('ShardCoordinator.tick', shardCount, this.maxShards);
    const now = this.#now();
    for (const [id, expires] of this.#members) if (expires <= now) this.#members.delete(id);
    if (registered && !this.#members.has(member)) return { members: 0, index: 0, leases: [], expired: true };
    this.#members.set(member, now + this.leaseMs);
    const members = [...this.#members.keys()].sort();
    const index = members.indexOf(member);
    const n = members.length;
    const leases = this.#leasesOf(shardCount);
    // As on Redis, whose keys of a count expire 3 leases after its last step: its leases are gone, so a dead holder's last
    // renewal is not known (the record of who held each shard stays).
    const stepped = this.#stepped.get(shardCount);
    if (stepped !== undefined && now - stepped > RECORDS_KEPT_LEASES * this.leaseMs) leases.clear();
    this.#stepped.set(shardCount, now);
    const held: ShardLease[] = [];
    const free: number[] = [];
    const last = this.#lastOf(shardCount);
    for (let shardId = 0; shardId < shardCount; shardId++) {
      const lease = leases.get(shardId);
      if (lease !== undefined && lease.member === member && lease.expires > now) {
        lease.expires = now + this.leaseMs;
        const holder = last.get(shardId);
        if (holder?.member === member) holder.renewed = now;
        held.push({ shardId, fence: lease.fence });
      } else if (lease === undefined || lease.expires <= now) {
        const holder = last.get(shardId);
        if (lease !== undefined && holder?.member === lease.member) holder.died = true; // its holder died holding it
        free.push(shardId); // lowest first, as the Redis coordinator takes them
      }
    }
    // A count the fleet is leaving takes nothing: its switch is under way (every shard of the target READY), or another was committed.
    const target = this.#target;
    const leaving =
      (target !== undefined && target !== shardCount && this.#switching === target) ||
      (this.#count !== undefined && this.#count !== shardCount && target !== shardCount);
    const previous = new Map<number, PreviousHolder>();
    if (acquire && !leaving) {
      const fair = Math.ceil(shardCount / n);
      const most = held.length + TAKEN_PER_STEP; // as on Redis: a member far below its share takes the rest on its next steps
      for (const shardId of free) {
        if (held.length >= Math.min(fair, most)) break;
        const fence = ++this.#fence;
        leases.set(shardId, { member, fence, expires: now + this.leaseMs });
        held.push({ shardId, fence });
        const from = this.#handOver(last, shardId, member, now);
        if (from !== undefined) previous.set(shardId, from);
      }
    }
    held.sort((a, b) => a.shardId - b.shardId);
    const answer: CoordinatorTick = {
      members: n,
      index,
      leases: held,
      target: this.#target,
      ready: this.#ready.get(shardCount)?.size ?? 0,
      fleetCount: this.#count,
    };
    return previous.size === 0 ? answer : { ...answer, previous };
  }

  #lastOf(count: number): Map<number, LastHolder> {
    let last = this.#last.get(count);
    if (last === undefined) this.#last.set(count, (last = new Map()));
    return last;
  }

  /**
   * Records `member` as the shard's holder and says who held it before (live, left, or dead and how long since it renewed, when
   * a step freed its lease and at most `maxSinceRenewalMs` ago).
   */
  #handOver(last: Map<number, LastHolder>, shardId: number, member: string, now: number): PreviousHolder | undefined {
    const before = last.get(shardId);
    last.set(shardId, { member, renewed: now, left: false });
    if (before === undefined || before.member === member) return undefined;
    const live = this.#live(before.member, now);
    const since = now - before.renewed;
    const died = before.died === true && since <= maxSinceRenewalMs(this.leaseMs) ? { sinceRenewalMs: since } : {};
    return { member: before.member, live, left: before.left, ...died };
  }

  async release(member: string, shardCount: number, lease: ShardLease): Promise<void> {
    checkRelease(member, shardCount, lease, this.maxShards);
    const leases = this.#leasesOf(shardCount);
    const held = leases.get(lease.shardId);
    if (held?.member === member && held.fence === lease.fence) leases.delete(lease.shardId);
  }

  async leave(member: string, shardCount: number): Promise<void> {
    checkCoordinatorId('ShardCoordinator.leave', 'member', member);
    checkShardCount('ShardCoordinator.leave', shardCount, this.maxShards);
    this.#members.delete(member);
    const leases = this.#leasesOf(shardCount);
    for (const [shardId, lease] of leases) if (lease.member === member) leases.delete(shardId);
    // It left the fleet, not only this count: so says the record of every shard it held last.
    for (const last of this.#last.values()) for (const holder of last.values()) if (holder.member === member) holder.left = true;
  }

  async shardCount(proposed?: number): Promise<number | undefined> {
    const checked = checkProposedCount(proposed, this.maxShards); // refused whether or not a count is stored, as on Redis
    this.#count ??= checked;
    return this.#count;
  }

  async requestReshard(count: number): Promise<void> {
    checkShardCount('ShardCoordinator.requestReshard', count, this.maxShards);
    if (this.#target === count) return;
    if (this.#target !== undefined) throw reshardUnderWay(this.#target);
    if (this.#count === count) return; // the fleet runs it already
    this.#target = count;
    this.#ready.delete(count);
    this.#switching = undefined;
  }

  async shardReady(shardCount: number, shardId: number): Promise<void> {
    checkReadyShard(shardCount, shardId, this.maxShards);
    let ready = this.#ready.get(shardCount);
    if (ready === undefined) this.#ready.set(shardCount, (ready = new Set()));
    ready.add(shardId);
    if (this.#target === shardCount && ready.size >= shardCount) this.#switching = shardCount;
  }

  async commitReshard(count: number): Promise<void> {
    checkShardCount('ShardCoordinator.commitReshard', count, this.maxShards);
    // A late commit of an earlier reshard (the fleet went on to another count since) changes nothing.
    if (this.#target !== count) return;
    this.#count = count;
    this.#target = undefined;
    this.#switching = undefined;
  }

  async claimInteraction(member: string, interactionId: string, ttlMs = CLAIM_TTL_MS): Promise<boolean> {
    checkCoordinatorId('ShardCoordinator.claimInteraction', 'member', member);
    const ms = claimTtl(ttlMs);
    const now = this.#now();
    this.#forgetClaims(now);
    const found = this.#claims.get(interactionId);
    const claim = found !== undefined && found.expires > now ? found : undefined; // a shorter-lived claim may sit behind a longer one
    if (claim?.holder === 'answered') return false;
    if (claim !== undefined && claim.holder !== member && this.#live(claim.holder, now)) return false;
    this.#claim(interactionId, member, now, ms);
    return true;
  }

  async answered(interactionId: string): Promise<void> {
    this.#claim(interactionId, 'answered', this.#now());
  }

  /** Written last in the map, so the map stays in order of expiry. */
  #claim(interactionId: string, holder: string, now: number, ttlMs = CLAIM_TTL_MS): void {
    this.#claims.delete(interactionId);
    this.#claims.set(interactionId, { holder, expires: now + ttlMs });
  }

  /** Claims past their lifetime are forgotten (oldest first, in the order they were written; a shorter-lived one behind a longer one waits for it, and counts as gone when read). */
  #forgetClaims(now: number): void {
    for (const [id, claim] of this.#claims) {
      if (claim.expires > now) break;
      this.#claims.delete(id);
    }
  }

  /** Which member holds each shard of `shardCount` now (a lease not expired), by shard id. */
  holders(shardCount: number): Map<number, string> {
    const now = this.#now();
    const holders = new Map<number, string>();
    for (const [shardId, lease] of this.#leasesOf(shardCount)) if (lease.expires > now) holders.set(shardId, lease.member);
    return holders;
  }

  /** The live members, sorted. */
  members(): string[] {
    const now = this.#now();
    return [...this.#members]
      .filter(([, expires]) => expires > now)
      .map(([member]) => member)
      .sort();
  }
}
