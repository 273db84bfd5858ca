/**
 * Verifies one signed application-webhook delivery: pure (no I/O, no state),
 * on the raw body bytes, in constant time, against one secret or several
 * (while rotating), within a replay window. Replays of a verified delivery
 * are caught by the receiver's replay store, not here.
 *
 * @module
 */

import { createHmac, timingSafeEqual } from 'node:crypto';
import { ValidationError, WebhookVerificationError } from '../errors/index.js';
import { checkDuration, optionNames, refuseUnknownOptions } from '../core/bounds.js';
import { makeDelivery, type WebhookDelivery } from './delivery.js';
import { bodyBytes, headerLookup, secretKeys, type HeaderLookup, type RawBody, type WebhookHeaders } from './input.js';
import { DEFAULT_TOLERANCE_SECONDS, resolveScheme, type ResolvedWebhookScheme, type WebhookScheme, type WebhookSecret } from './scheme.js';

/** What {@link verifyWebhookDelivery} needs. */
export interface VerifyWebhookOptions {
  /** The request body exactly as received (text or bytes, never a parsed object). */
  rawBody: RawBody;
  /** The request headers: a plain object with names in any case (`req.headers`), or a `Headers`. */
  headers: WebhookHeaders;
  /** The webhook's signing secret, or several while rotating (a delivery signed with any of them verifies). */
  secret: WebhookSecret | readonly WebhookSecret[];
  /** How far the signing time may be from now, either way, in milliseconds. @default 300000 (5 minutes) */
  toleranceMs?: number | undefined;
  /** The clock, epoch milliseconds. @default Date.now */
  clock?: (() => number) | undefined;
  /** The signing scheme (header names, signed string, body shape). @default the scheme in docs/assumptions.md */
  scheme?: WebhookScheme | undefined;
}

/** The names of every {@link VerifyWebhookOptions} option. */
const VERIFY_OPTIONS = optionNames<VerifyWebhookOptions>({ rawBody: true, headers: true, secret: true, toleranceMs: true, clock: true, scheme: true });

/** Options of earlier shapes, with what replaced them. */
const RENAMED = { now: 'clock', toleranceSeconds: 'toleranceMs (milliseconds: seconds x 1000)' } as const;

const OPERATION = 'verifyWebhookDelivery';

/** The one value of a header, or why there is none (never echoing the value). */
function single(headers: HeaderLookup, name: string): string | undefined {
  const value = headers(name);
  if (value === undefined) return undefined;
  if (typeof value !== 'string') {
    if (value.length === 1 && typeof value[0] === 'string') return value[0];
    throw new WebhookVerificationError('malformed', `the ${name} header was sent ${value.length} times`);
  }
  return value;
}

function required(headers: HeaderLookup, name: string): string {
  const value = single(headers, name);
  if (value === undefined || value.trim() === '') throw new WebhookVerificationError('missing-header', `the ${name} header is missing`);
  return value.trim();
}

/** The signing time in epoch milliseconds. */
function readTimestamp(value: string, scheme: ResolvedWebhookScheme): number {
  if (!/^\d{1,16}$/.test(value))
    throw new WebhookVerificationError('malformed', `the ${scheme.timestampHeader} header is not a whole number of ${scheme.timestampUnit}`);
  const number = Number(value);
  return scheme.timestampUnit === 'seconds' ? number * 1000 : number;
}

/**
 * The digest bytes of the signature header, which must be written in its one
 * canonical form: the scheme's prefix exactly, then lower-case hex of exactly
 * the digest's length (or canonical base64), nothing around it. Another
 * spelling of the same digest (upper case, `SHA256=`, padding, a character
 * more) is refused, so one signature has one spelling. The header's value
 * never reaches a message.
 */
