/**
 * One bot process of the cross-process sharding tests (and the example's
 * pattern): runs the shards SHARDS (comma-separated ids) of the emulator at
 * BASE_URL, pacing Identify and keeping sessions through the Redis at
 * REDIS_URL under PREFIX. Prints one JSON line per fact:
 * `ready {...}` once connected, `interaction {...}` per interaction handled,
 * `resumed {...}` / `identified {...}` per shard session, and
 * `invalid {...}` per Invalid Session it was told. Stops on SIGTERM.
 * THROTTLE=memory paces Identify in this process only.
 */
import { createClient } from 'redis';
import { Client } from '../../src/index.js';
import { createRedisGatewaySessionStore, createRedisIdentifyThrottle } from '../../src/redis/index.js';

const env = (name: string): string => {
  const value = process.env[name];
  if (value === undefined) throw new Error(`sharded-bot-process: ${name} is not set`);
  return value;
};

const name = env('PROC');
const redis = createClient({ url: env('REDIS_URL') });
redis.on('error', () => undefined);
await redis.connect();
const prefix = env('PREFIX');
const client = new Client({
  baseUrl: env('BASE_URL'),
  auth: { botToken: env('BOT_TOKEN') },
  gateway: {
    shards: env('SHARDS').split(',').map(Number),
    // THROTTLE=memory: each process paces only its own shards (the contrast the tests draw).
    ...(process.env['THROTTLE'] === 'memory' ? {} : { identifyThrottle: createRedisIdentifyThrottle({ client: redis, prefix: `${prefix}identify:` }) }),
    sessionStore: createRedisGatewaySessionStore({ client: redis, prefix: `${prefix}session:` }),
  },
});
const print = (kind: string, fact: Record<string, unknown>) => console.log(`${kind} ${JSON.stringify({ proc: name, ...fact })}`);
const gateway = client.gateway;
const shardOf = new Map<string, number>();
gateway.on('interactionCreate', (interaction, shardId) => {
  shardOf.set(interaction.id, shardId);
  print('interaction', { id: interaction.id, shardId });
});
gateway.onCommand('ping', (interaction) => interaction.reply(`pong from ${name} shard ${shardOf.get(interaction.id) ?? '?'}`));
gateway.on('ready', (event) => print('identified', { shardId: event.shardId }));
gateway.on('resumed', (event) => print('resumed', { shardId: event.shardId }));
gateway.on('reconnecting', (event) => {
  if (event.reason.startsWith('invalid session')) print('invalid', { shardId: event.shardId, reason: event.reason });
});
gateway.on('error', (error) => print('error', { message: error.message }));

const at = Number(process.env['START_AT'] ?? '0');
if (at > Date.now()) await new Promise((resolve) => setTimeout(resolve, at - Date.now()));
await gateway.connect();
print('ready', { shards: gateway.shards.map((shard) => shard.id), shardCount: gateway.shardCount });

process.on('SIGTERM', () => {
  // A deploy: hand the sessions off (saved, closed with 4000) so that the successor resumes them without Identify.
  void client
    .close({ handOff: true })
    .then(() => redis.quit())
    .finally(() => process.exit(0));
});
