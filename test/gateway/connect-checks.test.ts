import { afterEach, describe, expect, it, vi } from 'vitest';
import { Client, GatewayError } from '../../src/index.js';

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('connect() on a runtime without a Gateway', () => {
  it('on Cloudflare Workers rejects with a GatewayError pointing to HTTP interactions, and opens nothing', async () => {
    vi.stubGlobal('navigator', { userAgent: 'Cloudflare-Workers' });
    const requests: string[] = [];
    const client = new Client({
      baseUrl: 'http://127.0.0.1:9',
      auth: { botToken: 'worker-bot-token' },
      transport: { send: (request) => (requests.push(request.path), Promise.reject(new Error('no request expected'))), close: () => Promise.resolve() },
    });
    const refusal = await client.gateway.connect().catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(GatewayError);
    expect((refusal as Error).message).toMatch(/Cloudflare Workers do not run.*createWebhookReceiver/);
    expect(requests).toEqual([]); // not even GET /gateway/bot
    await client.close();
  });
});
