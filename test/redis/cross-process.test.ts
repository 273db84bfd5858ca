/**
 * Rate limits and the user session shared between real processes through a
 * real Redis, against a loopback server that enforces the contract's limits
 * (test/helpers/limits-server.ts) and counts what it receives.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createClient } from 'redis';
import { Client } from '../../src/index.js';
import { createRedisRateLimitStore } from '../../src/redis/index.js';
import { startScript } from '../helpers/index.js';
import { burst, resultOf, WORKER } from './burst.js';
import { startLimitsServer } from '../helpers/limits-server.js';
import { describeWithRedis, startRedisServer, type RunningRedis } from '../helpers/redis-server.js';
import { until } from '../helpers/until.js';

describeWithRedis('rate limits and the session shared across processes through Redis', () => {
  let redis: RunningRedis;
  let connection: ReturnType<typeof createClient>;

  beforeAll(async () => {
    redis = await startRedisServer();
    connection = createClient({ url: redis.url });
    connection.on('error', () => undefined);
    await connection.connect();
  }, 20_000);
  afterAll(async () => {
    await connection?.quit();
    await redis?.stop();
  });

  it('4 processes: no webhook window violation and at most one 429 per learned bucket with Redis, many with in-memory stores', async () => {
    const webhookWindowMs = 500; // the contract's 30 per 60 s, scaled to 30 per 500 ms so that 400 messages take seconds
    const counts: Record<string, { violations: number; routeTooMany: number; maxInWindow: number; failed: number }> = {};
    for (const store of ['memory', 'redis'] as const) {
      const server = await startLimitsServer({ routeLimit: 10, routeWindowMs: 500, webhookLimit: 30, webhookWindowMs });
      try {
        const results = await burst({ store, redisUrl: redis.url }, server, webhookWindowMs);
        counts[store] = {
          violations: server.webhookViolations,
          routeTooMany: server.tooMany.get('chan-read:123') ?? 0,
          maxInWindow: server.maxInWebhookWindow(),
          failed: results.reduce((sum, result) => sum + result.failed.length, 0),
        };
        if (store === 'redis') {
          expect(results.map((result) => result.ok)).toEqual([115, 115, 115, 115]);
          // Each process keeps its own order.
          for (const proc of [0, 1, 2, 3]) {
            const sent = server.webhookAccepted.filter((item) => item.content.startsWith(`p${proc}-`)).map((item) => Number(item.content.split('-')[1]));
            expect(sent).toEqual(Array.from({ length: 100 }, (_, i) => i));
          }
        }
      } finally {
        await server.close();
      }
    }
    console.log(
      `[cross-process burst] 4 processes x (15 channel reads + 100 webhook executions): ` +
        `in-memory stores: ${counts.memory?.violations} webhook window violations, ${counts.memory?.routeTooMany} route 429s, at most ${counts.memory?.maxInWindow} accepted per window, ${counts.memory?.failed} calls failed; ` +
        `Redis store: ${counts.redis?.violations} webhook window violations, ${counts.redis?.routeTooMany} route 429s, at most ${counts.redis?.maxInWindow} per window, ${counts.redis?.failed} failed`,
    );
    expect(counts.redis?.violations).toBe(0);
    expect(counts.redis?.maxInWindow).toBeLessThanOrEqual(30);
    expect(counts.redis?.routeTooMany).toBeLessThanOrEqual(1);
    expect(counts.memory?.violations).toBeGreaterThan(10);
    // Each in-memory process believes it owns the whole route bucket, so together they overrun it: more than the one discovery 429.
    expect(counts.memory?.routeTooMany).toBeGreaterThan(1);
  }, 150_000);

  it('a process killed mid-burst (SIGKILL) holds its places no longer than the reservation expiry', async () => {
    const server = await startLimitsServer({ routeLimit: 4, routeWindowMs: 200 });
    const prefix = `kill-${Date.now()}:`;
    const reservationMs = 1500;
    const client = new Client({
      baseUrl: server.url,
      auth: { botToken: 'shared-bot-token' },
      rateLimitStore: createRedisRateLimitStore({ client: connection, prefix, reservationMs }),
    });
    try {
      await client.channels.get('k'); // learns the bucket: 4 per 200 ms
      server.hang = true;
      const before = server.requests.length;
      const victim = await startScript(WORKER, {
        env: {
          MODE: 'burst',
          STORE: 'redis',
          PREFIX: prefix,
          RESERVATION_MS: String(reservationMs),
          REDIS_URL: redis.url,
          BASE_URL: server.url,
          ROUTE_COUNT: '8',
          CHANNEL: 'k',
          WEBHOOK_COUNT: '0',
        },
      });
      // The victim holds all 4 places of the bucket in requests the server never answers.
      await until(() => server.requests.length - before >= 4, {
        timeoutMs: 15_000,
        what: () => `the victim's 4 requests (${server.requests.length - before} seen)`,
      });
      expect(server.requests.length - before).toBe(4);
      victim.kill('SIGKILL');
      await victim.exited;
      const killedAt = Date.now();
      server.hang = false;
      await client.channels.get('k');
      const waited = Date.now() - killedAt;
      console.log(`[SIGKILL] the next request waited ${waited} ms for the dead process's 4 reservations (reservationMs ${reservationMs})`);
      expect(waited).toBeGreaterThan(300);
      expect(waited).toBeLessThan(reservationMs + 500);
    } finally {
      await client.close();
      await server.close();
    }
  }, 40_000);

  it('two processes sharing one session: exactly one refresh reaches the server, and both go on with the new token', async () => {
    const server = await startLimitsServer({ session: { refreshCookie: 'refresh-0', accessToken: 'access-0' } });
    const key = `session-${Date.now()}`;
    // The access token expires within the refresh margin, so both processes want to refresh at once.
    const snapshot = {
      accessToken: 'access-0',
      accessTokenExpiresAt: Date.now() + 20_000,
      cookies: [{ name: 'refresh_token', value: 'refresh-0', path: '/api/v1/auth' }],
    };
    await connection.set(key, JSON.stringify(snapshot));
    try {
      const startAt = Date.now() + 2500;
      const workers = await Promise.all(
        [0, 1].map(() =>
          startScript(WORKER, { env: { MODE: 'session', SESSION_KEY: key, REDIS_URL: redis.url, BASE_URL: server.url, START_AT: String(startAt) } }),
        ),
      );
      const results = await Promise.all(workers.map((worker) => resultOf<{ token: string; refreshed: number }>(worker, 30_000)));
      console.log(`[shared session] refreshes at the server: ${server.refreshes.total}; tokens used: ${server.userTokens.join(', ')}`);
      expect(server.refreshes).toEqual({ total: 1, ok: 1 });
      expect(results[0]?.token).toMatch(/^access-1-/);
      expect(results[1]?.token).toBe(results[0]?.token);
      expect(server.userTokens).toEqual([results[0]?.token, results[0]?.token]);
      const stored = JSON.parse((await connection.get(key)) as string) as { accessToken: string };
      expect(stored.accessToken).toBe(results[0]?.token);
    } finally {
      await server.close();
    }
  }, 40_000);
});
