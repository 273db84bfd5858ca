/**
 * The "answered" marks a worker still has to store (`event-worker.ts`): once the service accepted an interaction's answer,
 * its claim is marked answered, tried again until Redis takes it (`markAnsweredUntilTaken`: at once when the client is
 * connected again) for as long as the interaction lives (its creation + 15 minutes), and its entry acknowledged after
 * that. These retries run apart from the handlers under way, so `close()` never waits on a Redis that is down for them:
 * it stops them (the attempt under way settles within the command timeout) and names the interactions left unmarked.
 *
 * @module
 */

import type { ClaimKeys, ClaimScriptRunner } from './interaction-claim.js';
import { markAnsweredUntilTaken } from './interaction-claim.js';

/** One mark under way. */
interface Marking {
  readonly interactionId: string;
  /** Resolves whether the mark was stored. */
  readonly stored: Promise<boolean>;
  /** The mark, then the entry's acknowledgement once the handler settled. */
  done: Promise<unknown>;
}

/** Interactions answered whose mark was not stored when the worker closed. */
export interface UnmarkedEvent {
  /** Their stream entries (left pending: delivered again later). */
  ids: string[];
  /** The interactions. */
  interactionIds: string[];
}

/** The answered marks of one worker. */
export class AnsweredMarks {
  readonly #run: ClaimScriptRunner;
  readonly #ready: () => boolean;
  readonly #failed: (error: unknown) => void;
  readonly #stop = new AbortController();
  /** By stream entry, until the handler settled and the entry was acknowledged (or the mark given up). */
  readonly #marks = new Map<string, Marking>();

  constructor(run: ClaimScriptRunner, ready: () => boolean, failed: (error: unknown) => void) {
    this.#run = run;
    this.#ready = ready;
    this.#failed = failed;
  }

  /**
   * Starts marking the interaction of entry `id` answered, until `until` (monotonic); `stored` runs once Redis took it.
   * Resolves whether it was stored. Marking an entry already being marked returns the one under way. The handler's task
   * calls {@link afterStored} for it once it settled.
   */
  mark(id: string, interactionId: string, keys: ClaimKeys, until: number, stored: () => void): Promise<boolean> {
    const under = this.#marks.get(id);
    if (under !== undefined) return under.stored;
    const retry = { until, failed: this.#failed, ready: this.#ready, signal: this.#stop.signal };
    const done = markAnsweredUntilTaken(this.#run, keys, retry).then((ok) => {
      if (ok) stored();
      return ok;
    });
    this.#marks.set(id, { interactionId, stored: done, done });
    return done;
  }

  /** Once entry `id`'s mark is stored, runs `then` (its acknowledgement); nothing when it was not. Never rejects. */
  afterStored(id: string, then: () => Promise<void>): void {
    const marking = this.#marks.get(id);
    if (marking === undefined) return;
    marking.done = marking.stored
      .then((ok) => (ok ? then() : undefined))
      .catch(this.#failed)
      .finally(() => {
        if (this.#marks.get(id) === marking) this.#marks.delete(id);
      });
  }

  /** Stops every retry (each attempt under way settles first) and waits for them; resolves with those left unmarked. */
  async close(): Promise<UnmarkedEvent> {
    this.#stop.abort();
    const unmarked = await Promise.all(
      [...this.#marks].map(async ([id, marking]) => {
        const ok = await marking.stored;
        await marking.done;
        return ok ? [] : [{ id, interactionId: marking.interactionId }];
      }),
    );
    const flat = unmarked.flat();
    return { ids: flat.map((item) => item.id), interactionIds: flat.map((item) => item.interactionId) };
  }
}
