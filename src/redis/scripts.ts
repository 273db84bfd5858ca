/**
 * The Lua script of the Redis rate-limit store: one atomic step that first
 * applies what this process finished since its last step (releases, learned
 * headers, pauses, webhook completions), then checks and takes one place.
 * Redis `TIME` is its only clock.
 *
 * Keys under the prefix `P`:
 * - `P b:<bucket>` hash: `k` known, `l` limit, `r` remaining, `t` reset (ms), `w` window (the server's `X-RateLimit-Reset`, ms), `p` paused until (ms)
 * - `P r:<bucket>` sorted set of reservations in flight, scored by their expiry
 * - `P d:<bucket>` the discovery lock of an unknown bucket (expires like a reservation)
 * - `P a:<key>` the bucket a route key resolves to once the server named its bucket id
 * - `P gp` the global pause, until (ms)
 * - `P g` sorted set of the proactive global cap: in flight scored by expiry, done by completion
 * - `P w:<webhook id>` sorted set of one webhook's executions, scored the same way
 *
 * @module
 */

/** Fields per finished operation in ARGV. */
export const OP_FIELDS = 6;

/**
 * ARGV: prefix, the settings as one comma-separated argument (keepMs,
 * maxPauseMs, reservationMs, pollMs, globalLimit, globalWindowMs,
 * webhookLimit, webhookWindowMs: fewer arguments to encode), opCount, then opCount ×
 * (type, key, id, a, b, c), then the action: type (`b` bucket, `w` webhook,
 * `n` none), key, reservation id, lane. Operation types: `r` release,
 * `l` learn, `p` pause, `w` webhook execution done, `x` undo a step given up on.
 *
 * Returns `{ ok, discovering or wait ms, reason, resolved key }`.
 */
