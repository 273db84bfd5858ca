/**
 * Where each shard's Gateway session is kept between processes: its id, the
 * last sequence and the resume URL, so that a shard restarted elsewhere
 * resumes instead of identifying anew.
 *
 * @module
 */
import { clampNumber, MAX_TIMER_MS } from '../core/bounds.js';

/** One shard's resumable session. */
export interface GatewaySessionRecord {
  /** The session id READY gave. */
  sessionId: string;
  /**
   * The sequence a successor resumes from: the last dispatch received when every dispatch is published (or nothing is
   * published), else the one before the first dispatch not yet published (in flight to the sink), so none is lost.
   */
  sequence: number | null;
  /** The READY's `resume_gateway_url` (checked by the transport rule again before use). @default undefined */
  resumeUrl?: string | undefined;
  /**
   * The last sequence this holder dispatched, when above `sequence` (an interaction still being handled holds `sequence` back so
   * that a successor is sent it again): the successor's resume replays the events in between, and it emits those other than
   * interactions no more (this holder did; interactions go through their claim). @default undefined
   */
  dispatched?: number | undefined;
  /**
   * In a fleet, the lease fence under which its holder saved it. Fences only grow (they follow Redis's clock), so when a store
   * that lost every session (Redis restarted empty) is written back by several members, the record of the shard's latest holder
   * is the one kept. @default undefined
   */
  fence?: number | undefined;
}

/** Keeps the sessions of shards. A session belongs to a shard id of one shard count (shard 1 of 4 is not shard 1 of 8). */
export interface GatewaySessionStore {
  /** The saved session of a shard, if any. */
  load(shardId: number, shardCount: number): Promise<GatewaySessionRecord | undefined>;
  /** Saves a shard's session, or forgets it (`undefined`). */
  save(shardId: number, shardCount: number, record: GatewaySessionRecord | undefined): Promise<void>;
  /**
   * Writes a fleet member's kept session back (the store lost it, e.g. Redis restarted empty) where the store holds none, or
   * nothing `load` reads as a session, or one saved under an earlier `fence` (one without a fence is kept), atomically: two
   * members writing back the same shard keep its latest holder's record whatever their order. Without it, the fleet loads,
   * compares and saves (a store shared by processes should have it). @default undefined
   */
  restore?(shardId: number, shardCount: number, record: GatewaySessionRecord): Promise<void>;
}

/** An in-memory session store: shards restarted in the same process (a new Gateway) resume. */
export class MemoryGatewaySessionStore implements GatewaySessionStore {
  readonly #records = new Map<string, GatewaySessionRecord>();

  async load(shardId: number, shardCount: number): Promise<GatewaySessionRecord | undefined> {
    const record = this.#records.get(`${shardId}/${shardCount}`);
    return record && { ...record };
  }

  async save(shardId: number, shardCount: number, record: GatewaySessionRecord | undefined): Promise<void> {
    if (record === undefined) this.#records.delete(`${shardId}/${shardCount}`);
    else this.#records.set(`${shardId}/${shardCount}`, { ...record });
  }

