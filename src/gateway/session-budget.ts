/**
 * The session start budget: Discord allows a bot a number of Identify per
 * day (`session_start_limit` of `GET /gateway/bot`; 1,000), and resets the
 * token of a bot that goes past it. Resumes do not count. Before each
 * Identify the Gateway asks the service how many starts are left (the
 * service's count is the one every process shares) and refuses, with a
 * `SessionBudgetError`, to spend the last `reserve` of them.
 *
 * @module
 */

import { SessionBudgetError } from '../errors/index.js';
import { clampNumber } from '../core/bounds.js';
import { channels, type GatewaySessionBudgetMessage } from '../observe/diagnostics.js';
import type { IdentifyThrottle } from './identify-throttle.js';
import type { ShardPlan } from './shard-plan.js';

/** What a shard waits for before it identifies: its turn under the throttle (when given one), then the session start budget. */
export function identifyGate(
  throttle: IdentifyThrottle | undefined,
  budget: Pick<SessionBudget, 'take'> | undefined,
  plan: Pick<ShardPlan, 'count' | 'maxConcurrency'>,
): ((shardId: number, signal: AbortSignal) => Promise<void>) | undefined {
  const turn =
    throttle && ((shardId: number, signal: AbortSignal) => throttle.wait({ shardId, shardCount: plan.count, maxConcurrency: plan.maxConcurrency, signal }));
  if (budget === undefined) return turn;
  return turn ? (shardId, signal) => turn(shardId, signal).then(() => budget.take()) : () => budget.take();
}

/** `session_start_limit` of `GET /gateway/bot`, in milliseconds. */
interface SessionStartLimit {
  total: number;
  remaining: number;
  resetAfterMs: number;
}

/**
 * The longest `reset_after` believed: a day (Discord's budget is daily). A larger one is cut to this, so a broken or
 * hostile value can neither hold the shards back for longer nor, past 2^31 - 1 ms, become a 1 ms timer that asks
 * `GET /gateway/bot` in a loop.
 */
export const MAX_SESSION_RESET_MS = 86_400_000;

const count = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 0;

/** Reads `session_start_limit` from a `GET /gateway/bot` body; `undefined` when it is missing or malformed. */
export function readSessionStartLimit(body: unknown): SessionStartLimit | undefined {
  const limit = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)['session_start_limit'] : undefined;
  if (typeof limit !== 'object' || limit === null) return undefined;
  const { total, remaining, reset_after: resetAfter } = limit as Record<string, unknown>;
  if (!count(total) || !count(remaining) || !count(resetAfter) || remaining > total) return undefined;
  return { total, remaining, resetAfterMs: clampNumber(resetAfter, 0, MAX_SESSION_RESET_MS, MAX_SESSION_RESET_MS) };
}

/** The reserve kept when none is configured: 5% of the daily budget, at least 1. */
export function defaultReserve(total: number): number {
  return Math.max(1, Math.ceil(total * 0.05));
}

/** Guards Identify against spending the last `reserve` session starts. */
export class SessionBudget {
  readonly #read: () => Promise<unknown>;
  readonly #reserve: number | undefined;
  readonly #now: () => number;
  readonly #debug: (line: string) => void;
  /** The last count the service gave, less the Identify sent since, and when it resets (this host's clock). */
  #known: { total: number; remaining: number; resetsAt: number } | undefined;

  /**
   * `read` asks `GET /gateway/bot` (failing fast); `reserve` is the number
   * of starts never spent (`undefined`: {@link defaultReserve}).
   */
  constructor(read: () => Promise<unknown>, reserve: number | undefined, now: () => number, debug: (line: string) => void) {
    this.#read = read;
    this.#reserve = reserve;
    this.#now = now;
    this.#debug = debug;
  }

  /**
   * Counts one Identify, or rejects with `SessionBudgetError` when the starts
   * left are down to the reserve. When the service cannot be asked, the
   * count last given (less the Identify since) decides; with none, the
   * Identify goes ahead.
   */
  async take(): Promise<void> {
    const fresh = await this.#read().then(readSessionStartLimit, () => undefined);
    const now = this.#now();
    if (fresh !== undefined) this.#known = { total: fresh.total, remaining: fresh.remaining, resetsAt: now + fresh.resetAfterMs };
    else if (this.#known !== undefined && now >= this.#known.resetsAt) this.#known = undefined;
    const known = this.#known;
    if (known === undefined) {
      this.#debug('the session start budget is unknown (GET /gateway/bot did not say): identifying');
      return;
    }
    const reserve = this.#reserve ?? defaultReserve(known.total);
    const refused = known.remaining <= reserve;
    if (!refused) known.remaining--;
    if (channels.gatewaySessionBudget.hasSubscribers)
      channels.gatewaySessionBudget.publish({ remaining: known.remaining, total: known.total } satisfies GatewaySessionBudgetMessage);
    if (refused) throw new SessionBudgetError({ remaining: known.remaining, total: known.total, reserve, resetAfterMs: Math.max(0, known.resetsAt - now) });
  }
}
