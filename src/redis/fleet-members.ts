/**
 * Who the members of a fleet are, and where each shard came from: a member's name, host and pid (`{K}:info`, a hash of
 * member id to a JSON record written when the member joins and marked when it leaves), and the last holder of each shard
 * (`{K}:last:<count>`, a hash of shard id to member id, written when a member acquires the shard). The shard coordinator
 * writes both; the status reader (`fleet-status.ts`) and a new holder's `shardTakenOver` event read them. Each write is
 * one script on the fleet's slot; the records of members no longer live are kept, 64 at most (pruned when a member joins).
 *
 * @module
 */

import { hostname } from 'node:os';
import { clampNumber, wholeWithin } from '../core/bounds.js';
import { ValidationError } from '../errors/index.js';
import type { PreviousHolder } from '../gateway/fleet-events.js';
import { RedisScript } from './connection.js';

/** The longest member name, in characters. */
const MAX_MEMBER_NAME_LENGTH = 100;

/** How long a fleet's member records and last holders are kept after the last write, milliseconds (a week). */
export const KEPT_MS = 7 * 24 * 3600 * 1000;

/** What a member says of itself when it joins. */
export interface MemberInfo {
  /** Its name (`name` option; its pid by default). */
  name: string;
  /** The host it runs on. */
  host: string;
  /** Its process id. */
  pid: number;
  /** Whether it left the fleet (closed), rather than died. */
  left?: boolean | undefined;
}

/**
 * A character a terminal may act on rather than print: controls (C0, DEL, C1 such as the 8-bit CSI U+009B), format
 * characters (bidirectional overrides such as U+202E, zero-width ones) and the line and paragraph separators. Refused
 * in member names and escaped when a value read from Redis is printed.
 */
export const UNPRINTABLE = /[\p{Cc}\p{Cf}\u2028\u2029]/u;

/** Checks a member's name: 1 to 100 characters, none {@link UNPRINTABLE}. */
export function checkMemberName(operation: string, value: unknown): string {
  const ok = typeof value === 'string' && value.trim().length > 0 && value.length <= MAX_MEMBER_NAME_LENGTH && !UNPRINTABLE.test(value);
  if (!ok)
    throw new ValidationError(operation, [
      {
        path: 'name',
        message: `must be a string of 1 to ${MAX_MEMBER_NAME_LENGTH} characters, not blank, without control, format or line-separator characters`,
      },
    ]);
  return value;
}

/** This process's member record under `name` (its pid when unnamed). */
export function thisMember(name: string | undefined): MemberInfo {
  return { name: name ?? String(process.pid), host: hostname(), pid: process.pid };
}

/** A member record read from Redis: `undefined` when it is not one the SDK wrote (each field bounded). */
export function readMemberInfo(text: unknown): MemberInfo | undefined {
  if (typeof text !== 'string' || text.length > 1000) return undefined;
  try {
    const value = JSON.parse(text) as Partial<Record<keyof MemberInfo, unknown>> | null;
    if (value === null || typeof value !== 'object' || typeof value.name !== 'string' || typeof value.host !== 'string') return undefined;
    const pid = Math.floor(clampNumber(value.pid, 0, 4_294_967_295, 0));
    return { name: value.name.slice(0, MAX_MEMBER_NAME_LENGTH), host: value.host.slice(0, 255), pid, ...(value.left === true ? { left: true } : {}) };
  } catch {
    return undefined;
  }
}

/**
 * KEYS: info, members. ARGV: member, its record (JSON), kept (ms). Records the member; the records of members no longer
 * live are kept (a taker names them) until more than 64 are, then the surplus is pruned (the hash stays the fleet's size
 * plus 64).
 */
const REGISTER = new RedisScript(`
if redis.call('TYPE', KEYS[1])['ok'] ~= 'hash' then redis.call('DEL', KEYS[1]) end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
local extra = redis.call('HLEN', KEYS[1]) - redis.call('ZCARD', KEYS[2]) - 64
if extra > 0 then
  for _, id in ipairs(redis.call('HKEYS', KEYS[1])) do
    if extra <= 0 then break end
    if id ~= ARGV[1] and not redis.call('ZSCORE', KEYS[2], id) then
      redis.call('HDEL', KEYS[1], id)
      extra = extra - 1
    end
  end
end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 0`);

/** KEYS: info. ARGV: member. Marks the member's record as left (it closed), when there is one. */
const MARK_LEFT = new RedisScript(`
if redis.call('TYPE', KEYS[1])['ok'] ~= 'hash' then return 0 end
local text = redis.call('HGET', KEYS[1], ARGV[1])
if not text then return 0 end
local ok, record = pcall(cjson.decode, text)
if not ok or type(record) ~= 'table' then return 0 end
record['left'] = true
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(record))
return 1`);

