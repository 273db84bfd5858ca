import { createClient } from 'redis';
import { afterAll, beforeAll } from 'vitest';
import { createRedisGatewaySessionStore, createRedisReplayStore } from '../../src/redis/index.js';
import { describeWithRedis, startRedisServer, type RunningRedis } from '../helpers/redis-server.js';
import { gatewaySessionStoreContract, replayStoreContract } from './session-and-replay.conformance.js';

describeWithRedis('the Redis replay and Gateway session stores against a real redis-server', () => {
  let redis: RunningRedis;
  let connection: ReturnType<typeof createClient>;
  let stores = 0;
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
  let prefix = '';
  replayStoreContract(
    'the Redis replay store',
    () => createRedisReplayStore({ client: connection, prefix: (prefix = `replay-contract-${++stores}:`) }),
    // Expiry is Redis's: the key's time to live is over when Redis says so.
    async (_store, key) => {
      await connection.pExpire(`${prefix}${key}`, 1);
      while ((await connection.exists(`${prefix}${key}`)) === 1) await new Promise((resolve) => setImmediate(resolve));
    },
  );
  gatewaySessionStoreContract('the Redis Gateway session store', () =>
    createRedisGatewaySessionStore({ client: connection, prefix: `gw-contract-${++stores}:` }),
  );
});
