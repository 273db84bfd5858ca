/**
 * Redis restarted mid-run (its data kept by an AOF): the Gateway's publishing
 * and the worker's consuming resume on their own, without a crash, and every
 * interaction is answered once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'redis';
import { expect, it } from 'vitest';
import { Client } from '../../src/index.js';
import { createEventWorker, createRedisEventStream } from '../../src/redis/index.js';
import { useEmulatorWithAdmin } from '../helpers/emulators.js';
import { describeWithRedis, startRedisServer } from '../helpers/redis-server.js';
import { until } from '../helpers/until.js';

const start = useEmulatorWithAdmin();

describeWithRedis('the event stream across a Redis restart', () => {
  it('publishing and consuming resume after Redis restarts; every interaction invoked while it was down is answered once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ccsdk-aof-'));
    let redis = await startRedisServer({ appendOnlyDir: dir });
    const connection = createClient({ url: redis.url, socket: { reconnectStrategy: () => 50 } });
    connection.on('error', () => undefined);
    await connection.connect();
    const { emulator, admin } = await start();
    const bot = new Client({ baseUrl: emulator.url, auth: { botToken: emulator.seed.botToken } });
    const gateway = new Client({ baseUrl: emulator.url, auth: { botToken: emulator.seed.botToken } });
    const stream = createRedisEventStream({ client: connection, stream: 'restart', commandTimeoutMs: 500 });
    const worker = createEventWorker({ stream, group: 'bots', consumer: 'w1', client: bot, pollMs: 5, claimIdleMs: 2000 });
    const workerErrors: Error[] = [];
    const publishErrors: Error[] = [];
    worker.on('error', (error) => workerErrors.push(error));
    gateway.gateway.on('error', (error) => publishErrors.push(error));
    worker.onCommand('ping', (interaction) => interaction.reply('pong'));
    try {
      await admin.commands.sync(emulator.seed.applicationId, [{ name: 'ping', description: 'Ping' }]);
      gateway.gateway.publishTo(stream);
      await gateway.gateway.connect();
      await worker.start();
      const before = Array.from({ length: 20 }, () => emulator.invokeCommand({ name: 'ping' }));
      await Promise.all(before.map((run) => run.response));

      // Down: what arrives now cannot be published; the worker cannot read.
      await redis.stop();
      const during = Array.from({ length: 20 }, () => emulator.invokeCommand({ name: 'ping' }));
      await until(() => publishErrors.length > 0 && workerErrors.length > 0, { what: 'both sides seeing Redis down', timeoutMs: 10_000 });
      redis = await startRedisServer({ port: redis.port, appendOnlyDir: dir });

      const answers = await Promise.all(during.map((run) => run.response));
      expect(answers.every((answer) => answer.data?.['content'] === 'pong')).toBe(true);
      await emulator.waitForIdle({ timeoutMs: 10_000 });
      expect(emulator.messages()).toHaveLength(40);
      await until(async () => (await stream.backlog()).groups[0]?.pending === 0, { what: 'nothing left pending' });
      expect(String(publishErrors[0])).toMatch(/publishing dispatches failed \(tried again\)/);
    } finally {
      await worker.close();
      await Promise.all([bot.close(), gateway.close()]);
      await connection.close().catch(() => undefined);
      await redis.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
