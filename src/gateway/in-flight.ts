/**
 * The interactions each shard of a fleet is still handling, so that the
 * shard's saved session stays below the oldest of them: a process killed
 * while handling one leaves a sequence its successor resumes from, the
 * service replays the interaction, and the successor answers it (the claims
 * of the fleet skip those already answered).
 *
 * @module
 */

import { INTERACTION_LIFETIME_MS } from '../core/constants.js';
import { wait } from '../core/wait.js';

interface Entry {
  readonly id: string;
  readonly shardId: number;
  readonly sequence: number;
  readonly at: number;
  /** Its handlers started (its claim was granted); until then it only waits for its claim. */
  running: boolean;
  /** An event of a fleet's switch waiting for its claim: not emitted yet (see {@link InFlightInteractions.emittedSequence}). */
  readonly unemitted: boolean;
}

/** Per shard, the sequences of the interactions being handled, oldest first. */
export class InFlightInteractions {
  readonly #shards = new Map<number, Entry[]>();
  /** The latest entry of each interaction id (a replay may begin while an older copy still waits for its claim). */
  readonly #byId = new Map<string, Entry>();
  readonly #idle: (() => void)[] = [];
  readonly #now: () => number;

  /** @param now - a monotonic clock in milliseconds (@default performance.now) */
  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
  }

  /**
   * Records an interaction of this sequence as being handled on the shard (waiting for its claim until `started`); the function
   * returned marks it done. An interaction without a sequence is not tracked (its session could not be resumed before it anyway).
   * `unemitted`: an event of a fleet's switch waiting for its claim, which also holds what the shard says it dispatched below it.
   */
  begin(shardId: number, id: string, sequence: number | null, unemitted = false): () => void {
    if (sequence === null) return () => undefined;
    let entries = this.#shards.get(shardId);
    if (entries === undefined) {
      entries = [];
      this.#shards.set(shardId, entries);
    }
    const entry: Entry = { id, shardId, sequence, at: this.#now(), running: false, unemitted };
    entries.push(entry);
    this.#byId.set(id, entry);
    const list = entries;
    return () => {
      const index = list.indexOf(entry);
      if (index >= 0) list.splice(index, 1);
      if (this.#byId.get(id) === entry) this.#byId.delete(id);
      if (this.#idle.length > 0 && this.size === 0) for (const resolve of this.#idle.splice(0)) resolve();
    };
  }

  /** The interaction's claim was granted: its handlers run (a replay of it that arrives now is skipped, see {@link running}). */
  started(id: string): void {
    const entry = this.#byId.get(id);
    if (entry !== undefined) entry.running = true;
  }

  /** Whether the interaction's handlers are running here (not merely waiting for a claim, which a fence drops). */
  running(id: string): boolean {
    return this.#byId.get(id)?.running === true;
  }

  /** Resolves once nothing is being handled, or after `timeoutMs`. */
  async settled(timeoutMs: number): Promise<void> {
    if (this.size === 0) return;
    let done = () => undefined as void;
    const idle = new Promise<void>((resolve) => this.#idle.push((done = resolve)));
    await wait(idle, { timeoutMs, onTimeout: () => undefined }).catch(() => undefined);
    // Given up on (timed out): its resolver is not kept.
    const index = this.#idle.indexOf(done);
    if (index >= 0) this.#idle.splice(index, 1);
  }

  /** The shard an interaction being handled arrived on, if it is being handled. */
  shardOf(id: string): number | undefined {
    return this.#byId.get(id)?.shardId;
  }

  /** The shard's session started anew (READY) or the shard left this process: what it was handling no longer holds its sequence. */
  reset(shardId: number): void {
    for (const entry of this.#shards.get(shardId) ?? []) if (this.#byId.get(entry.id) === entry) this.#byId.delete(entry.id);
    this.#shards.delete(shardId);
    if (this.#idle.length > 0 && this.size === 0) for (const resolve of this.#idle.splice(0)) resolve();
  }

  /**
   * The sequence a successor of the shard may resume from: `received` when nothing is being handled, else the one before the
   * oldest interaction still handled. One older than an interaction token's lifetime no longer holds it (it cannot be answered).
   */
  resumableSequence(shardId: number, received: number | null): number | null {
    const entries = this.#shards.get(shardId);
    if (entries === undefined || received === null) return received;
    const oldest = this.#now() - INTERACTION_LIFETIME_MS;
    while (entries.length > 0 && (entries[0] as Entry).at < oldest) {
      const entry = entries.shift() as Entry;
      if (this.#byId.get(entry.id) === entry) this.#byId.delete(entry.id);
    }
    let lowest = received;
    for (const entry of entries) if (entry.sequence - 1 < lowest) lowest = entry.sequence - 1;
    return Math.max(0, lowest);
  }

  /** The last sequence of the shard emitted here: `received`, or the one before the oldest event of a fleet's switch not emitted yet. */
  emittedSequence(shardId: number, received: number | null): number | null {
    let lowest = received;
    for (const entry of this.#shards.get(shardId) ?? []) if (entry.unemitted && lowest !== null && entry.sequence - 1 < lowest) lowest = entry.sequence - 1;
    return lowest === null ? null : Math.max(0, lowest);
  }

  /** How many interactions are being handled, over every shard. */
  get size(): number {
    let count = 0;
    for (const entries of this.#shards.values()) count += entries.length;
    return count;
  }
}
