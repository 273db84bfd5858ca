import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Client, type GatewayReconnectingEvent } from '../../src/index.js';

/** Lets real I/O (sockets, module loading) progress while timers are fake; gives up after `ms` of real time. */
async function untilReal(predicate: () => boolean, ms = 10_000): Promise<void> {
  const started = performance.now();
  while (!predicate() && performance.now() - started < ms) await new Promise((resolve) => setImmediate(resolve));
  if (!predicate()) throw new Error('condition not met');
}

afterEach(() => {
  vi.useRealTimers();
});

describe('Gateway reconnect backoff (fake timers)', () => {
  it('waits exactly the capped, full-jitter delay before each attempt, never earlier', async () => {
    // A real server that refuses every WebSocket upgrade, counting the attempts.
    let upgrades = 0;
    const server = http.createServer();
    server.on('upgrade', (_request, socket) => {
      upgrades++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const port = (server.address() as AddressInfo).port;

    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    const client = new Client({
      auth: { botToken: 'token' },
      gateway: { url: `ws://127.0.0.1:${port}/gateway`, random: () => 0.999, reconnectBaseDelayMs: 1000, reconnectMaxDelayMs: 8000, connectTimeoutMs: 10 * 60_000 },
    });
    const events: GatewayReconnectingEvent[] = [];
    client.gateway.on('reconnecting', (event) => events.push(event));
    const connecting = client.gateway.connect().catch((error: unknown) => error);

    const expected = [999, 1998, 3996, 7992, 7992, 7992];
    for (const [index, delay] of expected.entries()) {
      await untilReal(() => events.length === index + 1);
      expect(events[index]).toMatchObject({ attempt: index + 1, delayMs: delay, resume: false });
      const attemptsBefore = upgrades;
      await vi.advanceTimersByTimeAsync(delay - 1);
      for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
      expect(upgrades).toBe(attemptsBefore);
      await vi.advanceTimersByTimeAsync(1);
      await untilReal(() => upgrades === attemptsBefore + 1);
    }

    await client.gateway.destroy();
    expect(await connecting).toBeInstanceOf(Error);
    vi.useRealTimers();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
});
