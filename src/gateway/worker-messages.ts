/**
 * The messages between the main thread and a shard worker, and how errors
 * cross between them (structured clone keeps no class: a fatal close is
 * rebuilt as a `GatewayFatalError`).
 *
 * @module
 */

import { GatewayError, GatewayFatalError, SessionBudgetError } from '../errors/index.js';
import { CountedFailure, type ConnectionReport } from './connection-host.js';
import { eventOfText, unparsedPayload } from './frame.js';
import type { GatewayDispatchEvent, GatewayStatus, ResolvedGatewayOptions } from './options.js';
import type { GatewaySessionRecord } from './gateway-session-store.js';
import type { ShardPlan } from './shard-plan.js';

/** What a worker starts with (no shard: the main thread adds and removes them). */
export interface ShardWorkerData {
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

/** The state of a shard that has not connected yet. */
export function idleState(): ShardState {
  return { status: 'idle', sessionId: undefined, sequence: null, latency: undefined, lastAckAt: undefined, resumeUrl: undefined };
}

/** An error made cloneable. */
interface SentError {
  message: string;
  code: number | undefined;
  /** Set for a `GatewayFatalError`. */
  hint: string | undefined;
  /** Set for a `SessionBudgetError`. */
  budget?: { remaining: number; total: number; reserve: number; resetAfterMs: number } | undefined;
  /** Set for a failed Identify wait counted in an outage already reported (a `CountedFailure`). */
  counted?: true | undefined;
}

/** A connection event as it crosses threads: an error travels as a {@link SentError}, every other payload is cloneable as it is. */
type SentReport = Exclude<ConnectionReport, { event: 'error' }> | { event: 'error'; payload: SentError };

/** Main thread → worker. `destroy` ends a worker left with no shard. */
export type ToWorker =
  | { type: 'add'; shardId: number }
  | { type: 'remove'; shardId: number; handOff: boolean }
  | { type: 'connect'; shardId: number; requestId: number }
  | { type: 'restore'; shardId: number; record: GatewaySessionRecord }
  | { type: 'turn'; requestId: number; token: string | undefined; error?: SentError | undefined }
  | { type: 'destroy' };

/** Worker → main thread. */
export type FromWorker =
  | { type: 'connected'; requestId: number; shardId: number; state: ShardState; error?: SentError | undefined }
  | { type: 'turn'; requestId: number; shardId: number }
  | { type: 'cancel-turn'; requestId: number }
  | { type: 'event'; shardId: number; report: SentReport }
  | { type: 'dispatch'; event: SentDispatch }
  | { type: 'state'; shardId: number; state: ShardState }
  | { type: 'removed'; shardId: number }
  | { type: 'destroyed' };

/** A dispatch as it crosses threads: its frame's JSON text when the worker did not parse its payload (the main thread parses it if something reads it), else the payload. */
type SentDispatch = Omit<GatewayDispatchEvent, 'd'> & ({ text: string; d?: undefined } | { text?: undefined; d: unknown });

/** A dispatch to send to the main thread, unparsed when it was not read here. */
export function sendDispatch(event: GatewayDispatchEvent): SentDispatch {
  const { t, s, shardId } = event;
  const text = unparsedPayload(event);
  return text === undefined ? { t, s, shardId, d: event.d } : { t, s, shardId, text };
}

/** The dispatch back on this side: its payload parsed when first read. */
export function receiveDispatch(sent: SentDispatch): GatewayDispatchEvent {
  const { t, s, shardId, text } = sent;
  if (text === undefined) return { t, s, shardId, d: sent.d };
  const event = eventOfText(s, t, text);
  event.shardId = shardId;
  return event;
}

/** An error as it crosses threads. */
export function sendError(error: unknown): SentError {
  if (error instanceof SessionBudgetError) {
    const { remaining, total, reserve, resetAfterMs } = error;
    return { message: error.message, code: undefined, hint: undefined, budget: { remaining, total, reserve, resetAfterMs } };
  }
  if (error instanceof CountedFailure) return { message: error.message, code: undefined, hint: undefined, counted: true };
  if (error instanceof GatewayFatalError) return { message: error.message, code: error.code, hint: error.hint };
  if (error instanceof GatewayError) return { message: error.message, code: error.code, hint: undefined };
  return { message: error instanceof Error ? error.message : String(error), code: undefined, hint: undefined };
}

/** The error back on this side: a `GatewayFatalError` when it was one, else a `GatewayError`. */
export function receiveError(sent: SentError): GatewayError {
  if (sent.budget !== undefined) return new SessionBudgetError(sent.budget);
  if (sent.counted === true) return new CountedFailure(sent.message);
  if (sent.hint === undefined || sent.code === undefined) return new GatewayError(sent.message, sent.code);
  const error = new GatewayFatalError(sent.code, '', sent.hint);
  error.message = sent.message;
  return error;
}
