/**
 * The Gateway session store on a real Redis: a saved session lives `ttlMs` milliseconds (a session older than that
 * cannot be resumed anyway), and a save of nothing deletes it.
 */
import { expect, it } from 'vitest';
import { sendCommand } from '../../src/redis/connection.js';
import { createRedisGatewaySessionStore } from '../../src/redis/index.js';
import { describeWithRedis, useRedis } from '../helpers/redis-server.js';

describeWithRedis('the Redis Gateway session store', () => {
  const redis = useRedis();

  it('a saved session expires ttlMs milliseconds after its save (not ttlMs seconds), and saving nothing deletes it', async () => {
    const store = createRedisGatewaySessionStore({ client: redis.connection, prefix: 'ttl-test:', ttlMs: 5000 });
    await store.save(1, 4, { sessionId: 's-1', sequence: 7 });
    expect(await store.load(1, 4)).toEqual({ sessionId: 's-1', sequence: 7 });
    const ttl = Number(await sendCommand(redis.connection, 'ttl-test:1/4', ['PTTL', 'ttl-test:1/4']));
    expect(ttl, 'the session key lives ttlMs (5000 ms), not 5000 s').toBeGreaterThan(4000);
    expect(ttl, 'the session key lives ttlMs (5000 ms), not 5000 s').toBeLessThanOrEqual(5000);
    await store.save(1, 4, undefined);
    expect(await store.load(1, 4)).toBeUndefined();
  });
});
