/**
 * A fleet's status, read from Redis by any process (a member or a tool that is not one): its members (name, host, pid, last
 * renewal, lease expiry), each shard's holder, fence and stored session, the shard count and a reshard under way. Read
 * only: nothing is written, repaired or renewed. The keys are the shard coordinator's (`shard-coordinator.ts`) and the
 * Gateway session store's (`gateway-session-store.ts`).
 *
 * @module
 */

import { checkCount, checkDuration, clampNumber, MAX_SHARDS_LIMIT, MAX_TIMER_MS, optionNames, refuseUnknownOptions, wholeWithin } from '../core/bounds.js';
import { ShardCoordinatorError } from '../errors/index.js';
import { DEFAULT_COMMAND_TIMEOUT_MS, RedisScript, sendCommand, type RedisClientLike, type StoreFailure, withinTime } from './connection.js';
import { readMemberInfo } from './fleet-members.js';
import { maxShardsOption } from '../gateway/coordinator-rules.js';
import { taggedKey } from './keys.js';

/** Options of {@link readFleetStatus}. */
export interface FleetStatusOptions {
  /** A connected node-redis v6 client (one node, a cluster or Sentinel). */
  client: RedisClientLike;
  /** The fleet's key, as given to `createRedisShardCoordinator`. @default 'ccsdk:fleet' */
  key?: string | undefined;
  /**
   * The prefix of the Gateway session store's keys (`createRedisGatewaySessionStore`'s `prefix`), to report each shard's
   * stored session; `false` reads no session. @default 'ccsdk:gw:session:'
   */
  sessionPrefix?: string | false | undefined;
  /** The shard count to report when the fleet has none recorded (a fleet that does not reshard). @default undefined */
  shardCount?: number | undefined;
  /** How long a Redis command may take, milliseconds (1 to 2^31 - 1). @default 2000 */
  commandTimeoutMs?: number | undefined;
  /**
   * The largest shard count read (1 to 65,536), as the coordinator's `maxShards`: a count recorded past it reads as
   * missing (and is said in `truncated`), so a planted count never makes the status read a hundred thousand shards.
   * @default 10000
   */
  maxShards?: number | undefined;
}

const OPTIONS = optionNames<FleetStatusOptions>({
  ...{ client: true, key: true, sessionPrefix: true, shardCount: true, commandTimeoutMs: true, maxShards: true },
});

/** A live member of the fleet. */
export interface FleetMemberStatus {
  /** Its member id. */
  id: string;
  /** Its name (the coordinator's `name` option; its pid by default), when it recorded one. */
  name: string | undefined;
  /** The host it runs on, when recorded. */
  host: string | undefined;
  /** Its process id, when recorded. */
  pid: number | undefined;
  /** When it last renewed its membership, epoch ms on Redis's clock. */
  renewedAt: number;
  /** When its membership (and its leases) expire unless renewed, epoch ms on Redis's clock. */
  expiresAt: number;
  /** The shards it holds (of the fleet's shard count). */
  shardIds: number[];
}

/** A shard's session, as the Gateway session store keeps it (no session id: it is a secret of the bot). */
export interface FleetSessionStatus {
  /** Whether a session is stored (the next holder resumes it, if the service still accepts it). */
  resumable: boolean;
  /** The last sequence received, when stored. */
  sequence: number | null;
}

/** A shard of the fleet's shard count. */
export interface FleetShardStatus {
  /** The shard id. */
  shardId: number;
  /** Its holder's member id, `undefined` when free. */
  holder: string | undefined;
  /** Its holder's name, when recorded. */
  holderName: string | undefined;
  /** Whether its holder is among the members listed (`false` for one past the first 1,000; `undefined` when free). */
  holderListed: boolean | undefined;
  /** The lease's fencing token, `undefined` when free. */
  fence: number | undefined;
  /** Its stored session, `undefined` when sessions are not read. */
  session: FleetSessionStatus | undefined;
}

