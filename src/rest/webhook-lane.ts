/**
 * One webhook's executions in one process: their queue (the one per-key
 * queue of `core/wait.ts`) and, for the in-memory store, when the latest of
 * them finished.
 *
 * @module
 */

import type { Turns } from '../core/wait.js';

/** One webhook's executions, in order, and their rolling window. */
export interface WebhookLane extends Turns {
  /** When the latest attempts finished (the newest `limit` of them). */
  completions: number[];
}
