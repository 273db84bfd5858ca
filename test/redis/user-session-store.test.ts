/**
 * The Redis session store in one process, against a real redis-server: the
 * snapshot round trip, and a refresh lock whose holder died.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createClient } from 'redis';
import { Client, isCommunityChatError } from '../../src/index.js';
import { createRedisIdentifyThrottle, createRedisUserSessionStore } from '../../src/redis/index.js';
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
    const store = createRedisUserSessionStore({ client: connection, key: 'snapshot-test' });
    const snapshot = { accessToken: 'a', accessTokenExpiresAt: 123, cookies: [{ name: 'refresh_token', value: 'r', path: '/', expiresAt: undefined }] };
    await store.save(snapshot);
    expect(await store.load()).toEqual({ ...snapshot, cookies: [{ name: 'refresh_token', value: 'r', path: '/' }] });
    await store.save(undefined);
    expect(await store.load()).toBeUndefined();
  });

  it('a refresh lock whose holder died expires after lockMs, and the next process refreshes then', async () => {
    const key = `dead-holder-${Date.now()}`;
    await connection.set(
      key,
      JSON.stringify({
        accessToken: 'access-0',
        accessTokenExpiresAt: Date.now() + 10_000,
        cookies: [{ name: 'refresh_token', value: 'refresh-0', path: '/api/v1/auth' }],
      }),
    );
    // Another process took the lock and died before refreshing.
    expect(await createRedisUserSessionStore({ client: connection, key, lockMs: 800 }).lockRefresh()).toBe(true);
    const client = new Client({ baseUrl: server.url, sessionStore: createRedisUserSessionStore({ client: connection, key, lockMs: 800 }) });
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

  it('treats what Redis holds as hostile: corrupt JSON or a session without cookies is a SessionStoreError that quotes nothing, and the session held in memory keeps its refresh cookie', async () => {
    const key = `hostile-${Date.now()}`;
    const store = createRedisUserSessionStore({ client: connection, key });
    await connection.set(key, '{"accessToken":"tok_planted_secret_77","cook');
    const corrupt = await store.load().catch((error: unknown) => error);
    expect(isCommunityChatError(corrupt, 'SessionStoreError')).toBe(true);
    expect(String((corrupt as Error).message)).not.toContain('tok_planted_secret_77');
    for (const planted of [
      '{"accessToken":"tok_planted_secret_77"}',
      '[1,2]',
      '{"cookies":[{"name":1}]}',
      '{"accessToken":"a","accessTokenExpiresAt":"soon","cookies":[]}',
    ]) {
      await connection.set(key, planted);
      const error = await store.load().catch((caught: unknown) => caught);
      expect(isCommunityChatError(error, 'SessionStoreError'), planted).toBe(true);
      expect(String((error as Error).message)).not.toContain('tok_planted_secret_77');
    }
    // A client that holds a session (with its refresh cookie) refreshes under the lock and reads the store first: the planted value
    // fails the refresh with a SessionStoreError; it does not throw a TypeError half-way through restoring, which wiped the cookie.
    await connection.set(key, '{"accessToken":"tok_planted_secret_77"}');
    const client = new Client({ baseUrl: server.url, sessionStore: createRedisUserSessionStore({ client: connection, key }) });
    client.session.restore({
      accessToken: 'access-held',
      accessTokenExpiresAt: Date.now() + 600_000,
      cookies: [{ name: 'refresh_token', value: 'refresh-held', path: '/api/v1/auth', expiresAt: undefined }],
    });
    const refresh = await client.auth.refresh().catch((error: unknown) => error);
    expect(isCommunityChatError(refresh, 'SessionStoreError')).toBe(true);
    expect(client.session.cookies.export().map((cookie) => cookie.value)).toEqual(['refresh-held']);
    expect(client.session.accessToken).toBe('access-held');
    await client.close();
  });

  it('a refresh lock taken while Redis was stopped, and given up on, is released when Redis answers: no lock is left that nobody holds', async () => {
    const stalled = await startRedisServer();
    const held = createClient({ url: stalled.url, socket: { reconnectStrategy: false } });
    held.on('error', () => undefined);
    await held.connect();
    const key = `late-lock-${Date.now()}`;
    const store = createRedisUserSessionStore({ client: held, key, lockMs: 30_000, commandTimeoutMs: 300 });
    process.kill(stalled.pid, 'SIGSTOP');
    let error: unknown;
    try {
      error = await store.lockRefresh().catch((caught: unknown) => caught);
    } finally {
      process.kill(stalled.pid, 'SIGCONT');
    }
    expect(isCommunityChatError(error, 'SessionStoreError')).toBe(true);
    // Redis runs the late SET NX PX, then the release queued behind it.
    for (let turns = 0; (await held.exists(`${key}:refresh-lock`)) === 1; turns++) {
      if (turns > 10_000) throw new Error('the lock was never released');
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(await store.lockRefresh()).toBe(true);
    await held.quit();
    await stalled.stop();
  }, 20_000);
});

describeWithRedis('the Redis Identify throttle against planted values', () => {
  it('takes the turn at once when the key holds a turn an hour ahead or not a number, instead of waiting an hour', async () => {
    const redis = await startRedisServer();
    const connection = createClient({ url: redis.url });
    connection.on('error', () => undefined);
    await connection.connect();
    try {
      const throttle = createRedisIdentifyThrottle({ client: connection, prefix: 'planted:', intervalMs: 5_000 });
      for (const planted of [String(Date.now() + 3_600_000), 'soon']) {
        await connection.set('planted:1:0', planted);
        await throttle.wait({ shardId: 0, shardCount: 1, maxConcurrency: 1, signal: AbortSignal.timeout(2_000) });
        expect(Number(await connection.get('planted:1:0'))).toBeLessThanOrEqual(Date.now());
        expect(await connection.pTTL('planted:1:0')).toBeGreaterThan(0);
      }
    } finally {
      await connection.quit();
      await redis.stop();
    }
  }, 20_000);
});