/** A fleet's status at one moment. */
export interface FleetStatus {
  /** The fleet's key in Redis. */
  key: string;
  /** When it was read, epoch ms on Redis's clock. */
  readAt: number;
  /** The fleet's shard count, `undefined` when none is recorded (and none given). */
  shardCount: number | undefined;
  /** The members' lease length, milliseconds, when recorded. */
  leaseMs: number | undefined;
  /** The live members listed (the first 1,000 by expiry), by name then id. */
  members: FleetMemberStatus[];
  /** How many members are live (more than `members` lists past 1,000). */
  liveMembers: number;
  /** What was not read whole, in words (members past the 1,000 listed, a leases hash holding more than the shard count, a count past `maxShards`); empty when all was read. */
  truncated: string[];
  /** Every shard of the shard count, by id. */
  shards: FleetShardStatus[];
  /** A reshard under way, if any. */
  reshard: FleetReshardStatus | undefined;
}

/** A reshard under way. */
export interface FleetReshardStatus {
  /** The shard count asked for. */
  target: number;
  /** How many of its shards are READY somewhere in the fleet. */
  ready: number;
  /** Whether the switch began (every shard of the target READY: the old count takes no shard any more). */
  switching: boolean;
}

/** The most members the status lists. */
const MAX_LISTED = 1000;

/**
 * KEYS: members, info, count, target, switching, lease. ARGV: the most members listed, the longest membership (ms). Answers
 * `{now, count, target, switching, lease, {member, expiry, record, ...}, live members}`, with '' for what is missing or of
 * another type.
 */
const READ_FLEET = new RedisScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local function get(key)
  if redis.call('TYPE', key)['ok'] ~= 'string' then return '' end
  return redis.call('GET', key)
