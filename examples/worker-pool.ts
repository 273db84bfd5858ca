/**
 * Gateway events to a pool of workers on Redis Streams: two Gateway
 * processes (one shard each) publish what they receive to one stream; three
 * worker processes answer the interactions. Midway one worker is killed
 * (SIGKILL): its pending events are reclaimed by the others, and every
 * interaction is still answered exactly once.
 *
 *   redis-server --port 6379 --save '' --appendonly no &   # or: docker run -p 6379:6379 redis:7
 *   REDIS_URL=redis://127.0.0.1:6379 node --import tsx examples/worker-pool.ts
 *
 * In production, run ROLE=gateway on the hosts holding the shards and
 * ROLE=worker wherever the work runs, with the real service's CHAT_BASE_URL
 * and CHAT_BOT_TOKEN and the same Redis.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createClient } from 'redis';
import { Client } from 'community-chat-sdk';
import { createEmulator } from 'community-chat-sdk/testing';
// In your project: import { ... } from 'community-chat-sdk/redis';
import { createEventWorker, createRedisEventStream, createRedisGatewaySessionStore, createRedisIdentifyThrottle } from '../src/redis/index.js';

const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const COUNT = Number(process.env['INTERACTIONS'] ?? 300);
const MESSAGES = Number(process.env['MESSAGES'] ?? 200);

async function connectRedis() {
  const redis = createClient({ url: REDIS_URL, socket: { connectTimeout: 2000 } });
  redis.on('error', () => undefined);
  try {
    return await redis.connect();
  } catch {
    console.error(`No Redis answers at ${REDIS_URL}. Start one (redis-server --port 6379 --save '' --appendonly no), or point REDIS_URL at yours.`);
    process.exit(1);
  }
}

/** A Gateway process: holds SHARDS and publishes every dispatch to the stream. */
async function gatewayProcess(): Promise<void> {
  const prefix = process.env['PREFIX'] ?? 'worker-pool:';
  const redis = await connectRedis();
  const client = new Client({
    baseUrl: process.env['CHAT_BASE_URL'],
    auth: { botToken: process.env['CHAT_BOT_TOKEN'] },
    gateway: {
      shards: (process.env['SHARDS'] ?? '0').split(',').map(Number),
      identifyThrottle: createRedisIdentifyThrottle({ client: redis, prefix: `${prefix}identify:` }),
      sessionStore: createRedisGatewaySessionStore({ client: redis, prefix: `${prefix}session:` }),
    },
  });
  client.gateway.publishTo(createRedisEventStream({ client: redis, stream: `${prefix}events` }));
  await client.gateway.connect();
  console.log(`ready: gateway ${process.env['PROC']}`);
  process.on('SIGTERM', () => void client.close({ handOff: true }).finally(() => process.exit(0)));
}

/** A worker process: answers /ping from the stream. */
async function workerProcess(): Promise<void> {
  const prefix = process.env['PREFIX'] ?? 'worker-pool:';
  const name = process.env['PROC'] ?? 'worker';
  const redis = await connectRedis();
  const client = new Client({ baseUrl: process.env['CHAT_BASE_URL'], auth: { botToken: process.env['CHAT_BOT_TOKEN'] } });
  const worker = createEventWorker({
    stream: createRedisEventStream({ client: redis, stream: `${prefix}events` }),
    group: 'bots',
    consumer: name,
    client,
    claimIdleMs: 1000,
    concurrency: 4,
  });
  worker.onCommand('ping', async (interaction) => {
    // Some work before answering (a database, an API): long enough that a killed worker leaves events in flight.
    await new Promise((resolve) => setTimeout(resolve, 50));
    await interaction.reply(`pong from ${name}`);
  });
  // Other dispatches: each message is recorded once in Redis, however many times it is delivered (at least once).
  worker.onDispatch('MESSAGE_CREATE', async (event) => {
    await redis.sAdd(`${prefix}messages`, String((event.data as { id: string }).id));
  });
  worker.on('reclaimed', (event) => console.log(`[${name}] took over ${event.ids.length} events another worker left pending`));
  worker.on('deadLetter', (event) => console.log(`[${name}] dead letter: ${event.type} ${event.reason}`));
  await worker.start();
  console.log(`ready: worker ${name}`);
  process.on('SIGTERM', () => void worker.close().finally(() => process.exit(0)));
}

