/**
 * The Lua script of the Redis rate-limit store: one atomic step that first
 * applies what this process finished since its last step (releases, learned
 * headers, pauses, webhook completions), then checks and takes one place.
 * Redis `TIME` is its only clock.
 *
 * Every key the step touches is declared in `KEYS` (the script builds no key
 * name), and every key of one store shares the prefix's hash tag, so on a
 * Redis Cluster a step runs on the one node that holds the store's slot.
 * Keys under the tagged prefix `{P}`:
 * - `{P}b:<bucket>` hash: `k` known, `l` limit, `r` remaining, `t` reset (ms), `w` window (the server's `X-RateLimit-Reset`, ms), `p` paused until (ms)
 * - `{P}r:<bucket>` sorted set of reservations in flight, scored by their expiry
 * - `{P}d:<bucket>` the discovery lock of an unknown bucket (expires like a reservation)
 * - `{P}a:<key>` the bucket a route key resolves to once the server named its bucket id
 * - `{P}gp` the global pause, until (ms)
 * - `{P}g` sorted set of the proactive global cap: in flight scored by expiry, done by completion
 * - `{P}w:<webhook id>` sorted set of one webhook's executions, scored the same way
 *
 * @module
 */

/**
 * ARGV: the settings as one comma-separated argument (keepMs, maxPauseMs,
 * reservationMs, pollMs, globalLimit, globalWindowMs, webhookLimit,
 * webhookWindowMs), opCount, then opCount × (type, id, a, b, c, keys), then
 * the action: type (`b` bucket, `w` webhook, `n` none), the bucket it
 * resolved to, reservation id, lane, keys. `keys` are comma-separated
 * indexes into `KEYS`. Operation types: `r` release (keys: reservations,
 * discovery lock, global cap), `l` learn (the learned bucket's hash, and the
 * alias of the key used when the server named another bucket), `p` pause
 * (the global pause, or the bucket's hash), `w` webhook execution done (its
 * window), `x` undo a step given up on (what it may have taken). Action keys:
 * `b`: the alias of the key used, the global pause, the bucket's hash,
 * reservations and discovery lock, the global cap; `w`: the window.
 *
 * Returns `{ ok, discovering or wait ms, reason, resolved bucket }`; `ok` 2
 * when the key used now resolves to another bucket (another process learned
 * its id): the step took nothing and is run again on that bucket.
 */
