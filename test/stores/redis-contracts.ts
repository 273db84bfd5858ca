/**
 * The store contracts of every Redis store, run on one connection: a single
 * node, a cluster or a Sentinel client (`connection()` gives it once the
 * suite's `beforeAll` has connected).
 */
import { createRedisGatewaySessionStore, createRedisRateLimitStore, createRedisReplayStore, type RedisClientLike } from '../../src/redis/index.js';
import { rateLimitStoreContract } from './rate-limit-store.conformance.js';
import { gatewaySessionStoreContract, replayStoreContract } from './session-and-replay.conformance.js';
import { until } from '../helpers/until.js';

/** What the expiry step needs of the connection: node-redis's own commands, on any of the three clients. */
interface Commands {
  pExpire(key: string, ms: number): Promise<unknown>;
  exists(key: string): Promise<number>;
}

/** Runs the rate-limit, replay and Gateway session contracts against the Redis stores on `connection()`, each store under its own prefix. */
export function redisStoreContracts(where: string, connection: () => RedisClientLike & Commands): void {
  let stores = 0;
  rateLimitStoreContract(`the Redis rate-limit store ${where}`, async ({ webhookWindow, globalRateLimit }) => {
    const store = createRedisRateLimitStore({ client: connection(), prefix: `contract-${where}-${++stores}:`, pollMs: 20 });
    store.attach({ now: Date.now, webhookWindow, maxPauseMs: 600_000, globalRateLimit });
    return store;
  });
  let prefix = '';
  replayStoreContract(
    `the Redis replay store ${where}`,
    () => createRedisReplayStore({ client: connection(), prefix: (prefix = `replay-${where}-${++stores}:`) }),
    // Expiry is Redis's: the key's time to live is over when Redis says so.
    async (_store, key) => {
      await connection().pExpire(`${prefix}${key}`, 1);
      await until(async () => (await connection().exists(`${prefix}${key}`)) === 0, { what: `Redis expiring ${key}` });
    },
  );
  gatewaySessionStoreContract(`the Redis Gateway session store ${where}`, () =>
    createRedisGatewaySessionStore({ client: connection(), prefix: `gw-${where}-${++stores}:` }),
  );
}
