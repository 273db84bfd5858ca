/**
 * A Gateway publishes its own session life on the diagnostics channels, so
 * one built without a Client is observed too (over a real socket, without
 * MSW, which would take the WebSocket upgrade).
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { describe, expect, it } from 'vitest';
import { Gateway } from '../../src/gateway/gateway.js';
import { DIAGNOSTICS_CHANNELS } from '../../src/diagnostics.js';
import { GatewayServer } from '../../src/testing/gateway-server.js';
import { SECRETS, findLeakedSecrets } from '../helpers/index.js';

type Seen = { channel: string; message: Record<string, unknown> };

/** Records what the channels publish until `stop()`. */
function listen(names: readonly string[]): { seen: Seen[]; stop(): void } {
  const seen: Seen[] = [];
  const listeners = names.map((name) => {
    const listener = (message: unknown) => seen.push({ channel: name.replace('community-chat-sdk:', ''), message: message as Record<string, unknown> });
    subscribe(name, listener);
    return () => unsubscribe(name, listener);
  });
  return {
    seen,
    stop: () => {
      for (const stop of listeners) stop();
    },
  };
}

describe('Gateway diagnostics channels', () => {
  it('publish connect, ready, close, reconnect and resume of a Gateway built without a Client, with ids, codes and durations only', async () => {
    const server = new GatewayServer({ heartbeatIntervalMs: 60_000 });
    await server.listening();
    const gateway = new Gateway(
      { url: server.url, reconnectBaseDelayMs: 5, reconnectMaxDelayMs: 10 },
      {
        token: () => SECRETS.botToken,
        respond: async () => undefined,
        defaultUrl: server.url,
        now: Date.now,
        allowInsecure: false,
        gatewayBot: async () => ({}),
      },
    );
    const { seen, stop } = listen([
      DIAGNOSTICS_CHANNELS.gatewayConnect,
      DIAGNOSTICS_CHANNELS.gatewayReady,
      DIAGNOSTICS_CHANNELS.gatewayResume,
      DIAGNOSTICS_CHANNELS.gatewayClose,
    ]);
    try {
      await gateway.connect();
      const resumed = new Promise((resolve) => gateway.once('resumed', resolve));
      server.dropConnections(4000);
      await resumed;
      expect(seen.map((s) => [s.channel, s.message])).toEqual([
        ['gateway:connect', { phase: 'start' }],
        ['gateway:ready', { shardId: 0 }],
        ['gateway:connect', { phase: 'end', durationMs: expect.any(Number) }],
        ['gateway:close', { shardId: 0, code: 4000, willReconnect: true }],
        ['gateway:connect', { phase: 'reconnect', shardId: 0, attempt: 1, delayMs: expect.any(Number), resume: true }],
        ['gateway:resume', { shardId: 0, replayed: 0 }],
      ]);
      expect(findLeakedSecrets(JSON.stringify(seen), [gateway.sessionId ?? 'no session'])).toEqual([]);
    } finally {
      stop();
      await gateway.close();
      await server.close();
    }
  });
});
