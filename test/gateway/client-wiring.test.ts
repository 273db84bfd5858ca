import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { BotTokenStrategy, Client } from '../../src/index.js';
import { GatewayOpcode } from '../../src/testing/index.js';
import { GatewayServer } from '../../src/testing/gateway-server.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('the bot token the Gateway identifies with', () => {
  it('BotTokenStrategy gives the raw token by method, never through toJSON or util.inspect, and none after a 401', () => {
    const strategy = new BotTokenStrategy('raw-token-Vb93.secret');
    expect(strategy.gatewayToken()).toBe('raw-token-Vb93.secret');
    expect(JSON.stringify(strategy) + inspect(strategy) + inspect(strategy, { showHidden: true })).not.toContain('raw-token-Vb93.secret');
    strategy.invalidate();
    expect(strategy.gatewayToken()).toBeUndefined();
    strategy.setToken('next-token-Hh12.secret');
    expect(strategy.gatewayToken()).toBe('next-token-Hh12.secret');
  });

  it('the client identifies with the token set last, verbatim', async () => {
    const server = new GatewayServer({ heartbeatIntervalMs: 60_000 });
    await server.listening();
    const client = new Client({ auth: { botToken: 'first-token' }, gateway: { url: server.url } });
    cleanups.push(
      () => server.close(),
      () => client.close(),
    );
    client.setBotToken('Bot-lookalike.token');
    await client.gateway.connect();
    expect(server.received.find((frame) => frame.op === GatewayOpcode.Identify)?.d).toMatchObject({ token: 'Bot-lookalike.token' });
  });
});
