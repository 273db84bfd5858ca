/**
 * The bodies the receiver's adapters are reading, at most `max` at once.
 * When every place is taken, a new request does not wait behind senders that
 * trickle their bodies (slowloris): the slowest pending body, by bytes per
 * millisecond since it started, is evicted (answered 408, its connection
 * closed) to make room, among those pending for at least
 * {@link EVICTION_GRACE_MS}, so a body that has only just started is never the
 * one evicted. Only when every pending body is younger than that is the new
 * request answered 503. A delivery whose body arrives at once is pending for
 * a moment only, so an attacker holding every place cannot keep it out.
 *
 * @module
 */

/** How long a body is pending before it may be evicted for a newer request. */
export const EVICTION_GRACE_MS = 1000;

/** One place taken by a body being read. */
export interface BodySlot {
  /** Counts bytes received (its rate decides which body is evicted first). */
  received(bytes: number): void;
  /** What to do when the body is evicted: stop reading, answer 408 and drop the connection. Called at most once. */
  onEvict(evict: () => void): void;
  /** Gives the place back (the body was read, refused, or broke off). */
  done(): void;
}

class Slot implements BodySlot {
  bytes = 0;
  #evict: (() => void) | undefined;
  constructor(
    readonly startedAt: number,
    readonly release: (slot: Slot) => void,
  ) {}
  received(bytes: number): void {
    this.bytes += bytes;
  }
  onEvict(evict: () => void): void {
    this.#evict = evict;
  }
  done(): void {
    this.release(this);
  }
  evict(): void {
    const evict = this.#evict;
    this.#evict = undefined;
    evict?.();
  }
}

/** The pending bodies of one receiver. */
export class PendingBodies {
  readonly #slots = new Set<Slot>();
  readonly #max: number;
  readonly #now: () => number;
  readonly #release = (slot: Slot) => void this.#slots.delete(slot);

  constructor(max: number, now: () => number) {
    this.#max = max;
    this.#now = now;
  }

  /** How many bodies are being read now. */
  get size(): number {
    return this.#slots.size;
  }

  /** Takes a place, evicting the slowest body past its grace when all are taken; `undefined` when none can be evicted. */
  start(): BodySlot | undefined {
    if (this.#slots.size >= this.#max && !this.#evictSlowest()) return undefined;
    const slot = new Slot(this.#now(), this.#release);
    this.#slots.add(slot);
    return slot;
  }

  #evictSlowest(): boolean {
    const now = this.#now();
    let slowest: Slot | undefined;
    let lowest = Number.POSITIVE_INFINITY;
    for (const slot of this.#slots) {
      const age = now - slot.startedAt;
      if (age < EVICTION_GRACE_MS) continue;
      const rate = slot.bytes / age;
      if (rate < lowest) [slowest, lowest] = [slot, rate];
    }
    if (slowest === undefined) return false;
    this.#slots.delete(slowest);
    slowest.evict();
    return true;
  }
}
