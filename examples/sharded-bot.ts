/**
 * A sharded bot in two processes: the emulator recommends 4 shards with
 * max_concurrency 2; process A runs shards 0 and 1, process B shards 2 and
 * 3. Both pace Identify and keep their sessions through one Redis, so they
 * never identify too early in a concurrency bucket and a restarted process
 * resumes its shards. Each interaction reaches the one process running the
 * shard of its community (DMs: shard 0).
 *
 *   redis-server --port 6379 --save '' --appendonly no &   # or: docker run -p 6379:6379 redis:7
 *   REDIS_URL=redis://127.0.0.1:6379 node --import tsx examples/sharded-bot.ts
 *
 * In production, run the bot part (ROLE=bot) on each host with its own
 * SHARDS, the real service's CHAT_BASE_URL and CHAT_BOT_TOKEN, and the same
 * Redis.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Client } from 'community-chat-sdk';
import { createEmulator } from 'community-chat-sdk/testing';
// In your project: import { ... } from 'community-chat-sdk/redis';
import { createRedisGatewaySessionStore, createRedisIdentifyThrottle } from '../src/redis/index.js';
import { connectRedis, REDIS_URL } from './connect-redis.js';

/** One bot process: runs the shards in SHARDS. */
async function bot(): Promise<void> {
  const name = process.env['PROC'] ?? 'bot';
  const prefix = process.env['PREFIX'] ?? 'sharded-bot:';
  const redis = await connectRedis();
  const client = new Client({
    baseUrl: process.env['CHAT_BASE_URL'],
    auth: { botToken: process.env['CHAT_BOT_TOKEN'] },
    gateway: {
      shards: (process.env['SHARDS'] ?? '0').split(',').map(Number),
      // shardCount and maxConcurrency come from GET /gateway/bot.
      identifyThrottle: createRedisIdentifyThrottle({ client: redis, prefix: `${prefix}identify:` }),
      sessionStore: createRedisGatewaySessionStore({ client: redis, prefix: `${prefix}session:` }),
    },
  });
  const gateway = client.gateway;
  const shardOf = new Map<string, number>();
  gateway.on('interactionCreate', (interaction, shardId) => shardOf.set(interaction.id, shardId));
  gateway.onCommand('ping', (interaction) => interaction.reply(`pong from process ${name}, shard ${shardOf.get(interaction.id)}`));
  gateway.on('ready', (event) => console.log(`[${name}] shard ${event.shardId} identified`));
  gateway.on('resumed', (event) => console.log(`[${name}] shard ${event.shardId} resumed its session`));
  await gateway.connect();
  console.log(`[${name}] ready: shards ${gateway.shards.map((shard) => shard.id).join(', ')} of ${gateway.shardCount}`);
  process.on('SIGTERM', () => {
    // A deploy: hand the sessions off (saved, closed with 4000) so that the successor resumes them without Identify.
    void client
      .close({ handOff: true })
      .then(() => redis.quit())
      .finally(() => process.exit(0));
  });
}

/** The demo: an emulator, two bot processes, a few interactions. */
async function demo(): Promise<void> {
  await (await connectRedis()).quit();
  // A fresh emulator has fresh sessions: keys of this run only (one prefix per bot token in production).
  const prefix = `sharded-bot-demo-${Date.now()}:`;
  const emulator = await createEmulator({ gateway: { shards: 4, maxConcurrency: 2 } });
  const admin = new Client({ baseUrl: emulator.url });
  await admin.auth.login({ email: emulator.seed.user.email, password: emulator.seed.user.password });
  await admin.commands.replace(emulator.seed.applicationId, [{ name: 'ping', description: 'Ping', dm_permission: true }]);
  await admin.close();

  const file = fileURLToPath(import.meta.url);
  const children: ChildProcess[] = [];
  const start = (name: string, shards: string) =>
    new Promise<void>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', file], {
        env: {
          ...process.env,
          ROLE: 'bot',
          PROC: name,
          SHARDS: shards,
          PREFIX: prefix,
          CHAT_BASE_URL: emulator.url,
          CHAT_BOT_TOKEN: emulator.seed.botToken,
          REDIS_URL,
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      children.push(child);
      child.stdout?.on('data', (chunk: Buffer) => {
        process.stdout.write(chunk);
        if (chunk.toString().includes('ready:')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`process ${name} exited with ${code}`)));
    });
  try {
    console.log('Starting process A (shards 0, 1) and process B (shards 2, 3); Identify is paced through Redis (5 s per bucket)...');
    await Promise.all([start('A', '0,1'), start('B', '2,3')]);
    for (const guildId of [emulator.seed.guildId, null]) {
      const invoked = emulator.invokeCommand({ name: 'ping', guildId });
      const answer = await invoked.response;
      console.log(`/ping in ${guildId === null ? 'a DM' : `community ${guildId}`}: ${String(answer.data['content'])}`);
    }
    const { counts } = emulator.gatewayStats;
    console.log(`The emulator saw ${counts.identifies} Identify, ${counts.tooEarlyIdentifies} too early.`);
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await Promise.all(children.map((child) => (child.exitCode === null ? new Promise((resolve) => child.once('exit', resolve)) : undefined)));
    await emulator.close();
  }
}

if (process.env['ROLE'] === 'bot') await bot();
else await demo();
