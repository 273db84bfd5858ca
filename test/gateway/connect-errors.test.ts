/**
 * `connect()` says why it cannot connect: every failed attempt is a debug
 * line naming the error (ECONNREFUSED, the upgrade's HTTP status), the
 * timeout's GatewayError carries the last one, and an answer retrying cannot
 * fix (a 4xx to the upgrade) fails at once. No message holds the token.
 */
import http from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { Client, type GatewayReconnectingEvent, isCommunityChatError } from '../../src/index.js';
import type { StoreRecoveredEvent } from '../../src/diagnostics.js';
import { until } from '../helpers/until.js';

const TOKEN = 'bot-token-never-shown.Xy77';

async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** An HTTP server that answers every upgrade with `status`. */
async function refusingServer(status: number): Promise<{ url: string; upgrades: () => number; close(): Promise<void> }> {
  let upgrades = 0;
  const server = http.createServer();
  server.on('upgrade', (_request, socket) => {
    upgrades++;
    // The client may reset the connection once it reads the refusal; that reset is not this test's subject.
    socket.on('error', () => undefined);
    socket.end(`HTTP/1.1 ${status} Nope\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `ws://127.0.0.1:${port}/gateway`, upgrades: () => upgrades, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('connect() to something that is not a Gateway', () => {
  it('a dead port: attempts are retried (reconnecting events), and the timeout error names ECONNREFUSED', async () => {
    const port = await deadPort();
    const client = new Client({
      auth: { botToken: TOKEN },
      gateway: { url: `ws://127.0.0.1:${port}/gateway`, connectTimeoutMs: 800, reconnectBaseDelayMs: 50, reconnectMaxDelayMs: 100 },
    });
    const debug: string[] = [];
    const retries: GatewayReconnectingEvent[] = [];
    client.gateway.on('debug', (line) => void debug.push(line));
    client.gateway.on('reconnecting', (event) => void retries.push(event));
    const error = await client.gateway.connect().catch((caught: unknown) => caught);
    await client.close();
    expect(isCommunityChatError(error, 'GatewayError')).toBe(true);
    expect((error as Error).message).toMatch(/within 800 ms.*last connection error: ECONNREFUSED/);
    expect(retries.length, 'attempts retried before the timeout').toBeGreaterThan(0);
    expect(retries.map((event) => event.attempt)).toEqual(retries.map((_, index) => index + 1));
    // The debug lines (one per failed attempt) and the error never carry the token.
    expect(debug.length).toBeGreaterThan(0);
    expect(JSON.stringify([debug, retries, (error as Error).message])).not.toContain(TOKEN);
  });

  it('a 4xx answer to the upgrade fails at once, not at the timeout, naming the status', async () => {
    const server = await refusingServer(404);
    const client = new Client({ auth: { botToken: TOKEN }, gateway: { url: server.url, connectTimeoutMs: 60_000, reconnectBaseDelayMs: 50 } });
    try {
      const error = await client.gateway.connect().catch((caught: unknown) => caught);
      expect(isCommunityChatError(error, 'GatewayFatalError')).toBe(true);
      expect((error as Error).message).toMatch(/HTTP 404/);
      expect(server.upgrades()).toBe(1);
      expect((error as Error).message).not.toContain(TOKEN);
    } finally {
      await client.close();
      await server.close();
    }
  });

  it('a 503 or a 429 answer to the upgrade is retried', async () => {
    for (const status of [503, 429]) {
      const server = await refusingServer(status);
      const client = new Client({
        auth: { botToken: TOKEN },
        gateway: { url: server.url, connectTimeoutMs: 600, reconnectBaseDelayMs: 20, reconnectMaxDelayMs: 50 },
      });
      try {
        const error = await client.gateway.connect().catch((caught: unknown) => caught);
        expect(isCommunityChatError(error, 'GatewayFatalError')).toBe(false);
        expect((error as Error).message).toContain(`last connection error: the WebSocket upgrade was answered with HTTP ${status}`);
        expect(server.upgrades()).toBeGreaterThan(1);
      } finally {
        await client.close();
        await server.close();
      }
    }
  });
});

describe('connect() with Redis down names the component that failed', () => {
  const down = { isReady: false, sendCommand: () => Promise.reject(new Error('unreachable')) };

  it('the shard coordinator, not a session store that was never configured', async () => {
    const { createRedisShardCoordinator } = await import('../../src/redis/index.js');
    const client = new Client({
      baseUrl: 'http://127.0.0.1:9',
      auth: { botToken: TOKEN },
      gateway: {
        url: 'ws://127.0.0.1:9/gateway',
        shards: 'auto',
        shardCount: 2,
        maxConcurrency: 1,
        coordinator: createRedisShardCoordinator({ client: down }),
      },
    });
    const error = await client.gateway.connect().catch((e: unknown) => e);
    await client.close();
    expect(isCommunityChatError(error, 'ShardCoordinatorError'), String(error)).toBe(true);
    expect((error as Error).message).toBe('The shard coordinator failed: the Redis client is not connected');
    expect((error as Error).message).not.toMatch(/session store/);
  });

  it('the Identify throttle, not the rate-limit store (whose advice would not apply)', async () => {
    const { createRedisIdentifyThrottle } = await import('../../src/redis/index.js');
    const { startWsServer, behaveWell } = await import('../helpers/ws-server.js');
    const ws = await startWsServer(behaveWell);
    const client = new Client({
      baseUrl: 'http://127.0.0.1:9',
      auth: { botToken: TOKEN },
      gateway: { url: ws.url, connectTimeoutMs: 300, identifyThrottle: createRedisIdentifyThrottle({ client: down }) },
    });
    const errors: Error[] = [];
    client.gateway.on('error', (error) => errors.push(error));
    await client.gateway.connect().catch(() => undefined);
    await client.close();
    await ws.close();
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0]?.message).toBe('no Identify turn: The Identify throttle (Redis) failed: the Redis client is not connected; reconnecting');
  });

  it('a throttle that keeps failing is one error per outage, whatever the shards and attempts, and one storeRecovered (duration, failed waits) when it answers again', async () => {
    const { startWsServer, behaveWell } = await import('../helpers/ws-server.js');
    const ws = await startWsServer(behaveWell);
    let down = true;
    let failed = 0;
    const identifyThrottle = {
      wait: async () => {
        if (!down) return;
        failed++;
        throw new Error('throttle down');
      },
    };
    let now = 1_000_000;
    const client = new Client({
      baseUrl: 'http://127.0.0.1:9',
      auth: { botToken: TOKEN },
      clock: () => now,
      gateway: { url: ws.url, shards: 'auto', shardCount: 2, maxConcurrency: 2, reconnectBaseDelayMs: 5, reconnectMaxDelayMs: 20, identifyThrottle },
    });
    const errors: Error[] = [];
    const recovered: StoreRecoveredEvent[] = [];
    client.gateway.on('error', (error) => errors.push(error));
    client.gateway.on('storeRecovered', (event) => recovered.push(event));
    try {
      const connecting = client.gateway.connect().catch(() => undefined);
      await until(() => failed >= 6, { what: `six failed Identify waits over both shards (${failed} so far)` });
      expect(
        errors.map((error) => error.message),
        `errors for ${failed} failed waits in one outage`,
      ).toEqual(['no Identify turn: throttle down; reconnecting']);
      expect(recovered, 'nothing ends while the throttle fails').toEqual([]);
      down = false;
      const failedWaits = failed;
      now += 5000; // its outage ends at an answer 5 s after its last failure
      await until(() => client.gateway.status === 'ready', { what: 'both shards ready once the throttle answers', timeoutMs: 10_000 });
      await connecting;
      expect(errors).toHaveLength(1);
      // The clock stood still while the waits failed, then moved 5 s: the outage lasted exactly that, and counted every failed wait.
      expect(recovered, `one storeRecovered after ${failedWaits} failed waits`).toEqual([
        { store: 'identifyThrottle', durationMs: 5000, failures: failedWaits },
      ]);
    } finally {
      await client.close();
      await ws.close();
    }
  });
});