/** The demo: an emulator with 2 shards, two Gateway processes, three workers, one of them killed midway. */
async function demo(): Promise<void> {
  await (await connectRedis()).quit();
  const prefix = `worker-pool-demo-${Date.now()}:`;
  const emulator = await createEmulator({ gateway: { shards: 2, maxConcurrency: 2 } });
  const admin = new Client({ baseUrl: emulator.url });
  await admin.auth.login({ email: emulator.seed.user.email, password: emulator.seed.user.password });
  await admin.commands.replace(emulator.seed.applicationId, [{ name: 'ping', description: 'Ping' }]);
  await admin.close();
  // Answers the emulator refused (a second answer to one interaction would be one).
  let refused = 0;
  emulator.core.observe((event) => {
    if (event.kind === 'rest' && event.route.endsWith('/callback') && event.status === 400) refused++;
  });

  const file = fileURLToPath(import.meta.url);
  const children = new Map<string, ChildProcess>();
  const start = (role: string, name: string, shards = '') =>
    new Promise<void>((resolve, reject) => {
      const env = {
        ...process.env,
        ROLE: role,
        PROC: name,
        SHARDS: shards,
        PREFIX: prefix,
        CHAT_BASE_URL: emulator.url,
        CHAT_BOT_TOKEN: emulator.seed.botToken,
      };
      const child = spawn(process.execPath, ['--import', 'tsx', file], { env, stdio: ['ignore', 'pipe', 'inherit'] });
      children.set(name, child);
      child.stdout?.on('data', (chunk: Buffer) => {
        const text = chunk.toString();
        if (text.includes('ready:')) resolve();
        else process.stdout.write(text);
      });
      child.once('exit', (code, signal) => reject(new Error(`process ${name} exited with ${code ?? signal}`)));
    });
  try {
    console.log('Starting two Gateway processes (shard 0, shard 1) and three workers...');
    await Promise.all([start('gateway', 'gateway-0', '0'), start('gateway', 'gateway-1', '1'), ...['w1', 'w2', 'w3'].map((name) => start('worker', name))]);
    const runs = [];
    let w1Answers = 0;
    let w1Answered: () => void = () => undefined;
    const w1Working = new Promise<void>((resolve) => (w1Answered = resolve));
    for (let i = 0; i < COUNT; i++) {
      const run = emulator.invokeCommand({ name: 'ping', guildId: i % 2 === 0 ? emulator.seed.guildId : null });
      // w1 runs 4 at a time: after its 5th answer it is in the middle of its second batch.
      run.response.then(
        (answer) => String(answer.data?.['content']).endsWith('w1') && ++w1Answers === 5 && w1Answered(),
        () => undefined,
      );
      runs.push(run);
      if (i === Math.floor(COUNT / 3)) {
        // Once w1 is busy answering, it dies with events in flight.
        await w1Working;
        console.log('Killing worker w1 (SIGKILL) with events in flight...');
        children.get('w1')?.kill('SIGKILL');
      }
      if (i % 20 === 19) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    for (let i = 0; i < MESSAGES; i++) {
      emulator.dispatchEvent('MESSAGE_CREATE', {
        id: String(i),
        content: `message ${i}`,
        channel_id: emulator.seed.channelId,
        guild_id: emulator.seed.guildId,
      });
      if (i % 50 === 49) await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const answers = await Promise.all(runs.map((run) => run.response));
    await emulator.waitForIdle({ timeoutMs: 30_000 });
    const byWorker = new Map<string, number>();
    for (const answer of answers) {
      const who = String(answer.data?.['content']).replace('pong from ', '');
      byWorker.set(who, (byWorker.get(who) ?? 0) + 1);
    }
    const redis = await connectRedis();
    const stream = createRedisEventStream({ client: redis, stream: `${prefix}events` });
    // Every message handled (at least once), then nothing pending: polled, as the workers say nothing when they finish.
    for (let tries = 0; tries < 400; tries++) {
      const backlog = await stream.backlog();
      if ((await redis.sCard(`${prefix}messages`)) === MESSAGES && backlog.groups.every((group) => group.pending === 0 && group.undelivered === 0)) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await stream.trim();
    const backlog = await stream.backlog();
    console.log(
      `messages handled: ${await redis.sCard(`${prefix}messages`)} of ${MESSAGES}; after the trim the stream holds ${backlog.length} entries, ${backlog.groups[0]?.pending ?? 0} pending`,
    );
    await redis.quit();
    console.log(
      `answered ${answers.length} of ${COUNT} exactly once (${refused} second answers refused); by worker: ${[...byWorker].map(([who, n]) => `${who} ${n}`).join(', ')}`,
    );
  } finally {
    for (const child of children.values()) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await Promise.all(
      [...children.values()].map((child) =>
        child.exitCode === null && child.signalCode === null ? new Promise((resolve) => child.once('exit', resolve)) : undefined,
      ),
    );
    await emulator.close();
  }
}

const role = process.env['ROLE'];
if (role === 'gateway') await gatewayProcess();
else if (role === 'worker') await workerProcess();
else await demo();
