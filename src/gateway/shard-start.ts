/**
 * Where every shard starts: a fixed shard list, a fleet's lease and a
 * reshard's next set all start a shard through {@link startShard} (created by
 * the set's factory, in this thread or in a worker; its stored session
 * restored; its saver registered; added to the set), and connect it by who
 * may run it: a fixed list connects in `maxConcurrency` buckets and a failure
 * rejects ({@link connectFixed}); a lease creates its shard again when the
 * factory threw and connects it again after a failure, while it is held,
 * each run of failures reported once ({@link connectWhileHeld}, also how a
 * restarted shard worker connects its shards). Changing how a shard starts
 * changes this file.
 *
 * @module
 */

import { describeThrown } from '../errors/base.js';
import { GatewayError, GatewayFatalError } from '../errors/index.js';
import { closeCodes } from './protocol.js';
import type { ConnectionReport } from './connection-host.js';
import { dispatchedAhead, SessionSaver, type GatewaySessionRecord, type GatewaySessionStore } from './gateway-session-store.js';
import { Outage } from './outages.js';
import type { ShardHandle } from './shards.js';

/** What a start works on: the set's shards, savers and replay marks, and its two seams (the factory and the session store). */
export interface ShardStartTarget {
  /** A new shard of this id: in this thread or in a worker (`shardsPerWorker`): how a shard runs. */
  create(shardId: number): ShardHandle;
  /** The set's shards, in id order (changed in place). */
  readonly list: ShardHandle[];
  /** The set's session savers (changed in place). */
  readonly savers: Map<number, SessionSaver>;
  /** Per shard resumed from a record that says what its predecessor dispatched, that sequence (changed in place). @default undefined */
  readonly replayed?: Map<number, number> | undefined;
  /** The set's shard count (a session is stored per shard id and count). */
  readonly count: number;
  /** Where the sessions are restored from and saved to (in a fleet, falling back on the last sessions this process held). */
  readonly store: GatewaySessionStore | undefined;
  /** The session record of a shard, for the store. */
  record(shard: ShardHandle): GatewaySessionRecord | undefined;
  /** The session store failed. */
  storeFailed(error: unknown): void;
  /** Reports a debug line or an error as the Gateway's event (of shard `shardId`, when it is about one). */
  report(report: ConnectionReport, shardId?: number): void;
}

/** Who may run a shard: a fixed list (every id, connected by {@link connectFixed}) or a lease (connected while held). */
export type ShardAdmission =
  | {
      readonly kind: 'fixed';
      /** Whether the stored session is loaded: a reshard's next set identifies, so a record stored for its count is stale (overwritten, never loaded). */
      readonly restore: boolean;
    }
  | {
      readonly kind: 'lease';
      /** The lease's fence, written with each save: after a store lost every session, the write-backs keep the latest holder's record. @default undefined */
      readonly fence?: number | undefined;
      /** Whether the lease is still this process's (it may be lost while the session loads). */
      holds(): boolean;
      /** The shard is READY (or RESUMED); `resumed`: with the session restored from the store. */
      connected(resumed: boolean): Promise<void> | void;
    };

/**
 * Starts shard `shardId` of a set: created by the set's factory, its stored session restored (unless a fixed list says not to),
 * its saver registered, added to the set in id order; under a lease, then connected while the lease is held. Resolves with the
 * shard once it is added (and connecting, under a lease), or `undefined` when the lease was lost while the session loaded
 * (nothing of the shard is kept, so nothing of it is ever saved). Under a lease, a factory that throws is tried again while the
 * lease is held ({@link startLeased}); in a fixed list it rejects.
 */
export async function startShard(target: ShardStartTarget, shardId: number, admission: ShardAdmission): Promise<ShardHandle | undefined> {
  if (admission.kind === 'lease') return startLeased(target, shardId, admission);
  return place(target, target.create(shardId), admission);
}

/**
 * Creates a leased shard, then places it ({@link place}). A factory that throws (a worker thread that cannot start) leaves a held
 * lease with no shard: it is tried again while the lease is held, with the waits of a failed connect (1 s doubling to 30 s), the
 * run of failures one `error` that names the shard and its cause, and a debug line once the shard is created; once the lease is
 * lost the tries stop. The first try's outcome resolves (the shard, or `undefined` after a failure): a fleet's steps, which renew
 * the lease, await a start, so the tries after a failed one go on behind it.
 */
function startLeased(target: ShardStartTarget, shardId: number, admission: ShardAdmission & { kind: 'lease' }): Promise<ShardHandle | undefined> {
  const report = (report: ConnectionReport) => target.report(report, shardId);
  const tries = new HeldAttempts(admission.holds, report, target.list, shardId);
  const attempt = async (): Promise<ShardHandle | undefined> => {
    if (!admission.holds()) return undefined;
    let shard: ShardHandle;
    try {
      shard = target.create(shardId);
    } catch (error) {
      const why = `shard ${shardId} could not be created (${describeThrown(error)}); tried again while this process holds its lease`;
      tries.failed(new GatewayError(why, undefined, { cause: error }));
      tries.later(() => void attempt().catch((thrown: unknown) => report({ event: 'error', payload: asError(thrown) })));
      return undefined;
    }
    tries.succeeded(`shard ${shardId} was created`);
    return place(target, shard, admission);
  };
  return attempt();
}

