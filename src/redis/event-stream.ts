/**
 * A Redis stream of Gateway dispatches, for a pool of workers: what the
 * Gateway publishes (`gateway.publishTo(stream)`), the backlog, a trim that
 * only removes what every consumer group acknowledged, and the dead letters
 * (list, replay, purge).
 *
 * Keys: the stream's name is wrapped in one hash tag (`events` → `{events}`,
 * by `taggedKey` in `keys.ts`, which refuses a name holding braces), so its
 * dead letters (`{events}:dead`) and the interaction claims
 * (`{events}:claimed:<id>`) share its Redis Cluster slot and one script can
 * move an entry between them.
 *
 * @module
 */

import { describeThrown } from '../errors/base.js';
import { checkDuration, optionNames, refuseUnknownOptions } from '../core/bounds.js';
import type { DispatchSink, PublishedDispatch } from '../gateway/publisher.js';
import { DEFAULT_COMMAND_TIMEOUT_MS, type RedisClientLike, RedisScript, sendCommand, streamFailure, withinTime } from './connection.js';
import { taggedKey } from './keys.js';
import { BACKLOG, type BacklogUnread, LUA_STREAM_IDS, readBacklog, type StreamBacklog, UNDELIVERED_COUNT_CAP } from './stream-backlog.js';

/** Options of {@link createRedisEventStream}. */
export interface RedisEventStreamOptions {
  /** A node-redis v6 client (one node, a cluster or a Sentinel master), connected. */
  client: RedisClientLike;
  /**
   * The stream's name, wrapped in one hash tag (`events` → `{events}`). A name holding `{` or `}`, an empty or blank one, or
   * one over 200 characters is refused with a `ValidationError`, so two names never share a stream. @default 'ccsdk:events'
   */
  stream?: string | undefined;
  /** How long one Redis command may take before it fails, milliseconds, from 1 to 600000. @default 2000 */
  commandTimeoutMs?: number | undefined;
}

/** The names of every {@link RedisEventStreamOptions} option: any other is refused. */
const STREAM_OPTIONS = optionNames<RedisEventStreamOptions>({ client: true, stream: true, commandTimeoutMs: true });

/** An event that could not be handled, as the dead letters hold it. */
export interface DeadLetter {
  /** Its id in the dead letters. */
  id: string;
  /** Its id in the stream it came from. */
  originalId: string;
  /** The dispatch's type. */
  type: string;
  /** Why: `max-deliveries` (handled and failed that many times), `expired` (an interaction past its 15 minutes) or `malformed`. */
  reason: 'max-deliveries' | 'expired' | 'malformed';
  /** The last error, scrubbed of the interaction token. */
  error: string;
  /** How many times it was delivered. */
  deliveries: number;
  /** The shard it arrived on (`-1` when the entry's shard field was not a shard id). */
  shardId: number;
  /** The dispatch's payload (an interaction's token included: it lives in Redis as in the stream). */
  data: unknown;
}

/** A client a connection of its own can be opened from (node-redis's `duplicate()`). */
interface Duplicable {
  duplicate(): RedisClientLike & { connect(): Promise<unknown>; destroy(): void; on(event: 'error', listener: (error: unknown) => void): unknown };
}

/**
 * Lua: `acknowledged(group, ids, count)`, after `count` of `ids` were acknowledged in `group`, records in the hash
 * `KEYS[3]` the id through which the group acknowledged everything: just below its oldest pending entry, or, with none
 * pending, the highest id acknowledged (every entry below it was delivered, so acknowledged). Only ever raised.
 */
const RECORD_ACKNOWLEDGED = `${LUA_STREAM_IDS}
local function acknowledged(group, ids, count)
  if count == 0 then return end
  local summary = redis.call('XPENDING', KEYS[1], group)
  local through
  if tonumber(summary[1]) > 0 then
    local ms, seq = idparts(summary[2])
    if seq > 0 then through = string.format('%.0f-%.0f', ms, seq - 1)
    elseif ms > 0 then through = string.format('%.0f-18446744073709551615', ms - 1)
    else return end
  else
    for _, id in ipairs(ids) do
      if not through or idbefore(through, id) then through = id end
    end
  end
  local old = redis.call('HGET', KEYS[3], group)
  if not old or idbefore(old, through) then redis.call('HSET', KEYS[3], group, through) end
end
`;