end
local members = {}
local live_count = 0
if redis.call('TYPE', KEYS[1])['ok'] == 'zset' then
  live_count = redis.call('ZCOUNT', KEYS[1], '(' .. now, now + tonumber(ARGV[2]))
  local info = redis.call('TYPE', KEYS[2])['ok'] == 'hash'
  local live = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. now, '+inf', 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[1]))
  for i = 1, #live, 2 do
    members[#members + 1] = live[i]
    members[#members + 1] = live[i + 1]
    members[#members + 1] = (info and redis.call('HGET', KEYS[2], live[i])) or ''
  end
end
return { tostring(now), get(KEYS[3]), get(KEYS[4]), get(KEYS[5]), get(KEYS[6]), members, live_count }`);

/**
 * KEYS: leases (of a count), ready (of the target, or the same leases key), members. ARGV: the count, the longest
 * membership (ms). Reads only the fields of shards 0 to count - 1 (never the whole hash: a planted one may hold millions),
 * and keeps the leases whose holder is a live member. Answers `{{shard, holder, fence, ...}, ready count, the hash's fields}`.
 */
const READ_LEASES = new RedisScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local held, fields = {}, 0
local members = redis.call('TYPE', KEYS[3])['ok'] == 'zset'
if redis.call('TYPE', KEYS[1])['ok'] == 'hash' then
  fields = redis.call('HLEN', KEYS[1])
  local count = tonumber(ARGV[1])
  for from = 0, count - 1, 1000 do
    local ids = {}
    for id = from, math.min(count, from + 1000) - 1 do ids[#ids + 1] = tostring(id) end
    for i, value in ipairs(redis.call('HMGET', KEYS[1], unpack(ids))) do
      local holder, fence = string.match(value or '', '^(.*)|(%d+)$')
      local expiry = holder and members and tonumber(redis.call('ZSCORE', KEYS[3], holder))
      if expiry and expiry > now and expiry - now <= tonumber(ARGV[2]) then
        held[#held + 1] = ids[i]
        held[#held + 1] = holder
        held[#held + 1] = fence
      end
    end
  end
end
local ready = 0
if KEYS[2] ~= KEYS[1] and redis.call('TYPE', KEYS[2])['ok'] == 'set' then ready = redis.call('SCARD', KEYS[2]) end
return { held, ready, fields }`);

const statusFailure: StoreFailure = (detail, cause) =>
  new ShardCoordinatorError(`reading the fleet's status failed: ${detail}`, cause === undefined ? undefined : { cause });

/** A positive whole number read from Redis within `max`, or `undefined` (one past `max` is not clamped onto it: missing). */
const positive = (value: unknown, max: number): number | undefined => wholeWithin(value, 1, max);

/**
 * Reads a fleet's status from Redis: members, shards, holders, sessions and a reshard under way. Read only, usable from
 * any process (a member, or a tool: `npx community-chat-fleet status`). Every number read is bounded; a value the SDK
 * did not write reads as missing. Rejects with a `ShardCoordinatorError` when Redis fails or does not answer in time.
 */
export async function readFleetStatus(options: FleetStatusOptions): Promise<FleetStatus> {
  const operation = 'readFleetStatus';
  refuseUnknownOptions(operation, options, OPTIONS);
  const key = taggedKey(operation, 'key', options.key ?? 'ccsdk:fleet');
  const timeoutMs = checkDuration(operation, 'commandTimeoutMs', options.commandTimeoutMs, { min: 1 }) ?? DEFAULT_COMMAND_TIMEOUT_MS;
  const maxShards = maxShardsOption(operation, options.maxShards);
  const given = checkCount(operation, 'shardCount', options.shardCount, { min: 1, max: maxShards });
  const prefix = options.sessionPrefix ?? 'ccsdk:gw:session:';
  const { client } = options;
  const run = <T>(command: () => Promise<T>) => withinTime(client, timeoutMs, command, statusFailure);
  const keys = [`${key}:members`, `${key}:info`, `${key}:count`, `${key}:target`, `${key}:switching`, `${key}:lease`];
  const reply = await run(() => READ_FLEET.run(client, keys, [String(MAX_LISTED), String(MAX_TIMER_MS)]));
  const [now, count, target, switching, lease, flat, live] = Array.isArray(reply) ? reply : [];
  const truncated: string[] = [];
  const readAt = clampNumber(now, 0, Number.MAX_SAFE_INTEGER, 0);
  const recorded = positive(count, MAX_SHARDS_LIMIT);
  if (recorded !== undefined && recorded > maxShards) truncated.push(`the recorded shard count ${recorded} is past maxShards ${maxShards}: not read`);
  const shardCount = (recorded !== undefined && recorded <= maxShards ? recorded : undefined) ?? given;
  const leaseMs = positive(lease, MAX_TIMER_MS);
  const reshardTo = positive(target, MAX_SHARDS_LIMIT);
  const members = new Map<string, FleetMemberStatus>();
  const listed = Array.isArray(flat) ? flat.map(String) : [];
  for (let i = 0; i + 2 < listed.length; i += 3) {
    const id = listed[i] as string;
    const expiresAt = clampNumber(listed[i + 1], -1, Number.MAX_SAFE_INTEGER, -1);
    // A membership runs at most one lease (at most MAX_TIMER_MS) past now: another score (+inf, not a number) is no member's.
    if (!(expiresAt > readAt && expiresAt - readAt <= MAX_TIMER_MS)) continue;
    const info = readMemberInfo(listed[i + 2]);
    const renewedAt = leaseMs === undefined ? expiresAt : Math.max(0, expiresAt - leaseMs);
    members.set(id, { id, name: info?.name, host: info?.host, pid: info?.pid, renewedAt, expiresAt, shardIds: [] });
  }
  const liveMembers = Math.max(members.size, clampNumber(live, 0, Number.MAX_SAFE_INTEGER, 0));
  if (liveMembers > members.size) truncated.push(`${liveMembers} live members: the first ${members.size} listed`);
  const shards: FleetShardStatus[] = [];
  let ready = 0;
  if (shardCount !== undefined) {
    const leasesKey = `${key}:leases:${shardCount}`;
    const readyKey = reshardTo === undefined ? leasesKey : `${key}:ready:${reshardTo}`;
    const answer = await run(() => READ_LEASES.run(client, [leasesKey, readyKey, `${key}:members`], [String(shardCount), String(MAX_TIMER_MS)]));
    const [triples, readyCount, fields] = (Array.isArray(answer) ? answer : []) as unknown[];
    ready = clampNumber(readyCount, 0, MAX_SHARDS_LIMIT, 0);
    const extra = clampNumber(fields, 0, Number.MAX_SAFE_INTEGER, 0) - shardCount;
    if (extra > 0) truncated.push(`${leasesKey} holds ${extra} fields past the ${shardCount} shards: not read`);
    const held = new Map<number, { holder: string; fence: number }>();
    const values = Array.isArray(triples) ? triples.map(String) : [];
    for (let i = 0; i + 2 < values.length; i += 3) {
      const shardId = wholeWithin(values[i], 0, shardCount - 1);
      if (shardId !== undefined)
        held.set(shardId, { holder: (values[i + 1] as string).slice(0, 200), fence: clampNumber(values[i + 2], 0, Number.MAX_SAFE_INTEGER, 0) });
    }
    const sessions = prefix === false ? undefined : await readSessions(client, prefix, shardCount, run);
    for (let shardId = 0; shardId < shardCount; shardId++) {
      const lease = held.get(shardId);
      const member = lease === undefined ? undefined : members.get(lease.holder);
      member?.shardIds.push(shardId);
      const holderListed = lease === undefined ? undefined : member !== undefined;
      shards.push({ shardId, holder: lease?.holder, holderName: member?.name, holderListed, fence: lease?.fence, session: sessions?.[shardId] });
    }
  }
  const ordered = [...members.values()].sort((a, b) => (a.name ?? '').localeCompare(b.name ?? '') || a.id.localeCompare(b.id));
  const reshard = reshardTo === undefined ? undefined : { target: reshardTo, ready, switching: positive(switching, MAX_SHARDS_LIMIT) === reshardTo };
  return { key, readAt, shardCount, leaseMs, members: ordered, liveMembers, shards, reshard, truncated };
}

/** How many sessions are read at once. */
const SESSION_BATCH = 100;

/** Each shard's stored session (one key per shard, spread over the slots: read in batches). */
async function readSessions(
  client: RedisClientLike,
  prefix: string,
  count: number,
  run: <T>(command: () => Promise<T>) => Promise<T>,
): Promise<FleetSessionStatus[]> {
  const sessions: FleetSessionStatus[] = [];
  for (let from = 0; from < count; from += SESSION_BATCH) {
    const ids = Array.from({ length: Math.min(SESSION_BATCH, count - from) }, (_, i) => from + i);
    const texts = await Promise.all(ids.map((id) => run(() => sendCommand(client, `${prefix}${id}/${count}`, ['GET', `${prefix}${id}/${count}`]))));
    for (const text of texts) sessions.push(sessionOf(text));
  }
  return sessions;
}

/** A stored session record as its status: resumable with its sequence, or not (missing, or not a record the SDK wrote). */
function sessionOf(text: unknown): FleetSessionStatus {
  if (typeof text !== 'string' || text.length > 10_000) return { resumable: false, sequence: null };
  try {
    const value = JSON.parse(text) as { sessionId?: unknown; sequence?: unknown } | null;
    if (value === null || typeof value.sessionId !== 'string') return { resumable: false, sequence: null };
    const sequence = typeof value.sequence === 'number' ? clampNumber(value.sequence, 0, Number.MAX_SAFE_INTEGER, 0) : null;
    return { resumable: true, sequence };
  } catch {
    return { resumable: false, sequence: null };
  }
}