/** Restores a created shard's stored session, registers its saver and adds it to the set; under a lease, connects it while held. */
async function place(target: ShardStartTarget, shard: ShardHandle, admission: ShardAdmission): Promise<ShardHandle | undefined> {
  const shardId = shard.id;
  const { store, count } = target;
  const fence = admission.kind === 'lease' ? admission.fence : undefined;
  let dispatched: number | undefined;
  if (store !== undefined && (admission.kind === 'lease' || admission.restore)) {
    // A failed load is reported, and the shard identifies.
    const saved = await store.load(shardId, count).catch((error: unknown) => void target.storeFailed(error));
    if (saved) {
      dispatched = dispatchedAhead(saved);
      shard.restore(saved);
    }
  }
  if (admission.kind === 'lease' && !admission.holds()) {
    await shard.destroy(); // created already (in a worker, placed there): stopped, so nothing of it runs on
    return undefined;
  }
  if (store !== undefined) {
    const record = (): GatewaySessionRecord | undefined => {
      const current = target.record(shard);
      return current === undefined || fence === undefined ? current : { ...current, fence };
    };
    target.savers.set(shardId, new SessionSaver(store, shardId, count, record, target.storeFailed));
  }
  // What the predecessor dispatched beyond the sequence it left (an interaction held it back) is not emitted here again.
  if (dispatched === undefined) target.replayed?.delete(shardId);
  else target.replayed?.set(shardId, dispatched);
  insertById(target.list, shard);
  if (admission.kind === 'lease') {
    const stored = shard.sessionId; // restored from the store: the shard resumes it if the service still accepts it
    connectWhileHeld(
      () => shard.connect(undefined),
      () => admission.holds() && target.list.includes(shard),
      (report) => target.report(report, shardId),
      () => admission.connected(stored !== undefined && shard.sessionId === stored),
      target.list,
      shardId,
    );
  }
  return shard;
}

/**
 * Starts every shard of a fixed list (`ids`) with {@link startShard}: all or none. When one fails to start (its factory threw,
 * a worker could not start), those that did are destroyed and taken out of the set again, and the failure rejects, so that a
 * later try starts each id once.
 */
export async function startAll(target: ShardStartTarget, ids: readonly number[], admission: ShardAdmission & { kind: 'fixed' }): Promise<void> {
  const results = await Promise.allSettled(ids.map((id) => startShard(target, id, admission)));
  const failed = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failed === undefined) return;
  const started = results.flatMap((result) => (result.status === 'fulfilled' && result.value !== undefined ? [result.value] : []));
  for (const shard of started) {
    target.list.splice(target.list.indexOf(shard), 1);
    target.savers.get(shard.id)?.abandon();
    target.savers.delete(shard.id);
  }
  await Promise.all(started.map((shard) => shard.destroy().catch(() => undefined)));
  throw failed.reason;
}

/** How long a held shard waits before connecting again after a connect that failed (doubling with each failure in a row). */
export const RECONNECT_AFTER_MS = 1000;

/** The longest wait between two connects of a held shard that keeps failing. */
const MAX_RECONNECT_AFTER_MS = 30_000;

/**
 * Whether a failed connect is one that no later attempt can fix: the service closed with a code whose rule is fatal
 * (an invalid token, an invalid shard, intents refused: 4004, 4010–4014). Any other failure, a "fatal" run of Identify attempts
 * without READY (closes of 4000, a network cut, pacing) or a refused upgrade included, may pass: it is tried again.
 */
function hopeless(error: unknown): boolean {
  return error instanceof GatewayFatalError && error.code !== undefined && closeCodes[error.code]?.action === 'fatal';
}

/**
 * Connects a shard that must not stay dark while `held()`: a connect that fails (its Identify turn came past the connect timeout,
 * the service refused) is tried again after {@link RECONNECT_AFTER_MS}, doubling up to 30 s, for as long as it is held (asked
 * again when each wait ends). Once it is READY (or RESUMED) `connected` runs; if it fails (the coordinator is down), it alone
 * is tried again, never the connect. A run of failures is one `error` (the first, unless its source reported it: see
 * {@link reportedAlready}) and a debug line when it ends; a close no
 * attempt can fix (see {@link hopeless}) is reported and not tried again, since every attempt would fail alike. A wait of
 * shard `shardId` of `set` is cleared by {@link stopAttempts}.
 */
export function connectWhileHeld(
  connect: () => Promise<void>,
  held: () => boolean,
  report: (report: ConnectionReport) => void,
  connected: () => Promise<void> | void = () => undefined,
  set?: object,
  shardId?: number,
): void {
  const tries = new HeldAttempts(held, report, set, shardId);
  const announce = (): void => {
    if (!held()) return;
    Promise.resolve()
      .then(connected)
      .then(
        () => tries.succeeded('the shard is up'),
        (error: unknown) => {
          tries.failed(error);
          tries.later(announce);
        },
      );
  };
  const attempt = (): void => {
    if (!held()) return;
    connect().then(
      () => {
        tries.succeeded('the shard is up');
        announce();
      },
      (error: unknown) => {
        tries.failed(error, hopeless(error));
        if (!hopeless(error)) tries.later(attempt);
      },
    );
  };
  attempt();
}

