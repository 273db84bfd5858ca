/**
 * A Gateway process that publishes to a Redis stream is SIGKILLed and
 * restarted: it resumes its session from what it had published (no
 * Identify), the service replays what it missed, and every interaction is
 * answered once by the worker.
 */
import { expect, it } from 'vitest';
import { Client } from '../../src/index.js';
import { createEventWorker, createRedisEventStream } from '../../src/redis/index.js';
import { useEmulatorWithAdmin } from '../helpers/emulators.js';
import { startScript } from '../helpers/index.js';
import { describeWithRedis, useRedis } from '../helpers/redis-server.js';

const start = useEmulatorWithAdmin();

describeWithRedis('a publishing Gateway process killed and restarted', () => {
  const redis = useRedis();

  it('resumes from the last dispatch it published: what arrived while it was down is replayed, published and answered once', async () => {
    const { emulator, admin } = await start();
    await admin.commands.sync(emulator.seed.applicationId, [{ name: 'ping', description: 'Ping' }]);
    const prefix = `crash-${Date.now()}:`;
    const env = {
      ROLE: 'gateway',
      PROC: 'g',
      SHARDS: '0',
      PREFIX: prefix,
      REDIS_URL: redis.server.url,
      CHAT_BASE_URL: emulator.url,
      CHAT_BOT_TOKEN: emulator.seed.botToken,
    };
    const bot = new Client({ baseUrl: emulator.url, auth: { botToken: emulator.seed.botToken } });
    const worker = createEventWorker({
      stream: createRedisEventStream({ client: redis.connection, stream: `${prefix}events` }),
      group: 'bots',
      consumer: 'w',
      client: bot,
      pollMs: 5,
    });
    const handled: string[] = [];
    worker.onCommand('ping', async (interaction) => {
      handled.push(interaction.id);
      await interaction.reply('pong');
    });
    let gateway = await startScript('examples/worker-pool.ts', { env });
    try {
      await worker.start();
      await gateway.waitForOutput(/ready: gateway g/);
      const first = Array.from({ length: 20 }, () => emulator.invokeCommand({ name: 'ping' }));
      await Promise.all(first.map((run) => run.response));

      gateway.kill('SIGKILL');
      await gateway.exited;
      // The session is still resumable (no close frame): these are queued for it.
      const missed = Array.from({ length: 20 }, () => emulator.invokeCommand({ name: 'ping' }));
      gateway = await startScript('examples/worker-pool.ts', { env });
      await gateway.waitForOutput(/ready: gateway g/);
      await Promise.all(missed.map((run) => run.response));
      await emulator.waitForIdle({ timeoutMs: 10_000 });

      expect(emulator.messages()).toHaveLength(40);
      expect(new Set(handled).size).toBe(40);
      expect(handled).toHaveLength(40);
      // One Identify: the restarted process resumed.
      expect(emulator.gatewayStats.identifies).toHaveLength(1);
    } finally {
      gateway.kill('SIGKILL');
      await gateway.exited;
      await worker.close();
      await bot.close();
    }
  }, 60_000);
});
