/**
 * A Gateway in a fleet on a real Redis whose keys hold a value the SDK did not write: a lease of shard 1 naming a member
 * that does not exist, live until tomorrow. `connect()` resolves running both shards, and the Gateway reports the lease
 * (an `error` event whose cause is a ShardCoordinatorError naming the key); before, shard 1 stayed dark and nothing was
 * said. And a fleet key that already serves another bot refuses this one.
 */
import { afterEach, expect, it } from 'vitest';
import { Client, type ShardCoordinatorError, isCommunityChatError } from '../../src/index.js';
import { createRedisShardCoordinator } from '../../src/redis/index.js';
import { createEmulator, type Emulator } from '../../src/testing/index.js';
import { describeWithRedis, useRedis } from '../helpers/redis-server.js';
import { until } from '../helpers/until.js';

describeWithRedis('a Gateway whose fleet keys hold a planted lease', () => {
  const redis = useRedis();
  let emulator: Emulator | undefined;
  let client: Client | undefined;
  afterEach(async () => {
    await client?.close();
    await emulator?.close();
  });

  /** A Gateway in the fleet `key` on an emulator of 2 shards, and the ShardCoordinatorErrors its `error` events carry. */
  async function connected(key: string) {
    emulator = await createEmulator({ gateway: { shards: 2, maxConcurrency: 2 } });
    const coordinator = createRedisShardCoordinator({ client: redis.connection, key, leaseMs: 1500 });
    const bot = new Client({ baseUrl: emulator.url, auth: { botToken: emulator.seed.botToken }, gateway: { coordinator } });
    client = bot;
    const reported: ShardCoordinatorError[] = [];
    bot.gateway.on('error', (error) => {
      if (isCommunityChatError(error.cause, 'ShardCoordinatorError')) reported.push(error.cause);
    });
    await bot.gateway.connect();
    return { gateway: bot.gateway, reported };
  }

  it('reports the planted lease, naming its key, and serves every shard', async () => {
    const time = (await redis.connection.sendCommand(['TIME'])) as unknown as string[];
    const tomorrow = Number(time[0]) * 1000 + 86_400_000;
    await redis.connection.sendCommand(['HSET', '{planted-fleet}:leases:2', '1', `ghost|5|${tomorrow}`]);
    const { gateway, reported } = await connected('planted-fleet');
    // connect() resolves with the planted shard among those it runs: the step that repaired it took it.
    expect(gateway.shards.map((shard) => shard.id)).toEqual([0, 1]);
    await until(() => gateway.shards.length === 2 && gateway.shards.every((shard) => shard.status === 'ready'), {
      what: `both shards READY (running: ${JSON.stringify(gateway.shards.map((shard) => [shard.id, shard.status]))})`,
      timeoutMs: 10_000,
    });
    // The step that repaired it reports it (a lease without its index entry: the index is named too).
    await until(() => reported.length > 0, { what: 'the planted lease reported as an error event' });
    expect(reported.flatMap((error) => error.keys)).toEqual(['{planted-fleet}:owners:2', '{planted-fleet}:leases:2']);
  }, 20_000);

  it('a planted fleet count of 99999999999: connect() runs the service’s 2 shards and the Gateway reports the key', async () => {
    await redis.connection.sendCommand(['SET', '{planted-count}:count', '99999999999']);
    const { gateway, reported } = await connected('planted-count');
    expect(gateway.shards.map((shard) => shard.id)).toEqual([0, 1]);
    expect(reported.flatMap((error) => error.keys)).toEqual(['{planted-count}:count']);
  }, 20_000);

  it('tells the coordinator its bot (read from the token), so the fleet refuses it instead of splitting the shards', async () => {
    emulator = await createEmulator({ gateway: { shards: 2, maxConcurrency: 2 } });
    // Another bot's process is already a member of the fleet `shared`.
    const other = createRedisShardCoordinator({ client: redis.connection, key: 'shared', leaseMs: 1500, bot: '111111111111111111' });
    await other.tick('other-bot-process', 2, true);
    const coordinator = createRedisShardCoordinator({ client: redis.connection, key: 'shared', leaseMs: 1500 });
    client = new Client({ baseUrl: emulator.url, auth: { botToken: emulator.seed.botToken }, gateway: { coordinator } });
    const errors: unknown[] = [];
    client.gateway.on('error', (error) => errors.push(error.cause ?? error));
    // connect() resolves (the fleet may take shards later) holding none; every step is refused and reported.
    await client.gateway.connect();
    await until(() => errors.some((error) => isCommunityChatError(error, 'ShardCoordinatorError')), { what: 'the refused step reported as an error event' });
    const refusal = errors.find((error) => isCommunityChatError(error, 'ShardCoordinatorError')) as ShardCoordinatorError;
    expect(refusal.keys).toContain('{shared}:bot');
    expect(refusal.message).toMatch(/serves bot "111111111111111111", and this process serves bot "\d+": give each bot its own key/);
    expect(client.gateway.shards.map((shard) => shard.id)).toEqual([]);
  }, 20_000);
});
