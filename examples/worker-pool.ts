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
  // CRASH_AFTER=n: this worker dies (SIGKILL, as an out-of-memory kill would) in the middle of its n-th interaction.
  const crashAfter = Number(process.env['CRASH_AFTER'] ?? 0);
  let started = 0;
  worker.onCommand('ping', async (interaction) => {
    if (++started === crashAfter) process.kill(process.pid, 'SIGKILL');
    // Some work before answering: here, recording who ran it.
    await redis.hSet(`${prefix}ran-by`, interaction.id, name);
    await interaction.reply(`pong from ${name}`);
  });
  // Other dispatches: handled at least once; each one handled is announced, so the demo knows when all were.
  worker.onDispatch('MESSAGE_CREATE', (event) => {
    console.log(`handled message ${(event.data as { id: string }).id}`);
  });
  worker.on('reclaimed', (event) => console.log(`[${name}] took over ${event.ids.length} events another worker left pending (from ${event.from.join(', ')})`));
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
  // Messages the workers announced as handled, and who waits for all of them.
  const messagesHandled = new Set<string>();
  let allMessagesHandled: () => void = () => undefined;
  const messagesDone = new Promise<void>((resolve) => (allMessagesHandled = resolve));
  const onLine = (line: string) => {
    const handled = /^handled message (\d+)$/.exec(line);
    if (handled === null) return void console.log(line);
    messagesHandled.add(handled[1] as string);
    if (messagesHandled.size === MESSAGES) allMessagesHandled();
  };
  const start = (role: string, name: string, shards = '', extra: Record<string, string> = {}) =>
    new Promise<void>((resolve, reject) => {
      const env = {
        ...process.env,
        ROLE: role,
        PROC: name,
        SHARDS: shards,
        PREFIX: prefix,
        CHAT_BASE_URL: emulator.url,
        CHAT_BOT_TOKEN: emulator.seed.botToken,
        ...extra,
      };
      const child = spawn(process.execPath, ['--import', 'tsx', file], { env, stdio: ['ignore', 'pipe', 'inherit'] });
      children.set(name, child);
      let partial = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        const lines = (partial + chunk.toString()).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines)
          if (line.startsWith('ready:')) resolve();
          else onLine(line);
      });
      child.once('exit', (code, signal) => {
        if (signal === 'SIGKILL') console.log(`Worker ${name} crashed (SIGKILL) in the middle of an interaction, with events in flight`);
        reject(new Error(`process ${name} exited with ${code ?? signal}`));
      });
    });
  try {
    console.log('Starting two Gateway processes (shard 0, shard 1) and three workers...');
    await Promise.all([
      start('gateway', 'gateway-0', '0'),
      start('gateway', 'gateway-1', '1'),
      // w1 dies in the middle of its 6th interaction: what it had read stays pending until another worker takes it over.
      start('worker', 'w1', '', { CRASH_AFTER: '6' }),
      start('worker', 'w2'),
      start('worker', 'w3'),
    ]);
    const runs = [];
    for (let i = 0; i < COUNT; i++) {
      runs.push(emulator.invokeCommand({ name: 'ping', guildId: i % 2 === 0 ? emulator.seed.guildId : null }));
      // A turn of the event loop now and then, so the emulator's sockets carry the interactions as they come.
      if (i % 20 === 19) await new Promise((resolve) => setImmediate(resolve));
    }
    for (let i = 0; i < MESSAGES; i++) {
      emulator.dispatchEvent('MESSAGE_CREATE', {
        id: String(i),
        content: `message ${i}`,
        channel_id: emulator.seed.channelId,
        guild_id: emulator.seed.guildId,
      });
      if (i % 50 === 49) await new Promise((resolve) => setImmediate(resolve));
    }
    const answers = await Promise.all(runs.map((run) => run.response));
    await emulator.waitForIdle({ timeoutMs: 30_000 });
    const byWorker = new Map<string, number>();
    for (const answer of answers) {
      const who = String(answer.data?.['content']).replace('pong from ', '');
      byWorker.set(who, (byWorker.get(who) ?? 0) + 1);
    }
    await messagesDone;
    // The workers stop (each settles and acknowledges what it runs), then the stream is trimmed.
    for (const name of ['w2', 'w3']) children.get(name)?.kill('SIGTERM');
    await Promise.all(['w2', 'w3'].map((name) => new Promise((resolve) => children.get(name)?.once('exit', resolve))));
    const redis = await connectRedis();
    const stream = createRedisEventStream({ client: redis, stream: `${prefix}events` });
    await stream.trim();
    const backlog = await stream.backlog();
    console.log(
      `messages handled: ${messagesHandled.size} of ${MESSAGES}; after the trim the stream holds ${backlog.length} entries, ${backlog.groups[0]?.pending ?? 0} pending`,
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
