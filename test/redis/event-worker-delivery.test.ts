/**
 * The event worker delivers through its router (the Gateway's and the
 * receiver's runs are in test/interactions/host.test.ts): each interaction
 * published to the stream goes to `worker.router.handle()` with the entry's
 * shard, waits first, a click nothing took and what a handler throws reported
 * on the worker.
 */
import { Client, type InteractionPayload, type InteractionRouterEvents } from '../../src/index.js';
import type { InteractionHost } from '../../src/interactions/host.js';
import { createEventWorker, createRedisEventStream } from '../../src/redis/index.js';
import { deliveryContract } from '../helpers/delivery-contract.js';
import { describeWithRedis, useRedis } from '../helpers/redis-server.js';

describeWithRedis('the event worker delivers through its router', () => {
  const redis = useRedis();
  let n = 0;
  deliveryContract('the event worker', async () => {
    const stream = createRedisEventStream({ client: redis.connection, stream: `delivery-${++n}` });
    // Nothing is answered: the client never sends.
    const client = new Client({ baseUrl: 'http://127.0.0.1:1', auth: { botToken: 'a-bot-token' } });
    const worker = createEventWorker({ stream, group: 'g', consumer: 'w', client, pollMs: 5 });
    await worker.start();
    let sequence = 0;
    return {
      host: worker as unknown as InteractionHost<InteractionRouterEvents>,
      send: async (payload: InteractionPayload) => void (await stream.publish([{ t: 'INTERACTION_CREATE', s: ++sequence, d: payload, shardId: 3 }])),
      shardId: 3,
      close: async () => {
        await worker.close();
        await client.close();
      },
    };
  });
});