  /** Writes a fleet member's kept session back (see `GatewaySessionStore.restore`): where none is kept, or one saved under an earlier fence. */
  async restore(shardId: number, shardCount: number, record: GatewaySessionRecord): Promise<void> {
    if (restores(this.#records.get(`${shardId}/${shardCount}`), record)) this.#records.set(`${shardId}/${shardCount}`, { ...record });
  }
}

/** Reads whether a stored value is a usable session record. */
export function isSessionRecord(value: unknown): value is GatewaySessionRecord {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  const sequence = record['sequence'];
  const resumeUrl = record['resumeUrl'];
  const dispatched = record['dispatched'];
  const fence = record['fence'];
  return (
    (dispatched === undefined || (Number.isSafeInteger(dispatched) && (dispatched as number) >= 0)) &&
    (fence === undefined || (Number.isSafeInteger(fence) && (fence as number) >= 0)) &&
    typeof record['sessionId'] === 'string' &&
    record['sessionId'] !== '' &&
    record['sessionId'].length <= 256 &&
    (sequence === null || (Number.isSafeInteger(sequence) && (sequence as number) >= 0)) &&
    (resumeUrl === undefined || (typeof resumeUrl === 'string' && isWebSocketUrl(resumeUrl)))
  );
}

/**
 * Whether a fleet member's kept `record` is written back over what the store holds (`stored`, as `load` reads it: `undefined`
 * for none or for anything that is not a session): yes where there is none, or one saved under an earlier fence; a record
 * without a fence (saved before fences, or outside a fleet) is left alone. The one rule of every write-back.
 */
export function restores(stored: GatewaySessionRecord | undefined, record: GatewaySessionRecord): boolean {
  if (stored === undefined) return true;
  return stored.fence !== undefined && record.fence !== undefined && stored.fence < record.fence;
}

/** The most dispatches a record's `dispatched` may be above its `sequence` (what an interaction handled for its 15 minutes held back). */
export const MAX_DISPATCHED_AHEAD = 50_000;

/**
 * The last sequence a record's holder dispatched beyond the one it left, bounded: `undefined` unless above `sequence` (nothing to
 * skip), and at most {@link MAX_DISPATCHED_AHEAD} above it (a planted value cannot silence a shard's events past that; the replay
 * ends at RESUMED anyway).
 */
export function dispatchedAhead(record: GatewaySessionRecord): number | undefined {
  const { sequence, dispatched } = record;
  if (sequence === null || dispatched === undefined) return undefined;
  const through = clampNumber(dispatched, 0, sequence + MAX_DISPATCHED_AHEAD, 0);
  return through > sequence ? through : undefined;
}

/** A `ws:` or `wss:` URL without credentials: what a stored resume URL may be (anything else reads as no session). */
function isWebSocketUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'ws:' || url.protocol === 'wss:') && url.username === '' && url.password === '';
  } catch {
    return false;
  }
}

/**
 * Writes a shard's session to a store as it changes, coalesced: at most one
 * write in flight, and the newest state wins.
 */
export class SessionSaver {
  readonly #store: GatewaySessionStore;
  readonly #shardId: number;
  readonly #shardCount: number;
  readonly #read: () => GatewaySessionRecord | undefined;
  readonly #onError: (error: unknown) => void;
  #writing: Promise<void> | undefined;
  #dirty = false;
  /** Set when the session ended (a close with 1000): the store forgets it, whatever the shard still holds. */
  #ended = false;
  /** Set when the shard was lost (its lease lapsed): nothing more is read or written, not even a write scheduled before. */
  #abandoned = false;
  #last = '';

  constructor(
    store: GatewaySessionStore,
    shardId: number,
    shardCount: number,
    read: () => GatewaySessionRecord | undefined,
    onError: (error: unknown) => void,
  ) {
    this.#store = store;
    this.#shardId = shardId;
    this.#shardCount = shardCount;
    this.#read = read;
    this.#onError = onError;
  }

