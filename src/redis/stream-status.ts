/**
 * An event stream's status, read by any process (a worker or a tool): the backlog (groups, consumers, undelivered and
 * pending entries, the oldest one's age, dead letters) from the stream's one consistent read (`stream-backlog.ts`), each
 * group's pending entries by age, and the last dead letters (without their payloads). Read only.
 *
 * @module
 */

import { checkCount, clampNumber, optionNames, refuseUnknownOptions } from '../core/bounds.js';
import type { RedisClientLike } from './connection.js';
import { createRedisEventStream, fieldsOf } from './event-stream.js';
import { type StreamBacklog, UNDELIVERED_COUNT_CAP } from './stream-backlog.js';

/** Options of {@link readStreamStatus}. */
export interface StreamStatusOptions {
  /** A connected node-redis v6 client. */
  client: RedisClientLike;
  /** The stream's name, as given to `createRedisEventStream`. @default 'ccsdk:events' */
  stream?: string | undefined;
  /** The groups whose pending entries are counted by age (`undefined`: every group). @default undefined */
  groups?: readonly string[] | undefined;
  /** How many of the last dead letters to list (0 to 1,000). @default 10 */
  deadLetters?: number | undefined;
  /** How long one Redis command may take, milliseconds. @default 2000 */
  commandTimeoutMs?: number | undefined;
  /**
   * The most groups read, and consumers listed per group (1 to 10,000): a stream of more groups reads none, a group of
   * more consumers lists none (Redis cannot list part of them), and `truncated` says so. `groups` may name at most this many.
   * @default 1000
   */
  maxListed?: number | undefined;
}

const OPTIONS = optionNames<StreamStatusOptions>({ client: true, stream: true, groups: true, deadLetters: true, commandTimeoutMs: true, maxListed: true });

/** The ages pending entries are counted in: since each was last delivered, milliseconds, up to (not including) each bound. */
export const PENDING_AGE_BOUNDS_MS = [10_000, 60_000, 300_000] as const;

/** A group's pending entries by how long ago each was last delivered (the first 1,000 pending entries are counted). */
export interface PendingByAge {
  /** The group's name. */
  group: string;
  /** Pending under 10 s, under 1 min, under 5 min, and 5 min or more. */
  counts: [number, number, number, number];
  /** Whether the group has more pending entries than were counted. */
  truncated: boolean;
  /** The most times one counted entry was delivered. */
  maxDeliveries: number;
}

/** A dead letter, without its payload. */
export interface DeadLetterSummary {
  /** Its id in the dead letters. */
  id: string;
  /** The dispatch's type. */
  type: string;
  /** Why it is there. */
  reason: string;
  /** How many times it was delivered. */
  deliveries: number;
  /** The last error (scrubbed of the interaction token). */
  error: string;
}

/** A stream's status. */
export interface StreamStatus {
  /** The stream's key. */
  key: string;
  /** The backlog, from one consistent read. */
  backlog: StreamBacklog;
  /** Each group's pending entries by age. */
  pendingByAge: PendingByAge[];
  /** The last dead letters, newest last. */
  deadLetters: DeadLetterSummary[];
  /** What was not read whole, in words (groups or consumers past `maxListed`); empty when all was read. */
  truncated: string[];
}

/** How many pending entries of a group are read to count them by age. */
const PENDING_READ = 1000;

/** Reads an event stream's status (read only; usable from any process). */
export async function readStreamStatus(options: StreamStatusOptions): Promise<StreamStatus> {
  refuseUnknownOptions('readStreamStatus', options, OPTIONS);
  const listed = checkCount('readStreamStatus', 'deadLetters', options.deadLetters, { max: 1000 }) ?? 10;
  const most = checkCount('readStreamStatus', 'maxListed', options.maxListed, { min: 1, max: 10_000 }) ?? 1000;
  checkCount('readStreamStatus', 'groups', options.groups?.length, { max: most });
  const stream = createRedisEventStream({ client: options.client, stream: options.stream, commandTimeoutMs: options.commandTimeoutMs });
  const { backlog, unread } = await stream.measure(UNDELIVERED_COUNT_CAP, most);
  const truncated = unread.groups > 0 ? [`${unread.groups} groups, more than ${most}: none read`] : [];
  for (const [group, count] of unread.consumers) truncated.push(`group ${group}: ${count} consumers, more than ${most}: none listed`);
  const names = options.groups ?? backlog.groups.map((group) => group.name);
  const pendingByAge = await Promise.all(
    names.map(async (group): Promise<PendingByAge> => {
      const reply = await stream.command(['XPENDING', stream.key, group, '-', '+', String(PENDING_READ)]);
      const entries = Array.isArray(reply) ? reply : [];
      const counts: [number, number, number, number] = [0, 0, 0, 0];
      let maxDeliveries = 0;
      for (const entry of entries) {
        const [, , idle, deliveries] = Array.isArray(entry) ? (entry as unknown[]) : [];
        const age = clampNumber(idle, 0, Number.MAX_SAFE_INTEGER, 0);
        const at = PENDING_AGE_BOUNDS_MS.findIndex((bound) => age < bound);
        const slot = at === -1 ? 3 : at;
        counts[slot] = (counts[slot] as number) + 1;
        maxDeliveries = Math.max(maxDeliveries, clampNumber(deliveries, 0, Number.MAX_SAFE_INTEGER, 0));
      }
      const pending = backlog.groups.find((g) => g.name === group)?.pending ?? entries.length;
      return { group, counts, truncated: pending > entries.length, maxDeliveries };
    }),
  );
  const letters = listed === 0 || backlog.deadLetters === 0 ? [] : await lastDeadLetters(stream.deadKey, listed, (args) => stream.command(args));
  return { key: stream.key, backlog, pendingByAge, deadLetters: letters, truncated };
}

/** The last `count` dead letters, newest last, without their payloads. */
async function lastDeadLetters(key: string, count: number, command: (args: string[]) => Promise<unknown>): Promise<DeadLetterSummary[]> {
  const reply = await command(['XREVRANGE', key, '+', '-', 'COUNT', String(count)]);
  const entries = Array.isArray(reply) ? reply : [];
  return entries.reverse().map((entry) => {
    const [id, raw] = entry as [unknown, unknown];
    const fields = fieldsOf(raw);
    return {
      id: String(id),
      type: (fields['t'] ?? '').slice(0, 100),
      reason: (fields['reason'] ?? '').slice(0, 100),
      deliveries: clampNumber(fields['deliveries'], 0, Number.MAX_SAFE_INTEGER, 0),
      error: (fields['error'] ?? '').slice(0, 500),
    };
  });
}
