/**
 * The signing scheme of application-webhook deliveries, and the one place its
 * defaults live. The contract does not show the scheme (see
 * docs/assumptions.md); every part of it is an option, so that a different
 * real scheme needs configuration, not a fork.
 *
 * @module
 */

/** A webhook signing secret: text (used as its UTF-8 bytes) or raw bytes. */
export type WebhookSecret = string | Uint8Array;

/** The fields of a delivery body, as {@link WebhookScheme.readBody} returns them. */
export interface DeliveryFields {
  /** The delivery's id (signed, so it is the de-duplication key). */
  id: string;
  /** The event type, e.g. `INTERACTION_CREATE`. */
  type: string;
  /** When the event was created, as sent (ISO string or epoch number), if sent. */
  createdAt: string | number | undefined;
  /** The event's payload. */
  data: unknown;
}

/** What {@link WebhookScheme.signedPayload} is given. */
export interface SignedPayloadParts {
  /** The timestamp header's value, exactly as sent. */
  timestamp: string;
  /** The raw body bytes. */
  body: Uint8Array;
}

/** How deliveries are signed and shaped. Every field is optional; see each default. */
export interface WebhookScheme {
  /** Header carrying the signing time. @default 'X-Signature-Timestamp' */
  timestampHeader?: string | undefined;
  /** Unit of the timestamp header. @default 'seconds' */
  timestampUnit?: 'seconds' | 'milliseconds' | undefined;
  /** Header carrying the signature. @default 'X-Signature-256' */
  signatureHeader?: string | undefined;
  /** Text before the digest in the signature header (`''` for none). @default 'sha256=' */
  signaturePrefix?: string | undefined;
  /** Encoding of the digest in the signature header. @default 'hex' */
  signatureEncoding?: 'hex' | 'base64' | undefined;
  /** HMAC hash algorithm (any `node:crypto` HMAC digest). @default 'sha256' */
  algorithm?: string | undefined;
  /**
   * Header carrying the delivery id (unique per delivery, the same on a retry);
   * `null` when the service sends none. It is not signed, so when the body
   * carries an id too, the two must agree. @default 'X-Delivery-Id'
   */
  deliveryIdHeader?: string | null | undefined;
  /**
   * Header carrying the event type; `null` when the service sends none. Not
   * signed: when present it must agree with the body's type. @default 'X-Event-Type'
   */
  eventTypeHeader?: string | null | undefined;
  /**
   * The bytes the HMAC covers. @default `<timestamp>.<raw body bytes>`
   */
  signedPayload?: ((parts: SignedPayloadParts) => Uint8Array | string) | undefined;
  /**
   * Reads the parsed JSON body into the delivery's fields, or returns a
   * sentence saying what is wrong with it (the delivery is then `malformed`).
   * @default reads `{ id, type, created_at, data }`
   */
  readBody?: ((body: unknown) => DeliveryFields | string) | undefined;
}

/** A scheme with every default filled in. */
export type ResolvedWebhookScheme = { readonly [K in keyof WebhookScheme]-?: Exclude<WebhookScheme[K], undefined> };

/** The default `signedPayload`: the timestamp, a dot, then the raw body bytes. */
function timestampDotBody(parts: SignedPayloadParts): Uint8Array {
  return Buffer.concat([Buffer.from(`${parts.timestamp}.`, 'utf8'), parts.body]);
}

/** The default `readBody`: `{ id, type, created_at, data }`. */
function readDefaultBody(body: unknown): DeliveryFields | string {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'the body is not a JSON object';
  const record = body as Record<string, unknown>;
  const { id, type, created_at: createdAt } = record;
  if (typeof id !== 'string' || id === '') return 'the body has no string `id`';
  if (typeof type !== 'string' || type === '') return 'the body has no string `type`';
  if (createdAt !== undefined && typeof createdAt !== 'string' && typeof createdAt !== 'number') return '`created_at` is neither a string nor a number';
  if (!('data' in record)) return 'the body has no `data`';
  return { id, type, createdAt, data: record['data'] };
}

/** Fills in the defaults of every scheme option; the only place those defaults live. */
export function resolveScheme(scheme: WebhookScheme = {}): ResolvedWebhookScheme {
  return {
    timestampHeader: scheme.timestampHeader ?? 'X-Signature-Timestamp',
    timestampUnit: scheme.timestampUnit ?? 'seconds',
    signatureHeader: scheme.signatureHeader ?? 'X-Signature-256',
    signaturePrefix: scheme.signaturePrefix ?? 'sha256=',
    signatureEncoding: scheme.signatureEncoding ?? 'hex',
    algorithm: scheme.algorithm ?? 'sha256',
    deliveryIdHeader: scheme.deliveryIdHeader === undefined ? 'X-Delivery-Id' : scheme.deliveryIdHeader,
    eventTypeHeader: scheme.eventTypeHeader === undefined ? 'X-Event-Type' : scheme.eventTypeHeader,
    signedPayload: scheme.signedPayload ?? timestampDotBody,
    readBody: scheme.readBody ?? readDefaultBody,
  };
}

/** The default tolerance between the signing time and now, in seconds. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** The default largest body the receiver's adapters read: 1 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** The default time the receiver's adapters wait for a whole body: 10 s (a webhook body is small and sent at once). */
export const DEFAULT_BODY_TIMEOUT_MS = 10_000;

/** The default number of bodies the receiver's adapters read at once. */
export const DEFAULT_MAX_PENDING_BODIES = 256;
