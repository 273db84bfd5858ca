/**
 * The in-memory store's incoming-webhook state: each webhook's executions run
 * in order in this process, and its rolling window (30 a minute by default)
 * holds the times the latest attempts finished. An execution looks its lane
 * up once and carries it (a {@link WebhookTurns}); idle lanes are swept as
 * new ones appear, the oldest first.
 *
 * @module
 */

import type { WaitGuard, WebhookWindowOptions } from './rate-limit-store.js';
import { RESOLVED, type Turns, wait } from '../core/wait.js';
import type { WebhookTurns } from './webhook-lane.js';

/** One webhook's executions, in order (its queue), and its rolling window. */
export class WebhookLane implements Turns, WebhookTurns {
  tail: Promise<void> = RESOLVED;
  queued = 0;
  /** When the latest attempts finished (the newest `limit` of them). */
  completions: number[] = [];
  readonly #windows: WebhookWindows;
  /** The webhook's id, its key in the lanes held. */
  readonly id: string;

  constructor(windows: WebhookWindows, id: string) {
    this.#windows = windows;
    this.id = id;
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
    const now = this.#windows.now();
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
}

/** The most idle lanes one new lane drops. */
const SWEEP_STEP = 8;

/** Every webhook's lane and rolling window, in one process. */
export class WebhookWindows {
  /** The rolling window; `undefined` turns the limit off (executions still run in order). */
  window: WebhookWindowOptions | undefined;
  /** The store's clock. */
  readonly now: () => number;
  readonly #lanes = new Map<string, WebhookLane>();
  /**
   * The sweep's queue: every held lane once, oldest first from `#head`. A new lane checks the oldest: idle ones go (up to
   * {@link SWEEP_STEP}), and the first live one goes to the back. While every lane is live (a bot executing 50,000 webhooks
   * a minute) a new lane costs one check and no allocation; a lane left idle waits at most one lap of the queue.
   */
  #queue: (WebhookLane | undefined)[] = [];
  #head = 0;

  constructor(now: () => number, window: WebhookWindowOptions | undefined) {
    this.now = now;
    this.window = window;
  }

  /** How many webhooks are held. */
  get size(): number {
    return this.#lanes.size;
  }

  /** The webhook's lane, created when it has none: an execution looks it up once, and it stays held while anything is queued in it. */
  lane(webhookId: string): WebhookLane {
    let lane = this.#lanes.get(webhookId);
    if (lane === undefined) {
      // Swept before the new lane joins, so the sweep cannot drop it.
      this.#step(this.now());
      lane = new WebhookLane(this, webhookId);
      this.#lanes.set(webhookId, lane);
      this.#queue.push(lane);
    }
    return lane;
  }

  /** Drops every lane with nothing queued whose executions have all left the window. */
  sweep(): void {
    const now = this.now();
    for (const [id, lane] of this.#lanes) if (this.#idleAt(lane, now)) this.#lanes.delete(id);
    this.#queue = [...this.#lanes.values()];
    this.#head = 0;
  }

  /** Checks the oldest lanes: drops idle ones, up to {@link SWEEP_STEP}, until one is live, which goes to the back. */
  #step(now: number): void {
    const queue = this.#queue;
    for (let checked = 0; checked < SWEEP_STEP && this.#head < queue.length; checked++) {
      const lane = queue[this.#head] as WebhookLane;
      queue[this.#head++] = undefined;
      if (!this.#idleAt(lane, now)) {
        queue.push(lane);
        break;
      }
      this.#lanes.delete(lane.id);
    }
    // The checked places are cut off once they are most of the array (each place is moved once: O(1) a lane).
    if (this.#head > 64 && this.#head * 2 > queue.length) {
      queue.splice(0, this.#head);
      this.#head = 0;
    }
  }

  /** Milliseconds until one more execution of `lane` fits (0: now), after dropping completions that left the window. */
  waitMs(lane: WebhookLane, window: WebhookWindowOptions): number {
    const now = this.now();
    const completions = lane.completions;
    while (completions.length > 0 && (completions[0] as number) <= now - window.windowMs) completions.shift();
    return completions.length < window.limit ? 0 : (completions[0] as number) + window.windowMs - now + 1;
  }

  #idleAt(lane: WebhookLane, now: number): boolean {
    return lane.queued === 0 && (lane.completions.at(-1) ?? -Infinity) <= now - (this.window?.windowMs ?? 0);
  }
}
