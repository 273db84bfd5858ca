/**
 * A shard worker that dies (here: terminated, as an exit or an uncaught throw
 * ends it) is reported, its shard stops claiming to be ready, and a new
 * worker resumes its session: the interaction sent while it was dead is
 * answered once, with no new Identify.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Client, type GatewayReconnectingEvent } from '../../src/index.js';
import { runningShardWorkers } from '../../src/gateway/worker-thread.js';
import { startShardedEmulator } from '../helpers/sharded-emulator.js';

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('a shard worker that dies', () => {
  it('is reported, its shard is not ready while it is down, and a new worker resumes the session: nothing lost, nothing twice, no Identify', async () => {
    const emulator = await startShardedEmulator({ gateway: { shards: 2, maxConcurrency: 2 }, guildOnShard: 1 });
    cleanups.push(() => emulator.close());
    const client = new Client({
      baseUrl: emulator.url,
      auth: { botToken: emulator.seed.botToken },
      gateway: { shards: 'auto', shardsPerWorker: 1, reconnectBaseDelayMs: 300, reconnectMaxDelayMs: 300 },
    });
    cleanups.push(() => client.close());
    const handled: string[] = [];
    client.gateway.onCommand('ping', async (interaction) => {
      handled.push(interaction.id);
      await interaction.reply('pong');
    });
    await client.gateway.connect();
    const identifies = emulator.gatewayStats.counts.identifies;
    const sessionBefore = client.gateway.shards[1]?.sessionId;
    expect(await emulator.invokeCommand({ name: 'ping' }).response).toMatchObject({ data: { content: 'pong' } });

    const errors: string[] = [];
    const reconnecting: GatewayReconnectingEvent[] = [];
    const down = new Promise<void>((resolve) =>
      client.gateway.on('error', (error) => {
        errors.push(error.message);
        resolve();
      }),
    );
    client.gateway.on('reconnecting', (event) => void reconnecting.push(event));
    // Inside the resumed listener, the Gateway already says the shard is ready.
    const resumed = new Promise<number>((resolve) =>
      client.gateway.on('resumed', (event) => resolve(client.gateway.shards[event.shardId]?.status === 'ready' ? event.shardId : -1)),
    );
    // The worker of shard 1 (the second started) dies.
    const workers = [...runningShardWorkers];
    expect(workers).toHaveLength(2);
    await workers[1]?.terminate();
    await down;
    expect(errors[0]).toMatch(/the worker running shard 1 exited/);
    expect(client.gateway.shards.map((shard) => shard.status)).toEqual(['ready', 'reconnecting']);
    expect(client.gateway.status).not.toBe('ready');
    expect(reconnecting.some((event) => event.shardId === 1 && event.resume)).toBe(true);

    // While the shard is down, a user runs the command in its community: the session holds it for the resume.
    const whileDown = emulator.invokeCommand({ name: 'ping' });
    expect(await resumed).toBe(1);
    expect((await whileDown.response).data).toEqual({ content: 'pong' });
    expect(client.gateway.shards.map((shard) => shard.status)).toEqual(['ready', 'ready']);
    expect(client.gateway.shards[1]?.sessionId).toBe(sessionBefore);
    expect(emulator.gatewayStats.counts.identifies).toBe(identifies);
    expect(handled.filter((id) => id === whileDown.id)).toHaveLength(1);
    expect(new Set(handled).size).toBe(handled.length);
  }, 30_000);
});
