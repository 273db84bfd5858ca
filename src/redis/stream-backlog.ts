/**
 * A stream's backlog and its trim, read in one atomic script (`event-stream.ts` runs it): every group's pending and
 * undelivered entries, its consumers, the oldest entry any group still owes, and the bound below which every group
 * acknowledged everything. One read, so the numbers agree with each other; the trim removes up to that bound in the same
 * step, so no entry read or delivered in between is lost.
 *
 * @module
 */

import { clampNumber } from '../core/bounds.js';
import { RedisScript } from './connection.js';

/**
 * When Redis cannot tell a group's `lag` (deletions after its last read), `backlog()` counts its undelivered entries
 * itself, until its pending and undelivered entries together reach this many: each one counted is read in Redis.
 */
export const UNDELIVERED_COUNT_CAP = 1000;

/** Lua: `idparts(id)` (its two numbers) and `idbefore(a, b)`: stream ids compared by their numbers, not as text. */
export const LUA_STREAM_IDS = `
local function idparts(id)
  local ms, seq = string.match(id, '^(%d+)-(%d+)$')
  return tonumber(ms), tonumber(seq)
end
local function idbefore(a, b)
  local am, as = idparts(a)
  local bm, bs = idparts(b)
  return am < bm or (am == bm and as < bs)
end
`;

/**
 * ARGV[1]: '1' to trim (XTRIM MINID to the bound every group acknowledged: nothing counted, no consumers listed),
 * ARGV[2]: how far to count a group's undelivered entries when Redis cannot tell its lag (until pending + undelivered
 * reach it), ARGV[3] (optional, not when trimming): the most groups read, and consumers listed per group (a stream of
 * more groups reads none, a group of more consumers lists none: `XINFO` cannot read part of them). KEYS[1]: the
 * stream, KEYS[2]: its dead letters.
 * Returns `{length, dead letters, oldest age ms, trimmed, entries examined, groups not read, {name, pending,
 * undelivered, {consumer, pending, idle, ...}, consumers}, ...}`.
 */
export const BACKLOG = new RedisScript(`${LUA_STREAM_IDS}
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local dead = redis.call('XLEN', KEYS[2])
if redis.call('EXISTS', KEYS[1]) == 0 then return { 0, dead, 0, 0 } end
local function record(flat)
  local out = {}
  for i = 1, #flat, 2 do out[flat[i]] = flat[i + 1] end
  return out
end
local trimming = ARGV[1] == '1'
local most = (not trimming) and tonumber(ARGV[3] or '') or nil
local answer = { redis.call('XLEN', KEYS[1]), dead, 0, 0, 0, 0 }
local examined = 0
local oldest, bound
local groups = {}
local count = most and record(redis.call('XINFO', 'STREAM', KEYS[1]))['groups']
if count and count > most then answer[6] = count else groups = redis.call('XINFO', 'GROUPS', KEYS[1]) end
for _, raw in ipairs(groups) do
  local info = record(raw)
  local last = info['last-delivered-id']
  local first = redis.call('XRANGE', KEYS[1], '(' .. last, '+', 'COUNT', 1)[1]
  examined = examined + 1
  local undelivered = 0
  local limit = tonumber(ARGV[2]) - info['pending']
  if type(info['lag']) == 'number' then undelivered = info['lag']
  elseif first and not trimming and limit > 0 then
    undelivered = #redis.call('XRANGE', KEYS[1], '(' .. last, '+', 'COUNT', limit)
    examined = examined + undelivered
  end
  local owed = nil
  if info['pending'] > 0 then owed = redis.call('XPENDING', KEYS[1], info['name'])[2] end
  if not owed and first then owed = first[1] end
  if owed and (not oldest or idbefore(owed, oldest)) then oldest = owed end
  local ms, seq = idparts(last)
  local acknowledged = owed or (ms .. '-' .. (seq + 1))
  if not bound or idbefore(acknowledged, bound) then bound = acknowledged end
  local consumers = {}
  local listing = not trimming and not (most and info['consumers'] > most)
  if listing then for _, c in ipairs(redis.call('XINFO', 'CONSUMERS', KEYS[1], info['name'])) do
    local consumer = record(c)
    consumers[#consumers + 1] = consumer['name']
    consumers[#consumers + 1] = consumer['pending']
    consumers[#consumers + 1] = consumer['idle']
  end end
  answer[#answer + 1] = { info['name'], info['pending'], undelivered, consumers, info['consumers'] }
end
if oldest then answer[3] = math.max(0, now - idparts(oldest)) end
if trimming and bound then answer[4] = redis.call('XTRIM', KEYS[1], 'MINID', bound) end
answer[5] = examined
return answer`);

