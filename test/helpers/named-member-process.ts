/**
 * One named member of a fleet, for the operator tests (`test/redis/fleet-operator.test.ts`): runs the shards its Redis
 * coordinator gives it (name NAME, key FLEET_KEY, lease LEASE_MS) on the emulator at BASE_URL, publishes its dispatches to
 * the stream STREAM, and prints one JSON line per fleet event (`event {...}`) and, after each `serving`, what its
 * in-memory OpenTelemetry meter holds (`metrics {...}`; also after a shard taken over is up). Stops on SIGTERM, handing its shards off.
 */
import { createClient } from 'redis';
import { Client } from '../../src/index.js';
import { createOtelMetrics } from '../../src/otel/index.js';
import { createRedisEventStream, createRedisGatewaySessionStore, createRedisIdentifyThrottle, createRedisShardCoordinator } from '../../src/redis/index.js';
import { MemoryMeterProvider } from './memory-meter.js';

const env = (name: string): string => {
  const value = process.env[name];
  if (value === undefined) throw new Error(`named-member-process: ${name} is not set`);
  return value;
};

const name = env('NAME');
const key = env('FLEET_KEY');
const redis = createClient({ url: env('REDIS_URL') });
redis.on('error', () => undefined);
await redis.connect();
const meters = new MemoryMeterProvider();
const measuring = createOtelMetrics({ meterProvider: meters });
const client = new Client({
  baseUrl: env('BASE_URL'),
  auth: { botToken: env('BOT_TOKEN') },
  gateway: {
    shards: 'auto',
    coordinator: createRedisShardCoordinator({ client: redis, key, leaseMs: Number(env('LEASE_MS')), name }),
    sessionStore: createRedisGatewaySessionStore({ client: redis, prefix: `${key}:session:` }),
    identifyThrottle: createRedisIdentifyThrottle({ client: redis, prefix: `${key}:identify:` }),
  },
});
const gateway = client.gateway;
gateway.publishTo(createRedisEventStream({ client: redis, stream: env('STREAM') }));
measuring.observeGateway(gateway, { 'service.instance.id': name });
const print = (kind: string, fact: object) => console.log(`${kind} ${JSON.stringify(fact)}`);
for (const type of ['shardAcquired', 'shardReleased', 'shardFenced', 'shardTakenOver', 'membersChanged'] as const) {
  gateway.on(type, (event) => print('event', event));
}
/** Prints what the in-memory meter holds: lease renewals, shards held, and each takeover's duration (s). */
const printMetrics = () =>
  void meters.collect().then((observed) => {
    const held = observed.get('community_chat.fleet.shards_held')?.[0]?.value;
    const takeovers = meters.values('community_chat.fleet.takeover.duration').map((entry) => entry.value);
    print('metrics', { name, renewals: meters.values('community_chat.fleet.lease_renewal.duration').length, shardsHeld: held, takeovers });
  });
gateway.on('serving', (event) => {
  print('event', event);
  printMetrics();
});
// A shard up after a takeover: its takeover time was just recorded.
gateway.on('shardAcquired', (event) => {
  if (event.takeoverMs !== undefined) printMetrics();
});
gateway.onCommand('ping', (interaction) => interaction.reply(`pong from ${name}`));
await gateway.connect();
print('ready', { name });
process.on('SIGTERM', () => {
  void client
    .close({ handOff: true })
    .then(() => redis.close())
    .finally(() => process.exit(0));
});