/** Acknowledges entries of a group (ARGV[1]) and records what it acknowledged through (KEYS: stream, unused, acked hash). */
const ACK = new RedisScript(`${RECORD_ACKNOWLEDGED}
local ids = { unpack(ARGV, 2) }
local count = redis.call('XACK', KEYS[1], ARGV[1], unpack(ids))
acknowledged(ARGV[1], ids, count)
return count`);

/** Moves an entry to the dead letters, acknowledges it and deletes it from the stream, in one atomic step. */
const DEAD_LETTER = new RedisScript(`${RECORD_ACKNOWLEDGED}
local added = redis.call('XADD', KEYS[2], '*', unpack(ARGV, 3))
acknowledged(ARGV[1], { ARGV[2] }, redis.call('XACK', KEYS[1], ARGV[1], ARGV[2]))
redis.call('XDEL', KEYS[1], ARGV[2])
return added`);

/** Puts a dead letter back on the stream and removes it from the dead letters, in one atomic step. */
const REPLAY = new RedisScript(`
local entry = redis.call('XRANGE', KEYS[2], ARGV[1], ARGV[1])[1]
if not entry then return false end
local fields = entry[2]
local kept = {}
for i = 1, #fields, 2 do
  local name = fields[i]
  if name == 't' or name == 's' or name == 'sh' or name == 'd' or name == 'at' then
    kept[#kept + 1] = name
    kept[#kept + 1] = fields[i + 1]
  end
end
local added = redis.call('XADD', KEYS[1], '*', unpack(kept))
redis.call('XDEL', KEYS[2], ARGV[1])
return added`);

/** A stream id's parts. */
function idParts(id: string): [number, number] {
  const [ms, seq] = id.split('-');
  return [Number(ms), Number(seq ?? 0)];
}

/** Whether stream id `a` sorts before `b`. */
export function idBefore(a: string, b: string): boolean {
  const [am, as] = idParts(a);
  const [bm, bs] = idParts(b);
  return am < bm || (am === bm && as < bs);
}

/** The shard an entry arrived on (its `sh` field: a whole number up to 999,999,999), or `undefined` when the field is not one. */
export function shardIdOf(fields: Record<string, string>): number | undefined {
  const text = fields['sh'] ?? '';
  return /^(0|[1-9]\d{0,8})$/.test(text) ? Number(text) : undefined;
}

/** Fields of a Redis reply as a record: a flat `[name, value, ...]` array (RESP2), a map or an object (RESP3). */
export function fieldsOf(reply: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  const pairs: [unknown, unknown][] = [];
  if (Array.isArray(reply)) for (let i = 0; i + 1 < reply.length; i += 2) pairs.push([reply[i], reply[i + 1]]);
  else if (reply instanceof Map) pairs.push(...reply.entries());
  else if (typeof reply === 'object' && reply !== null) pairs.push(...Object.entries(reply));
  for (const [name, value] of pairs) out[String(name)] = value === null || value === undefined ? '' : String(value);
  return out;
}

/** The entries of one stream in an `XREADGROUP` reply: `[[key, entries]]` (RESP2), or a map or object by key (RESP3). */
export function entriesOf(reply: unknown, key: string): unknown[] {
  if (Array.isArray(reply)) return ((reply[0] as [unknown, unknown[]] | undefined)?.[1] ?? []) as unknown[];
  if (reply instanceof Map) return (reply.get(key) ?? []) as unknown[];
  if (typeof reply === 'object' && reply !== null) return ((reply as Record<string, unknown>)[key] ?? []) as unknown[];
  return [];
}

/** The Redis stream of a Gateway's dispatches. */
export class RedisEventStream implements DispatchSink {
  /** The stream's key (inside its hash tag). */
  readonly key: string;
  /** The dead letters' key. */
  readonly deadKey: string;
  /** @internal The hash of the id through which each group acknowledged everything (a vanished group is created again from it). */
  readonly ackedKey: string;
  /** @internal The Redis client. */
  readonly client: RedisClientLike;
  /** @internal The command timeout. */
  readonly timeoutMs: number;

  constructor(options: RedisEventStreamOptions) {
    refuseUnknownOptions('createRedisEventStream', options, STREAM_OPTIONS);
    this.client = options.client;
    this.key = taggedKey('createRedisEventStream', 'stream', options.stream ?? 'ccsdk:events');
    this.deadKey = `${this.key}:dead`;
    this.ackedKey = `${this.key}:acked`;
    this.timeoutMs =
      checkDuration('createRedisEventStream', 'commandTimeoutMs', options.commandTimeoutMs, { min: 1, max: 600_000 }) ?? DEFAULT_COMMAND_TIMEOUT_MS;
  }