export const STEP_SCRIPT = `
local P = ARGV[1]
local s = {}
for v in string.gmatch(ARGV[2], '[^,]+') do s[#s + 1] = tonumber(v) end
local keep, maxPause, resMs, poll, gLimit, gWindow, whLimit, whWindow = s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8]
local n = tonumber(ARGV[3])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

local function extend(key, ms)
  if redis.call('PTTL', key) < ms then redis.call('PEXPIRE', key, ms) end
end
local function resolve(k)
  local v = redis.call('GET', P .. 'a:' .. k)
  if type(v) == 'string' and v ~= '' then return v end
  return k
end
-- What Redis holds is hostile input: a key of the wrong type (planted, or left by something else) is dropped for a fresh start,
-- never answered with WRONGTYPE.
local function fresh(key, kind)
  local ty = redis.call('TYPE', key)['ok']
  if ty ~= 'none' and ty ~= kind then redis.call('DEL', key) end
  return key
end

local i = 4
for _ = 1, n do
  local ty, k, id, a, b, c = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4], ARGV[i + 5]
  i = i + 6
  if ty == 'r' then
    redis.call('ZREM', P .. 'r:' .. k, id)
    local al = redis.call('GET', P .. 'a:' .. k)
    if al then redis.call('ZREM', P .. 'r:' .. al, id) end
    if a == '1' then redis.call('DEL', P .. 'd:' .. k) end
    if b == '1' then redis.call('ZADD', P .. 'g', 'XX', now, id) end
  elseif ty == 'l' then
    local bk = fresh(P .. 'b:' .. id, 'hash')
    if a == '' and b == '' then
      redis.call('HSETNX', bk, 'k', '1')
      extend(bk, keep)
    else
      local cur = redis.call('HMGET', bk, 'l', 'r', 't', 'w')
      local l, r, rt, sw = tonumber(cur[1]), tonumber(cur[2]), tonumber(cur[3]) or 0, tonumber(cur[4])
      local ca, cw = string.match(c, '^([^;]*);?(.*)$')
      local hl, hr, ha, hw = tonumber(a), tonumber(b), tonumber(ca), tonumber(cw)
      -- The in-memory store's rule, to the letter: X-RateLimit-Reset names the window. An answer of an older window, or of
      -- this window once it is over, teaches nothing; one of the same window can only narrow it; one of a new window replaces it.
      -- Without X-RateLimit-Reset, an answer while the stored window is open is taken to be of that window.
      if not (hw and sw and (hw < sw or (hw == sw and now >= rt))) then
        local same = (hw ~= nil and hw == sw) or (hw == nil and rt > now)
        if hl then l = hl end
        if hr then
          if same and r then r = math.min(r, hr) else r = hr end
          l = l or hr + 1
        end
        local nt = rt
        if ha then nt = now + math.min(ha, maxPause) + 50 end
        local fields = { 'k', '1', 't', nt }
        if l then fields[#fields + 1] = 'l'; fields[#fields + 1] = l end
        if r or l then fields[#fields + 1] = 'r'; fields[#fields + 1] = r or l end
        if hw then fields[#fields + 1] = 'w'; fields[#fields + 1] = hw end
        redis.call('HSET', bk, unpack(fields))
        extend(bk, math.max(nt - now, 0) + keep)
      end
    end
    if id ~= k then
      redis.call('SET', P .. 'a:' .. k, id, 'PX', keep)
      local old = P .. 'r:' .. k
      if redis.call('EXISTS', old) == 1 then
        redis.call('ZUNIONSTORE', P .. 'r:' .. id, 2, P .. 'r:' .. id, old, 'AGGREGATE', 'MAX')
        extend(P .. 'r:' .. id, resMs)
      end
    end
  elseif ty == 'p' then
    local untilMs = now + math.min(tonumber(a), maxPause)
    if b == '1' then
      local cur = tonumber(redis.call('GET', fresh(P .. 'gp', 'string'))) or 0
      if untilMs > cur then redis.call('SET', P .. 'gp', untilMs, 'PX', untilMs - now + 1) end
    else
      local bk = P .. 'b:' .. resolve(k)
      local cur = tonumber(redis.call('HGET', bk, 'p')) or 0
      if untilMs > cur then
        redis.call('HSET', bk, 'p', untilMs)
        extend(bk, untilMs - now + keep)
      end
    end
  elseif ty == 'w' then
    redis.call('ZADD', P .. 'w:' .. k, 'XX', now, id)
  elseif ty == 'x' then
    -- A step this process gave up on locally, which may have run late: undo whatever it took (reservation,
    -- discovery lock, place under the global cap, webhook slot), so nothing is left that nobody holds.
    local rk = resolve(k)
    redis.call('ZREM', P .. 'r:' .. k, id)
    redis.call('ZREM', P .. 'r:' .. rk, id)
    redis.call('ZREM', P .. 'g', id)
    redis.call('ZREM', P .. 'w:' .. k, id)
    for _, dk in ipairs({ P .. 'd:' .. k, P .. 'd:' .. rk }) do
      if redis.call('GET', dk) == id then redis.call('DEL', dk) end
    end
  end
end

local action, key, rid, lane = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3]
if action == 'w' then
  local wz = fresh(P .. 'w:' .. key, 'zset')
  redis.call('ZREMRANGEBYSCORE', wz, '-inf', now - whWindow)
  if redis.call('ZCARD', wz) >= whLimit then
    local first = tonumber(redis.call('ZRANGE', wz, 0, 0, 'WITHSCORES')[2])
    local w = first + whWindow - now + 1
    if first > now then w = poll end
    return { 0, w, 'webhook', key }
  end
  redis.call('ZADD', wz, now + resMs, rid)
  extend(wz, whWindow + resMs)
  return { 1, 0, '', key }
end
if action ~= 'b' then return { 1, 0, '', '' } end

local rk = resolve(key)
if lane == 'normal' then
  local gp = tonumber(redis.call('GET', fresh(P .. 'gp', 'string'))) or 0
  if gp > now then return { 0, math.min(gp - now, maxPause), 'global', rk } end
end
local bk = fresh(P .. 'b:' .. rk, 'hash')
local h = redis.call('HMGET', bk, 'k', 'l', 'r', 't', 'p')
local p = tonumber(h[5]) or 0
if p > now then return { 0, math.min(p - now, maxPause), 'bucket', rk } end
local rz = fresh(P .. 'r:' .. rk, 'zset')
redis.call('ZREMRANGEBYSCORE', rz, '-inf', now)
local disc = 0
if lane == 'normal' then
  -- A bucket whose fields are not numbers (planted) is treated as unknown: discovered again.
  if h[3] and tonumber(h[2]) and tonumber(h[3]) then
    local l, r, rt = tonumber(h[2]), tonumber(h[3]), tonumber(h[4]) or 0
    if now >= rt then r = l end
    if r - redis.call('ZCARD', rz) <= 0 then
      local w = poll
      if rt > now then w = math.min(rt - now, maxPause) end
      return { 0, w, 'bucket', rk }
    end
  end
  if gLimit > 0 then
    local g = fresh(P .. 'g', 'zset')
    redis.call('ZREMRANGEBYSCORE', g, '-inf', now - gWindow)
    if redis.call('ZCARD', g) >= gLimit then
      local first = tonumber(redis.call('ZRANGE', g, 0, 0, 'WITHSCORES')[2])
      local w = first + gWindow - now + 1
      if first > now then w = poll end
      return { 0, w, 'global', rk }
    end
  end
  if not h[1] or not (h[3] == false or tonumber(h[3])) then
    local dk = fresh(P .. 'd:' .. rk, 'string')
    if not redis.call('SET', dk, rid, 'NX', 'PX', resMs) then
      return { 0, math.max(1, math.min(redis.call('PTTL', dk), poll)), 'discovery', rk }
    end
    disc = 1
  end
end
-- Priority requests count under the global cap too, though they never wait for it.
if gLimit > 0 then
  redis.call('ZADD', P .. 'g', now + resMs, rid)
  extend(P .. 'g', gWindow + resMs)
end
redis.call('ZADD', rz, now + resMs, rid)
extend(rz, resMs)
return { 1, disc, '', rk }
`;
