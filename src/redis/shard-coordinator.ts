/**
 * The shard coordinator on Redis: live processes share a bot's shards with a
 * lease per shard, each carrying a fencing token, in one atomic script per
 * step on Redis `TIME` (the hosts' clocks never matter). Every step costs
 * O(shards the member holds), whatever the shard count.
 *
 * Keys, all inside the fleet key's hash tag (one slot; `taggedKey`): `{K}:members` (a sorted set of member ids by
 * expiry), `{K}:bot` (the bot the fleet serves), `{K}:fence` (the fencing counter); per shard count `{K}:leases:<count>`
 * (a hash of shard id to `member|fence`), `{K}:owners:<count>` (the lexical index `member|shard`), `{K}:holders:<count>`
 * (members renewing their leases of that count, by expiry), `{K}:free:<count>` (shards given back or whose holder died)
 * and `{K}:next:<count>` (shards from here on were never held); `{K}:i:<interaction id>` (an interaction's claim: a member
 * id, or `answered`); for resharding, `{K}:count` (the fleet's shard count), `{K}:target` (a reshard asked for),
 * `{K}:ready:<count>` (the shards of that count READY somewhere) and `{K}:switching` (every shard of the target is READY:
 * the old count takes no shard any more). The scripts live in `shard-coordinator-scripts.ts`.
 *
 * @module
 */

import type { CoordinatorTick, ShardCoordinator, ShardLease } from '../gateway/coordinator.js';
import type { PreviousHolder } from '../gateway/fleet-events.js';
import { checkDuration, clampNumber, refuseUnknownOptions } from '../core/bounds.js';
import { acquireClaim, CLAIM_TTL_MS, type ClaimKeys, type ClaimScriptRunner, markAnswered } from './interaction-claim.js';
import { ShardCoordinatorError } from '../errors/index.js';
import {
  checkCoordinatorId,
  claimTtl,
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
} from '../gateway/coordinator-rules.js';
import { DEFAULT_COMMAND_TIMEOUT_MS, type RedisScript, withinTime, type RedisClientLike, type StoreFailure } from './connection.js';
import { taggedKey } from './keys.js';
import { type FleetStatus, type FleetStatusOptions, readFleetStatus } from './fleet-status.js';
import { checkMemberName, FleetMembers, KEPT_MS, type MemberInfo, thisMember } from './fleet-members.js';
import { ADOPT_COUNT, COMMIT_RESHARD, LEAVE, RELEASE, REQUEST_RESHARD, SHARD_READY, TICK } from './shard-coordinator-scripts.js';

/** Options of {@link createRedisShardCoordinator}. */
export interface RedisShardCoordinatorOptions {
  /** A connected node-redis v6 client (one node, a cluster or Sentinel). */
  client: RedisClientLike;
  /**
   * The fleet's key (one per bot): processes with the same key share its shards. Wrapped in one hash tag, so it may not
   * hold `{` or `}`, be empty or blank, or be longer than 200 characters.
   * @default 'ccsdk:fleet'
   */
  key?: string | undefined;
  /**
   * The bot this fleet serves (its user id, the one its bot token carries: the Gateway gives it through `join()` when this is unset): recorded in Redis by the first process, and a process of
   * another bot given the same `key` (or one without `bot` once it is recorded) is refused every step with a
   * `ShardCoordinatorError`, instead of each bot serving part of the shards. Also settable once with `join(bot)`.
   * @default undefined (not checked)
   */
  bot?: string | undefined;
  /**
   * How long a lease lives without renewal, milliseconds (300 to 2^31 - 1): a dead process's
   * shards are taken over after this, and a process paused for longer
   * stops dispatching on them when it wakes. Renewed every third of it.
   * @default 10000
   */
  leaseMs?: number | undefined;
  /** How long a Redis command may take, milliseconds (1 to 2^31 - 1). @default 2000 */
  commandTimeoutMs?: number | undefined;
  /**
   * The largest shard count the fleet runs or reshards to: a larger one asked of it is refused with a `ValidationError`,
   * a larger proposed count (`shardCount(proposed)`, the service's recommendation) with a `ShardCoordinatorError` saying
   * so, and one read from Redis beyond it is reported and replaced.
   * @default 10000
   */
  maxShards?: number | undefined;
  /**
   * This process's name in the fleet (1 to 100 characters, no control, format or line-separator character), recorded with its host and pid when it joins:
   * `readFleetStatus()` lists it, and a member that takes over its shards after it died names it in `shardTakenOver`.
   * @default the process id
   */
  name?: string | undefined;
}

