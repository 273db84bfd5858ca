/**
 * The options and events of an event worker (`event-worker.ts`).
 *
 * @module
 */

import type { Client } from '../clients/client.js';
import { checkCount, checkDuration, refuseUnknownOptions, textProblem } from '../core/bounds.js';
import { ValidationError } from '../errors/index.js';
import { describeThrown } from '../errors/base.js';
import type { InteractionRouterEvents } from '../interactions/router-events.js';
import type { DuplicateEvent } from '../interactions/host.js';
import type { RedisClientLike } from './connection.js';
import type { DeadLetter, RedisEventStream } from './event-stream.js';
import type { StreamBacklog } from './stream-backlog.js';
import type { UnmarkedEvent } from './event-worker-marks.js';
import type { ConsumersRemovedEvent } from './stream-upkeep.js';

/** Options of {@link createEventWorker}. */
export interface EventWorkerOptions {
  /** The stream (`createRedisEventStream()`). */
  stream: RedisEventStream;
  /** The consumer group: workers of one group share the events, each handled by one of them. */
  group: string;
  /** This worker's name in the group, unique and stable across its restarts (a restarted worker takes back its own pending entries). */
  consumer: string;
  /** The client interactions are answered through (its bot token). */
  client: Pick<Client, 'interactions'>;
  /** How many events run at once, from 1 to 1000. @default 16 */
  concurrency?: number | undefined;
  /**
   * How long an entry stays pending with a silent consumer before another reclaims it, whole milliseconds (at least 50). It is
   * also the lease of an interaction's claim: renewed every third of it while the handler runs (the entry touched with
   * it), so a slow but live handler is never run again elsewhere; an answer once the claim lapsed is refused. A claim taken
   * over from a holder whose lease lapsed runs after a grace of 2 s plus the stream's command timeout, once it is known not
   * answered meanwhile. @default 30000
   */
  claimIdleMs?: number | undefined;
  /** How many deliveries an event gets before it goes to the dead letters, from 1 to 1000. @default 5 */
  maxDeliveries?: number | undefined;
  /**
   * How long a read waits on Redis for a new entry (`XREADGROUP BLOCK`), milliseconds, from 1 to 60000. It runs on a
   * connection of its own (`readClient`), so it never holds up other commands. @default 1000
   */
  blockMs?: number | undefined;
  /**
   * The connection the blocking reads use: a connected client of the same Redis that nothing else blocks on. Without it,
   * the worker opens one with the stream's client's `duplicate()` (node-redis) and closes it with the worker; a client
   * without `duplicate()` is polled instead (`pollMs`). @default the stream client's duplicate()
   */
  readClient?: RedisClientLike | undefined;
  /** When reads cannot block (no `readClient`, no `duplicate()`): how long to wait before reading again after an empty read, milliseconds, from 1 to 60000. @default 25 */
  pollMs?: number | undefined;
  /** How often the worker trims what every group acknowledged, whole milliseconds: `0` (never) or at least 100. @default 5000 */
  trimEveryMs?: number | undefined;
  /**
   * Warns (`backlog` event, checked with each trim) when more entries than this wait in this worker's group: pending with a
   * consumer or not delivered yet. @default undefined (no warning)
   */
  maxBacklog?: number | undefined;
  /**
   * Consumers of the group silent longer than this, with nothing pending, are removed from it (checked with each trim; a
   * `consumersRemoved` event names them), so a stopped worker does not stay listed in `backlog()`: whole milliseconds, `0`
   * (never) or at least 1000 and at least twice `blockMs` (a live worker blocked in a read is never removed). A consumer with entries pending is left until they are reclaimed. @default 3600000 (an hour)
   */
  removeIdleConsumersMs?: number | undefined;
  /** Where a new group starts: every entry in the stream, or only those added from now on. @default 'beginning' */
  startFrom?: 'beginning' | 'new' | undefined;
  /** The clock, epoch milliseconds (interaction expiry). @default Date.now */
  clock?: (() => number) | undefined;
  /**
   * Handles the events that share an order key one at a time, in stream order, in this worker; others run concurrently.
   * The key is the event's community (`'guild'`: its `guild_id`), its channel (`'channel'`: its `channel_id`), or what a
   * function of the event says (`undefined`: no order for it). A key function that throws, or gives anything but a string
   * of 1 to 256 characters, is reported (`error` event) and its event runs unordered: it is never lost. Across the
   * workers of a group there is no order: for one per key, give each stream one worker. An event delivered again (after a
   * failure or a crash) comes after later ones. @default undefined (no order: up to `concurrency` at once)
   */
  orderBy?: 'guild' | 'channel' | OrderKeyFunction | undefined;
}

/** The checked settings of a worker. */
export interface WorkerSettings {
  concurrency: number;
  claimIdleMs: number;
  maxDeliveries: number;
  pollMs: number;
  blockMs: number;
  trimEveryMs: number;
  startFrom: 'beginning' | 'new';
  clock: () => number;
  orderBy: OrderKeyFunction | undefined;
  maxBacklog: number | undefined;
  removeIdleConsumersMs: number;
}

