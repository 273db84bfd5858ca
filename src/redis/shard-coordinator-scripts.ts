/**
 * The shard coordinator's Lua scripts (see `shard-coordinator.ts` for the keys). Every step costs O(shards this member
 * holds): no script walks the shard count. Free shards are found in `:free:<count>` (shards given back, or whose holder
 * died) and past the cursor `:next:<count>` (shards never held yet); a member's leases are found in the lexical index
 * `:owners:<count>` (`member|shard`); a lease is live while its holder renews `:holders:<count>`, so a lease whose holder
 * is not a live member is free. A value the SDK did not write (a key of another type, a number that is not a plain
 * decimal within its bound, a malformed lease) is repaired and named in the step's answer, and the TypeScript side reports
 * it; it never stops a step.
 *
 * @module
 */

import { RedisScript } from './connection.js';

/**
 * Shared by the scripts: Redis `TIME` in ms; `whole(value, lo, hi)`, a plain decimal whole number within bounds or nil;
 * `typed(key, type)`, which deletes a key of another type; `count_at(key, max)`, a stored shard count read and checked.
 * What they repair is added to `problems`.
 */
const PRELUDE = `
local problems = {}
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function whole(value, lo, hi)
  if type(value) ~= 'string' or #value > 16 or not (value == '0' or string.match(value, '^[1-9]%d*$')) then return nil end
  local n = tonumber(value)
  if n < lo or n > hi then return nil end
  return n
end
local function quote(value)
  return string.format('%q', string.sub(tostring(value), 1, 40))
end
local function typed(key, expected)
  local actual = redis.call('TYPE', key)['ok']
  if actual ~= 'none' and actual ~= expected then
    problems[#problems + 1] = key
    problems[#problems + 1] = 'held a ' .. actual .. ' where the SDK keeps a ' .. expected .. ': deleted'
    redis.call('DEL', key)
    return true
  end
  return false
end
local function count_at(key, max)
  typed(key, 'string')
  local value = redis.call('GET', key)
  if not value then return nil end
  local count = whole(value, 1, max)
  if not count then
    problems[#problems + 1] = key
    problems[#problems + 1] = 'held ' .. quote(value) .. ', not a shard count from 1 to ' .. max .. ': deleted'
    redis.call('DEL', key)
  end
  return count
end
`;

/** Fences are whole numbers below 2^52 (exact as doubles in Lua and in JavaScript). */
const FENCE_MAX = '4503599627370496';

/** The most members a fleet is expected to have: beyond it, a step's index comes from ZRANK (O(log n)) and is reported. */
const MAX_MEMBERS = 1000;

/**
 * KEYS: members, leases, fence, target, ready (this count), owners, holders, free, cursor, bot, count, switching, sweep,
 * lease (the fleet's `leaseMs`), last (this count's last holders). ARGV: member, shard count, lease (ms), acquire ('1' or '0'), registered ('1' once this
 * member joined: if its membership expired meanwhile, nothing is renewed and the answer is `{{-1}}`, so the process joins
 * again under a new id), bot ('' when unknown; another bot's fleet answers `{{-2}, problems, {bot}}`), the largest shard
 * count, the most shards taken (or freed from dead holders) in one step, how long the last holders are kept (ms). A fleet
 * whose members renew leases more than 10 times longer or shorter than this one answers `{{-3}, problems, {its lease}}`.
 *
 * Renews the member and its leases, frees the leases of dead holders (at most the most taken, the rest next step; each
 * shard's last holder recorded as `holder|when it last renewed`, Redis ms: its lease's expiry less the fleet's lease), offers
 * again the shards of a sweep of 16 (`:sweep:`, a cursor round the count) that are neither held nor free (an index lost or
 * repaired), and takes free shards up to the fair share `ceil(count / members)`, except for a count the fleet is leaving
 * (a reshard's switch is under way, or done). A fence is `max(counter, Redis time in ms) + 1`.
 * Answers `{{0, members, index, target or -1, ready, share, the fleet's count or -1}, problems (key, what), {shard, fence, ...}}`.
 */