/** Options of `RedisShardCoordinator.status()`: those of {@link readFleetStatus} but the client, key and `maxShards` (the coordinator's). */
export type CoordinatorStatusOptions = Omit<FleetStatusOptions, 'client' | 'key' | 'maxShards'>;

/** The options {@link createRedisShardCoordinator} knows (any other is refused). */
const KNOWN_OPTIONS = [
  'client',
  'key',
  'bot',
  'leaseMs',
  'commandTimeoutMs',
  'maxShards',
  'name',
] as const satisfies readonly (keyof RedisShardCoordinatorOptions)[];

const OPERATION = 'createRedisShardCoordinator';

/** A coordinator's command that failed. */
const coordinatorFailure: StoreFailure = (detail, cause) => new ShardCoordinatorError(detail, cause === undefined ? undefined : { cause });

/**
 * A script's answer as its parts, each a list (a single value becomes a list of one), so a reply of another shape (a
 * script of another version, a proxy in between) is a typed error, never a TypeError.
 */
function parts(reply: unknown, operation: string, length: number): unknown[][] {
  if (!Array.isArray(reply) || reply.length < length)
    throw new ShardCoordinatorError(`Redis answered ${operation} with something that is not its script's answer`);
  return reply.map((part: unknown) => (Array.isArray(part) ? part : [part]));
}

/** Values a script found that the SDK did not write, and repaired: the keys, and what each held. */
interface Repairs {
  readonly keys: string[];
  readonly lines: string[];
}

/** The values a script repaired (pairs of key and what it held), added to `earlier`'s; `undefined` when there are none. */
function repaired(reply: unknown, earlier?: Repairs): Repairs | undefined {
  const pairs = Array.isArray(reply) ? reply.map(String) : [];
  if (pairs.length === 0) return earlier;
  const found: Repairs = { keys: [...(earlier?.keys ?? [])], lines: [...(earlier?.lines ?? [])] };
  for (let i = 0; i + 1 < pairs.length; i += 2) {
    if (!found.keys.includes(pairs[i] as string)) found.keys.push(pairs[i] as string);
    found.lines.push(`${pairs[i]} ${pairs[i + 1]}`);
  }
  return found;
}

/** The most lines a report quotes; the rest are counted. */
const REPORT_LINES = 20;

/** The report of what was repaired: a ShardCoordinatorError naming the keys, quoting at most 20 of the repairs. */
function reportOf(repairs: Repairs): ShardCoordinatorError {
  const more = repairs.lines.length - REPORT_LINES;
  const lines = repairs.lines.slice(0, REPORT_LINES).join('; ') + (more > 0 ? `; and ${more} more` : '');
  return new ShardCoordinatorError(`found values the SDK did not write, and repaired them: ${lines}`, { keys: repairs.keys });
}

/** The Redis shard coordinator. Create it with {@link createRedisShardCoordinator}. */
export class RedisShardCoordinator implements ShardCoordinator {
  readonly #client: RedisClientLike;
  readonly #key: string;
  readonly #timeoutMs: number;
  #bot: string | undefined;
  /** Values repaired by `shardCount()` or `requestReshard()` (which answer no step): the next step's answer reports them. */
  #unreported: Repairs | undefined;
  /** How long a lease lives without renewal, milliseconds. */
  readonly leaseMs: number;
  /** The largest shard count this coordinator runs or reshards to. */
  readonly maxShards: number;
  /** This process's record in the fleet (name, host, pid). */
  readonly #info: MemberInfo;
  readonly #members: FleetMembers;
  /** The `key` option as given (the status reader tags it itself). */
  readonly #keyName: string;
  /** The leases each member (of each count) held at its last step, to tell which a step newly gave (at most 64 members). */
  readonly #seen = new Map<string, Set<string>>();

