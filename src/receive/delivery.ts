/**
 * A verified delivery: what `verifyWebhookDelivery` returns and receiver
 * handlers get. Its `data` may hold secrets (an interaction's `token`), so
 * `JSON.stringify` and `util.inspect` show it redacted.
 *
 * @module
 */

import type { InteractionPayload } from '../interactions/types.js';
import { inspectSymbol, redactValue } from '../core/redact.js';

/**
 * The `data` of each known delivery type. Extend it (declaration merging, or
 * the type parameter of `createWebhookReceiver`) to type your own.
 */
export interface WebhookEventMap {
  /** An interaction delivered over HTTP instead of the Gateway; `data` is the interaction payload. */
  INTERACTION_CREATE: InteractionPayload;
}

/** A verified delivery of type `T` whose `data` is `D`. */
export interface WebhookDelivery<T extends string = string, D = unknown> {
  /** The delivery's id: the body's (signed) `id`; the same on a retry of the delivery. */
  readonly id: string;
  /** The event type, e.g. `INTERACTION_CREATE`. */
  readonly type: T;
  /** The body's `created_at`, as sent, if any. */
  readonly createdAt: string | number | undefined;
  /** The event's payload. */
  readonly data: D;
  /** When the service signed it, epoch milliseconds (from the timestamp header). */
  readonly signedAt: number;
}

/** Freezes a parsed JSON value and everything in it, without recursion (a deep body cannot overflow the stack). */
function deepFreeze(value: unknown): unknown {
  const stack = [value];
  while (stack.length > 0) {
    const next = stack.pop();
    if (typeof next !== 'object' || next === null || Object.isFrozen(next)) continue;
    Object.freeze(next);
    for (const child of Object.values(next)) stack.push(child);
  }
  return value;
}

/**
 * Builds the delivery object, frozen with its `data` (every listener and
 * handler sees what was signed: none can change it for the next), whose
 * `toJSON` and `util.inspect` redact secret-named fields of `data`.
 */
export function makeDelivery(fields: { id: string; type: string; createdAt: string | number | undefined; data: unknown; signedAt: number }): WebhookDelivery {
  const delivery = { id: fields.id, type: fields.type, createdAt: fields.createdAt, data: deepFreeze(fields.data), signedAt: fields.signedAt };
  const redacted = () => ({ ...delivery, data: redactValue(delivery.data) });
  Object.defineProperty(delivery, 'toJSON', { value: redacted, enumerable: false });
  Object.defineProperty(delivery, inspectSymbol, { value: () => `WebhookDelivery ${JSON.stringify(redacted())}`, enumerable: false });
  return Object.freeze(delivery);
}
