/**
 * Watching a stream's backlog, from a worker or from any process: one rule for "too much waits" (a group's pending plus
 * undelivered entries beyond a bound), the worker's periodic upkeep (the backlog warning, consumers idle past a bound
 * removed from the group), and `createBacklogMonitor()`, which warns without running a worker.
 *
 * @module
 */

import { EventEmitter } from 'eventemitter3';
import { checkCount, checkDuration, optionNames, refuseUnknownOptions } from '../core/bounds.js';
import { ValidationError } from '../errors/index.js';
import { describeThrown } from '../errors/base.js';
import { RedisScript } from './connection.js';
import type { RedisEventStream } from './event-stream.js';
import type { StreamBacklog } from './stream-backlog.js';

/** Whether more than `bound` entries wait in `group` (pending with a consumer, or not delivered yet). */
function overBacklog(backlog: StreamBacklog, group: string, bound: number): boolean {
  const found = backlog.groups.find((candidate) => candidate.name === group);
  return found !== undefined && found.pending + found.undelivered > bound;
}

/**
 * Removes consumer ARGV[2] of group ARGV[1] only if, now, it has nothing pending and has been idle longer than ARGV[3]
 * ms (`XGROUP DELCONSUMER` drops a consumer's pending entries: a read since the measure must keep it). 1: removed.
 */
const REMOVE_IDLE_CONSUMER = new RedisScript(`
for _, consumer in ipairs(redis.call('XINFO', 'CONSUMERS', KEYS[1], ARGV[1])) do
  local fields = {}
  for i = 1, #consumer, 2 do fields[consumer[i]] = consumer[i + 1] end
  if fields['name'] == ARGV[2] then
    if tonumber(fields['pending']) ~= 0 or tonumber(fields['idle']) <= tonumber(ARGV[3]) then return 0 end
    redis.call('XGROUP', 'DELCONSUMER', KEYS[1], ARGV[1], ARGV[2])
    return 1
  end
end
return 0`);

/** Consumers removed from a group: idle past the bound, with nothing pending. */
export interface ConsumersRemovedEvent {
  /** The group. */
  group: string;
  /** The consumers removed. */
  consumers: string[];
}

/** What a worker's upkeep reads and does, once per trim. */
interface UpkeepSettings {
  readonly group: string;
  /** This worker's consumer (never removed). */
  readonly consumer: string;
  readonly maxBacklog: number | undefined;
  /** Consumers of the group idle longer than this, with nothing pending, are removed (`0`: never). */
  readonly removeIdleConsumersMs: number;
}

/**
 * A worker's upkeep: one read of the backlog (only when something needs it), `backlog` when too much waits, and the
 * group's consumers idle past the bound with nothing pending removed (one script per consumer checks both again before
 * `XGROUP DELCONSUMER`; one with pending entries is left until they are reclaimed, so nothing pending is dropped).
 */
export async function upkeep(
  stream: RedisEventStream,
  settings: UpkeepSettings,
  emit: { backlog(backlog: StreamBacklog): void; removed(event: ConsumersRemovedEvent): void },
): Promise<void> {
  const { group, maxBacklog, removeIdleConsumersMs } = settings;
  if (maxBacklog === undefined && removeIdleConsumersMs === 0) return;
  // Counts no further than the bound needs (when Redis cannot tell the lag, each entry counted is read in Redis).
  const { backlog } = await stream.measure((maxBacklog ?? 0) + 1);
  if (maxBacklog !== undefined && overBacklog(backlog, group, maxBacklog)) emit.backlog(backlog);
  if (removeIdleConsumersMs === 0) return;
  const idle = (backlog.groups.find((candidate) => candidate.name === group)?.consumers ?? []).filter(
    (c) => c.name !== settings.consumer && c.pending === 0 && c.idleMs > removeIdleConsumersMs,
  );
  const removed: string[] = [];
  for (const consumer of idle) {
    // Checked again in the script: a read since the measure gave it entries (or made it active), and it stays.
    const args = [group, consumer.name, String(removeIdleConsumersMs)];
    if (Number(await stream.script(REMOVE_IDLE_CONSUMER, [stream.key], args)) === 1) removed.push(consumer.name);
  }
  if (removed.length > 0) emit.removed({ group, consumers: removed });
}

