/**
 * The bodies the receiver's adapters are reading, at most `max` at once.
 * When every place is taken, a new request does not wait behind senders that
 * trickle their bodies or send none (slowloris): a place becomes evictable
 * once no byte has arrived on it for {@link IDLE_EVICTION_MS} (a real
 * delivery's body follows its headers within milliseconds), or once it has
 * been pending for {@link EVICTION_GRACE_MS}; among those, the one silent the
 * longest is evicted (answered 408, its connection closed). When none is
 * evictable, a source (the peer's address) holding more than a quarter of the
 * places gives up its stalest one. Only when neither applies is the new
 * request answered 503. Every age is measured on a steady clock
 * (`performance.now()`), never on the receiver's signature clock, so a frozen
 * or shifted test clock cannot disable eviction.
 *
 * @module
 */

/** How long a pending body may go without a byte before it may be evicted for a newer request. */
export const IDLE_EVICTION_MS = 100;

/** How long a body is pending before it may be evicted for a newer request, however recently its last byte came. */
export const EVICTION_GRACE_MS = 1000;

/** One place taken by a body being read. */
export interface BodySlot {
  /** Counts bytes received (the time of the last one decides which body is evicted first). */
  received(bytes: number): void;
  /** What to do when the body is evicted: stop reading, answer 408 and drop the connection. Called at most once. */
  onEvict(evict: () => void): void;
  /** Gives the place back (the body was read, refused, or broke off). */
  done(): void;
}

class Slot implements BodySlot {
  lastByteAt: number;
  #evict: (() => void) | undefined;
  constructor(
    readonly startedAt: number,
    readonly source: string,
    readonly now: () => number,
    readonly release: (slot: Slot) => void,
  ) {
    this.lastByteAt = startedAt;
  }
  received(bytes: number): void {
    if (bytes > 0) this.lastByteAt = this.now();
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
  /** Places held per source; an entry exists only while its source holds a place (at most `max` entries). */
  readonly #perSource = new Map<string, number>();
  readonly #max: number;
  readonly #share: number;
  readonly #now: () => number;
  readonly #release = (slot: Slot) => {
    if (!this.#slots.delete(slot)) return;
    const held = (this.#perSource.get(slot.source) ?? 1) - 1;
    if (held > 0) this.#perSource.set(slot.source, held);
    else this.#perSource.delete(slot.source);
  };

  /**
   * @param max - Most places at once.
   * @param now - The steady clock, milliseconds. @default performance.now
   */
  constructor(max: number, now: () => number = () => performance.now()) {
    this.#max = max;
    this.#share = Math.max(1, Math.floor(max / 4));
    this.#now = now;
  }

  /** How many bodies are being read now. */
  get size(): number {
    return this.#slots.size;
  }

  /**
   * Takes a place for a body from `source` (the peer's address; one shared source when unknown), evicting one when all
   * are taken (see the module's description); `undefined` when none can be evicted.
   */
  start(source = ''): BodySlot | undefined {
    if (this.#slots.size >= this.#max && !this.#evict(this.#now())) return undefined;
    const slot = new Slot(this.#now(), source, this.#now, this.#release);
    this.#slots.add(slot);
    this.#perSource.set(source, (this.#perSource.get(source) ?? 0) + 1);
    return slot;
  }

  #evict(now: number): boolean {
    let stalest: Slot | undefined;
    for (const slot of this.#slots) {
      const evictable = now - slot.lastByteAt >= IDLE_EVICTION_MS || now - slot.startedAt >= EVICTION_GRACE_MS;
      if (evictable && (stalest === undefined || slot.lastByteAt < stalest.lastByteAt)) stalest = slot;
    }
    stalest ??= this.#overShare();
    if (stalest === undefined) return false;
    this.#release(stalest);
    stalest.evict();
    return true;
  }

  /** The stalest place of the source holding the most places, if it holds more than its share. */
  #overShare(): Slot | undefined {
    let busiest = '';
    let most = 0;
    for (const [source, held] of this.#perSource) if (held > most) [busiest, most] = [source, held];
    if (most <= this.#share) return undefined;
    let stalest: Slot | undefined;
    for (const slot of this.#slots) if (slot.source === busiest && (stalest === undefined || slot.lastByteAt < stalest.lastByteAt)) stalest = slot;
    return stalest;
  }
}
