/**
 * Failures of one component (the shard coordinator) reported once per outage, not once per failed call: the first failure
 * is reported at once; the ones after it are counted; the first success after them ends the outage, reported with its
 * duration and count. A Redis paused for 8 s is two reports, not eighty.
 *
 * @module
 */

/** An outage that ended. */
interface EndedOutage {
  /** From its first failure to the success that ended it, milliseconds. */
  durationMs: number;
  /** How many calls failed during it. */
  failures: number;
}

/** Whether a component is failing, since when, and how often. */
export class Outage {
  readonly #now: () => number;
  #since: number | undefined;
  #failures = 0;

  /** @param now - a monotonic clock in milliseconds (@default performance.now) */
  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
  }

  /** A call failed: `true` when this failure starts an outage (report it), `false` when one is under way (it is counted). */
  failed(): boolean {
    this.#failures++;
    if (this.#since !== undefined) return false;
    this.#since = this.#now();
    return true;
  }

  /** A call succeeded: the outage it ends, if one was under way. */
  recovered(): EndedOutage | undefined {
    if (this.#since === undefined) return undefined;
    const ended = { durationMs: Math.round(this.#now() - this.#since), failures: this.#failures };
    this.#since = undefined;
    this.#failures = 0;
    return ended;
  }
}
