/**
 * The in-memory store's incoming-webhook state: each webhook's executions run
 * in order in this process, and its rolling window (30 a minute by default)
 * holds the times the latest attempts finished. An execution looks its lane
 * up once and carries it (a {@link WebhookTurns}); idle lanes are swept a few
 * at a time as new ones appear.
 *
 * @module
 */

import type { WaitGuard, WebhookWindowOptions } from './rate-limit-store.js';
import { wait } from '../core/wait.js';
import { RESOLVED, type Turns } from '../core/wait.js';
import type { WebhookTurns } from './webhook-lane.js';
import { IncrementalSweep } from './sweep.js';

/** One webhook's executions, in order (its queue), and its rolling window. */
export class WebhookLane implements Turns, WebhookTurns {
  tail: Promise<void> = RESOLVED;
  queued = 0;
  /** When the latest attempts finished (the newest `limit` of them). */
  completions: number[] = [];
  readonly #windows: WebhookWindows;

  constructor(windows: WebhookWindows) {
    this.#windows = windows;
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

/** Every webhook's lane and rolling window, in one process. */
export class WebhookWindows {
  /** The rolling window; `undefined` turns the limit off (executions still run in order). */
  window: WebhookWindowOptions | undefined;
  /** The store's clock. */
  readonly now: () => number;
  readonly #lanes = new Map<string, WebhookLane>();
  /** Each new lane checks a few held ones (`sweep.ts`); idle ones go. */
  readonly #sweep = new IncrementalSweep(this.#lanes, (id: string, lane: WebhookLane, now: number) => {
    if (this.#idleAt(lane, now)) this.#lanes.delete(id);
  });

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
      this.#sweep.step(this.now());
      lane = new WebhookLane(this);
      this.#lanes.set(webhookId, lane);
    }
    return lane;
  }

  /** Drops every lane with nothing queued whose executions have all left the window. */
  sweep(): void {
    const now = this.now();
    for (const [id, lane] of this.#lanes) if (this.#idleAt(lane, now)) this.#lanes.delete(id);
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
