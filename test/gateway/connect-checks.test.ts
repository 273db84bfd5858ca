import { afterEach, describe, expect, it, vi } from 'vitest';
import { Client, GatewayError } from '../../src/index.js';
import { botIdOfToken } from '../../src/gateway/connect-checks.js';

afterEach(() => {
  vi.unstubAllGlobals();
  vi.doUnmock('../../src/core/edge-build.js');
  vi.resetModules();
});

/** A client whose transport records each request's path and answers none. */
function recordingClient(sdk: { Client: typeof Client }, requests: string[]): Client {
  return new sdk.Client({
    baseUrl: 'http://127.0.0.1:9',
    auth: { botToken: 'worker-bot-token' },
    retries: 0, // a request that should not have been sent fails the test at once, not after retries
    transport: { send: (request) => (requests.push(request.path), Promise.reject(new Error('no request expected'))), close: () => Promise.resolve() },
  });
}

describe('connect() on a runtime without a Gateway', () => {
  it('on Cloudflare Workers rejects with a GatewayError pointing to HTTP interactions, and opens nothing', async () => {
    vi.stubGlobal('navigator', { userAgent: 'Cloudflare-Workers' });
    const requests: string[] = [];
    const client = recordingClient({ Client }, requests);
    const refusal = await client.gateway.connect().catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(GatewayError);
    expect((refusal as Error).message).toMatch(/edge runtimes \(workers and edge functions, the SDK's edge build\) do not run.*createWebhookReceiver/);
    expect((refusal as Error).message, 'the refusal names no one platform').not.toMatch(/Cloudflare Workers|Vercel/);
    expect(requests).toEqual([]); // not even GET /gateway/bot
    await client.close();
  });

  it('in the edge build, on a runtime detected as Node (an edge runtime that looks like none we know), refuses before any request', async () => {
    vi.resetModules();
    vi.doMock('../../src/core/edge-build.js', () => ({ EDGE_BUILD: true }));
    const edge = await import('../../src/index.js');
    const requests: string[] = [];
    const client = recordingClient(edge, requests);
    // The signal only bounds a wrong outcome (a connection attempt) so the assertions below say what happened.
    const refusal = await client.gateway.connect({ signal: AbortSignal.timeout(2_000) }).catch((error: unknown) => error);
    expect(refusal, 'connect() in the edge build on Node').toBeInstanceOf(edge.GatewayError);
    expect((refusal as Error).message).toMatch(/createWebhookReceiver/);
    expect(requests, 'requests sent before the refusal (GET /gateway/bot)').toEqual([]);
    await client.close();
  });
});

describe('botIdOfToken: the bot id a Discord-shaped token carries', () => {
  it('reads the base64 id before the first dot, and nothing from any other shape', () => {
    const id = '1150000000000000000';
    const encoded = btoa(id).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
    expect(botIdOfToken(`${encoded}.GhIjKl.secret-part`)).toBe(id);
    expect(botIdOfToken(`${btoa(id)}.x`)).toBe(id);
    for (const other of [undefined, '', 'not-a-token', `${btoa('abc')}.x`, `${btoa('0123')}.x`, `${btoa('1'.repeat(25))}.x`, '%%%.x'])
      expect(botIdOfToken(other), String(other)).toBeUndefined();
  });
});