const OPERATION = 'createEventWorker';

const KNOWN: readonly (keyof EventWorkerOptions)[] = [
  'stream',
  'group',
  'consumer',
  'client',
  'concurrency',
  'claimIdleMs',
  'maxDeliveries',
  'blockMs',
  'readClient',
  'pollMs',
  'trimEveryMs',
  'maxBacklog',
  'removeIdleConsumersMs',
  'startFrom',
  'clock',
  'orderBy',
];

function oneOf<T extends string>(name: string, value: T | undefined, allowed: readonly T[]): T | undefined {
  if (value === undefined || allowed.includes(value)) return value;
  throw new ValidationError(OPERATION, [
    { path: name, message: `must be one of ${allowed.map((item) => `'${item}'`).join(', ')} (got ${JSON.stringify(value)})` },
  ]);
}

function consumerName(name: string, value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '' || value.length > 200)
    throw new ValidationError(OPERATION, [{ path: name, message: 'must be a string of 1 to 200 characters, not blank' }]);
  return value;
}

/** The order key of a stream event (`orderBy`): events with the same key run one at a time, in stream order; `undefined`: unordered. */
export type OrderKeyFunction = (event: StreamEvent) => string | undefined;

/** The longest order key a worker keeps (`orderBy`): a longer one is reported and its event runs unordered. */
const MAX_ORDER_KEY_LENGTH = 256;

/** The ready-made order keys: an event's `guild_id` or `channel_id`, when it is a string. */
const ORDER_BY: Readonly<Record<'guild' | 'channel', OrderKeyFunction>> = {
  guild: (event) => idField(event.data, 'guild_id'),
  channel: (event) => idField(event.data, 'channel_id'),
};

function idField(data: unknown, field: 'guild_id' | 'channel_id'): string | undefined {
  const value = typeof data === 'object' && data !== null ? (data as Record<string, unknown>)[field] : undefined;
  return typeof value === 'string' ? value : undefined;
}

function orderKeyFunction(value: EventWorkerOptions['orderBy']): OrderKeyFunction | undefined {
  if (value === undefined || typeof value === 'function') return value;
  if (value === 'guild' || value === 'channel') return ORDER_BY[value];
  throw new ValidationError(OPERATION, [
    { path: 'orderBy', message: `must be 'guild', 'channel' or a function (event) => string | undefined (got ${JSON.stringify(value)})` },
  ]);
}

/**
 * The order key of `event`, or `undefined` (unordered). A key function that throws (whatever it throws) or gives an
 * unusable key (not a string, empty, longer than {@link MAX_ORDER_KEY_LENGTH}) is told to `problem` (what went wrong,
 * never the key) and the event runs unordered. Never throws.
 */
export function orderKeyOf(orderBy: OrderKeyFunction, event: StreamEvent, problem: (why: string) => void): string | undefined {
  let key: unknown;
  try {
    key = orderBy(event);
  } catch (error) {
    tell(problem, `the key function threw: ${describeThrown(error)}`);
    return undefined;
  }
  if (key === undefined) return undefined;
  const why = textProblem(key, MAX_ORDER_KEY_LENGTH);
  if (why === undefined) return key as string;
  tell(problem, `the key ${why}`);
  return undefined;
}

/** Tells `problem` what went wrong; a `problem` that throws is ignored, so a key's failure never escapes (the entry, already held, must run). */
function tell(problem: (why: string) => void, why: string): void {
  try {
    problem(why);
  } catch {
    // The event runs unordered all the same.
  }
}