export const STEP_SCRIPT = `
local s = {}
for v in string.gmatch(ARGV[1], '[^,]+') do s[#s + 1] = tonumber(v) end
local keep, maxPause, resMs, poll, gLimit, gWindow, whLimit, whWindow = s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8]
local n = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

local function extend(key, ms)
  if redis.call('PTTL', key) < ms then redis.call('PEXPIRE', key, ms) end
end
-- What Redis holds is hostile input: a key of the wrong type (planted, or left by something else) is dropped for a fresh start,
-- never answered with WRONGTYPE.
local function fresh(key, kind)
  local ty = redis.call('TYPE', key)['ok']
  if ty ~= 'none' and ty ~= kind then redis.call('DEL', key) end
  return key
end
-- The declared keys an argument names, by their indexes into KEYS.
local function keys(list)
  local out = {}
  for v in string.gmatch(list, '[^,]+') do out[#out + 1] = KEYS[tonumber(v)] end
  return out
end

local i = 3
for _ = 1, n do
  local ty, id, a, b, c, ks = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4], keys(ARGV[i + 5])
  i = i + 6
  if ty == 'r' then
    redis.call('ZREM', fresh(ks[1], 'zset'), id)
    if a == '1' then redis.call('DEL', ks[2]) end
    if b == '1' then redis.call('ZADD', fresh(ks[3], 'zset'), 'XX', now, id) end
  elseif ty == 'l' then
    local bk = fresh(ks[1], 'hash')
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
    -- The server named another bucket than the key used: the key resolves to it from now on, in every process.
    if ks[2] then redis.call('SET', ks[2], id, 'PX', keep) end
  elseif ty == 'p' then
    local untilMs = now + math.min(tonumber(a), maxPause)
    if b == '1' then
      local cur = tonumber(redis.call('GET', fresh(ks[1], 'string'))) or 0
      if untilMs > cur then redis.call('SET', ks[1], untilMs, 'PX', untilMs - now + 1) end
    else
      local bk = fresh(ks[1], 'hash')
      local cur = tonumber(redis.call('HGET', bk, 'p')) or 0
      if untilMs > cur then
        redis.call('HSET', bk, 'p', untilMs)
        extend(bk, untilMs - now + keep)
      end
    end
  elseif ty == 'w' then
    redis.call('ZADD', fresh(ks[1], 'zset'), 'XX', now, id)
  elseif ty == 'x' then
    -- A step this process gave up on locally, which may have run late: undo whatever it took (reservation, discovery lock,
    -- place under the global cap, webhook slot), so nothing is left that nobody holds.
    for _, k in ipairs(ks) do
      local kt = redis.call('TYPE', k)['ok']
      if kt == 'zset' then redis.call('ZREM', k, id)
      elseif kt == 'string' and redis.call('GET', k) == id then redis.call('DEL', k) end
    end
  end
end

local action, rk, rid, lane, aks = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], keys(ARGV[i + 4] or '')
if action == 'w' then
  local wz = fresh(aks[1], 'zset')
  redis.call('ZREMRANGEBYSCORE', wz, '-inf', now - whWindow)
  if redis.call('ZCARD', wz) >= whLimit then
    local first = tonumber(redis.call('ZRANGE', wz, 0, 0, 'WITHSCORES')[2])
    local w = first + whWindow - now + 1
    if first > now then w = poll end
    return { 0, w, 'webhook', rk }
  end
  redis.call('ZADD', wz, now + resMs, rid)
  extend(wz, whWindow + resMs)
  return { 1, 0, '', rk }
end
if action ~= 'b' then return { 1, 0, '', '' } end

local ak, gpk, bk, rz, dk, gk = aks[1], aks[2], aks[3], aks[4], aks[5], aks[6]
local alias = redis.call('GET', fresh(ak, 'string'))
if type(alias) == 'string' and alias ~= '' and alias ~= rk then return { 2, 0, 'alias', alias } end
if lane == 'normal' then
  local gp = tonumber(redis.call('GET', fresh(gpk, 'string'))) or 0
  if gp > now then return { 0, math.min(gp - now, maxPause), 'global', rk } end
end
fresh(bk, 'hash')
local h = redis.call('HMGET', bk, 'k', 'l', 'r', 't', 'p')
local p = tonumber(h[5]) or 0
if p > now then return { 0, math.min(p - now, maxPause), 'bucket', rk } end
fresh(rz, 'zset')
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
    fresh(gk, 'zset')
    redis.call('ZREMRANGEBYSCORE', gk, '-inf', now - gWindow)
    if redis.call('ZCARD', gk) >= gLimit then
      local first = tonumber(redis.call('ZRANGE', gk, 0, 0, 'WITHSCORES')[2])
      local w = first + gWindow - now + 1
      if first > now then w = poll end
      return { 0, w, 'global', rk }
    end
  end
  if not h[1] or not (h[3] == false or tonumber(h[3])) then
    fresh(dk, 'string')
    if not redis.call('SET', dk, rid, 'NX', 'PX', resMs) then
      return { 0, math.max(1, math.min(redis.call('PTTL', dk), poll)), 'discovery', rk }
    end
    disc = 1
  end
end
-- Priority requests count under the global cap too, though they never wait for it.
if gLimit > 0 then
  redis.call('ZADD', fresh(gk, 'zset'), now + resMs, rid)
  extend(gk, gWindow + resMs)
end
redis.call('ZADD', rz, now + resMs, rid)
extend(rz, resMs)
return { 1, disc, '', rk }
`;
