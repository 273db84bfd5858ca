/**
 * The Redis side of a worker taking over entries (`event-worker.ts`): `XAUTOCLAIM` of the entries pending longer than
 * `claimIdleMs` with a silent consumer, those gone from the stream acknowledged, and each live one's delivery count; and
 * what a worker reads from an entry (its payload, its token to scrub).
 *
 * @module
 */

import { wholeWithin } from '../core/bounds.js';
import { RedisScript } from './connection.js';
import { idBefore, type RedisEventStream } from './event-stream.js';

/** What a reclaim took over. */
interface Reclaimed {
  /** The entries taken over (`[id, fields]`), still in the stream. */
  readonly live: unknown[];
  /** Entries pending but gone from the stream (trimmed by another's `XTRIM MAXLEN`, or lost with Redis): acknowledged. */
  readonly gone: string[];
  /** How many times each live entry was delivered. */
  readonly counts: Map<string, number>;
  /** The consumer each entry was pending with before (read in the same atomic step that takes them). */
  readonly owners: Map<string, string>;
}

/**
 * Who held the entries idle past the bound, then those entries taken over, in one atomic step: read apart, an entry that
 * crossed the bound between the two commands (or while the client was held between them) was taken with no known owner,
 * and a worker taking back its own entry reported it reclaimed from `unknown`.
 * KEYS: stream. ARGV: group, consumer, idle ms, count.
 */
const RECLAIM = new RedisScript(`
local pending = redis.call('XPENDING', KEYS[1], ARGV[1], 'IDLE', ARGV[3], '-', '+', ARGV[4])
local claimed = redis.call('XAUTOCLAIM', KEYS[1], ARGV[1], ARGV[2], ARGV[3], '0-0', 'COUNT', ARGV[4])
return { pending, claimed }`);

/** Takes over up to `count` entries of `group` idle longer than `idleMs` for `consumer`. */
export async function reclaimEntries(stream: RedisEventStream, group: string, consumer: string, idleMs: number, count: number): Promise<Reclaimed> {
  const owners = new Map<string, string>();
  const both = await stream.script(RECLAIM, [stream.key], [group, consumer, String(idleMs), String(count)]);
  const [pending, reply] = Array.isArray(both) ? (both as [unknown, unknown]) : [];
  for (const row of Array.isArray(pending) ? pending : []) if (Array.isArray(row)) owners.set(String(row[0]), String(row[1]));
  // What Redis answers is read as it may be: anything but the arrays XAUTOCLAIM gives reads as none.
  const [, entries, deleted] = Array.isArray(reply) ? (reply as unknown[]) : [];
  const gone = (Array.isArray(deleted) ? deleted : []).map(String);
  if (gone.length > 0) await stream.ack(group, gone);
  const live = (Array.isArray(entries) ? entries : []).filter((entry) => Array.isArray(entry) && entry[1] !== null);
  const counts = live.length === 0 ? new Map<string, number>() : await deliveries(stream, group, consumer, live.map(entryId));
  return { live, gone, counts, owners };
}

/** An entry's stream id (`[id, fields]`). */
export function entryId(entry: unknown): string {
  return String((entry as unknown[])[0]);
}

/** How many times each of these entries (pending with this consumer) was delivered. */
async function deliveries(stream: RedisEventStream, group: string, consumer: string, ids: string[]): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  // Stream ids sort by their numbers (`ms-seq`), not as text: `5-10` comes after `5-9`.
  const sorted = [...ids].sort((a, b) => (idBefore(a, b) ? -1 : idBefore(b, a) ? 1 : 0));
  const reply = await stream.command(['XPENDING', stream.key, group, sorted[0] ?? '-', sorted.at(-1) ?? '+', String(ids.length * 2), consumer]);
  for (const row of Array.isArray(reply) ? reply : []) {
    if (!Array.isArray(row)) continue;
    const [id, , , times] = row as unknown[];
    // A count that is not a whole number from 1 to a billion reads as a second delivery.
    counts.set(String(id), wholeWithin(times, 1, 1e9) ?? 2);
  }
  return counts;
}

/** Marks an entry whose payload is not JSON. */
export const MALFORMED: unique symbol = Symbol('malformed');

/** An entry's payload, or {@link MALFORMED}. */
export function parsePayload(text: string | undefined): unknown {
  try {
    return JSON.parse(text ?? '');
  } catch {
    return MALFORMED;
  }
}

/** The interaction token an entry's payload holds (to scrub from what is reported), if any. */
export function tokenOf(fields: Record<string, string>): string[] {
  const data = parsePayload(fields['d']);
  const token = typeof data === 'object' && data !== null ? (data as { token?: unknown }).token : undefined;
  return typeof token === 'string' ? [token] : [];
}