/** Checks a worker's options (every number bounded, unknown names refused) and fills in the defaults. */
export function workerSettings(options: EventWorkerOptions): WorkerSettings {
  refuseUnknownOptions(OPERATION, options, KNOWN);
  // By shape, not instanceof: a stream made by the other build (ESM and CommonJS) is as good.
  if (typeof options.stream !== 'object' || options.stream === null || typeof options.stream.readGroup !== 'function')
    throw new ValidationError(OPERATION, [{ path: 'stream', message: 'must be a stream from createRedisEventStream()' }]);
  if (typeof options.client !== 'object' || options.client === null || typeof options.client.interactions !== 'object')
    throw new ValidationError(OPERATION, [{ path: 'client', message: 'must be a Client (its interactions answer through it)' }]);
  consumerName('group', options.group);
  consumerName('consumer', options.consumer);
  if (options.clock !== undefined && typeof options.clock !== 'function')
    throw new ValidationError(OPERATION, [{ path: 'clock', message: 'must be a function returning epoch milliseconds' }]);
  // 0 turns the trim off; otherwise at least 100 ms (a trim is one script over every group, not to run back to back).
  const trimEveryMs = options.trimEveryMs === 0 ? 0 : (checkDuration(OPERATION, 'trimEveryMs', options.trimEveryMs, { min: 100, integer: true }) ?? 5000);
  const blockMs = checkDuration(OPERATION, 'blockMs', options.blockMs, { min: 1, max: 60_000, integer: true }) ?? 1000;
  return {
    concurrency: checkCount(OPERATION, 'concurrency', options.concurrency, { min: 1, max: 1000 }) ?? 16,
    // Whole milliseconds: Redis reads it as XAUTOCLAIM's min-idle-time and as the claim's lease (PX).
    claimIdleMs: checkDuration(OPERATION, 'claimIdleMs', options.claimIdleMs, { min: 50, integer: true }) ?? 30_000,
    maxDeliveries: checkCount(OPERATION, 'maxDeliveries', options.maxDeliveries, { min: 1, max: 1000 }) ?? 5,
    pollMs: checkDuration(OPERATION, 'pollMs', options.pollMs, { min: 1, max: 60_000 }) ?? 25,
    blockMs,
    trimEveryMs,
    startFrom: oneOf('startFrom', options.startFrom, ['beginning', 'new']) ?? 'beginning',
    clock: options.clock ?? Date.now,
    orderBy: orderKeyFunction(options.orderBy),
    maxBacklog: checkCount(OPERATION, 'maxBacklog', options.maxBacklog),
    removeIdleConsumersMs:
      options.removeIdleConsumersMs === 0
        ? 0
        : // A live worker blocked in a read looks idle for up to blockMs: at least twice that, so one is never removed.
          (checkDuration(OPERATION, 'removeIdleConsumersMs', options.removeIdleConsumersMs, { min: Math.max(1000, 2 * blockMs), integer: true }) ?? 3_600_000),
  };
}

/** An event the worker handled, for `dispatch` handlers. */
export interface StreamEvent {
  /** The dispatch's type. */
  type: string;
  /** Its payload. */
  data: unknown;
  /** The shard it arrived on. */
  shardId: number;
  /** Its stream id. */
  id: string;
  /** How many times it was delivered (1: the first). */
  deliveries: number;
}

/** Stream entries a worker lost or took over. */
export interface LostEvent {
  /** Their stream ids. */
  ids: string[];
}

/** Stream entries taken over from other consumers (never this worker's own). */
export interface ReclaimedEvent extends LostEvent {
  /** The consumers they were pending with (each once). */
  from: string[];
}

/** A dispatch handler's attempt that threw or rejected (each one, not only the last before the dead letters). */
export interface HandlerFailedEvent {
  /** The stream entry. */
  id: string;
  /** The dispatch's type. */
  type: string;
  /** The shard it arrived on. */
  shardId: number;
  /** This attempt's delivery (1: the first). */
  deliveries: number;
  /** What the handler threw (the first failing handler's). */
  error: Error;
  /** Whether it is delivered again (after `claimIdleMs`), or goes to the dead letters now (`false`). */
  retried: boolean;
}

/** A consumer group created again after it vanished. */
export interface RecreatedEvent {
  /** The group. */
  group: string;
  /**
   * The stream id it reads from again: the id through which the group had acknowledged everything (recorded with each
   * acknowledgement), or `0-0` when that record is gone too (every entry the stream still holds). Either way none
   * published meanwhile is lost.
   */
  from: string;
}

/** Events of an {@link EventWorker}: its own, and those of its router (`interactionCreate`, `interactionError`, `interactionUnhandled`). */
export interface EventWorkerEvents extends InteractionRouterEvents {
  /** Redis failed (the worker tries again on its next turn), an answered mark could not be stored yet (tried again), or an entry was unreadable. */
  error: [error: Error];
  /**
   * The consumer group had vanished (`XGROUP DESTROY`, `FLUSHALL`, Redis restarted without persistence) and this worker
   * created it again, from the id given.
   */
  recreated: [event: RecreatedEvent];
  /** An event went to the dead letters (no payload: it may hold a token). */
  deadLetter: [event: Pick<DeadLetter, 'originalId' | 'type' | 'reason' | 'deliveries' | 'error'>];
  /** An interaction already claimed (a replay, or a second publisher) was acknowledged without running. */
  duplicate: [event: DuplicateEvent];
  /** Entries another consumer left pending past `claimIdleMs` (it died, or is stuck) were taken over by this worker, from the consumers named. */
  reclaimed: [event: ReclaimedEvent];
  /** A dispatch handler threw or rejected on this attempt (its entry is delivered again, or goes to the dead letters). */
  handlerFailed: [event: HandlerFailedEvent];
  /** Consumers of the group idle past `removeIdleConsumersMs`, with nothing pending, were removed from it. */
  consumersRemoved: [event: ConsumersRemovedEvent];
  /** More than `maxBacklog` entries wait in the group (checked with each trim). */
  backlog: [event: StreamBacklog];
  /**
   * `close()` stopped retrying these interactions' answered marks (Redis was down): they were answered, but their entries
   * stay pending and may run again on another worker once Redis is back.
   */
  unmarked: [event: UnmarkedEvent];
  /** Entries Redis no longer holds (deleted or lost, e.g. by a restart without persistence) were found pending and dropped from the group. */
  lost: [event: LostEvent];
}
