/**
 * The incremental sweep of a map of rate-limit state: each new entry checks a
 * few held ones, in turn, round and round.
 *
 * @module
 */

/**
 * How many held entries each new one checks: the sweep costs O(1) per new
 * entry however many are held (a full sweep every N new entries costs O(held)
 * each time, which a bot touching 50,000 live webhooks pays on every call),
 * and leaves idle state behind for at most about held / 8 new entries.
 */
const SWEEP_STEP = 8;

/** Walks a map a few entries per {@link IncrementalSweep.step}, handing each to `visit`, which may delete it. */
export class IncrementalSweep<K, V> {
  readonly #map: Map<K, V>;
  readonly #visit: (key: K, value: V, now: number) => void;
  #cursor: MapIterator<[K, V]> | undefined;

  /** `visit` is created once with its owner, so a step allocates nothing. */
  constructor(map: Map<K, V>, visit: (key: K, value: V, now: number) => void) {
    this.#map = map;
    this.#visit = visit;
  }

  /** Visits the next few entries (fewer at the end of a lap; the next step starts a new one). */
  step(now: number): void {
    for (let i = 0; i < SWEEP_STEP; i++) {
      this.#cursor ??= this.#map.entries();
      const next = this.#cursor.next();
      if (next.done === true) {
        this.#cursor = undefined;
        return;
      }
      this.#visit(next.value[0], next.value[1], now);
    }
  }
}
