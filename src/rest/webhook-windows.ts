/**
 * The in-memory store's incoming-webhook state: each webhook's executions run
 * in order in this process, and its rolling window (30 a minute by default)
 * holds the times the latest attempts finished. An execution looks its lane
 * up once and carries it (a {@link WebhookTurns}). A webhook whose window
 * holds one execution and nothing queued is kept as that execution's time
 * alone (a number, no lane: most webhooks a bot posts through are executed
 * once a minute or less); idle ones are swept as new ones appear, the oldest
 * first.
 *
 * @module
 */

import type { WaitGuard, WebhookWindowOptions } from './rate-limit-store.js';
import { RESOLVED, type Turns, wait } from '../core/wait.js';
import type { WebhookTurns } from './webhook-lane.js';

/** The completions of a lane that has none yet: shared, never written (a first completion replaces it). */
const NONE: readonly number[] = [];

/** One webhook's executions, in order (its queue), and its rolling window. */
export class WebhookLane implements Turns, WebhookTurns {
  tail: Promise<void> = RESOLVED;
  queued = 0;
  /** When the latest attempts finished (the newest `limit` of them), on the windows' clock ({@link WebhookWindows.time}). */
  completions: number[];
  /** `false` once the windows no longer hold this lane under its id (dropped, or kept as a number): it then writes nothing back. */
  held = true;
  readonly #windows: WebhookWindows;
  /** The webhook's id, its key in the lanes held. */
  readonly id: string;

  constructor(windows: WebhookWindows, id: string, completions: readonly number[]) {
    this.#windows = windows;
    this.id = id;
    this.completions = completions as number[];
  }

  /** `true` when one more execution fits in the window now. */
  tryTurn(): boolean {
    const window = this.#windows.window;
    return window === undefined || this.#windows.waitMs(this, window) === 0;
  }

  /** Waits until one more execution fits in the window (calling `guard` before each wait). */
  async turn(signal: AbortSignal | undefined, guard: WaitGuard): Promise<void> {
    const windows = this.#windows;
    const window = windows.window;
    if (window === undefined) return;
    for (let ms = windows.waitMs(this, window); ms > 0; ms = windows.waitMs(this, window)) {
      guard(ms, 'webhook');
      await wait(ms, { signal });
    }
  }

  /** Records that an execution attempt finished (or failed). */
  done(): void {
    const now = this.#windows.time();
    const completions = this.completions;
    // A first completion gets an array of its own size: most webhooks are idle between executions, and a push would reserve 17 places.
    if (completions.length === 0) {
      this.completions = [now];
      return;
    }
    completions.push(now);
    // Only the newest `limit` completions decide the next turn.
    if (completions.length > (this.#windows.window?.limit ?? 0)) completions.shift();
  }

  /** Told by the queue when its last execution has settled: the windows keep the lane, or only its one completion. */
  idle(): void {
    this.#windows.settle(this);
  }
}

/** The most idle webhooks one new webhook drops. */
const SWEEP_STEP = 8;

/**
 * What is held of one webhook: its lane, or, for a webhook with nothing
 * queued and one execution in its window, that execution's time alone.
 */
type Held = WebhookLane | number;

/** Every webhook's lane and rolling window, in one process. */
export class WebhookWindows {
  /** The rolling window; `undefined` turns the limit off (executions still run in order). */
  window: WebhookWindowOptions | undefined;
  readonly #now: () => number;
  /**
   * The clock's first reading: times are kept from it, small whole numbers for a millisecond clock (no heap number each) for the
   * first 2^31 ms (24.8 days) of the store; after that each held time is a heap number of 16 bytes more (still bounded).
   */
  #epoch: number | undefined;
  /** Each webhook's lane, or its one execution's time. */
  readonly #held = new Map<string, Held>();
  /**
   * The sweep's queue: every held webhook's id once, oldest first from `#head`. A new webhook checks the oldest: idle ones
   * go (up to {@link SWEEP_STEP}), and the first live one goes to the back. While every webhook is live (a bot executing
   * 50,000 webhooks a minute) a new one costs one check; a webhook left idle waits at most one lap of the queue.
   */
  #queue: (string | undefined)[] = [];
  #head = 0;

  constructor(now: () => number, window: WebhookWindowOptions | undefined) {
    this.#now = now;
    this.window = window;
  }

  /** The store's clock, from its first reading. */
  time(): number {
    const now = this.#now();
    this.#epoch ??= now;
    return now - this.#epoch;
  }

  /** How many webhooks are held. */
  get size(): number {
    return this.#held.size;
  }

  /** The webhook's lane, made when it has none (from its one execution's time, when held): an execution looks it up once, and it stays held while anything is queued in it. */
  lane(webhookId: string): WebhookLane {
    const held = this.#held.get(webhookId);
    if (typeof held === 'object') return held;
    let completions = NONE;
    if (held === undefined) {
      // Swept before the new webhook joins, so the sweep cannot drop it.
      this.#step(this.time());
    } else if (this.window !== undefined && held > this.time() - this.window.windowMs) {
      completions = [held];
    }
    const lane = new WebhookLane(this, webhookId, completions);
    this.#held.set(webhookId, lane);
    if (held === undefined) this.#queue.push(webhookId);
    return lane;
  }

  /**
   * A lane whose executions have all settled: kept while its window holds two or more, else only the one's time (or, with
   * none, or no window, a time already out of it: the sweep drops it, and its id leaves the sweep's queue with it).
   */
  settle(lane: WebhookLane): void {
    if (!lane.held) return;
    const completions = lane.completions;
    const window = this.window;
    if (completions.length > 1 && window !== undefined) return;
    lane.held = false;
    this.#held.set(lane.id, completions.length === 0 || window === undefined ? Number.NEGATIVE_INFINITY : (completions[0] as number));
  }

  /** Drops every webhook with nothing queued whose executions have all left the window. */
  sweep(): void {
    const now = this.time();
    for (const [id, held] of this.#held) if (this.#idleAt(held, now)) this.#drop(id, held);
    this.#queue = [...this.#held.keys()];
    this.#head = 0;
  }

  /** Checks the oldest webhooks: drops idle ones, up to {@link SWEEP_STEP}, until one is live, which goes to the back. */
  #step(now: number): void {
    const queue = this.#queue;
    for (let checked = 0; checked < SWEEP_STEP && this.#head < queue.length; checked++) {
      const id = queue[this.#head] as string;
      queue[this.#head++] = undefined;
      const held = this.#held.get(id) as Held;
      if (!this.#idleAt(held, now)) {
        queue.push(id);
        break;
      }
      this.#drop(id, held);
    }
    // The checked places are cut off once they are most of the array (each place is moved once: O(1) a webhook).
    if (this.#head > 64 && this.#head * 2 > queue.length) {
      queue.splice(0, this.#head);
      this.#head = 0;
    }
  }

  #drop(id: string, held: Held): void {
    this.#held.delete(id);
    if (typeof held === 'object') held.held = false;
  }

  /** Milliseconds until one more execution of `lane` fits (0: now), after dropping completions that left the window. */
  waitMs(lane: WebhookLane, window: WebhookWindowOptions): number {
    const now = this.time();
    const completions = lane.completions;
    while (completions.length > 0 && (completions[0] as number) <= now - window.windowMs) completions.shift();
    return completions.length < window.limit ? 0 : (completions[0] as number) + window.windowMs - now + 1;
  }

  #idleAt(held: Held, now: number): boolean {
    const last = typeof held === 'number' ? held : held.queued === 0 ? (held.completions.at(-1) ?? -Infinity) : Infinity;
    return last <= now - (this.window?.windowMs ?? 0);
  }
}
