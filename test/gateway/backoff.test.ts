import { afterEach, describe, expect, it, vi } from 'vitest';
import { Client, type GatewayReconnectingEvent } from '../../src/index.js';
import { startLoopbackServer } from '../helpers/index.js';
import { until } from '../helpers/until.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('Gateway reconnect backoff (fake timers)', () => {
  it('waits exactly the capped, full-jitter delay before each attempt, never earlier', async () => {
    // A real HTTP server that refuses every WebSocket upgrade (it has no upgrade handler, so the
    // upgrade arrives as a plain request and is cut off), counting the attempts.
    const server = await startLoopbackServer((request) => request.socket.destroy());
    const port = Number(new URL(server.url).port);
    const upgrades = () => server.requests.length;

    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    const client = new Client({
      auth: { botToken: 'token' },
      gateway: {
        url: `ws://127.0.0.1:${port}/gateway`,
        random: () => 0.999,
        reconnectBaseDelayMs: 1000,
        reconnectMaxDelayMs: 8000,
        connectTimeoutMs: 10 * 60_000,
      },
    });
    const events: GatewayReconnectingEvent[] = [];
    client.gateway.on('reconnecting', (event) => events.push(event));
    const connecting = client.gateway.connect().catch((error: unknown) => error);

    const expected = [999, 1998, 3996, 7992, 7992, 7992];
    for (const [index, delay] of expected.entries()) {
      await until(() => events.length === index + 1, { timeoutMs: 10_000, what: `reconnecting event ${index + 1}` });
      expect(events[index]).toMatchObject({ attempt: index + 1, delayMs: delay, resume: false });
      const attemptsBefore = upgrades();
      await vi.advanceTimersByTimeAsync(delay - 1);
      for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
      expect(upgrades()).toBe(attemptsBefore);
      await vi.advanceTimersByTimeAsync(1);
      await until(() => upgrades() === attemptsBefore + 1, { timeoutMs: 10_000, what: `upgrade attempt ${attemptsBefore + 1} at the server` });
    }

    await client.gateway.close();
    expect(await connecting).toBeInstanceOf(Error);
    vi.useRealTimers();
    await server.close();
  });
});
