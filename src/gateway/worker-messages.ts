/**
 * The messages between the main thread and a shard worker, and how errors
 * cross between them (structured clone keeps no class: a fatal close is
 * rebuilt as a `GatewayFatalError`).
 *
 * @module
 */

import { GatewayError, GatewayFatalError, SessionBudgetError } from '../errors/index.js';
import type { ConnectionReport } from './connection-host.js';
import type { GatewayDispatchEvent, GatewayStatus, ResolvedGatewayOptions } from './options.js';
import type { GatewaySessionRecord } from './gateway-session-store.js';
import type { ShardPlan } from './shard-plan.js';

/** What a worker starts with. */
export interface ShardWorkerData {
  /** The shards it runs. */
  ids: number[];
  /** The plan of every shard. */
  plan: ShardPlan;
  /** The connection options, without `random` (a function: the worker uses `Math.random`). */
  options: Omit<ResolvedGatewayOptions, 'random'>;
  /** The bot token at start; each Identify turn brings the current one. */
  token: string | undefined;
  /** Whether Identify waits for a turn from the main thread's throttle. */
  throttled: boolean;
  /** Whether the token may go over plain ws:// to a host that is not loopback. */
  allowInsecure: boolean;
}

/** A shard's state, as the main thread mirrors it. */
export interface ShardState {
  status: GatewayStatus;
  sessionId: string | undefined;
  sequence: number | null;
  latency: number | undefined;
  lastAckAt: number | undefined;
  resumeUrl: string | undefined;
}

/** An error made cloneable. */
interface SentError {
  message: string;
  code: number | undefined;
  /** Set for a `GatewayFatalError`. */
  hint: string | undefined;
  /** Set for a `SessionBudgetError`. */
  budget?: { remaining: number; total: number; reserve: number; resetAfterMs: number } | undefined;
}

/** A connection event as it crosses threads: an error travels as a {@link SentError}, every other payload is cloneable as it is. */
type SentReport = Exclude<ConnectionReport, { event: 'error' }> | { event: 'error'; payload: SentError };

/** Main thread → worker. */
export type ToWorker =
  | { type: 'connect'; shardId: number; requestId: number }
  | { type: 'restore'; shardId: number; record: GatewaySessionRecord }
  | { type: 'turn'; requestId: number; token: string | undefined; error?: SentError | undefined }
  | { type: 'destroy'; handOff: boolean };

/** Worker → main thread. */
export type FromWorker =
  | { type: 'connected'; requestId: number; shardId: number; state: ShardState; error?: SentError | undefined }
  | { type: 'turn'; requestId: number; shardId: number }
  | { type: 'cancel-turn'; requestId: number }
  | { type: 'event'; shardId: number; report: SentReport }
  | { type: 'dispatch'; event: GatewayDispatchEvent }
  | { type: 'state'; shardId: number; state: ShardState }
  | { type: 'destroyed' };

/** An error as it crosses threads. */
export function sendError(error: unknown): SentError {
  if (error instanceof SessionBudgetError) {
    const { remaining, total, reserve, resetAfterMs } = error;
    return { message: error.message, code: undefined, hint: undefined, budget: { remaining, total, reserve, resetAfterMs } };
  }
  if (error instanceof GatewayFatalError) return { message: error.message, code: error.code, hint: error.hint };
  if (error instanceof GatewayError) return { message: error.message, code: error.code, hint: undefined };
  return { message: error instanceof Error ? error.message : String(error), code: undefined, hint: undefined };
}

/** The error back on this side: a `GatewayFatalError` when it was one, else a `GatewayError`. */
export function receiveError(sent: SentError): GatewayError {
  if (sent.budget !== undefined) return new SessionBudgetError(sent.budget);
  if (sent.hint === undefined || sent.code === undefined) return new GatewayError(sent.message, sent.code);
  const error = new GatewayFatalError(sent.code, '', sent.hint);
  error.message = sent.message;
  return error;
}
