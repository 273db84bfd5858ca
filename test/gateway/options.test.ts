import { describe, expect, it } from 'vitest';
import { resolveGatewayOptions } from '../../src/gateway/options.js';
import { Client } from '../../src/index.js';
import { GatewayServer } from '../../src/testing/gateway-server.js';
import { startLoopbackServer } from '../helpers/index.js';

describe('resolveGatewayOptions', () => {
  it('fills every default in one place, the URL from the client', () => {
    const resolved = resolveGatewayOptions({}, 'ws://127.0.0.1:1/api/v1/gateway');
    expect(resolved).toMatchObject({
      url: 'ws://127.0.0.1:1/api/v1/gateway',
      intents: 0,
      connectTimeoutMs: 60_000,
      openTimeoutMs: 15_000,
      helloTimeoutMs: 10_000,
      readyTimeoutMs: 15_000,
      reconnectBaseDelayMs: 1_000,
      reconnectMaxDelayMs: 30_000,
    });
    expect(resolved.random).toBe(Math.random);
  });

  it('keeps what the caller set', () => {
    const random = () => 0.5;
    const resolved = resolveGatewayOptions({ url: 'wss://gw.example/x', intents: 513, random, readyTimeoutMs: 5 }, 'ws://127.0.0.1:1/default');
    expect(resolved).toMatchObject({ url: 'wss://gw.example/x', intents: 513, readyTimeoutMs: 5 });
    expect(resolved.random).toBe(random);
  });
});

describe('the default Gateway URL', () => {
  it('is derived from the base URL and used by the connection as is', async () => {
    const http = await startLoopbackServer();
    const server = new GatewayServer({ server: http.server, path: '/base/api/v1/gateway' });
    const client = new Client({ baseUrl: `${http.url}/base`, auth: { botToken: 'token-for-url-test' } });
    try {
      await client.gateway.connect();
      expect(server.stats.identifies).toBe(1);
    } finally {
      await client.close();
      await server.close();
      await http.close();
    }
  });
});
