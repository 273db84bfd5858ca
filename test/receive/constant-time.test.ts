/**
 * The signature check is constant-time for every candidate secret: each one
 * is compared with crypto.timingSafeEqual, even after one has matched, so
 * the time taken never says which secret (or whether the first) matched.
 */
import * as crypto from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { verifyWebhookDelivery } from '../../src/receiver.js';
import { NOW_MS, OLD_WEBHOOK_SECRET, signedDelivery, WEBHOOK_SECRET } from './helpers.js';

vi.mock('node:crypto', async (importOriginal) => {
  const original = await importOriginal<typeof import('node:crypto')>();
  return { ...original, timingSafeEqual: vi.fn(original.timingSafeEqual) };
});

describe('the signature comparison', () => {
  it('runs timingSafeEqual once per candidate secret, whichever matches, and never returns early', () => {
    const compare = vi.mocked(crypto.timingSafeEqual);
    const { body, headers } = signedDelivery({ id: 'ct-1' });
    for (const secrets of [
      [WEBHOOK_SECRET, OLD_WEBHOOK_SECRET, 'third-secret-x'],
      [OLD_WEBHOOK_SECRET, 'third-secret-x', WEBHOOK_SECRET],
      ['third-secret-x', OLD_WEBHOOK_SECRET],
    ]) {
      compare.mockClear();
      try {
        verifyWebhookDelivery({ rawBody: body, headers, secret: secrets, clock: () => NOW_MS });
      } catch {
        // The last set matches nothing: still one comparison per secret.
      }
      expect(compare).toHaveBeenCalledTimes(secrets.length);
    }
  });
});
