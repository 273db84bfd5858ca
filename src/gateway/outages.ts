import type { StoreRecoveredEvent } from '../observe/events.js';
import type { GatewaySessionStore } from './gateway-session-store.js';

/**
 * Failures of one component (the Gateway session store, the shard coordinator, the Identify throttle, the Redis rate-limit
 * store) reported once per outage, not once per failed call: the first failure is reported at once; the ones after it are
 * counted; the first success after them ends the outage, reported as a `storeRecovered` event with its duration and count. A
 * Redis paused for 8 s is two reports, not eighty. The one home of that bookkeeping.
 *
 * @module
 */

/** An outage that ended: its duration and failed calls, as its `storeRecovered` event carries them. */
type EndedOutage = Omit<StoreRecoveredEvent, 'store'>;

/**
 * Whether a component is failing, since when, and how often. With `settleMs`, an outage ends once the component has answered
 * and then gone `settleMs` without a failure: a component that fails one call in two (a cluster node down among several, a
 * latency around the timeout) is one outage while it flaps, not a report per flip. Its end is known at the first call after
 * that quiet time: an answer ends it ({@link Outage.recovered}); a failure ends it and starts the next one
 * ({@link Outage.failed}), so an outage answered soon after its last failure, then left alone, never swallows the next one.
 * It lasted from its first failure to the answer that ended it, or, ended by a failure, to the first answer after its last
 * failure (a clock set back counts as 0).
 */
export class Outage {
  readonly #now: () => number;
  readonly #settleMs: number;
  #since: number | undefined;
  #lastFailure = 0;
  /** The first answer after the last failure, while an outage is under way. */
  #answeredAt: number | undefined;
  #failures = 0;

  /**
   * @param now - a clock in milliseconds (@default performance.now)
   * @param settleMs - how long after its last failure an answer ends the outage (@default 0: the first answer)
   */
  constructor(now: () => number = () => performance.now(), settleMs = 0) {
    this.#now = now;
    this.#settleMs = settleMs;
  }

  /**
   * A call failed: `starts` when this failure starts an outage (report it), not when one is under way (it is counted);
   * `ended`, the outage before it, when that one had settled (answered, then quiet for `settleMs`) since its last failure.
   */
  failed(): { starts: boolean; ended: EndedOutage | undefined } {
    const now = this.#now();
    const ended = this.#answeredAt !== undefined && this.#settled(now) ? this.#end(this.#answeredAt) : undefined;
    this.#failures++;
    this.#lastFailure = now;
    this.#answeredAt = undefined;
    if (this.#since !== undefined) return { starts: false, ended };
    this.#since = now;
    return { starts: true, ended };
  }

  /** A call succeeded: the outage it ends, if one was under way and its last failure is `settleMs` old. */
  recovered(): EndedOutage | undefined {
    if (this.#since === undefined) return undefined;
    const now = this.#now();
    this.#answeredAt ??= now;
    return this.#settled(now) ? this.#end(now) : undefined;
  }

  /** Whether `settleMs` passed since the last failure (a clock set back reads as settled: the outage must not outlast the jump). */
  #settled(now: number): boolean {
    const quiet = now - this.#lastFailure;
    return quiet < 0 || quiet >= this.#settleMs;
  }

  /** Ends the outage under way at `at`. */
  #end(at: number): EndedOutage {
    const ended = { durationMs: Math.max(0, Math.round(at - (this.#since ?? at))), failures: this.#failures };
    this.#since = undefined;
    this.#answeredAt = undefined;
    this.#failures = 0;
    return ended;
  }
}

/**
 * How long after its last failure a flapping component must answer before its outage ends: a Gateway session store or Identify
 * throttle on a Redis that fails some calls and answers others is one outage, not a report per flip.
 */
export const SETTLE_MS = 5000;

/**
 * Reports a component's failures once per outage: its first failure (`onFailure`), then the answer that ended it, as the
 * `storeRecovered` event of `store` (`onRecovery`).
 */
export class OutageReporter {
  readonly #store: StoreRecoveredEvent['store'];
  readonly #outage: Outage;
  readonly #onFailure: (error: unknown) => void;
  readonly #onRecovery: (event: StoreRecoveredEvent) => void;

  /** `now` and `settleMs`: see {@link Outage}. */
  constructor(
    store: StoreRecoveredEvent['store'],
    onFailure: (error: unknown) => void,
    onRecovery: (event: StoreRecoveredEvent) => void,
    now?: () => number,
    settleMs?: number,
  ) {
    this.#store = store;
    this.#outage = new Outage(now, settleMs);
    this.#onFailure = onFailure;
    this.#onRecovery = onRecovery;
  }

  /** A call failed: reported when it starts an outage (`true`), counted when one is under way (`false`). */
  failed(error: unknown): boolean {
    const { starts, ended } = this.#outage.failed();
    if (ended !== undefined) this.#onRecovery({ store: this.#store, ...ended });
    if (starts) this.#onFailure(error);
    return starts;
  }

  /** A call was answered: ends the outage under way, if any (reported once). */
  answered(): void {
    const ended = this.#outage.recovered();
    if (ended !== undefined) this.#onRecovery({ store: this.#store, ...ended });
  }
}

/** What each component is called in a debug line. */
const NAMES: Record<StoreRecoveredEvent['store'], string> = {
  gatewaySession: 'Gateway session store',
  rateLimit: 'rate-limit store',
  shardCoordinator: 'shard coordinator',
  identifyThrottle: 'Identify throttle',
};

/** The debug line beside a `storeRecovered` event (the event is what to listen to; the line is for a human reading the log). */
export function recoveredLine({ store, durationMs, failures }: StoreRecoveredEvent): string {
  return `the ${NAMES[store]} answers again, after ${durationMs} ms of failures (${failures} failed calls)`;
}

/** `store`, telling `answered` of each call it answered (a failure is its caller's to report). */
export function answeringStore(store: GatewaySessionStore, answered: () => void): GatewaySessionStore {
  const seen = <T>(value: T): T => {
    answered();
    return value;
  };
  const { restore } = store;
  return {
    load: (shardId, shardCount) => store.load(shardId, shardCount).then(seen),
    save: (shardId, shardCount, record) => store.save(shardId, shardCount, record).then(seen),
    ...(restore === undefined ? {} : { restore: (shardId, shardCount, record) => restore.call(store, shardId, shardCount, record).then(seen) }),
  };
}
