/**
 * The in-memory store's incoming-webhook state: each webhook's executions run
 * in order in this process, and its rolling window (30 a minute by default)
 * holds the times the latest attempts finished. Idle windows are swept a few
 * at a time as new ones appear.
 *
 * @module
 */

import type { WaitGuard, WebhookWindowOptions } from './rate-limit-store.js';
import { wait } from '../core/wait.js';
import { IncrementalSweep } from './sweep.js';
import { RESOLVED, runInTurn } from '../core/wait.js';
import type { WebhookLane } from './webhook-lane.js';

/** Every webhook's lane and rolling window, in one process. */
export class WebhookWindows {
  /** The rolling window; `undefined` turns the limit off (executions still run in order). */
  window: WebhookWindowOptions | undefined;
  readonly #now: () => number;
  readonly #lanes = new Map<string, WebhookLane>();
  /** Each new lane checks a few held ones; idle ones go. */
  readonly #sweep = new IncrementalSweep(this.#lanes, (id: string, lane: WebhookLane, now: number) => {
    if (this.#idleAt(lane, now)) this.#forget(id);
  });
  /**
   * The lane looked up last: one execution asks for its lane three times in a
   * row (idle?, serialize, window turn), and with tens of thousands of
   * webhooks each map lookup is a cache miss.
   */
  #lastId: string | undefined;
  #last: WebhookLane | undefined;

  constructor(now: () => number, window: WebhookWindowOptions | undefined) {
    this.#now = now;
    this.window = window;
  }

  /** How many webhooks are held. */
  get size(): number {
    return this.#lanes.size;
  }

  /** Whether no execution of the webhook is queued. */
  idle(webhookId: string): boolean {
    return (this.#lane(webhookId)?.queued ?? 0) === 0;
  }

  /** Runs `task` after every earlier task of the same webhook, in order. */
  serialize<T>(webhookId: string, task: () => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
    return runInTurn(this.#lane(webhookId) ?? this.#create(webhookId), task, signal);
  }

  /** Whether one more execution fits in the window now. */
  tryTurn(webhookId: string): boolean {
    const window = this.window;
    const lane = this.#lane(webhookId);
    if (!window || !lane) return true;
    return this.#waitMs(lane, window) === 0;
  }

  /** Waits until one more execution fits in the window (calling `guard` before each wait). */
  async turn(webhookId: string, signal: AbortSignal | undefined, guard: WaitGuard): Promise<void> {
    const window = this.window;
    const lane = this.#lane(webhookId);
    if (!window || !lane) return;
    for (let ms = this.#waitMs(lane, window); ms > 0; ms = this.#waitMs(lane, window)) {
      guard(ms, 'webhook');
      await wait(ms, { signal });
    }
  }

  /** Records that an execution attempt finished (or failed). */
  done(webhookId: string): void {
    // A lane exists when the execution ran through serialize(); a store used through its interface alone gets one here.
    const lane = this.#lane(webhookId) ?? this.#create(webhookId);
    const completions = lane.completions;
    // A first completion gets an array of its own size: most webhooks are idle between executions, and a push would reserve 17 places.
    if (completions.length === 0) {
      lane.completions = [this.#now()];
      return;
    }
    completions.push(this.#now());
    // Only the newest `limit` completions decide the next turn.
    if (completions.length > (this.window?.limit ?? 0)) completions.shift();
  }

  /** Drops every lane with nothing queued whose executions have all left the window. */
  sweep(): void {
    const now = this.#now();
    for (const [id, lane] of this.#lanes) if (this.#idleAt(lane, now)) this.#forget(id);
  }

  /** Milliseconds until one more execution fits (0: now), after dropping completions that left the window. */
  #waitMs(lane: WebhookLane, window: WebhookWindowOptions): number {
    const now = this.#now();
    const completions = lane.completions;
    while (completions.length > 0 && (completions[0] as number) <= now - window.windowMs) completions.shift();
    return completions.length < window.limit ? 0 : (completions[0] as number) + window.windowMs - now + 1;
  }

  #idleAt(lane: WebhookLane, now: number): boolean {
    return lane.queued === 0 && (lane.completions.at(-1) ?? -Infinity) <= now - (this.window?.windowMs ?? 0);
  }

  #create(webhookId: string): WebhookLane {
    this.#sweep.step(this.#now());
    const lane: WebhookLane = { tail: RESOLVED, queued: 0, completions: [] };
    this.#lanes.set(webhookId, lane);
    this.#lastId = webhookId;
    this.#last = lane;
    return lane;
  }

  #lane(webhookId: string): WebhookLane | undefined {
    if (this.#lastId === webhookId) return this.#last;
    const lane = this.#lanes.get(webhookId);
    this.#lastId = webhookId;
    this.#last = lane;
    return lane;
  }

  #forget(id: string): void {
    this.#lanes.delete(id);
    if (this.#lastId === id) {
      this.#lastId = undefined;
      this.#last = undefined;
    }
  }
}
