/**
 * One event worker in a process of its own, for the tests that pause a worker (SIGSTOP): consumes STREAM as CONSUMER of
 * group GROUP on the Redis at REDIS_URL, answering `ping` through the emulator at BASE_URL after HANDLER_MS. Prints one
 * line per fact: `ready`, `started <interaction id>`, `answered <id>`, `refused <id> <message>`, `request <method> <path>`
 * for every REST request its client sends, `error <message>`.
 */
import { createClient } from 'redis';
import { Client } from '../../src/index.js';
import { createEventWorker, createRedisEventStream } from '../../src/redis/index.js';

const env = (name: string): string => {
  const value = process.env[name];
  if (value === undefined) throw new Error(`event-worker-process: ${name} is not set`);
  return value;
};

const redis = createClient({ url: env('REDIS_URL') });
redis.on('error', () => undefined);
await redis.connect();
const client = new Client({ baseUrl: env('BASE_URL'), auth: { botToken: env('BOT_TOKEN') } });
client.on('request', (event) => console.log(`request ${event.method} ${event.path}`));
const stream = createRedisEventStream({ client: redis, stream: env('STREAM') });
const worker = createEventWorker({ stream, group: env('GROUP'), consumer: env('CONSUMER'), client, claimIdleMs: Number(env('CLAIM_IDLE_MS')) });
worker.on('error', (error) => console.log(`error ${error.message}`));
worker.onCommand('ping', async (interaction) => {
  console.log(`started ${interaction.id}`);
  // The handler's own work (the test pauses the whole process meanwhile).
  await new Promise((resolve) => setTimeout(resolve, Number(env('HANDLER_MS'))));
  try {
    await interaction.reply(`pong from ${env('CONSUMER')}`);
    console.log(`answered ${interaction.id}`);
  } catch (error) {
    console.log(`refused ${interaction.id} ${error instanceof Error ? error.message : String(error)}`);
  }
});
await worker.start();
console.log('ready');
process.on('SIGTERM', () => {
  void worker
    .close()
    .then(() => Promise.all([client.close(), redis.close()]))
    .then(() => process.exit(0));
});