function readSignature(value: string, scheme: ResolvedWebhookScheme, digestLength: number): Buffer {
  const prefix = scheme.signaturePrefix;
  const hex = scheme.signatureEncoding === 'hex';
  const shape = `${prefix === '' ? '' : `\`${prefix}\` followed by `}${hex ? `${digestLength * 2} lower-case hex digits` : `the base64 of ${digestLength} bytes`}`;
  const malformed = () => new WebhookVerificationError('malformed', `the ${scheme.signatureHeader} header is not ${shape}`);
  if (!value.startsWith(prefix)) throw malformed();
  const encoded = value.slice(prefix.length);
  if (hex ? !/^[0-9a-f]+$/.test(encoded) || encoded.length !== digestLength * 2 : !/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) throw malformed();
  const bytes = Buffer.from(encoded, scheme.signatureEncoding);
  if (bytes.length !== digestLength || (!hex && bytes.toString('base64') !== encoded)) throw malformed();
  return bytes;
}

/** Whether `signature` is the HMAC of `payload` under any of `keys`; every key is tried, each comparison in constant time. */
function matchesAny(keys: readonly Uint8Array[], algorithm: string, payload: Uint8Array, signature: Buffer): boolean {
  let matched = false;
  for (const key of keys) {
    const expected = createHmac(algorithm, key).update(payload).digest();
    // Lengths are equal (readSignature checked it); the guard keeps timingSafeEqual from throwing if that ever changes.
    if (expected.length === signature.length && timingSafeEqual(expected, signature)) matched = true;
  }
  return matched;
}

/** The digest length of an HMAC algorithm, or a `ValidationError` for one `node:crypto` does not know. */
function digestLength(algorithm: string): number {
  try {
    return createHmac(algorithm, 'probe').digest().length;
  } catch {
    throw new ValidationError(OPERATION, [{ path: 'scheme.algorithm', message: `'${algorithm}' is not an HMAC algorithm node:crypto supports` }]);
  }
}

/**
 * Verifies a signed delivery and returns it parsed and typed, or throws a
 * `WebhookVerificationError` whose `reason` is `missing-header`, `malformed`,
 * `bad-signature` or `stale` (its message holds no secret and no signature).
 * The signature is checked over the raw body bytes (so multibyte characters
 * and the sender's JSON formatting are kept), in constant time, against every
 * secret given. A parsed object instead of the raw body, or an empty secret,
 * is refused with a `ValidationError` saying what to pass.
 *
 * @example
 * const delivery = verifyWebhookDelivery({ rawBody: req.body, headers: req.headers, secret: process.env.WEBHOOK_SECRET });
 */
export function verifyWebhookDelivery(options: VerifyWebhookOptions): WebhookDelivery {
  const body = bodyBytes(OPERATION, options.rawBody);
  const keys = secretKeys(OPERATION, options.secret);
  const headers = headerLookup(OPERATION, options.headers);
  refuseUnknownOptions(OPERATION, options, VERIFY_OPTIONS, RENAMED);
  const toleranceMs = checkDuration(OPERATION, 'toleranceMs', options.toleranceMs) ?? DEFAULT_TOLERANCE_SECONDS * 1000;
  const tolerance = toleranceMs / 1000;
  const scheme = resolveScheme(options.scheme);

  const timestampText = required(headers, scheme.timestampHeader);
  // Not trimmed: the signature has one spelling, padding included.
  const signatureText = single(headers, scheme.signatureHeader);
  if (signatureText === undefined || signatureText === '')
    throw new WebhookVerificationError('missing-header', `the ${scheme.signatureHeader} header is missing`);
  const headerId = scheme.deliveryIdHeader === null ? undefined : required(headers, scheme.deliveryIdHeader);
  const headerType = scheme.eventTypeHeader === null ? undefined : required(headers, scheme.eventTypeHeader);
  const signedAt = readTimestamp(timestampText, scheme);
  const signature = readSignature(signatureText, scheme, digestLength(scheme.algorithm));

  const signed = scheme.signedPayload({ timestamp: timestampText, body });
  const payload = typeof signed === 'string' ? Buffer.from(signed, 'utf8') : signed;
  if (!matchesAny(keys, scheme.algorithm, payload, signature)) {
    throw new WebhookVerificationError(
      'bad-signature',
      `the ${scheme.signatureHeader} header matches the body under none of the ${keys.length} secret(s) given (was the body re-serialised, or the secret regenerated?)`,
    );
  }

  const now = (options.clock ?? Date.now)();
  const skewSeconds = Math.round((now - signedAt) / 1000);
  if (Math.abs(now - signedAt) > tolerance * 1000) {
    const when = skewSeconds > 0 ? `${skewSeconds} s ago` : `${-skewSeconds} s in the future`;
    throw new WebhookVerificationError('stale', `signed ${when}, outside the tolerance of ${tolerance} s (is the clock right?)`);
  }

  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'));
  } catch {
    throw new WebhookVerificationError('malformed', 'the body is not JSON');
  }
  const fields = scheme.readBody(parsed);
  if (typeof fields === 'string') throw new WebhookVerificationError('malformed', fields);
  if (headerId !== undefined && headerId !== fields.id)
    throw new WebhookVerificationError('malformed', `the ${scheme.deliveryIdHeader ?? ''} header does not match the signed body's id`);
  if (headerType !== undefined && headerType !== fields.type)
    throw new WebhookVerificationError('malformed', `the ${scheme.eventTypeHeader ?? ''} header does not match the signed body's type`);
  return makeDelivery({ ...fields, signedAt });
}