/** One consumer's share of its group's backlog. */
export interface StreamConsumerBacklog {
  /** The consumer's name. */
  name: string;
  /** Entries delivered to it and not acknowledged. */
  pending: number;
  /** Milliseconds since it last read or claimed. */
  idleMs: number;
}

/** One consumer group's share of the backlog. */
export interface StreamGroupBacklog {
  /** The group's name. */
  name: string;
  /** Entries delivered to its consumers and not acknowledged. */
  pending: number;
  /**
   * Entries not delivered to the group yet: Redis's `lag`, or, when Redis cannot tell it (entries deleted after the group's
   * last read), counted until `pending` and `undelivered` together reach 1,000 (then at least that many wait).
   */
  undelivered: number;
  /** Pending entries per consumer. */
  consumers: StreamConsumerBacklog[];
}

/** How far behind the workers are. */
export interface StreamBacklog {
  /** Entries in the stream (acknowledged ones included until trimmed). */
  length: number;
  /** Age of the oldest entry still pending or undelivered in any group, milliseconds on Redis's clock (0: none). */
  oldestAgeMs: number;
  /** Each consumer group. */
  groups: StreamGroupBacklog[];
  /** Entries in the dead letters. */
  deadLetters: number;
}

/** A count from the script's reply, as a safe whole number. */
function count(value: unknown): number {
  return Math.floor(clampNumber(value, 0, Number.MAX_SAFE_INTEGER, 0));
}

/** What a read bounded by {@link BACKLOG}'s ARGV[3] left out: the groups of a stream holding too many, the consumers of a group. */
export interface BacklogUnread {
  /** The stream's groups, when there were too many to read (none was read); 0 when they were read. */
  readonly groups: number;
  /** Per group whose consumers were not listed (too many), how many it has. */
  readonly consumers: ReadonlyMap<string, number>;
}

/** The backlog, how many entries the trim removed, how many stream entries the script read and what it left unread, from {@link BACKLOG}'s reply. */
export function readBacklog(reply: unknown): { backlog: StreamBacklog; trimmed: number; examined: number; unread: BacklogUnread } {
  const items = Array.isArray(reply) ? reply : [];
  const unlisted = new Map<string, number>();
  const groups: StreamGroupBacklog[] = items.slice(6).map((raw) => {
    const [name, pending, undelivered, consumers, total] = (Array.isArray(raw) ? raw : []) as unknown[];
    const flat = Array.isArray(consumers) ? consumers : [];
    const list: StreamConsumerBacklog[] = [];
    for (let i = 0; i + 2 < flat.length; i += 3) list.push({ name: String(flat[i]), pending: count(flat[i + 1]), idleMs: count(flat[i + 2]) });
    if (count(total) > list.length && flat.length === 0) unlisted.set(String(name), count(total));
    return { name: String(name), pending: count(pending), undelivered: count(undelivered), consumers: list };
  });
  const backlog: StreamBacklog = { length: count(items[0]), deadLetters: count(items[1]), oldestAgeMs: count(items[2]), groups };
  return { backlog, trimmed: count(items[3]), examined: count(items[4]), unread: { groups: count(items[5]), consumers: unlisted } };
}
