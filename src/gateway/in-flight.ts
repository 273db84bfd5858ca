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
  readonly sequence: number;
  readonly at: number;
}

/** Per shard, the sequences of the interactions being handled, oldest first. */
export class InFlightInteractions {
  readonly #shards = new Map<number, Entry[]>();
  readonly #shardOf = new Map<string, number>();
  readonly #idle: (() => void)[] = [];
  readonly #now: () => number;

  /** @param now - a monotonic clock in milliseconds (@default performance.now) */
  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
  }

  /**
   * Records an interaction of this sequence as being handled on the shard; the function returned marks it done. An interaction
   * without a sequence is not tracked (its session could not be resumed before it anyway).
   */
  begin(shardId: number, id: string, sequence: number | null): () => void {
    if (sequence === null) return () => undefined;
    let entries = this.#shards.get(shardId);
    if (entries === undefined) {
      entries = [];
      this.#shards.set(shardId, entries);
    }
    const entry: Entry = { id, sequence, at: this.#now() };
    entries.push(entry);
    this.#shardOf.set(id, shardId);
    const list = entries;
    return () => {
      const index = list.indexOf(entry);
      if (index >= 0) list.splice(index, 1);
      if (this.#shardOf.get(id) === shardId) this.#shardOf.delete(id);
      if (this.#idle.length > 0 && this.size === 0) for (const resolve of this.#idle.splice(0)) resolve();
    };
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
    return this.#shardOf.get(id);
  }

  /** The shard's session started anew (READY) or the shard left this process: what it was handling no longer holds its sequence. */
  reset(shardId: number): void {
    for (const entry of this.#shards.get(shardId) ?? []) if (this.#shardOf.get(entry.id) === shardId) this.#shardOf.delete(entry.id);
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
    while (entries.length > 0 && (entries[0] as Entry).at < oldest) this.#shardOf.delete((entries.shift() as Entry).id);
    let lowest = received;
    for (const entry of entries) if (entry.sequence - 1 < lowest) lowest = entry.sequence - 1;
    return Math.max(0, lowest);
  }

  /** How many interactions are being handled, over every shard. */
  get size(): number {
    let count = 0;
    for (const entries of this.#shards.values()) count += entries.length;
    return count;
  }
}
