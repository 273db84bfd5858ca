import { createHmac } from 'node:crypto';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { verifyWebhookDelivery, type VerifyWebhookOptions } from '../../src/receiver.js';
import { type WebhookVerificationError, isCommunityChatError } from '../../src/index.js';
import { hmacHex, NOW_MS, NOW_S, OLD_WEBHOOK_SECRET, signedDelivery, WEBHOOK_SECRET } from './helpers.js';

const now = () => NOW_MS;

function verify(overrides: Partial<VerifyWebhookOptions> & Pick<VerifyWebhookOptions, 'rawBody' | 'headers'>) {
  return verifyWebhookDelivery({ secret: WEBHOOK_SECRET, clock: now, ...overrides });
}

function refusal(run: () => unknown): WebhookVerificationError {
  try {
    run();
  } catch (error) {
    if (isCommunityChatError(error, 'WebhookVerificationError')) return error;
    throw error;
  }
  throw new Error('verification passed');
}

describe('verifyWebhookDelivery', () => {
  it('returns the parsed, typed delivery of a valid signature', () => {
    const { body, headers, id } = signedDelivery({ type: 'APP_EVENT', data: { n: 1 } });
    const delivery = verify({ rawBody: body, headers });
    expect(delivery).toMatchObject({ id, type: 'APP_EVENT', data: { n: 1 }, createdAt: new Date(NOW_MS).toISOString(), signedAt: NOW_MS });
  });

  it('verifies the raw bytes: emoji, accents, CJK and escaped forms, from a string, a Buffer or a Uint8Array', () => {
    const raw = '{"id":"d-multi","type":"MSG","created_at":1,"data":{"text":"héllo 👋🏽 世界 \\u00e9 – ok","nested":{ "spaced" : true }}}';
    const { headers } = signedDelivery({ id: 'd-multi', type: 'MSG', body: raw });
    for (const rawBody of [raw, Buffer.from(raw, 'utf8'), new Uint8Array(Buffer.from(raw, 'utf8'))]) {
      expect(verify({ rawBody, headers }).data).toEqual({ text: 'héllo 👋🏽 世界 é – ok', nested: { spaced: true } });
    }
    // Re-serialising the parsed body changes the bytes (spacing, escapes), and the signature no longer matches.
    expect(refusal(() => verify({ rawBody: JSON.stringify(JSON.parse(raw)), headers })).reason).toBe('bad-signature');
    // A body decoded as latin1 and re-encoded (the multibyte bug) does not verify either.
    expect(refusal(() => verify({ rawBody: Buffer.from(Buffer.from(raw, 'utf8').toString('latin1'), 'utf8'), headers })).reason).toBe('bad-signature');
  });

  it('refuses a tampered body and a tampered signature (bad-signature)', () => {
    const { body, headers } = signedDelivery({ data: { amount: 1 } });
    expect(refusal(() => verify({ rawBody: body.replace('"amount":1', '"amount":9'), headers })).reason).toBe('bad-signature');
    const signature = headers['x-signature-256'] ?? '';
    const flipped = signature.slice(0, -1) + (signature.endsWith('0') ? '1' : '0');
    expect(refusal(() => verify({ rawBody: body, headers: { ...headers, 'x-signature-256': flipped } })).reason).toBe('bad-signature');
    // The timestamp is signed too: moving it (within the tolerance) breaks the signature.
    expect(refusal(() => verify({ rawBody: body, headers: { ...headers, 'x-signature-timestamp': String(NOW_S + 1) } })).reason).toBe('bad-signature');
  });

  it('refuses each missing header (missing-header), naming it', () => {
    const { body, headers } = signedDelivery();
    for (const name of ['x-signature-timestamp', 'x-signature-256', 'x-delivery-id', 'x-event-type']) {
      const rest = Object.fromEntries(Object.entries(headers).filter(([key]) => key !== name));
      const error = refusal(() => verify({ rawBody: body, headers: rest }));
      expect(error.reason).toBe('missing-header');
      expect(error.message.toLowerCase()).toContain(name);
      expect(error.status).toBe(401);
    }
  });

  it('refuses malformed headers and bodies without throwing anything else (the length guard)', () => {
    const { body, headers } = signedDelivery();
    const cases: Record<string, string>[] = [
      { 'x-signature-256': 'sha256=abc' }, // too short: timingSafeEqual would throw without the guard
      { 'x-signature-256': `sha256=${'a'.repeat(66)}` },
      { 'x-signature-256': `sha1=${'a'.repeat(64)}` },
      { 'x-signature-256': `sha256=${'z'.repeat(64)}` },
      { 'x-signature-timestamp': 'yesterday' },
      { 'x-signature-timestamp': '1.5' },
      { 'x-delivery-id': 'another-id' },
      { 'x-event-type': 'ANOTHER_TYPE' },
    ];
    for (const change of cases) expect(refusal(() => verify({ rawBody: body, headers: { ...headers, ...change } })).reason).toBe('malformed');
    const notJson = signedDelivery({ body: 'not json' });
    expect(refusal(() => verify({ rawBody: notJson.body, headers: notJson.headers })).reason).toBe('malformed');
    const noType = signedDelivery({ id: 'x1', body: JSON.stringify({ id: 'x1', data: {} }) });
    expect(refusal(() => verify({ rawBody: noType.body, headers: noType.headers })).reason).toBe('malformed');
  });

  it('refuses a timestamp outside the tolerance in both directions (stale), and accepts one at its edge', () => {
    const past = signedDelivery({ timestamp: NOW_S - 301 });
    const future = signedDelivery({ timestamp: NOW_S + 301 });
    const edge = signedDelivery({ timestamp: NOW_S - 300 });
    expect(refusal(() => verify({ rawBody: past.body, headers: past.headers })).reason).toBe('stale');
    expect(refusal(() => verify({ rawBody: future.body, headers: future.headers })).message).toMatch(/in the future/);
    expect(verify({ rawBody: edge.body, headers: edge.headers }).id).toBe(edge.id);
    expect(refusal(() => verify({ rawBody: edge.body, headers: edge.headers, toleranceMs: 60_000 })).reason).toBe('stale');
    expect(verify({ rawBody: past.body, headers: past.headers, toleranceMs: 600_000 }).id).toBe(past.id);
  });

  it('accepts any secret of a rotation list, and only those', () => {
    const signedOld = signedDelivery({ secret: OLD_WEBHOOK_SECRET });
    const signedNew = signedDelivery({ secret: WEBHOOK_SECRET });
    const rotation = [WEBHOOK_SECRET, OLD_WEBHOOK_SECRET];
    expect(verify({ rawBody: signedOld.body, headers: signedOld.headers, secret: rotation }).id).toBe(signedOld.id);
    expect(verify({ rawBody: signedNew.body, headers: signedNew.headers, secret: rotation }).id).toBe(signedNew.id);
    expect(refusal(() => verify({ rawBody: signedOld.body, headers: signedOld.headers, secret: [WEBHOOK_SECRET] })).reason).toBe('bad-signature');
    expect(verify({ rawBody: signedNew.body, headers: signedNew.headers, secret: Buffer.from(WEBHOOK_SECRET) }).id).toBe(signedNew.id);
  });

  it('reads headers in any case, from a plain object or a Headers', () => {
    const { body, headers } = signedDelivery();
    const shouting = Object.fromEntries(Object.entries(headers).map(([key, value]) => [key.toUpperCase(), value]));
    expect(verify({ rawBody: body, headers: shouting }).type).toBe('TEST_EVENT');
    expect(verify({ rawBody: body, headers: new Headers(headers) }).type).toBe('TEST_EVENT');
    expect(verify({ rawBody: body, headers: { ...headers, 'x-signature-256': [headers['x-signature-256'] ?? ''] } }).type).toBe('TEST_EVENT');
    expect(refusal(() => verify({ rawBody: body, headers: { ...headers, 'x-signature-256': ['a', 'b'] } })).reason).toBe('malformed');
  });

  it('refuses a parsed body and an empty secret with a ValidationError that says what to pass', () => {
    const { body, headers } = signedDelivery();
    const parsed = JSON.parse(body) as unknown;
    for (const rawBody of [parsed, undefined, [parsed]]) {
      let error: unknown;
      try {
        verify({ rawBody: rawBody as string, headers });
      } catch (caught) {
        error = caught;
      }
      expect(isCommunityChatError(error, 'ValidationError')).toBe(true);
      expect((error as Error).message).toContain('express.raw({ type: "application/json" })');
    }
    for (const secret of ['', '   ', [], [WEBHOOK_SECRET, ' '], new Uint8Array(0)]) {
      let error: unknown;
      try {
        verify({ rawBody: body, headers, secret: secret as string });
      } catch (caught) {
        error = caught;
      }
      expect(isCommunityChatError(error, 'ValidationError')).toBe(true);
      expect((error as Error).message).toMatch(/secret/);
    }
  });

  it('never puts a secret or a signature in its errors, nor the delivery in util.inspect', () => {
    const { body, headers } = signedDelivery({ data: { token: 'interaction-token-Uu12.secret', text: 'hi' } });
    const signature = headers['x-signature-256'] ?? '';
    const messages = [
      refusal(() => verify({ rawBody: `${body} `, headers })),
      refusal(() => verify({ rawBody: body, headers: { ...headers, 'x-signature-256': `${signature}00` } })),
      refusal(() => verify({ rawBody: body, headers, clock: () => NOW_MS + 3_600_000 })),
      refusal(() => verify({ rawBody: body, headers, secret: OLD_WEBHOOK_SECRET })),
    ].map((error) => `${error.message} ${error.stack ?? ''} ${inspect(error)} ${JSON.stringify(error)}`);
    const digest = signature.slice('sha256='.length);
    for (const text of messages) {
      expect(text).not.toContain(WEBHOOK_SECRET);
      expect(text).not.toContain(OLD_WEBHOOK_SECRET);
      expect(text).not.toContain(digest);
    }
    const delivery = verify({ rawBody: body, headers });
    expect((delivery.data as { token: string }).token).toBe('interaction-token-Uu12.secret');
    expect(inspect(delivery)).not.toContain('interaction-token-Uu12.secret');
    expect(JSON.stringify(delivery)).not.toContain('interaction-token-Uu12.secret');
    expect(inspect(delivery)).toContain('hi');
  });

  it('follows a configured scheme: header names, prefix, base64, milliseconds, signed string and body shape', () => {
    const raw = JSON.stringify({ event: { uuid: 'e-7', kind: 'order.paid' }, payload: { total: 5 } });
    const timestamp = String(NOW_MS);
    const signature = createHmac('sha512', WEBHOOK_SECRET).update(`v1:${timestamp}:${raw}`).digest('base64');
    const scheme = {
      timestampHeader: 'Webhook-Timestamp',
      timestampUnit: 'milliseconds' as const,
      signatureHeader: 'Webhook-Signature',
      signaturePrefix: 'v1,',
      signatureEncoding: 'base64' as const,
      algorithm: 'sha512',
      deliveryIdHeader: null,
      eventTypeHeader: null,
      signedPayload: ({ timestamp: t, body }: { timestamp: string; body: Uint8Array }) => Buffer.concat([Buffer.from(`v1:${t}:`), body]),
      readBody: (value: unknown) => {
        const { event, payload } = value as { event: { uuid: string; kind: string }; payload: unknown };
        return { id: event.uuid, type: event.kind, createdAt: undefined, data: payload };
      },
    };
    const headers = { 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${signature}` };
    expect(verify({ rawBody: raw, headers, scheme })).toMatchObject({ id: 'e-7', type: 'order.paid', data: { total: 5 }, signedAt: NOW_MS });
    // The default scheme refuses the same request, and the configured one refuses a tampered body.
    expect(refusal(() => verify({ rawBody: raw, headers })).reason).toBe('missing-header');
    expect(refusal(() => verify({ rawBody: raw.replace('5', '6'), headers, scheme })).reason).toBe('bad-signature');
  });

  it('checks a hand-made signature (not only its own signer)', () => {
    const body = '{"id":"h1","type":"T","data":null}';
    const headers = {
      'x-signature-timestamp': String(NOW_S),
      'x-signature-256': `sha256=${hmacHex(WEBHOOK_SECRET, NOW_S, body)}`,
      'x-delivery-id': 'h1',
      'x-event-type': 'T',
    };
    expect(verify({ rawBody: body, headers }).data).toBeNull();
  });

  it('accepts one spelling of a signature: other spellings of the same digest are malformed', () => {
    const body = '{"id":"h2","type":"T","data":null}';
    const digest = hmacHex(WEBHOOK_SECRET, NOW_S, body);
    const headers = (signature: string) => ({
      'x-signature-timestamp': String(NOW_S),
      'x-signature-256': signature,
      'x-delivery-id': 'h2',
      'x-event-type': 'T',
    });
    expect(verify({ rawBody: body, headers: headers(`sha256=${digest}`) }).id).toBe('h2');
    for (const spelling of [
      `sha256=${digest.toUpperCase()}`,
      `SHA256=${digest}`,
      ` sha256=${digest}`,
      `sha256=${digest} `,
      `sha256=${digest}0`,
      `sha256=${digest}a`,
      `sha256=${digest.slice(0, -1)}`,
      `sha256=0${digest}`,
    ]) {
      const error = refusal(() => verify({ rawBody: body, headers: headers(spelling) }));
      expect(error.reason, JSON.stringify(spelling)).toBe('malformed');
      expect(error.message).not.toContain(digest);
    }
  });
});
