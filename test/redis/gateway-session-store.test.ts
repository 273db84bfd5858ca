/**
 * The Gateway session store on a real Redis: a saved session lives `ttlMs` milliseconds (a session older than that
 * cannot be resumed anyway), a save of nothing deletes it, and a fleet's write-back keeps the latest holder's record.
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

  it("a fleet's write-back keeps the record of the shard's latest holder (the later fence), in one step, and replaces what cannot be read", async () => {
    const store = createRedisGatewaySessionStore({ client: redis.connection, prefix: 'restore-test:', ttlMs: 5000 });
    const plant = (shardId: number, text: string) => sendCommand(redis.connection, `restore-test:${shardId}/8`, ['SET', `restore-test:${shardId}/8`, text]);
    const mine = { sessionId: 'mine', sequence: 20, fence: 50 };
    await store.save(0, 8, { sessionId: 'later', sequence: 30, fence: 60 });
    await store.save(1, 8, { sessionId: 'same', sequence: 10, fence: 50 });
    await store.save(2, 8, { sessionId: 'older', sequence: 10, fence: 40 });
    await store.save(3, 8, { sessionId: 'unfenced', sequence: 10 });
    await plant(4, 'not json');
    await plant(5, JSON.stringify({ sessionId: 'absurd', sequence: 1, fence: 1e300 }));
    // What load() does not read as a session is replaced too, whatever fence it claims (the rule is restores(), one place).
    const planted = [
      '[]',
      '{}',
      JSON.stringify({ fence: 9e15 }),
      JSON.stringify({ sessionId: 'x', sequence: 1, fence: 100.5 }),
      JSON.stringify({ sessionId: '', sequence: -1, fence: 99 }),
    ];
    for (const [i, text] of planted.entries()) await plant(7 + i, text);
    const shards = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
    for (const shardId of shards) await store.restore(shardId, 8, mine);
    const after = await Promise.all(shards.map(async (shardId) => (await store.load(shardId, 8))?.sessionId));
    expect(
      after,
      'per shard: a later fence kept, the same kept, an older replaced, none without a fence replaced, unreadable replaced, none written, five planted non-sessions replaced',
    ).toEqual(['later', 'same', 'mine', 'unfenced', 'mine', 'mine', 'mine', 'mine', 'mine', 'mine', 'mine', 'mine']);
    const ttl = Number(await sendCommand(redis.connection, 'restore-test:6/8', ['PTTL', 'restore-test:6/8']));
    expect(ttl, 'a record written back lives ttlMs').toBeGreaterThan(4000);
    // A record without a fence (a Gateway outside a fleet) is written back only where there is none.
    await store.restore(2, 8, { sessionId: 'no-fence', sequence: 1 });
    await store.restore(12, 8, { sessionId: 'no-fence', sequence: 1 });
    expect([(await store.load(2, 8))?.sessionId, (await store.load(12, 8))?.sessionId]).toEqual(['mine', 'no-fence']);
  });

  it('a write-back decides again when another process wrote the key between its read and its write (the later fence still wins)', async () => {
    const key = 'race-test:0/8';
    let raced = false;
    // The successor writes its record (a later fence) right after this process read the key, before its write.
    const racing = {
      get isReady() {
        return redis.connection.isReady;
      },
      sendCommand: async (args: string[]) => {
        if (!raced && (args[0] === 'EVALSHA' || args[0] === 'EVAL')) {
          raced = true;
          await sendCommand(redis.connection, key, ['SET', key, JSON.stringify({ sessionId: 'successor', sequence: 900, fence: 70 })]);
        }
        return sendCommand(redis.connection, key, args);
      },
    };
    const store = createRedisGatewaySessionStore({ client: racing, prefix: 'race-test:', ttlMs: 5000 });
    await store.restore(0, 8, { sessionId: 'mine', sequence: 20, fence: 50 });
    expect(raced, 'the successor wrote between the read and the write').toBe(true);
    expect(await store.load(0, 8)).toEqual({ sessionId: 'successor', sequence: 900, fence: 70 });
  });
});
