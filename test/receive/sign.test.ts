import { describe, expect, it } from 'vitest';
import { signWebhookDelivery, verifyWebhookDelivery } from '../../src/receiver.js';
import { isCommunityChatError } from '../../src/index.js';
import { hmacHex, NOW_MS, NOW_S, WEBHOOK_SECRET } from './helpers.js';

describe('signWebhookDelivery', () => {
  const body = JSON.stringify({ id: 'd-sign', type: 'PING_EVENT', created_at: NOW_MS, data: { text: 'ça va? 🎉' } });

  it('produces the four headers of the default scheme, with the signature the service would send', () => {
    const headers = signWebhookDelivery({ body, secret: WEBHOOK_SECRET, clock: () => NOW_MS });
    expect(headers).toEqual({
      'X-Signature-Timestamp': String(NOW_S),
      'X-Signature-256': `sha256=${hmacHex(WEBHOOK_SECRET, NOW_S, body)}`,
      'X-Delivery-Id': 'd-sign',
      'X-Event-Type': 'PING_EVENT',
    });
    expect(verifyWebhookDelivery({ rawBody: body, headers, secret: WEBHOOK_SECRET, clock: () => NOW_MS }).data).toEqual({ text: 'ça va? 🎉' });
  });

  it('takes an explicit timestamp, id and type, and signs with the first secret of a rotation list', () => {
    const headers = signWebhookDelivery({
      body,
      secret: [WEBHOOK_SECRET, 'other-secret'],
      timestamp: NOW_S - 10,
      deliveryId: 'd-sign',
      eventType: 'PING_EVENT',
    });
    expect(headers['X-Signature-Timestamp']).toBe(String(NOW_S - 10));
    expect(headers['X-Signature-256']).toBe(`sha256=${hmacHex(WEBHOOK_SECRET, NOW_S - 10, body)}`);
  });

  it('refuses an empty secret, and a body it cannot read the id and type from', () => {
    expect(() => signWebhookDelivery({ body, secret: ' ' })).toThrow(/secret/);
    let error: unknown;
    try {
      signWebhookDelivery({ body: 'plain text', secret: WEBHOOK_SECRET });
    } catch (caught) {
      error = caught;
    }
    expect(isCommunityChatError(error, 'ValidationError')).toBe(true);
    expect((error as Error).message).toMatch(/deliveryId and eventType/);
    expect(Object.keys(signWebhookDelivery({ body: 'plain text', secret: WEBHOOK_SECRET, deliveryId: 'x', eventType: 'y' }))).toHaveLength(4);
  });
});

describe('verifyWebhookDelivery and signWebhookDelivery options', () => {
  it('refuse now (renamed clock), toleranceSeconds (renamed toleranceMs), unknown names and a tolerance past 2^31 - 1 ms', () => {
    const body = JSON.stringify({ id: 'd1', type: 'T', data: {} });
    expect(() => signWebhookDelivery({ body, secret: WEBHOOK_SECRET, now: () => NOW_MS } as never)).toThrow(/now: was renamed or removed: use clock/);
    const headers = signWebhookDelivery({ body, secret: WEBHOOK_SECRET, clock: () => NOW_MS, deliveryId: 'd1', eventType: 'T' });
    const verify = (extra: Record<string, unknown>) => () =>
      verifyWebhookDelivery({ rawBody: body, headers, secret: WEBHOOK_SECRET, clock: () => NOW_MS, ...extra });
    expect(verify({ toleranceSeconds: 300 })).toThrow(/toleranceSeconds: was renamed or removed: use toleranceMs/);
    expect(verify({ tolerance: 300 })).toThrow(/tolerance: is not an option of verifyWebhookDelivery/);
    expect(verify({ toleranceMs: 3e9 })).toThrow(/toleranceMs: must be at most 2147483647/);
    expect(verify({ toleranceMs: 1000 })().id).toBe('d1');
  });
});