/** Puts `shard` in `list` by id (the list stays sorted): a binary search and one splice, not a sort per shard started. */
function insertById(list: ShardHandle[], shard: ShardHandle): void {
  let [low, high] = [0, list.length];
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((list[mid] as ShardHandle).id < shard.id) low = mid + 1;
    else high = mid;
  }
  list.splice(low, 0, shard);
}

/** Failures its source reported already (a shard worker's exit, with its restart): see {@link reportedAlready}. */
const reported = new WeakSet<object>();

/**
 * Marks `error` as reported where it happened (a shard worker that exited says so with its restart): a held shard's attempts count
 * it in their run of failures without reporting it again. Returns `error`.
 */
export function reportedAlready<E extends Error>(error: E): E {
  reported.add(error);
  return error;
}

/** Per owner (a shard set's list of shards, or a shard worker), the attempts of its shards waiting to run again: see {@link stopAttempts}. */
const waiting = new WeakMap<object, Set<HeldAttempts>>();

/**
 * The set whose shards are `set` ends (the Gateway closed, a reshard dropped it), or only its shard `shardId` (its lease lost or
 * handed off); or `set` is a shard worker being ended: every wait of those shards' attempts (to be created, to connect, to
 * announce READY) is cleared, so no retry timer outlives them.
 */
export function stopAttempts(set: object, shardId?: number): void {
  for (const tries of [...(waiting.get(set) ?? [])]) if (shardId === undefined || tries.shardId === shardId) tries.stop();
}

/**
 * A held shard's attempts at one step (being created, connecting, announcing READY; a crashed shard worker's restart): a run of
 * failures in a row is one `error` (its first, unless that one was {@link reportedAlready}; a `hopeless` one always) and a debug
 * line when an attempt succeeds; the wait before the next attempt doubles from {@link RECONNECT_AFTER_MS} to 30 s, and the attempt
 * is made only if still `held()`. One wait at a time, cleared by {@link HeldAttempts.stop} (or {@link stopAttempts} of its `set`).
 */
export class HeldAttempts {
  readonly #failures = new Outage();
  readonly #held: () => boolean;
  readonly #report: (report: ConnectionReport) => void;
  readonly #set: object | undefined;
  /** The shard of `set` these attempts are for, if one. */
  readonly shardId: number | undefined;
  #inARow = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(held: () => boolean, report: (report: ConnectionReport) => void, set?: object, shardId?: number) {
    this.#held = held;
    this.#report = report;
    this.#set = set;
    this.shardId = shardId;
  }

  failed(error: unknown, hopeless = false): void {
    this.#inARow++;
    const starts = this.#failures.failed().starts && !(typeof error === 'object' && error !== null && reported.has(error));
    if (starts || hopeless) this.#report({ event: 'error', payload: asError(error) });
  }

  /** An attempt succeeded: the run of failures before it, if any, ends with a debug line (`<what> after N failed attempts ...`). */
  succeeded(what: string): void {
    this.#inARow = 0;
    const ended = this.#failures.recovered();
    if (ended !== undefined) this.#report({ event: 'debug', payload: `${what} after ${ended.failures} failed attempts over ${ended.durationMs} ms` });
  }

  /** Runs `again` after the wait this run of failures has reached, if the shard is still held now (`again` asks again when it ends). */
  later(again: () => void): void {
    const ms = Math.min(RECONNECT_AFTER_MS * 2 ** Math.min(this.#inARow - 1, 10), MAX_RECONNECT_AFTER_MS);
    this.stop();
    if (!this.#held()) return;
    this.#timer = setTimeout(() => {
      this.stop();
      again();
    }, ms);
    this.#timer.unref?.();
    if (this.#set === undefined) return;
    const set = waiting.get(this.#set) ?? new Set();
    waiting.set(this.#set, set.add(this));
  }

  /** No attempt any more: the wait under way, if any, is cleared (its set ended, the shard worker is ended). */
  stop(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#set !== undefined) waiting.get(this.#set)?.delete(this);
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new GatewayError(describeThrown(error));
}

/**
 * Connects a fixed list's shards: those of one concurrency bucket one after another (each starts when the previous one is ready,
 * so that its `connectTimeoutMs` is not spent waiting for its Identify turn), the buckets side by side; the first failure rejects.
 */
export async function connectFixed(shards: readonly ShardHandle[], maxConcurrency: number, signal: AbortSignal | undefined): Promise<void> {
  const buckets = new Map<number, ShardHandle[]>();
  for (const shard of shards) {
    const bucket = shard.id % maxConcurrency;
    buckets.set(bucket, [...(buckets.get(bucket) ?? []), shard]);
  }
  await Promise.all(
    [...buckets.values()].map(async (list) => {
      for (const shard of list) await shard.connect(signal);
    }),
  );
}