  /** Saves the current state soon (after the current turn of the event loop, once any write in flight ends). */
  schedule(): void {
    if (this.#abandoned) return;
    this.#dirty = true;
    if (this.#writing === undefined) this.#writing = this.#loop();
  }

  /** The session ended for good (the service invalidated it): forgets it in the store, so that no successor tries to resume it. */
  end(): void {
    this.#ended = true;
    this.schedule();
  }

  /**
   * The shard is no longer this process's (its lease lapsed or was taken): a write still waiting (behind one a paused store holds)
   * is dropped, not made with the shard's state read now, which would count what was received after the fence and never handled.
   */
  abandon(): void {
    this.#abandoned = true;
    this.#dirty = false;
  }

  /** Resolves when nothing is left to write. */
  async flush(): Promise<void> {
    while (this.#writing !== undefined) await this.#writing;
  }

  async #loop(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (this.#dirty && !this.#abandoned) {
      this.#dirty = false;
      const record = this.#ended ? undefined : this.#read();
      const text = JSON.stringify(record ?? null);
      if (text === this.#last) continue;
      try {
        await this.#store.save(this.#shardId, this.#shardCount, record);
        this.#last = text;
      } catch (error) {
        this.#onError(error);
      }
    }
    this.#writing = undefined;
  }
}

/** The most shard sessions {@link LastSessions} keeps. */
const LAST_SESSIONS_LIMIT = 4096;

/**
 * The last session of each shard this process held, in memory (at most {@link LAST_SESSIONS_LIMIT}, the oldest forgotten first),
 * so that a shard whose store lost it (Redis restarted empty) still resumes: {@link withLastSessions} remembers each record a
 * shard's saver writes (tried, even if the store failed) and falls back on it when the store has none. A shard handed off keeps
 * its record for a while ({@link LastSessions.handedOff}): if the store loses it before the successor started (or saved), it is
 * still written back; a successor's record, saved under a later fence, wins over it.
 */
export class LastSessions {
  readonly #records = new Map<string, { record: GatewaySessionRecord; until: number }>();
  readonly #limit: number;
  readonly #now: () => number;

  /**
   * @param limit - the most sessions kept (@default LAST_SESSIONS_LIMIT)
   * @param now - the monotonic clock, milliseconds (@default performance.now)
   */
  constructor(limit = LAST_SESSIONS_LIMIT, now: () => number = () => performance.now()) {
    this.#limit = limit;
    this.#now = now;
  }

  /** The last session of the shard, if this process keeps one. */
  get(shardId: number, shardCount: number): GatewaySessionRecord | undefined {
    const key = `${shardId}/${shardCount}`;
    const kept = this.#records.get(key);
    if (kept === undefined) return undefined;
    if (this.#now() >= kept.until) {
      this.#records.delete(key);
      return undefined;
    }
    return { ...kept.record };
  }

  /**
   * The last session of a shard this process still held (not one it handed off): what a start here may resume when the store
   * has none or fails. A handed-off one is only written back (its successor's record, fenced later, wins there); resumed from
   * memory it could replay what the successor already dispatched.
   */
  held(shardId: number, shardCount: number): GatewaySessionRecord | undefined {
    const kept = this.#records.get(`${shardId}/${shardCount}`);
    return kept === undefined || kept.until !== Number.POSITIVE_INFINITY ? undefined : { ...kept.record };
  }

  /** Keeps the shard's session, or forgets it (`undefined`: it ended). */
  keep(shardId: number, shardCount: number, record: GatewaySessionRecord | undefined): void {
    const key = `${shardId}/${shardCount}`;
    this.#records.delete(key);
    if (record === undefined) return;
    this.#records.set(key, { record: { ...record }, until: Number.POSITIVE_INFINITY });
    if (this.#records.size > this.#limit) this.#records.delete(this.#records.keys().next().value as string);
  }

  /** The shard was handed off: its session is kept `forMs` more (bounded), then forgotten (it is the successor's by then). */
  handedOff(shardId: number, shardCount: number, forMs: number): void {
    const kept = this.#records.get(`${shardId}/${shardCount}`);
    if (kept !== undefined) kept.until = this.#now() + Math.min(Math.max(0, forMs), MAX_TIMER_MS);
  }

  /** The shard ids of `shardCount` whose session is kept. */
  shardsOf(shardCount: number): number[] {
    const ids: number[] = [];
    for (const key of [...this.#records.keys()]) {
      const [id, count] = key.split('/');
      if (Number(count) === shardCount && this.get(Number(id), shardCount) !== undefined) ids.push(Number(id));
    }
    return ids;
  }

  /** How many sessions are kept. */
  get size(): number {
    return this.#records.size;
  }
}

/** `store`, remembering in `last` each record written, and answering from `last` (a shard still held here) when the store has none or fails. */
export function withLastSessions(store: GatewaySessionStore, last: LastSessions): GatewaySessionStore {
  return {
    async load(shardId, shardCount) {
      let saved: GatewaySessionRecord | undefined;
      try {
        saved = await store.load(shardId, shardCount);
      } catch (error) {
        saved = last.held(shardId, shardCount);
        if (saved === undefined) throw error;
      }
      return saved ?? last.held(shardId, shardCount);
    },
    save(shardId, shardCount, record) {
      last.keep(shardId, shardCount, record);
      return store.save(shardId, shardCount, record);
    },
  };
}
