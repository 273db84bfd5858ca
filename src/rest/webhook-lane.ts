/**
 * One webhook execution's hold on its webhook's rolling window, looked up
 * once per call and passed along it: the in-memory store's lane itself (its
 * queue, the one per-key queue of `core/wait.ts`, and its window), or, for
 * any other store, its interface by webhook id.
 *
 * @module
 */

import type { RateLimitStore, WaitGuard } from './rate-limit-store.js';

/** A webhook's turns in its window, as the pipeline takes and gives them back for one execution. */
export interface WebhookTurns {
  /** `true` when one more execution fits in the window now, its place then held (else call {@link WebhookTurns.turn}). */
  tryTurn(): boolean;
  /** Waits until one more execution fits in the window (calling `guard` before each wait), and holds that place. */
  turn(signal: AbortSignal | undefined, guard: WaitGuard): Promise<void>;
  /** Gives back the turn taken with `signal` (`undefined` for one of {@link WebhookTurns.tryTurn}). */
  done(signal: AbortSignal | undefined): void;
}

/** A webhook's turns through a store's interface, by the webhook's id (a store other than the in-memory one). */
export function turnsById(store: RateLimitStore, webhookId: string): WebhookTurns {
  return {
    tryTurn: () => store.tryWebhookTurn?.(webhookId) === true,
    turn: (signal, guard) => store.webhookTurn(webhookId, signal, guard),
    done: (signal) => store.webhookDone(webhookId, signal),
  };
}
