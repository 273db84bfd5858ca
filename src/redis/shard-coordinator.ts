/**
 * The shard coordinator on Redis: live processes share a bot's shards with a
 * lease per shard, each carrying a fencing token, in one atomic script per
 * step on Redis `TIME` (the hosts' clocks never matter).
 *
 * Keys, all inside the key's hash tag (one slot): `{K}:members` (a sorted
 * set of member ids by expiry), `{K}:leases:<count>` (a hash of shard id to
 * `member|fence|expiry`), `{K}:fence` (the fencing counter) and
 * `{K}:i:<interaction id>` (an interaction's claim: a member id, or
 * `answered`); for resharding, `{K}:count` (the fleet's shard count once a
 * reshard set it), `{K}:target` (a reshard asked for) and `{K}:ready:<count>`
 * (the shards of that count READY somewhere).
 *
 * @module
 */

import type { CoordinatorTick, ShardCoordinator, ShardLease } from '../gateway/coordinator.js';
import { INTERACTION_LIFETIME_MS } from '../core/constants.js';
import { DEFAULT_COMMAND_TIMEOUT_MS, RedisScript, sessionFailure, taggedPrefix, withinTime, type RedisClientLike } from './connection.js';

/** Options of {@link createRedisShardCoordinator}. */
export interface RedisShardCoordinatorOptions {
  /** A connected node-redis v6 client (one node, a cluster or Sentinel). */
  client: RedisClientLike;
  /** The fleet's key (one per bot): processes with the same key share its shards. @default 'ccsdk:fleet' */
  key?: string | undefined;
  /**
   * How long a lease lives without renewal, milliseconds: a dead process's
   * shards are taken over after this, and a process paused for longer
   * stops dispatching on them when it wakes. Renewed every third of it.
   * @default 10000
   */
  leaseMs?: number | undefined;
  /** How long a Redis command may take, milliseconds. @default 2000 */
  commandTimeoutMs?: number | undefined;
}

/**
 * ARGV: member, shard count, lease (ms), acquire ('1' or '0'), registered ('1' when this member joined before: if its
 * membership expired meanwhile it is not renewed, the answer is `{-1}`, and the process joins again under a new id, so that
 * the claims it held pass to live members). Renews the
 * member and its leases, drops expired members and leases, and takes free
 * shards up to `ceil(count / members)`, those whose home (`shard % members`)
 * is this member first. Returns `{members, index, target or -1, ready, shard, fence, ...}` (KEYS[4]: the reshard
 * target; KEYS[5]: the set of READY shards of this count).
 */