  constructor(options: RedisShardCoordinatorOptions) {
    refuseUnknownOptions(OPERATION, options, KNOWN_OPTIONS);
    this.#client = options.client;
    this.#keyName = options.key ?? 'ccsdk:fleet';
    this.#key = taggedKey(OPERATION, 'key', this.#keyName);
    this.leaseMs = leaseMsOption(OPERATION, options.leaseMs);
    this.#timeoutMs = checkDuration(OPERATION, 'commandTimeoutMs', options.commandTimeoutMs, { min: 1 }) ?? DEFAULT_COMMAND_TIMEOUT_MS;
    this.maxShards = maxShardsOption(OPERATION, options.maxShards);
    this.#bot = options.bot === undefined ? undefined : checkCoordinatorId(OPERATION, 'bot', options.bot);
    this.#info = thisMember(options.name === undefined ? undefined : checkMemberName(OPERATION, options.name));
    this.#members = new FleetMembers(this.#key, (script, keys, args) => this.#run(script, keys, args));
  }

  /**
   * Records the bot this process serves (its user id, as its bot token carries it), when the `bot` option did not: every step then
   * checks that the fleet serves this bot. A different bot than the one already set is refused.
   */
  join(bot: string): void {
    this.#bot = joinedBot(this.#bot, bot);
  }

  #run(script: RedisScript, keys: string[], args: string[]): Promise<unknown> {
    return withinTime(this.#client, this.#timeoutMs, () => script.run(this.#client, keys, args), coordinatorFailure);
  }