  /** @internal Sends one command on the stream's slot within the command timeout. */
  command(args: string[]): Promise<unknown> {
    return withinTime(this.client, this.timeoutMs, () => sendCommand(this.client, this.key, args), streamFailure);
  }

  /** @internal Runs a script on the stream's keys. */
  script(script: RedisScript, keys: readonly string[], args: readonly string[]): Promise<unknown> {
    return withinTime(this.client, this.timeoutMs, () => script.run(this.client, keys, args), streamFailure);
  }

  /** @internal The key of an interaction's claim (see `createEventWorker`). */
  claimKey(interactionId: string): string {
    return `${this.key}:claimed:${interactionId}`;
  }

  /** Appends dispatches, in order (one pipeline); resolves with their stream ids once every one is stored. */
  async publish(events: readonly PublishedDispatch[]): Promise<string[]> {
    const at = String(Date.now());
    const added = events.map((event) =>
      this.command([
        'XADD',
        this.key,
        '*',
        't',
        event.t,
        's',
        event.s === null ? '' : String(event.s),
        'sh',
        String(event.shardId),
        'd',
        JSON.stringify(event.d ?? null),
        'at',
        at,
      ]),
    );
    return (await Promise.all(added)).map(String);
  }

  /**
   * How far behind the workers are: the stream's length, each group's pending and undelivered entries, the oldest one's
   * age, the dead letters; all from one atomic read, so they agree.
   */
  async backlog(): Promise<StreamBacklog> {
    return (await this.measure(UNDELIVERED_COUNT_CAP)).backlog;
  }

  /**
   * @internal The backlog, counting a group's undelivered entries (when Redis cannot tell its lag) only until its pending
   * and undelivered ones reach `countUpTo`; with how many stream entries the script read. With `listUpTo`, a stream of more
   * groups reads none and a group of more consumers lists none (`unread` says how many).
   */
  async measure(countUpTo: number, listUpTo?: number): Promise<{ backlog: StreamBacklog; examined: number; unread: BacklogUnread }> {
    const args = ['0', String(countUpTo), ...(listUpTo === undefined ? [] : [String(listUpTo)])];
    const { backlog, examined, unread } = readBacklog(await this.script(BACKLOG, [this.key, this.deadKey], args));
    return { backlog, examined, unread };
  }

  /**
   * Removes every entry that each consumer group has acknowledged: up to the
   * oldest entry still pending, or not delivered yet, in any group
   * (`XTRIM MINID`), decided and done in one atomic step. Never removes an
   * unconsumed entry; with no group, removes nothing. Counts nothing (one
   * entry read per group). Resolves with how many entries went.
   */
  async trim(): Promise<number> {
    return (await this.trimmed()).trimmed;
  }

  /** @internal {@link trim}, with how many stream entries the script read. */
  async trimmed(): Promise<{ trimmed: number; examined: number }> {
    const { trimmed, examined } = readBacklog(await this.script(BACKLOG, [this.key, this.deadKey], ['1', '0']));
    return { trimmed, examined };
  }

  /**
   * @internal Creates a consumer group reading from `from` (`'0'`: every entry the stream holds; `'$'`: new ones), and
   * the stream if it is gone. Resolves `true` when created, `false` when it already existed.
   */
  async createGroup(group: string, from: string): Promise<boolean> {
    try {
      await this.command(['XGROUP', 'CREATE', this.key, group, from, 'MKSTREAM']);
      return true;
    } catch (error) {
      if (/BUSYGROUP/.test(failureText(error))) return false;
      throw error;
    }
  }

  /** @internal Acknowledges entries of `group`, recording the id through which it acknowledged everything. */
  async ack(group: string, ids: readonly string[]): Promise<number> {
    return Number(await this.script(ACK, [this.key, this.deadKey, this.ackedKey], [group, ...ids]));
  }

  /**
   * @internal Creates a vanished group again from the id through which it had acknowledged everything (recorded with each
   * acknowledgement), or from `0-0` when that record is gone too (flushed, Redis restarted empty). Resolves with the id it
   * reads from, or `undefined` when another worker created it first.
   */
  async recreateGroup(group: string): Promise<string | undefined> {
    const through = await this.command(['HGET', this.ackedKey, group]);
    const from = typeof through === 'string' && /^\d{1,20}-\d{1,20}$/.test(through) ? through : '0-0';
    return (await this.createGroup(group, from)) ? from : undefined;
  }