const TICK = new RedisScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local member, count, lease = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if ARGV[5] == '1' and not redis.call('ZSCORE', KEYS[1], member) then return { -1 } end
redis.call('ZADD', KEYS[1], now + lease, member)
redis.call('PEXPIRE', KEYS[1], lease * 3)
local members = redis.call('ZRANGE', KEYS[1], 0, -1)
table.sort(members)
local index = 0
for i, m in ipairs(members) do if m == member then index = i - 1 end end
local n = #members
local target = tonumber(redis.call('GET', KEYS[4]) or '-1')
local ready = redis.call('SCARD', KEYS[5])
local held, free = {}, {}
for shard = 0, count - 1 do
  local value = redis.call('HGET', KEYS[2], shard)
  local owner, fence, expires
  if value then owner, fence, expires = string.match(value, '^(.+)|(%d+)|(%d+)$') end
  if owner and owner == member and tonumber(expires) > now then
    redis.call('HSET', KEYS[2], shard, member .. '|' .. fence .. '|' .. (now + lease))
    held[#held + 1] = shard
    held[#held + 1] = tonumber(fence)
  elseif not owner or tonumber(expires) <= now then
    if shard % n == index then table.insert(free, 1, shard) else free[#free + 1] = shard end
  end
end
if ARGV[4] == '1' then
  local fair = math.ceil(count / n)
  for _, shard in ipairs(free) do
    if #held / 2 >= fair then break end
    local fence = redis.call('INCR', KEYS[3])
    redis.call('HSET', KEYS[2], shard, member .. '|' .. fence .. '|' .. (now + lease))
    held[#held + 1] = shard
    held[#held + 1] = fence
  end
end
redis.call('PEXPIRE', KEYS[2], lease * 3)
local answer = { n, index, target, ready }
for _, v in ipairs(held) do answer[#answer + 1] = v end
return answer`);

/** ARGV: member, shard, fence. Deletes the lease if it is still this member's with this fence. */
const RELEASE = new RedisScript(`
local value = redis.call('HGET', KEYS[1], ARGV[2])
if value and string.sub(value, 1, #ARGV[1] + #ARGV[3] + 2) == ARGV[1] .. '|' .. ARGV[3] .. '|' then redis.call('HDEL', KEYS[1], ARGV[2]) end
return 0`);

/** ARGV: member. Leaves: the membership ends and every lease of the member is deleted. */
const LEAVE = new RedisScript(`
redis.call('ZREM', KEYS[1], ARGV[1])
local all = redis.call('HGETALL', KEYS[2])
for i = 1, #all, 2 do
  if string.sub(all[i + 1], 1, #ARGV[1] + 1) == ARGV[1] .. '|' then redis.call('HDEL', KEYS[2], all[i]) end
end
return 0`);

/**
 * ARGV: member, ttl (ms). Claims an interaction: 1 when free, or held by a
 * member no longer live (its holder died before answering), or held by this
 * member (a replay after it fenced a shard it then took again; the Gateway
 * skips an interaction it is still running); 0 when another live member
 * holds it or it was answered.
 */
const CLAIM = new RedisScript(`
local held = redis.call('GET', KEYS[1])
if held == 'answered' then return 0 end
if held == ARGV[1] then return 1 end
if held then
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  local expires = tonumber(redis.call('ZSCORE', KEYS[2], held))
  if expires and expires > now then return 0 end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1`);

/** How long an interaction's claim lives: its token lasts 15 minutes, a minute more for clocks apart. */
const CLAIM_TTL_MS = INTERACTION_LIFETIME_MS + 60_000;

/** The Redis shard coordinator. Create it with {@link createRedisShardCoordinator}. */
export class RedisShardCoordinator implements ShardCoordinator {
  readonly #client: RedisClientLike;
  readonly #key: string;
  readonly #timeoutMs: number;
  /** How long a lease lives without renewal, milliseconds. */
  readonly leaseMs: number;

  constructor(options: RedisShardCoordinatorOptions) {
    this.#client = options.client;
    this.#key = taggedPrefix(options.key ?? 'ccsdk:fleet');
    this.leaseMs = options.leaseMs ?? 10_000;
    this.#timeoutMs = options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
    if (!Number.isInteger(this.leaseMs) || this.leaseMs < 300) throw new RangeError('leaseMs must be a whole number of at least 300');
  }

  #run(script: RedisScript, keys: string[], args: string[]): Promise<unknown> {
    return withinTime(this.#client, this.#timeoutMs, () => script.run(this.#client, keys, args), sessionFailure);
  }

  #leases(count: number): string {
    return `${this.#key}:leases:${count}`;
  }

  async tick(member: string, shardCount: number, acquire: boolean, registered = false): Promise<CoordinatorTick> {
    const keys = [`${this.#key}:members`, this.#leases(shardCount), `${this.#key}:fence`, `${this.#key}:target`, this.#ready(shardCount)];
    const reply = (await this.#run(TICK, keys, [member, String(shardCount), String(this.leaseMs), acquire ? '1' : '0', registered ? '1' : '0'])) as unknown[];
    const numbers = Array.isArray(reply) ? reply.map(Number) : [];
    if (numbers[0] === -1) return { members: 0, index: 0, leases: [], expired: true };
    const leases: ShardLease[] = [];
    for (let i = 4; i + 1 < numbers.length; i += 2) leases.push({ shardId: numbers[i] as number, fence: numbers[i + 1] as number });
    const target = numbers[2] !== undefined && numbers[2] > 0 ? numbers[2] : undefined;
    return { members: numbers[0] ?? 1, index: numbers[1] ?? 0, leases: leases.sort((a, b) => a.shardId - b.shardId), target, ready: numbers[3] ?? 0 };
  }

  #ready(count: number): string {
    return `${this.#key}:ready:${count}`;
  }

  async shardCount(proposed?: number): Promise<number | undefined> {
    const value = Number(await this.#run(ADOPT_COUNT, [`${this.#key}:count`], [proposed === undefined ? '' : String(proposed)]));
    return Number.isInteger(value) && value > 0 ? value : undefined;
  }

  async requestReshard(count: number): Promise<void> {
    if (!Number.isInteger(count) || count < 1) throw new RangeError('a shard count is a whole number of at least 1');
    const pending = Number(await this.#run(REQUEST_RESHARD, [`${this.#key}:target`, this.#ready(count)], [String(count)]));
    if (pending > 1) throw new Error(`a reshard to ${pending} shards is under way; ask again once it is done`);
  }

  async shardReady(shardCount: number, shardId: number): Promise<void> {
    await this.#run(SHARD_READY, [this.#ready(shardCount)], [String(shardId)]);
  }

  async commitReshard(count: number): Promise<void> {
    await this.#run(COMMIT_RESHARD, [`${this.#key}:count`, `${this.#key}:target`], [String(count)]);
  }

  async release(member: string, shardCount: number, lease: ShardLease): Promise<void> {
    await this.#run(RELEASE, [this.#leases(shardCount)], [member, String(lease.shardId), String(lease.fence)]);
  }

  async leave(member: string, shardCount: number): Promise<void> {
    await this.#run(LEAVE, [`${this.#key}:members`, this.#leases(shardCount)], [member]);
  }

  async claimInteraction(member: string, interactionId: string): Promise<boolean> {
    return Number(await this.#run(CLAIM, [`${this.#key}:i:${interactionId}`, `${this.#key}:members`], [member, String(CLAIM_TTL_MS)])) === 1;
  }

  async answered(interactionId: string): Promise<void> {
    await this.#run(ANSWERED, [`${this.#key}:i:${interactionId}`], [String(CLAIM_TTL_MS)]);
  }
}

/** ARGV: a proposed count, or ''. The fleet's count (KEYS[1]): the proposal is stored when none is yet, so every process agrees. */
const ADOPT_COUNT = new RedisScript(`if ARGV[1] ~= '' then redis.call('SET', KEYS[1], ARGV[1], 'NX') end
return redis.call('GET', KEYS[1])`);

/**
 * ARGV: count. Asks for a reshard to `count` (KEYS[1], for a day at most); its READY set (KEYS[2]) starts empty. Asking again for
 * the reshard under way (every process of a fleet may) changes nothing.
 */
const REQUEST_RESHARD = new RedisScript(`local pending = redis.call('GET', KEYS[1])
if pending == ARGV[1] then return 0 end
if pending then return tonumber(pending) end
redis.call('SET', KEYS[1], ARGV[1], 'PX', 86400000)
redis.call('DEL', KEYS[2])
return 1`);

/** ARGV: shard id. Adds it to the READY set of its count (KEYS[1], for a day at most). */
const SHARD_READY = new RedisScript(`redis.call('SADD', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[1], 86400000)
return 0`);

/** ARGV: count. The fleet's count (KEYS[1]) becomes `count`; the request (KEYS[2]) ends if it asked for it. */
const COMMIT_RESHARD = new RedisScript(`redis.call('SET', KEYS[1], ARGV[1])
if redis.call('GET', KEYS[2]) == ARGV[1] then redis.call('DEL', KEYS[2]) end
return 0`);

/** ARGV: ttl (ms). Marks an interaction answered. */
const ANSWERED = new RedisScript(`redis.call('SET', KEYS[1], 'answered', 'PX', ARGV[1])
return 0`);

/**
 * Creates the shard coordinator on Redis, for `gateway: { coordinator }`:
 * processes with the same Redis and `key` share the bot's shards, each
 * holding a fair share; a dead process's shards are taken over after
 * `leaseMs`, their sessions resumed from the Gateway session store.
 */
export function createRedisShardCoordinator(options: RedisShardCoordinatorOptions): RedisShardCoordinator {
  return new RedisShardCoordinator(options);
}