export const TICK = new RedisScript(`${PRELUDE}
local now = now_ms()
local member, count, lease, max, most = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[7]), tonumber(ARGV[8])
local types = { 'zset', 'hash', 'string', 'string', 'set', 'zset', 'zset', 'zset', 'string', 'string', 'string', 'string', 'string', 'string', 'hash' }
-- A derived key (leases, owners, holders, free) repaired: shards may be neither held nor free, so the cursor starts again.
local derived = false
for i, expected in ipairs(types) do
  if typed(KEYS[i], expected) and (i == 2 or (i >= 6 and i <= 8)) then derived = true end
end
local function report(key, what)
  problems[#problems + 1] = key
  problems[#problems + 1] = what
end
local bot = redis.call('GET', KEYS[10])
if bot and bot ~= ARGV[6] then return { { -2 }, problems, { bot } } end
local recorded = redis.call('GET', KEYS[14])
if recorded then
  local other = whole(recorded, 1, 2147483647)
  if not other then
    report(KEYS[14], 'held ' .. quote(recorded) .. ', not a lease in ms: replaced')
    redis.call('DEL', KEYS[14])
  elseif other > lease * 10 or lease > other * 10 then
    return { { -3 }, problems, { recorded } }
  end
end
if ARGV[6] ~= '' then redis.call('SET', KEYS[10], ARGV[6], 'PX', lease * 3) end
redis.call('SET', KEYS[14], recorded or ARGV[3], 'PX', lease * 3)
local far = '(' .. string.format('%d', now + lease * 10)
for _, ghost in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], far, '+inf', 'LIMIT', 0, 16)) do
  redis.call('ZREM', KEYS[1], ghost)
  report(KEYS[1], 'held member ' .. quote(ghost) .. ' live far past any lease: removed')
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if ARGV[5] == '1' and not redis.call('ZSCORE', KEYS[1], member) then return { { -1 }, problems, {} } end
-- Live members before this step (this one's earlier steps included): their leases, of any count, carry fences.
local fleet_live = redis.call('ZCARD', KEYS[1]) > 0
redis.call('ZADD', KEYS[1], now + lease, member)
local n = redis.call('ZCARD', KEYS[1])
local index = 0
if n <= ${MAX_MEMBERS} then
  local members = redis.call('ZRANGE', KEYS[1], 0, -1)
  table.sort(members)
  for i, m in ipairs(members) do if m == member then index = i - 1 end end
else
  index = redis.call('ZRANK', KEYS[1], member)
  report(KEYS[1], 'held ' .. n .. ' live members, more than the ${MAX_MEMBERS} processes a fleet is expected to have')
end
local target = count_at(KEYS[4], max)
local fleet = count_at(KEYS[11], max)
local switching = count_at(KEYS[12], max)
local ready = redis.call('SCARD', KEYS[5])
local function live(holder)
  if not holder then return false end
  local expires = tonumber(redis.call('ZSCORE', KEYS[7], holder))
  return expires ~= nil and expires > now
end
local function holder_of(value)
  return value and string.match(value, '^(.*)|%d+$')
end
-- The live member that holds the shard by this lease value, as the SDK writes it (the lease and the holder's index agree).
local function holding(value, shard)
  local holder = holder_of(value)
  if live(holder) and redis.call('ZSCORE', KEYS[6], holder .. '|' .. shard) then return holder end
  return nil
end
local function free(shard)
  redis.call('ZADD', KEYS[8], shard, shard)
end
-- A lease the SDK left behind names a holder that died (still listed, its cleanup pending); any other is planted.
local function planted(value)
  return value and (live(holder_of(value)) or not redis.call('ZSCORE', KEYS[7], holder_of(value) or ''))
end
-- A counter repaired starts 2^20 ms ahead of the time: fences run ahead of it only by the shards taken in one ms.
local fence = now
local stored = redis.call('GET', KEYS[3])
if stored then
  local counter = whole(stored, 0, ${FENCE_MAX})
  if counter and counter <= now + 1099511627776 then
    fence = math.max(counter, now)
  else
    fence = now + 1048576
    report(KEYS[3], 'held ' .. quote(stored) .. ', not a fencing counter (or far past the time in ms): it starts again from the time in ms, above any fence given')
  end
elseif fleet_live then
  fence = now + 1048576
  report(KEYS[3], 'was missing while the fleet had live members: it starts again from the time in ms, above any fence given')
end
local cursor = 0
stored = redis.call('GET', KEYS[9])
if stored then
  cursor = whole(stored, 0, count)
  if not cursor then
    cursor = 0
    report(KEYS[9], 'held ' .. quote(stored) .. ', not a shard id: shards are looked for from 0 again')
  end
end
if not derived and redis.call('EXISTS', KEYS[6]) == 0 and redis.call('HLEN', KEYS[2]) > 0 then
  derived = true
  report(KEYS[6], 'was missing while leases were held (evicted?): every shard is offered again')
end
if derived then cursor = 0 end
-- Dead holders (or planted ones, live far past any lease) give their leases back, at most the most taken in one step.
local dead = redis.call('ZRANGEBYSCORE', KEYS[7], '-inf', now, 'LIMIT', 0, 8)
for _, ghost in ipairs(redis.call('ZRANGEBYSCORE', KEYS[7], far, '+inf', 'LIMIT', 0, 8)) do
  redis.call('ZADD', KEYS[7], 0, ghost)
  dead[#dead + 1] = ghost
  report(KEYS[7], 'held holder ' .. quote(ghost) .. ' live far past any lease: its leases freed')
end
local budget = most
-- Its last renewal: its lease's expiry less the fleet's lease (as the status reads it); none for a planted holder.
local fleet_lease = whole(recorded or '', 1, 2147483647) or lease
for _, holder in ipairs(dead) do
  if budget <= 0 then break end
  local lo, hi = '[' .. holder .. '|', '(' .. holder .. '|:'
  local entries = redis.call('ZRANGEBYLEX', KEYS[6], lo, hi, 'LIMIT', 0, budget)
  local renewed = (tonumber(redis.call('ZSCORE', KEYS[7], holder)) or 0) - fleet_lease
  for _, entry in ipairs(entries) do
    local shard = whole(string.sub(entry, #holder + 2), 0, count - 1)
    if shard then
      local value = redis.call('HGET', KEYS[2], shard)
      if holder_of(value) == holder then
        redis.call('HDEL', KEYS[2], shard)
        free(shard)
        redis.call('HSET', KEYS[15], shard, renewed > 0 and (holder .. '|' .. string.format('%d', renewed)) or holder)
        redis.call('PEXPIRE', KEYS[15], ARGV[9])
      elseif not holding(value, shard) then
        free(shard)
      end
    end
    redis.call('ZREM', KEYS[6], entry)
  end
  if #entries < budget then redis.call('ZREM', KEYS[7], holder) end
  budget = budget - #entries
end
redis.call('ZADD', KEYS[7], now + lease, member)
-- The sweep: a shard neither held nor free (below the cursor, or with a lease no live member holds) is offered again.
local sweep = whole(redis.call('GET', KEYS[13]) or '0', 0, count - 1) or 0
for _ = 1, math.min(16, count) do
  local shard = sweep
  sweep = (sweep + 1) % count
  local value = redis.call('HGET', KEYS[2], shard)
  if (value or shard < cursor) and not holding(value, shard) and not redis.call('ZSCORE', KEYS[8], shard) then
    if planted(value) or not value then
      report(value and KEYS[2] or KEYS[8], (value and ('held ' .. quote(value)) or 'held nothing') .. ' for shard ' .. shard .. ', neither held nor free: offered again')
    end
    if value then redis.call('HDEL', KEYS[2], shard) end
    if holder_of(value) then redis.call('ZREM', KEYS[6], holder_of(value) .. '|' .. shard) end
    free(shard)
  end
end
-- The leases this member holds, each checked against the lease itself.
local held = {}
local lo, hi = '[' .. member .. '|', '(' .. member .. '|:'
for _, entry in ipairs(redis.call('ZRANGEBYLEX', KEYS[6], lo, hi)) do
  local shard = whole(string.sub(entry, #member + 2), 0, count - 1)
  local value = shard and redis.call('HGET', KEYS[2], shard)
  local given = value and string.sub(value, 1, #member + 1) == member .. '|' and whole(string.sub(value, #member + 2), 1, ${FENCE_MAX})
  if given then
    held[#held + 1] = shard
    held[#held + 1] = given
  else
    redis.call('ZREM', KEYS[6], entry)
    report(shard and KEYS[2] or KEYS[6], shard and ('held ' .. quote(value) .. ' for shard ' .. shard .. ' of this member: the shard is free again') or ('held ' .. quote(entry) .. ': removed'))
    if shard and not holding(value, shard) then
      redis.call('HDEL', KEYS[2], shard)
      free(shard)
    end
  end
end
local share = math.ceil(count / n)
-- A count the fleet is leaving takes nothing: its switch is under way (every shard of the target READY), or done.
local leaving = (target and target ~= count and switching == target) or (fleet and fleet ~= count and target ~= count)
if ARGV[4] == '1' and not leaving and #held / 2 < share then
  local want = math.min(share - #held / 2, most)
  local probes = want + 64
  while want > 0 and probes > 0 do
    probes = probes - 1
    local shard
    local popped = redis.call('ZPOPMIN', KEYS[8])
    if popped[1] then
      shard = whole(popped[1], 0, count - 1)
      if not shard then report(KEYS[8], 'held ' .. quote(popped[1]) .. ', not a shard id: removed') end
    elseif cursor < count then
      shard, cursor = cursor, cursor + 1
    else
      break
    end
    local value = shard and redis.call('HGET', KEYS[2], shard)
    if shard and not holding(value, shard) then
      if planted(value) then report(KEYS[2], 'held ' .. quote(value) .. ' for shard ' .. shard .. ', a lease of no member: the shard is taken') end
      fence = fence + 1
      redis.call('HSET', KEYS[2], shard, member .. '|' .. string.format('%d', fence))
      redis.call('ZADD', KEYS[6], 0, member .. '|' .. shard)
      held[#held + 1] = shard
      held[#held + 1] = fence
      want = want - 1
    end
  end
end
redis.call('SET', KEYS[3], string.format('%d', fence), 'PX', lease * 3)
redis.call('SET', KEYS[9], string.format('%d', cursor), 'PX', lease * 3)
redis.call('SET', KEYS[13], string.format('%d', sweep), 'PX', lease * 3)
for _, key in ipairs({ KEYS[1], KEYS[2], KEYS[6], KEYS[7], KEYS[8] }) do redis.call('PEXPIRE', key, lease * 3) end
if fleet then redis.call('PEXPIRE', KEYS[11], 86400000) end
return { { 0, n, index, target or -1, ready, share, fleet or -1 }, problems, held }`);