/** Options of {@link createBacklogMonitor}. */
export interface BacklogMonitorOptions {
  /** The stream (`createRedisEventStream`). */
  stream: RedisEventStream;
  /** The groups watched. @default every group of the stream */
  groups?: readonly string[] | undefined;
  /** Warns when more entries than this wait in a watched group (pending with a consumer, or not delivered yet), from 0. */
  maxBacklog: number;
  /** How often the backlog is read, milliseconds (100 to 2^31 - 1). @default 5000 */
  intervalMs?: number | undefined;
}

/** A group over the monitor's bound. */
export interface BacklogWarning {
  /** The group. */
  group: string;
  /** The stream's backlog, as read. */
  backlog: StreamBacklog;
}

/** Events of a {@link BacklogMonitor}. */
export interface BacklogMonitorEvents {
  /** More than `maxBacklog` entries wait in the group named (checked every `intervalMs`). */
  backlog: [event: BacklogWarning];
  /** Reading the backlog failed (tried again at the next interval). */
  error: [error: Error];
}

const MONITOR_OPTIONS = optionNames<BacklogMonitorOptions>({ stream: true, groups: true, maxBacklog: true, intervalMs: true });

/** Watches a stream's backlog from any process (no worker needed). Create it with {@link createBacklogMonitor}. */
export class BacklogMonitor extends EventEmitter<BacklogMonitorEvents> {
  readonly #stream: RedisEventStream;
  readonly #groups: readonly string[] | undefined;
  readonly #bound: number;
  readonly #timer: ReturnType<typeof setInterval>;
  #checking: Promise<void> | undefined;

  constructor(options: BacklogMonitorOptions) {
    super();
    refuseUnknownOptions('createBacklogMonitor', options, MONITOR_OPTIONS);
    if (typeof options.stream?.measure !== 'function')
      throw new ValidationError('createBacklogMonitor', [{ path: 'stream', message: 'must be a stream from createRedisEventStream()' }]);
    this.#stream = options.stream;
    this.#groups = options.groups;
    if (options.maxBacklog === undefined) throw new ValidationError('createBacklogMonitor', [{ path: 'maxBacklog', message: 'is required' }]);
    this.#bound = checkCount('createBacklogMonitor', 'maxBacklog', options.maxBacklog);
    const intervalMs = checkDuration('createBacklogMonitor', 'intervalMs', options.intervalMs, { min: 100 }) ?? 5000;
    this.#timer = setInterval(() => void this.check(), intervalMs);
    this.#timer.unref?.();
  }

  /** Reads the backlog now (one at a time), emitting `backlog` for each watched group over the bound; never rejects. */
  check(): Promise<void> {
    this.#checking ??= this.#check().finally(() => {
      this.#checking = undefined;
    });
    return this.#checking;
  }

  async #check(): Promise<void> {
    try {
      const { backlog } = await this.#stream.measure(this.#bound + 1);
      for (const { name } of backlog.groups) {
        if ((this.#groups === undefined || this.#groups.includes(name)) && overBacklog(backlog, name, this.#bound))
          this.emit('backlog', { group: name, backlog });
      }
    } catch (error) {
      this.emit('error', error instanceof Error ? error : new Error(describeThrown(error)));
    }
  }

  /** Stops watching. */
  close(): void {
    clearInterval(this.#timer);
  }
}

/** Watches a stream's backlog from any process, without running a worker: `backlog` events when a group falls behind. */
export function createBacklogMonitor(options: BacklogMonitorOptions): BacklogMonitor {
  return new BacklogMonitor(options);
}
