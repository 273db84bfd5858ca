/**
 * Signs a delivery the way the service does: the headers a receiver verifies.
 * For tests, emulators and services built on the SDK; the testing kit
 * re-exports it.
 *
 * @module
 */

import { createHmac } from 'node:crypto';
import { ValidationError } from '../errors/index.js';
import { optionNames, refuseUnknownOptions } from '../core/bounds.js';
import { bodyBytes, secretKeys } from './input.js';
import { resolveScheme, type WebhookScheme, type WebhookSecret } from './scheme.js';

/** What {@link signWebhookDelivery} needs. */
export interface SignWebhookOptions {
  /** The exact body that will be sent (text or bytes). */
  body: string | Uint8Array;
  /** The signing secret (the first of a list is used). */
  secret: WebhookSecret | readonly WebhookSecret[];
  /** The signing time, in the scheme's unit (seconds by default). @default now */
  timestamp?: number | undefined;
  /** The delivery id header's value. @default the body's `id` */
  deliveryId?: string | undefined;
  /** The event type header's value. @default the body's `type` */
  eventType?: string | undefined;
  /** The signing scheme. @default the scheme in docs/assumptions.md */
  scheme?: WebhookScheme | undefined;
  /** The clock, epoch milliseconds (used when `timestamp` is not given). @default Date.now */
  clock?: (() => number) | undefined;
}

/** The names of every {@link SignWebhookOptions} option. */
const SIGN_OPTIONS = optionNames<SignWebhookOptions>({
  ...{ body: true, secret: true, timestamp: true, deliveryId: true, eventType: true, scheme: true, clock: true },
});

const OPERATION = 'signWebhookDelivery';

/**
 * The headers of a signed delivery: the timestamp, the signature, and (unless
 * the scheme has none) the delivery id and event type, read from the body's
 * `id` and `type` unless given.
 *
 * @example
 * const body = JSON.stringify({ id: 'd1', type: 'PING', created_at: new Date().toISOString(), data: {} });
 * await fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...signWebhookDelivery({ body, secret }) } });
 */
export function signWebhookDelivery(options: SignWebhookOptions): Record<string, string> {
  refuseUnknownOptions(OPERATION, options, SIGN_OPTIONS, { now: 'clock' });
  const scheme = resolveScheme(options.scheme);
  const body = bodyBytes(OPERATION, options.body);
  const [key] = secretKeys(OPERATION, options.secret);
  const nowMs = (options.clock ?? Date.now)();
  const timestamp = String(options.timestamp ?? (scheme.timestampUnit === 'seconds' ? Math.floor(nowMs / 1000) : nowMs));
  const signed = scheme.signedPayload({ timestamp, body });
  const digest = createHmac(scheme.algorithm, key as Uint8Array)
    .update(typeof signed === 'string' ? Buffer.from(signed, 'utf8') : signed)
    .digest(scheme.signatureEncoding);
  const headers: Record<string, string> = { [scheme.timestampHeader]: timestamp, [scheme.signatureHeader]: `${scheme.signaturePrefix}${digest}` };
  const needsFields =
    (scheme.deliveryIdHeader !== null && options.deliveryId === undefined) || (scheme.eventTypeHeader !== null && options.eventType === undefined);
  const fields = needsFields ? bodyFields(scheme, body) : undefined;
  if (scheme.deliveryIdHeader !== null) headers[scheme.deliveryIdHeader] = options.deliveryId ?? fields?.id ?? '';
  if (scheme.eventTypeHeader !== null) headers[scheme.eventTypeHeader] = options.eventType ?? fields?.type ?? '';
  return headers;
}

function bodyFields(scheme: ReturnType<typeof resolveScheme>, body: Uint8Array): { id: string; type: string } {
  let fields: ReturnType<typeof scheme.readBody>;
  try {
    fields = scheme.readBody(JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8')));
  } catch {
    fields = 'the body is not JSON';
  }
  if (typeof fields === 'string') throw new ValidationError(OPERATION, [{ path: 'body', message: `${fields}; pass deliveryId and eventType` }]);
  return fields;
}