/**
 * KEYS: leases, owners, free. ARGV: member, shard, fence, lease (ms). Gives a lease back if it is still this member's with
 * this fence; every key's type is checked (and repaired) before any write, and every key written expires after 3 leases.
 * Answers the problems (key, what).
 */
export const RELEASE = new RedisScript(`${PRELUDE}
for i, expected in ipairs({ 'hash', 'zset', 'zset' }) do typed(KEYS[i], expected) end
if redis.call('HGET', KEYS[1], ARGV[2]) == ARGV[1] .. '|' .. ARGV[3] then
  redis.call('HDEL', KEYS[1], ARGV[2])
  redis.call('ZREM', KEYS[2], ARGV[1] .. '|' .. ARGV[2])
  redis.call('ZADD', KEYS[3], ARGV[2], ARGV[2])
  for _, key in ipairs(KEYS) do redis.call('PEXPIRE', key, tonumber(ARGV[4]) * 3) end
end
return problems`);

/**
 * KEYS: members, leases, owners, holders, free. ARGV: member, lease (ms). Leaves: the membership ends and every lease of the
 * member is given back; every key's type is checked (and repaired) before any write, and the free set expires after 3
 * leases. Answers the problems (key, what).
 */
export const LEAVE = new RedisScript(`${PRELUDE}
for i, expected in ipairs({ 'zset', 'hash', 'zset', 'zset', 'zset' }) do typed(KEYS[i], expected) end
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[4], ARGV[1])
local lo, hi = '[' .. ARGV[1] .. '|', '(' .. ARGV[1] .. '|:'
for _, entry in ipairs(redis.call('ZRANGEBYLEX', KEYS[3], lo, hi)) do
  local shard = whole(string.sub(entry, #ARGV[1] + 2), 0, ${FENCE_MAX})
  if shard then
    local value = redis.call('HGET', KEYS[2], shard)
    if value and string.sub(value, 1, #ARGV[1] + 1) == ARGV[1] .. '|' then redis.call('HDEL', KEYS[2], shard) end
    redis.call('ZADD', KEYS[5], shard, shard)
  end
end
redis.call('ZREMRANGEBYLEX', KEYS[3], lo, hi)
redis.call('PEXPIRE', KEYS[5], tonumber(ARGV[2]) * 3)
return problems`);

