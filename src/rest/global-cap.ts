/**
 * The in-memory store's proactive global cap: at most `limit` requests of
 * the client finish in any window of `windowMs`, counting those in flight.
 *
 * @module
 */

import type { GlobalRateLimitOptions } from './rate-limit-store.js';

/** How often a request polls a full cap whose places are all in flight. */
const GLOBAL_POLL_MS = 10;

/** The cap's state: completion times of the latest requests (the newest `limit`) and the requests in flight. */
export class GlobalCap {
  /** The cap, or `undefined` when off (then nothing is counted). */
  options: GlobalRateLimitOptions | undefined;
  readonly #times: number[] = [];
  #inFlight = 0;

  /** Milliseconds until the cap has a place (0 when off or free). */
  delay(now: number): number {
    const cap = this.options;
    if (cap === undefined) return 0;
    const times = this.#times;
    while (times.length > 0 && (times[0] as number) <= now - cap.windowMs) times.shift();
    if (times.length + this.#inFlight < cap.limit) return 0;
    return times.length > 0 ? (times[0] as number) + cap.windowMs - now + 1 : GLOBAL_POLL_MS;
  }

  /** Counts a request as in flight. */
  take(): void {
    if (this.options !== undefined) this.#inFlight++;
  }

  /** Counts a request in flight as finished at `now`. */
  done(now: number): void {
    const cap = this.options;
    if (cap === undefined || this.#inFlight === 0) return;
    this.#inFlight--;
    this.#times.push(now);
    if (this.#times.length > cap.limit) this.#times.shift();
  }
}
