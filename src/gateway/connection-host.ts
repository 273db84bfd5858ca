/**
 * What a Gateway connection needs from whoever hosts it (the `Gateway` in
 * this thread, or a shard worker), and the connection's internal records.
 *
 * @module
 */

import { GatewayError, SessionBudgetError } from '../errors/index.js';
import type { GatewayDispatchEvent, GatewayEvents, ShardEvent } from './options.js';
import { identifyFailureRule, type CloseCodeRule } from './protocol.js';

/** The events the connection reports through its host; dispatches go through {@link ConnectionHost.dispatch}. */
type ConnectionEvent = 'ready' | 'resumed' | 'reconnecting' | 'close' | 'debug' | 'error';

/** An event's arguments as the connection reports them: without the shard id, which its host adds. */
type Unsharded<A extends unknown[]> = { [I in keyof A]: A[I] extends ShardEvent ? Omit<A[I], 'shardId'> : A[I] };

/**
 * A connection event with its payload as the connection reports it (without
 * the shard id), one member per event: a `switch` on `event` narrows
 * `payload`, so events travel from the connection to the `Gateway`'s
 * listeners typed, with no cast per event name.
 */
export type ConnectionReport = { [K in ConnectionEvent]: { event: K; payload: Unsharded<GatewayEvents[K]>[0] } }[ConnectionEvent];

/** What the connection needs from whoever hosts it (the `Gateway`, or a shard worker). */
export interface ConnectionHost {
  /** The bot token, read at each Identify and Resume. */
  token(): string | undefined;
  /** The clock. */
  now(): number;
  /** Reports a connection event. */
  emit<K extends ConnectionEvent>(event: K, ...args: Unsharded<GatewayEvents[K]>): void;
  /** Receives every dispatch, once, in sequence order (READY and RESUMED included), before the connection acts on it. */
  dispatch(event: Omit<GatewayDispatchEvent, 'shardId'>): void;
  /** `[shard_id, num_shards]` for Identify. @default undefined (no sharding) */
  readonly shard?: readonly [number, number] | undefined;
  /** Waits for this shard's Identify turn (the throttle); aborted when the socket goes away first. @default undefined (identify at once) */
  beforeIdentify?: ((signal: AbortSignal) => Promise<void>) | undefined;
  /** Whether the token may go over plain ws:// to a host that is not loopback (applies to `resume_gateway_url` too). */
  readonly allowInsecure: boolean;
}

/** What is known about the socket in use. */
export interface SocketState {
  /** Whether it was opened on the READY's `resume_gateway_url`. */
  viaResumeUrl: boolean;
  /** Whether its Hello arrived (a second one is ignored). */
  hello: boolean;
  /** Whether Identify was sent on it. */
  identified: boolean;
  /** Whether READY or RESUMED arrived on it. */
  ready: boolean;
  /** Whether its Identify was refused for pacing (Invalid Session before READY, or close 4008): not a bad token, so not counted toward `maxIdentifyFailures`. */
  paced?: boolean;
}

/** What the reason of a reconnect after an Identify refused for pacing adds. */
export const PACED = ' before READY: the Identify came too early (pacing), not counted toward maxIdentifyFailures';

/** Close code 4008 (rate limited): the service's pacing, not a bad token. */
const RATE_LIMITED = 4008;

/** The most Identify attempts in a row refused for pacing (Invalid Session before READY, or 4008) before giving up. */
export const MAX_PACED_REFUSALS = 10;

/**
 * Identify attempts in a row without READY, counted in two ways: failures (Identify sent and no READY, for a reason
 * that may be the token) toward `maxIdentifyFailures`, and refusals for pacing (Invalid Session before READY, or 4008),
 * which say nothing about the token, toward {@link MAX_PACED_REFUSALS}. READY resets both.
 */
export class IdentifyAttempts {
  #failures = 0;
  #paced = 0;

  /** READY (or RESUMED) arrived: nothing in a row any more. */
  ready(): void {
    this.#failures = 0;
    this.#paced = 0;
  }

  /** Counts a socket that closed with `code`; the fatal rule when a bound is reached, else `undefined`. */
  closed(socket: SocketState, code: number, maxFailures: number): CloseCodeRule | undefined {
    if (!socket.identified || socket.ready) return undefined;
    if (socket.paced === true || code === RATE_LIMITED) {
      if (++this.#paced < MAX_PACED_REFUSALS) return undefined;
      return {
        name: `every Identify was refused as too early: ${this.#paced} in a row (Invalid Session before READY, or 4008)`,
        action: 'fatal',
        hint: 'another process may be identifying with the same bot token at the same time (check that one Gateway, or one fleet, serves it), or the service is refusing new sessions',
      };
    }
    return ++this.#failures >= maxFailures ? identifyFailureRule(this.#failures) : undefined;
  }
}

/** A reconnect the connection itself decided on (zombie, Reconnect, Invalid Session, a timeout). */
export interface PlannedReconnect {
  reason: string;
  /** Fixed delay instead of the backoff (Invalid Session waits 1 to 5 s). */
  delayMs?: number;
}

/**
 * A failure of the Identify wait counted in an outage of the throttle already reported (the Gateway reports one per outage):
 * the shard reconnects as after any failed wait, with no `error` event of its own. @internal
 */
export class CountedFailure extends GatewayError {}

/**
 * Waits for an Identify turn through the host's throttle (at once without
 * one); calls `go` when it comes, `fail` when the wait failed (with no error
 * to report for a {@link CountedFailure}), neither when `controller` aborted
 * first (the socket went away).
 */
export function awaitIdentifyTurn(
  host: ConnectionHost,
  controller: AbortController,
  go: () => void,
  fail: (error: GatewayError | undefined, retry: PlannedReconnect) => void,
): void {
  if (!host.beforeIdentify) return go();
  host.emit('debug', 'waiting for an Identify turn');
  host.beforeIdentify(controller.signal).then(
    () => {
      if (!controller.signal.aborted) go();
    },
    (error: unknown) => {
      if (controller.signal.aborted) return;
      // A held-back Identify (the session start budget) is told as it is; any other failure of the wait becomes a GatewayError.
      if (error instanceof SessionBudgetError) {
        return fail(error, { reason: 'the session start budget is down to its reserve', delayMs: Math.max(1000, error.resetAfterMs) });
      }
      if (error instanceof CountedFailure) return fail(undefined, { reason: 'the Identify throttle failed (an outage already reported)' });
      const message = `no Identify turn: ${error instanceof Error ? error.message : String(error)}; reconnecting`;
      fail(new GatewayError(message, undefined, { cause: error }), { reason: 'the Identify throttle failed' });
    },
  );
}
