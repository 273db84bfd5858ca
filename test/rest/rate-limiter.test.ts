import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Client, type Transport, type TransportRequest } from '../../src/index.js';
import { loadSchemas } from '../../src/schemas/validate.js';

/** A transport with no sockets: records the (fake) time of every send and answers 204. */
function recordingTransport(): Transport & { sends: { at: number; body: string }[] } {
  const sends: { at: number; body: string }[] = [];
  return {
    sends,
    async send(request: TransportRequest) {
      sends.push({ at: Date.now(), body: String(request.body) });
      return { status: 204, headers: {}, text: async () => '', discard: async () => undefined };
    },
    async close() {},
  };
}

describe('webhook rolling window with the contract defaults (fake timers)', () => {
  beforeEach(async () => {
    // Load the lazily imported schemas on real time, before the clock is faked.
    await loadSchemas();
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('spreads a burst of 100 messages to one webhook over time, in order, never more than 30 per rolling minute', async () => {
    const transport = recordingTransport();
    const client = new Client({ baseUrl: 'https://chat.test', transport, auth: { webhookTokens: { wh1: 'secret-token' } }, deadlineMs: 3_600_000 });
    const settled: number[] = [];
    const sends = Array.from({ length: 100 }, (_, i) =>
      client.webhooks.execute('wh1', { content: `message ${i}` }).then(() => {
        settled.push(i);
      }),
    );
    await vi.advanceTimersByTimeAsync(0);
    expect(transport.sends).toHaveLength(30);
    await vi.advanceTimersByTimeAsync(4 * 60_000 + 10);
    await Promise.all(sends);
    expect(settled).toEqual(Array.from({ length: 100 }, (_, i) => i));
    const bodies = transport.sends.map((send) => JSON.parse(send.body).content as string);
    expect(bodies).toEqual(Array.from({ length: 100 }, (_, i) => `message ${i}`));
    for (const first of transport.sends) {
      expect(transport.sends.filter((send) => send.at >= first.at && send.at < first.at + 60_000).length).toBeLessThanOrEqual(30);
    }
    // Another webhook is not held back by the first one's window.
    await client.webhooks.execute({ id: 'wh2', token: 'other' }, { content: 'independent' });
    expect(transport.sends).toHaveLength(101);
  });

  it('the window is configurable, and can be switched off', async () => {
    const transport = recordingTransport();
    const client = new Client({ baseUrl: 'https://chat.test', transport, auth: { webhookTokens: { wh1: 't' } }, webhookRateLimit: false });
    await Promise.all(Array.from({ length: 40 }, (_, i) => client.webhooks.execute('wh1', { content: `m${i}` })));
    expect(transport.sends).toHaveLength(40);
  });
});