/**
 * KEYS: last (of this count), members, info. ARGV: member, kept (ms), shard ids. Answers Redis's time (ms), then for each
 * shard its last holder (`''` for none), whether that holder is still a live member ('1' or '0'), its record (`''` for
 * none) and when it last renewed (`''` unknown: the step that freed a dead holder's lease wrote `holder|ms`); and records
 * this member as the shard's last holder.
 */
const TAKE_OVER = new RedisScript(`
if redis.call('TYPE', KEYS[1])['ok'] ~= 'hash' then redis.call('DEL', KEYS[1]) end
local info = redis.call('TYPE', KEYS[3])['ok'] == 'hash'
local t = redis.call('TIME')
local answer = { string.format('%d', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)) }
for i = 3, #ARGV do
  local value = redis.call('HGET', KEYS[1], ARGV[i])
  local last, renewed = string.match(value or '', '^(.*)|(%d+)$')
  if not last then last, renewed = value, '' end
  if last and last ~= ARGV[1] then
    answer[#answer + 1] = last
    answer[#answer + 1] = redis.call('ZSCORE', KEYS[2], last) and '1' or '0'
    answer[#answer + 1] = (info and redis.call('HGET', KEYS[3], last)) or ''
    answer[#answer + 1] = renewed
  else
    for _, none in ipairs({ '', '0', '', '' }) do answer[#answer + 1] = none end
  end
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[1])
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return answer`);

/** KEYS: info, last (of this count). ARGV: kept (ms). Keeps both a week more (a key that is missing stays missing). */
const KEEP = new RedisScript(`
for _, key in ipairs(KEYS) do redis.call('PEXPIRE', key, ARGV[1]) end
return 0`);

/** How often a member's steps keep the records a week more: a quiet fleet (no join, no acquisition) keeps them. */
const KEEP_EVERY_MS = 3600 * 1000;

/** Runs one of these scripts on the fleet's slot (within the coordinator's command timeout). */
type FleetScriptRunner = (script: RedisScript, keys: string[], args: string[]) => Promise<unknown>;

/** The member records and last holders of the fleet whose keys start with `key` (its hash tag). */
export class FleetMembers {
  readonly #key: string;
  readonly #run: FleetScriptRunner;
  /** When {@link keep} last ran (`-Infinity`: not yet, so the first step keeps them). */
  #keptAt = Number.NEGATIVE_INFINITY;

  constructor(key: string, run: FleetScriptRunner) {
    this.#key = key;
    this.#run = run;
  }

  /** Records a member that joins. */
  async register(member: string, info: MemberInfo): Promise<void> {
    await this.#run(REGISTER, [`${this.#key}:info`, `${this.#key}:members`], [member, JSON.stringify(info), String(KEPT_MS)]);
  }

  /**
   * Keeps the member records and the last holders of `count` a week more, at most once an hour (from a step): they are
   * otherwise kept only on a join and an acquisition, and a fleet quiet for a week would forget who held what.
   */
  async keep(count: number): Promise<void> {
    if (Date.now() - this.#keptAt < KEEP_EVERY_MS) return;
    await this.#run(KEEP, [`${this.#key}:info`, `${this.#key}:last:${count}`], [String(KEPT_MS)]);
    this.#keptAt = Date.now();
  }

  /** Marks a member that leaves (closes) as left, so the shards it gave back are not reported as taken over. */
  async left(member: string): Promise<void> {
    await this.#run(MARK_LEFT, [`${this.#key}:info`], [member]);
  }

  /**
   * Records `member` as the last holder of `shardIds` (of `count`); answers each one's previous holder, when another, with
   * how long ago it last renewed when it died (from 0 to `maxSinceMs`; a value past that reads as missing).
   */
  async acquired(member: string, count: number, shardIds: readonly number[], maxSinceMs: number): Promise<Map<number, PreviousHolder>> {
    const keys = [`${this.#key}:last:${count}`, `${this.#key}:members`, `${this.#key}:info`];
    const reply = await this.#run(TAKE_OVER, keys, [member, String(KEPT_MS), ...shardIds.map(String)]);
    const [now, ...flat] = Array.isArray(reply) ? reply.map(String) : [];
    const previous = new Map<number, PreviousHolder>();
    shardIds.forEach((shardId, i) => {
      const [holder = '', live = '0', record = '', renewed = ''] = flat.slice(i * 4, i * 4 + 4);
      if (holder === '') return;
      const info = readMemberInfo(record);
      const at = wholeWithin(renewed, 1, Number.MAX_SAFE_INTEGER);
      const since = at === undefined ? undefined : wholeWithin(clampNumber(now, 0, Number.MAX_SAFE_INTEGER, 0) - at, 0, maxSinceMs);
      const died = since === undefined ? {} : { sinceRenewalMs: since };
      previous.set(shardId, { member: holder.slice(0, 200), name: info?.name, live: live === '1', left: info?.left === true, ...died });
    });
    return previous;
  }
}
