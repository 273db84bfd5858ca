/**
 * Where each shard's Gateway session is kept between processes: its id, the
 * last sequence and the resume URL, so that a shard restarted elsewhere
 * resumes instead of identifying anew.
 *
 * @module
 */

/** One shard's resumable session. */
export interface GatewaySessionRecord {
  /** The session id READY gave. */
  sessionId: string;
  /** The last dispatch sequence received. */
  sequence: number | null;
  /** The READY's `resume_gateway_url` (checked by the transport rule again before use). @default undefined */
  resumeUrl?: string | undefined;
}

/** Keeps the sessions of shards. A session belongs to a shard id of one shard count (shard 1 of 4 is not shard 1 of 8). */
export interface GatewaySessionStore {
  /** The saved session of a shard, if any. */
  load(shardId: number, shardCount: number): Promise<GatewaySessionRecord | undefined>;
  /** Saves a shard's session, or forgets it (`undefined`). */
  save(shardId: number, shardCount: number, record: GatewaySessionRecord | undefined): Promise<void>;
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
}

/** Reads whether a stored value is a usable session record. */
export function isSessionRecord(value: unknown): value is GatewaySessionRecord {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  const sequence = record['sequence'];
  const resumeUrl = record['resumeUrl'];
  return (
    typeof record['sessionId'] === 'string' &&
    record['sessionId'] !== '' &&
    record['sessionId'].length <= 256 &&
    (sequence === null || (Number.isSafeInteger(sequence) && (sequence as number) >= 0)) &&
    (resumeUrl === undefined || (typeof resumeUrl === 'string' && isWebSocketUrl(resumeUrl)))
  );
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
    this.#dirty = true;
    if (this.#writing === undefined) this.#writing = this.#loop();
  }

  /** The session ended for good (the service invalidated it): forgets it in the store, so that no successor tries to resume it. */
  end(): void {
    this.#ended = true;
    this.schedule();
  }

  /** Resolves when nothing is left to write. */
  async flush(): Promise<void> {
    while (this.#writing !== undefined) await this.#writing;
  }

  async #loop(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (this.#dirty) {
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

/**
 * Restores each shard's saved session from `store` (a failed load is reported
 * and the shard identifies), and returns the saver of each shard, which
 * writes `record(shard)` whenever the session changes.
 */
export async function restoreSessions<S extends { readonly id: number; restore(record: GatewaySessionRecord): void }>(
  store: GatewaySessionStore,
  shards: readonly S[],
  shardCount: number,
  record: (shard: S) => GatewaySessionRecord | undefined,
  onError: (error: unknown) => void,
): Promise<Map<number, SessionSaver>> {
  const savers = new Map<number, SessionSaver>();
  await Promise.all(
    shards.map(async (shard) => {
      const saved = await store.load(shard.id, shardCount).catch((error: unknown) => void onError(error));
      if (saved) shard.restore(saved);
      savers.set(shard.id, new SessionSaver(store, shard.id, shardCount, () => record(shard), onError));
    }),
  );
  return savers;
}
