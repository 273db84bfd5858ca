import { createClient } from 'redis';
import { createRedisRateLimitStore } from '../../src/redis/index.js';
import { describeWithRedis, startRedisServer, type RunningRedis } from '../helpers/redis-server.js';
import { rateLimitStoreContract } from './rate-limit-store.conformance.js';

describeWithRedis('the Redis store against a real redis-server', () => {
  let redis: RunningRedis | undefined;
  let connection: ReturnType<typeof createClient> | undefined;
  let stores = 0;
  rateLimitStoreContract(
    'the Redis store',
    async ({ webhookWindow, globalRateLimit }) => {
      if (connection === undefined) {
        redis = await startRedisServer();
        connection = createClient({ url: redis.url });
        connection.on('error', () => undefined);
        await connection.connect();
      }
      const store = createRedisRateLimitStore({ client: connection, prefix: `contract-${++stores}:`, pollMs: 20 });
      store.configure({ now: Date.now, webhookWindow, maxPauseMs: 600_000, globalRateLimit });
      return store;
    },
    async () => {
      await connection?.quit();
      await redis?.stop();
    },
  );
});
