/**
 * Signed deliveries for unit tests of a webhook receiver, built with the
 * SDK's own signer (`signWebhookDelivery`), so a test and the service agree on
 * the scheme.
 *
 * @module
 */

import { signWebhookDelivery } from '../receive/sign.js';
import type { WebhookScheme, WebhookSecret } from '../receive/scheme.js';
import { createTestPayload, type TestInteractionInput } from './interactions.js';

/** What {@link createTestDelivery} builds a delivery from. */
export interface TestDeliveryInput {
  /** The signing secret (the receiver's). */
  secret: WebhookSecret;
  /** The event type. @default 'INTERACTION_CREATE' when `interaction` is given, else 'TEST' */
  type?: string | undefined;
  /** The event's payload. @default the interaction payload of `interaction`, else `{}` */
  data?: unknown;
  /** Builds `data` as `createTestPayload(interaction)` would (a slash command, a button...). @default undefined */
  interaction?: TestInteractionInput | undefined;
  /** The delivery id (the same on a retry). @default a new id per call */
  id?: string | undefined;
  /** The body's `created_at`. @default the clock's now, ISO 8601 */
  createdAt?: string | undefined;
  /** The clock, epoch milliseconds: signing time and `created_at`. @default Date.now */
  clock?: (() => number) | undefined;
  /** The signing scheme, when the service signs differently. @default the scheme in docs/assumptions.md */
  scheme?: WebhookScheme | undefined;
}

/** A signed delivery: POST `body` with `headers` to the receiver. */
export interface TestDelivery {
  /** The delivery id. */
  id: string;
  /** The exact body that was signed (send it unchanged). */
  body: string;
  /** `content-type` and the signature headers. */
  headers: Record<string, string>;
}

let counter = 0;

/**
 * Builds a signed delivery `{ id, type, created_at, data }` as the service
 * sends one.
 *
 * @example
 * ```ts
 * const delivery = createTestDelivery({ secret, interaction: { name: 'quiz', options: { topic: 'space' } } });
 * const answer = await receiver.fetch(new Request('http://bot.test/interactions', { method: 'POST', ...delivery }));
 * expect(answer.status).toBe(200);
 * ```
 */
export function createTestDelivery(input: TestDeliveryInput): TestDelivery {
  const now = input.clock ?? Date.now;
  const id = input.id ?? `test-delivery-${++counter}`;
  const type = input.type ?? (input.interaction ? 'INTERACTION_CREATE' : 'TEST');
  const data = input.data !== undefined ? input.data : input.interaction ? createTestPayload(input.interaction) : {};
  const body = JSON.stringify({ id, type, created_at: input.createdAt ?? new Date(now()).toISOString(), data });
  const signed = signWebhookDelivery({ body, secret: input.secret, clock: now, scheme: input.scheme, deliveryId: id, eventType: type });
  return { id, body, headers: { 'content-type': 'application/json', ...signed } };
}