/** KEYS: count. ARGV: a proposed count or '', the largest count. The fleet's count: the proposal is stored when none is yet. Answers `{count or '', problems}`. */
export const ADOPT_COUNT = new RedisScript(`${PRELUDE}
local count = count_at(KEYS[1], tonumber(ARGV[2]))
if not count and ARGV[1] ~= '' then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', 86400000)
  count = ARGV[1]
end
return { count and tostring(count) or '', problems }`);

/**
 * KEYS: target, ready (of the count asked for), count, switching. ARGV: count, the largest count. Asks for a reshard to
 * `count` (for a day at most), its READY set emptied. Answers `{1}` when asked, `{0}` when that reshard is under way or the
 * fleet already runs that count, and `{2, pending}` when a reshard to another count is under way (whatever it is).
 */
export const REQUEST_RESHARD = new RedisScript(`${PRELUDE}
local max = tonumber(ARGV[2])
local pending = count_at(KEYS[1], max)
if pending == tonumber(ARGV[1]) then return { 0, '', problems } end
if pending then return { 2, tostring(pending), problems } end
if count_at(KEYS[3], max) == tonumber(ARGV[1]) then return { 0, '', problems } end
redis.call('SET', KEYS[1], ARGV[1], 'PX', 86400000)
redis.call('DEL', KEYS[2], KEYS[4])
return { 1, '', problems }`);

/**
 * KEYS: ready (of this count), target, switching. ARGV: shard id, count. Adds the shard to the READY set of its count (for a
 * day at most); once every shard of the reshard's target is READY, the switch is under way: the old count takes no shard.
 */
export const SHARD_READY = new RedisScript(`
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[1], 86400000)
if redis.call('GET', KEYS[2]) == ARGV[2] and redis.call('SCARD', KEYS[1]) >= tonumber(ARGV[2]) then
  redis.call('SET', KEYS[3], ARGV[2], 'PX', 86400000)
end
return 0`);

/**
 * KEYS: count, target, switching. ARGV: count. When the reshard asked for is to `count`, the fleet's count becomes `count`
 * (for a day, renewed by every step) and the request ends; a late commit of an earlier reshard changes nothing.
 */
export const COMMIT_RESHARD = new RedisScript(`
if redis.call('GET', KEYS[2]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', 86400000)
  redis.call('DEL', KEYS[2], KEYS[3])
end
return 0`);