  /**
   * @internal A connection of its own for blocking reads, from the client's `duplicate()` (node-redis), connected;
   * `undefined` when the client has no `duplicate()` (reads then poll). The caller destroys it.
   */
  async openReadClient(): Promise<(RedisClientLike & { destroy(): void }) | undefined> {
    const client = this.client as RedisClientLike & Partial<Duplicable>;
    if (typeof client.duplicate !== 'function') return undefined;
    const own = client.duplicate();
    own.on('error', () => undefined);
    await own.connect();
    return own;
  }

  /**
   * @internal Reads up to `count` entries never delivered to `group`, on `client` (a connection of its own when it blocks),
   * waiting up to `blockMs` on Redis for one to arrive (`0`: not waiting).
   */
  readGroup(client: RedisClientLike, group: string, consumer: string, count: number, blockMs: number): Promise<unknown> {
    const block = blockMs > 0 ? ['BLOCK', String(blockMs)] : [];
    const args = ['XREADGROUP', 'GROUP', group, consumer, 'COUNT', String(count), ...block, 'STREAMS', this.key, '>'];
    return withinTime(client, this.timeoutMs + blockMs, () => sendCommand(client, this.key, args), streamFailure);
  }

  /** @internal Moves a stream entry to the dead letters, acknowledges and deletes it, in one atomic step. */
  async deadLetter(
    group: string,
    id: string,
    fields: Record<string, string>,
    reason: DeadLetter['reason'],
    error: string,
    deliveries: number,
  ): Promise<string> {
    const kept = ['t', 's', 'sh', 'd', 'at'].flatMap((name) => [name, fields[name] ?? '']);
    const args = [group, id, ...kept, 'reason', reason, 'error', error, 'deliveries', String(deliveries), 'from', id, 'group', group];
    return String(await this.script(DEAD_LETTER, [this.key, this.deadKey, this.ackedKey], args));
  }

  /** The dead letters, oldest first. */
  async deadLetters(options: { count?: number | undefined } = {}): Promise<DeadLetter[]> {
    const entries = await this.command(['XRANGE', this.deadKey, '-', '+', 'COUNT', String(options.count ?? 100)]);
    return (Array.isArray(entries) ? entries : []).map((entry) => {
      const [id, raw] = entry as [string, unknown];
      const fields = fieldsOf(raw);
      let data: unknown = null;
      try {
        data = JSON.parse(fields['d'] ?? 'null');
      } catch {
        data = fields['d'];
      }
      return {
        id: String(id),
        originalId: fields['from'] ?? '',
        type: fields['t'] ?? '',
        reason: (fields['reason'] ?? 'malformed') as DeadLetter['reason'],
        error: fields['error'] ?? '',
        deliveries: Number(fields['deliveries'] ?? 0),
        shardId: shardIdOf(fields) ?? -1,
        data,
      };
    });
  }

  /** Puts a dead letter back on the stream (a new entry, delivered afresh) and removes it from the dead letters; resolves with its new id, or `undefined` when there is no such dead letter. */
  async replayDeadLetter(id: string): Promise<string | undefined> {
    const added = await this.script(REPLAY, [this.key, this.deadKey], [id]);
    return typeof added === 'string' ? added : undefined;
  }

  /** Removes dead letters: those given, or all. Resolves with how many went. */
  async purgeDeadLetters(ids?: readonly string[]): Promise<number> {
    if (ids === undefined) {
      const length = Number(await this.command(['XLEN', this.deadKey]));
      await this.command(['DEL', this.deadKey]);
      return length;
    }
    if (ids.length === 0) return 0;
    return Number(await this.command(['XDEL', this.deadKey, ...ids]));
  }
}

/** The text of a failed command's error and of its cause (where Redis's own reply, e.g. `NOGROUP ...`, is). */
export function failureText(error: unknown): string {
  if (!(error instanceof Error)) return describeThrown(error);
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error ? `${describeThrown(error)} ${describeThrown(cause)}` : describeThrown(error);
}

/** The Redis stream of a Gateway's dispatches: give it to `gateway.publishTo()` and to `createEventWorker()`. */
export function createRedisEventStream(options: RedisEventStreamOptions): RedisEventStream {
  return new RedisEventStream(options);
}
