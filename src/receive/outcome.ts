/**
 * What the receiver core answers an adapter: the status and body to send,
 * and the handlers to run once that answer is on its way. Adapters depend on
 * this, not on the receiver, so there is no import cycle.
 *
 * @module
 */

import type { WebhookHeaders } from './input.js';
import type { BodySlot } from './pending-bodies.js';

/** The answer to one request, and the handlers to start after sending it. */
export interface ReceiveOutcome {
  /** 200 once verified (also for a retried delivery already handled), 401 when verification failed, 503 when the replay store failed. */
  status: number;
  /** A small JSON body: `{ ok: true }`, or `{ ok: false, reason }`. It holds no secret and no signature. */
  body: Readonly<Record<string, unknown>>;
  /**
   * Runs the handlers of a newly verified delivery (a no-op otherwise). Call
   * it after the answer is sent. Resolves once every handler has settled;
   * never rejects.
   */
  dispatch(): Promise<void>;
}

/** What the adapters need from the receiver. */
export interface ReceiverCore {
  /** Verifies the raw body and headers, claims the delivery, and says what to answer. Never rejects. */
  receive(rawBody: Uint8Array, headers: WebhookHeaders): Promise<ReceiveOutcome>;
  /** Reports a problem that is no delivery's fault (a misconfigured middleware, a socket error) as an `error` event. */
  fail(error: unknown): void;
  /** The largest body an adapter reads, in bytes. */
  readonly maxBodyBytes: number;
  /** How long an adapter waits for a whole body, in milliseconds. */
  readonly bodyTimeoutMs: number;
  /**
   * Takes one of the places for a body being read from `source` (the peer's address, when known), evicting the stalest
   * pending body when all are taken; `undefined` when none is free. Give it back with its `done()`.
   */
  bodyStarted(source?: string): BodySlot | undefined;
}

/** The JSON text of an outcome's body. */
export function outcomeJson(outcome: Pick<ReceiveOutcome, 'body'>): string {
  return JSON.stringify(outcome.body);
}

/** The answer to a body larger than the limit. */
export const TOO_LARGE = { status: 413, body: { ok: false, reason: 'body-too-large' } } as const;
/** The answer to a body that did not arrive within the body timeout. */
export const TOO_SLOW = { status: 408, body: { ok: false, reason: 'body-timeout' } } as const;
/** The answer when too many bodies are being read at once. */
export const BUSY = { status: 503, body: { ok: false, reason: 'too-many-pending-bodies' } } as const;
/** The answer to a method other than POST. */
export const NOT_POST = { status: 405, body: { ok: false, reason: 'method-not-allowed' } } as const;
