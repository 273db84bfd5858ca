/**
 * The Redis session store in one process, against a real redis-server: the
 * snapshot round trip, and a refresh lock whose holder died.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createClient } from 'redis';
import { Client } from '../../src/index.js';
import { createRedisSessionStore } from '../../src/redis/index.js';
import { startLimitsServer, type LimitsServer } from '../helpers/limits-server.js';
import { describeWithRedis, startRedisServer, type RunningRedis } from '../helpers/redis-server.js';

describeWithRedis('the Redis session store', () => {
  let redis: RunningRedis;
  let connection: ReturnType<typeof createClient>;
  let server: LimitsServer;

  beforeAll(async () => {
    redis = await startRedisServer();
    connection = createClient({ url: redis.url });
    connection.on('error', () => undefined);
    await connection.connect();
    server = await startLimitsServer({ session: { refreshCookie: 'refresh-0', accessToken: 'access-0' } });
  }, 20_000);
  afterAll(async () => {
    await server?.close();
    await connection?.quit();
    await redis?.stop();
  });

  it('saves, loads and forgets the snapshot', async () => {
    const store = createRedisSessionStore({ client: connection, key: 'snapshot-test' });
    const snapshot = { accessToken: 'a', accessTokenExpiresAt: 123, cookies: [{ name: 'refresh_token', value: 'r', path: '/', expiresAt: undefined }] };
    await store.save(snapshot);
    expect(await store.load()).toEqual({ ...snapshot, cookies: [{ name: 'refresh_token', value: 'r', path: '/' }] });
    await store.save(undefined);
    expect(await store.load()).toBeUndefined();
  });

  it('a refresh lock whose holder died expires after lockMs, and the next process refreshes then', async () => {
    const key = `dead-holder-${Date.now()}`;
    await connection.set(key, JSON.stringify({ accessToken: 'access-0', accessTokenExpiresAt: Date.now() + 10_000, cookies: [{ name: 'refresh_token', value: 'refresh-0', path: '/api/v1/auth' }] }));
    // Another process took the lock and died before refreshing.
    expect(await createRedisSessionStore({ client: connection, key, lockMs: 800 }).lockRefresh()).toBe(true);
    const client = new Client({ baseUrl: server.url, sessionStore: createRedisSessionStore({ client: connection, key, lockMs: 800 }) });
    const started = Date.now();
    await client.users.getMe();
    const waited = Date.now() - started;
    expect(waited).toBeGreaterThan(500);
    expect(waited).toBeLessThan(3000);
    expect(server.refreshes).toEqual({ total: 1, ok: 1 });
    expect(client.session.accessToken).toMatch(/^access-1-/);
    // The lock was released after the new session was saved.
    expect(await connection.get(`${key}:refresh-lock`)).toBeNull();
    expect(JSON.parse((await connection.get(key)) as string).accessToken).toBe(client.session.accessToken);
    await client.close();
  });
});