  #count(operation: string, count: number): string {
    return String(checkShardCount(operation, count, this.maxShards));
  }

  #perCount(name: string, count: number): string {
    return `${this.#key}:${name}:${count}`;
  }

  async tick(member: string, shardCount: number, acquire: boolean, registered = false): Promise<CoordinatorTick> {
    checkCoordinatorId('ShardCoordinator.tick', 'member', member);
    const count = this.#count('ShardCoordinator.tick', shardCount);
    const k = this.#key;
    const keys = [`${k}:members`, this.#perCount('leases', shardCount), `${k}:fence`, `${k}:target`, this.#perCount('ready', shardCount)];
    keys.push(this.#perCount('owners', shardCount), this.#perCount('holders', shardCount), this.#perCount('free', shardCount));
    keys.push(this.#perCount('next', shardCount), `${k}:bot`, `${k}:count`, `${k}:switching`, this.#perCount('sweep', shardCount), `${k}:lease`);
    keys.push(this.#perCount('last', shardCount));
    const args = [
      member,
      count,
      String(this.leaseMs),
      acquire ? '1' : '0',
      registered ? '1' : '0',
      this.#bot ?? '',
      String(this.maxShards),
      String(TAKEN_PER_STEP),
      String(KEPT_MS),
    ];
    const [header = [], problems, rest = []] = parts(await this.#run(TICK, keys, args), 'a step', 3);
    const status = Number(header[0]);
    // What this step repaired (and what shardCount() or requestReshard() did) is reported with the step's answer.
    const found = repaired(problems, this.#unreported);
    this.#unreported = undefined;
    const report = found === undefined ? undefined : reportOf(found);
    if (status === -2 || status === -3) throw this.#refusal(status, String(rest[0]).slice(0, 64), report);
    const numbers = rest.map(Number);
    const leases: ShardLease[] = [];
    for (let i = 0; i + 1 < numbers.length; i += 2) leases.push({ shardId: numbers[i] as number, fence: numbers[i + 1] as number });
    if (status === -1) return { members: 0, index: 0, leases: [], expired: true, report };
    const [, members, index, target, ready, , fleetCount] = header.map((value) => clampNumber(value, -1, Number.MAX_SAFE_INTEGER, 0));
    if (!registered) await this.#members.register(member, this.#info);
    await this.#members.keep(shardCount);
    return {
      members: members ?? 1,
      index: index ?? 0,
      leases: leases.sort((a, b) => a.shardId - b.shardId),
      target: target !== undefined && target > 0 ? target : undefined,
      ready: ready ?? 0,
      fleetCount: fleetCount !== undefined && fleetCount > 0 ? fleetCount : undefined,
      report,
      previous: await this.#previous(member, shardCount, leases),
    };
  }

  /** Who held each shard this step newly gave the member (recorded as the shards' last holder now); `undefined` when none is new. */
  async #previous(member: string, shardCount: number, leases: readonly ShardLease[]): Promise<ReadonlyMap<number, PreviousHolder> | undefined> {
    const id = `${member}/${shardCount}`;
    const seen = this.#seen.get(id);
    const now = new Set(leases.map((lease) => `${lease.shardId}|${lease.fence}`));
    const fresh = leases.filter((lease) => seen?.has(`${lease.shardId}|${lease.fence}`) !== true).map((lease) => lease.shardId);
    const found = fresh.length === 0 ? undefined : await this.#members.acquired(member, shardCount, fresh, maxSinceRenewalMs(this.leaseMs));
    const previous = found === undefined || found.size === 0 ? undefined : found; // none had another holder: no map (the contract's one answer)
    this.#seen.delete(id); // kept in order of use: the least recently stepping member is forgotten first
    this.#seen.set(id, now);
    if (this.#seen.size > 64) this.#seen.delete(this.#seen.keys().next().value as string);
    return previous;
  }

  /** A step refused: the fleet serves another bot (`-2`), or its members renew leases more than 10 times longer or shorter (`-3`). */
  #refusal(status: number, other: string, report: ShardCoordinatorError | undefined): ShardCoordinatorError {
    const k = this.#key;
    const also = report === undefined ? '' : ` (also ${report.message})`;
    if (status === -2) {
      const self = this.#bot === undefined ? "names no bot (set the coordinator's bot option)" : `serves bot ${JSON.stringify(this.#bot)}`;
      return new ShardCoordinatorError(`the fleet key ${k} serves bot ${JSON.stringify(other)}, and this process ${self}: give each bot its own key${also}`, {
        keys: [`${k}:bot`, ...(report?.keys ?? [])],
      });
    }
    return new ShardCoordinatorError(
      `the fleet key ${k} runs leases of ${other} ms, and this process ${this.leaseMs} ms (more than 10 times apart): give a fleet's members the same leaseMs${also}`,
      { keys: [`${k}:lease`, ...(report?.keys ?? [])] },
    );
  }

  async shardCount(proposed?: number): Promise<number | undefined> {
    const value = String(checkProposedCount(proposed, this.maxShards) ?? '');
    const [[count] = [], problems] = parts(await this.#run(ADOPT_COUNT, [`${this.#key}:count`], [value, String(this.maxShards)]), 'shardCount', 2);
    this.#unreported = repaired(problems, this.#unreported); // reported by the next step: connect() goes on with the proposed count
    const stored = clampNumber(count, 0, this.maxShards, 0);
    return stored > 0 ? stored : undefined;
  }

  async requestReshard(count: number): Promise<void> {
    const value = this.#count('ShardCoordinator.requestReshard', count);
    const k = this.#key;
    const keys = [`${k}:target`, this.#perCount('ready', count), `${k}:count`, `${k}:switching`];
    const [[status] = [], [pending] = [], problems] = parts(await this.#run(REQUEST_RESHARD, keys, [value, String(this.maxShards)]), 'requestReshard', 3);
    this.#unreported = repaired(problems, this.#unreported); // the request was made: the next step reports what was repaired
    if (Number(status) === 2) throw reshardUnderWay(clampNumber(pending, 0, this.maxShards, 0));
  }

  async shardReady(shardCount: number, shardId: number): Promise<void> {
    checkReadyShard(shardCount, shardId, this.maxShards);
    const count = String(shardCount);
    await this.#run(SHARD_READY, [this.#perCount('ready', shardCount), `${this.#key}:target`, `${this.#key}:switching`], [String(shardId), count]);
  }

  async commitReshard(count: number): Promise<void> {
    const value = this.#count('ShardCoordinator.commitReshard', count);
    await this.#run(COMMIT_RESHARD, [`${this.#key}:count`, `${this.#key}:target`, `${this.#key}:switching`], [value]);
  }

  /** Gives a lease back (only if it is still this member's, with this fence); rejects with what it repaired, once done. */
  /**
   * The fleet's status, read only: what {@link readFleetStatus} reads, with this coordinator's client, key, `maxShards` and
   * command timeout. Building a coordinator joins nothing, so a tool that is not a member may build one just to read this.
   */
  status(options: CoordinatorStatusOptions = {}): Promise<FleetStatus> {
    const { commandTimeoutMs = this.#timeoutMs, ...rest } = options;
    return readFleetStatus({ ...rest, commandTimeoutMs, client: this.#client, key: this.#keyName, maxShards: this.maxShards });
  }

  async release(member: string, shardCount: number, lease: ShardLease): Promise<void> {
    checkRelease(member, shardCount, lease, this.maxShards);
    const keys = [this.#perCount('leases', shardCount), this.#perCount('owners', shardCount), this.#perCount('free', shardCount)];
    this.#reportNow(await this.#run(RELEASE, keys, [member, String(lease.shardId), String(lease.fence), String(this.leaseMs)]));
  }

  /** Rejects with what a release or a leave repaired (its work was done): the supervisor reports it through its host. */
  #reportNow(problems: unknown): void {
    const found = repaired(problems);
    if (found !== undefined) throw reportOf(found);
  }

  /** Leaves the fleet, giving every lease back; rejects with what it repaired, once done. */
  async leave(member: string, shardCount: number): Promise<void> {
    checkCoordinatorId('ShardCoordinator.leave', 'member', member);
    this.#count('ShardCoordinator.leave', shardCount);
    const keys = [`${this.#key}:members`, this.#perCount('leases', shardCount), this.#perCount('owners', shardCount)];
    keys.push(this.#perCount('holders', shardCount), this.#perCount('free', shardCount));
    this.#seen.delete(`${member}/${shardCount}`);
    await this.#members.left(member);
    this.#reportNow(await this.#run(LEAVE, keys, [member, String(this.leaseMs)]));
  }

  /**
   * Claims an interaction through the one interaction claim (`interaction-claim.ts`): taken when free, released, held by a
   * member no longer live (its holder died before answering), or held by this member (a replay after it fenced a shard it
   * then took again; the Gateway skips an interaction it is still running); refused while another live member holds it or
   * once it was answered. A fleet member's claim lasts as long as the claim key (its validity is the member's liveness).
   */
  async claimInteraction(member: string, interactionId: string, ttlMs = CLAIM_TTL_MS): Promise<boolean> {
    checkCoordinatorId('ShardCoordinator.claimInteraction', 'member', member);
    const ms = claimTtl(ttlMs);
    return (await acquireClaim(this.#claimRunner, this.#claimKeys(interactionId), member, ms, { ttlMs: ms })).status === 'taken';
  }

  async answered(interactionId: string): Promise<void> {
    await markAnswered(this.#claimRunner, this.#claimKeys(interactionId));
  }

  #claimKeys(interactionId: string): ClaimKeys {
    return { claim: `${this.#key}:i:${interactionId}`, members: `${this.#key}:members` };
  }

  readonly #claimRunner: ClaimScriptRunner = (script, keys, args) => this.#run(script, [...keys], [...args]);
}

/**
 * Creates the shard coordinator on Redis, for `gateway: { coordinator }`:
 * processes with the same Redis and `key` share the bot's shards, each
 * holding a fair share; a dead process's shards are taken over after
 * `leaseMs`, their sessions resumed from the Gateway session store.
 * Its options are checked here: an unknown one, a key that is not one hash tag's name, a duration or count out of
 * bounds is refused with a `ValidationError` naming it.
 */
export function createRedisShardCoordinator(options: RedisShardCoordinatorOptions): RedisShardCoordinator {
  return new RedisShardCoordinator(options);
}
