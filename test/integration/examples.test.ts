import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../../src/index.js';
import { createEmulator, type Emulator } from '../../src/testing/index.js';
import { startScript } from '../helpers/index.js';
import { describeWithRedis, startRedisServer } from '../helpers/redis-server.js';

let emulator: Emulator;
let env: Record<string, string>;
beforeAll(async () => {
  emulator = await createEmulator();
  const { seed } = emulator;
  env = {
    CHAT_BASE_URL: emulator.url,
    CHAT_EMAIL: seed.user.email,
    CHAT_PASSWORD: seed.user.password,
    CHAT_APP_ID: seed.applicationId,
    CHAT_GUILD_ID: seed.guildId,
    CHAT_CHANNEL_ID: seed.channelId,
    CHAT_BOT_TOKEN: seed.botToken,
    CHAT_WEBHOOK_URL: seed.webhookUrl,
  };
});
afterAll(() => emulator.close());

const TIMEOUT = 60_000;

describe('every example runs against the emulator', () => {
  it(
    'demo (npm start) prints its transcript and exits 0',
    async () => {
      const demo = await startScript('examples/demo.ts');
      expect(await demo.exited).toBe(0);
      expect(demo.stdout()).toMatch(/the bot suggested: space, spices, sports/);
      expect(demo.stdout()).toMatch(/\[webhook\] CI: Deploy 42 finished/);
      expect(demo.stdout()).toMatch(/Demo finished\./);
    },
    TIMEOUT,
  );

  it(
    'command deployer registers commands, then finds nothing to change',
    async () => {
      const first = await startScript('examples/command-deployer.ts', { env });
      expect(await first.exited).toBe(0);
      expect(first.stdout()).toMatch(/Registered 2 global commands/);
      const second = await startScript('examples/command-deployer.ts', { env });
      expect(await second.exited).toBe(0);
      expect(second.stdout()).toMatch(/Global commands already up to date/);
    },
    TIMEOUT,
  );

  it(
    'interaction handler answers /quiz over the Gateway and stops cleanly on SIGINT',
    async () => {
      const bot = await startScript('examples/interaction-handler.ts', { env });
      await bot.waitForOutput(/quiz bot ready/);
      const interaction = emulator.invokeCommand({ name: 'quiz', options: { topic: 'space', rounds: 2 } });
      expect(await interaction.response).toMatchObject({ interaction_type: 4, data: { content: 'Quiz about space, 2 rounds. Ready?' } });
      const typing = emulator.invokeCommand({ name: 'quiz', options: { topic: 'sp' }, focused: 'topic' });
      expect((await typing.response).data['choices']).toEqual([
        { name: 'space', value: 'space' },
        { name: 'spices', value: 'spices' },
        { name: 'sports', value: 'sports' },
      ]);
      bot.kill('SIGINT');
      expect(await bot.exited).toBe(0);
      expect(bot.stdout()).toMatch(/quiz bot stopped/);
    },
    TIMEOUT,
  );

  it(
    'webhook publisher posts one message per argument, in order',
    async () => {
      const run = await startScript('examples/webhook-publisher.ts', { env, args: ['Build 98 passed', 'Build 99 passed'] });
      expect(await run.exited).toBe(0);
      expect(run.stdout()).toMatch(/Posted 2 message\(s\)/);
      expect(emulator.messages().slice(-2)).toMatchObject([{ content: 'Build 98 passed', author: { name: 'CI' } }, { content: 'Build 99 passed' }]);
    },
    TIMEOUT,
  );

  it(
    'activity controller plays, seeks and snapshots an activity',
    async () => {
      const run = await startScript('examples/activity-controller.ts', { env });
      expect(await run.exited).toBe(0);
      expect(run.stdout()).toMatch(/Snapshot:.*position_ms: 90000/s);
    },
    TIMEOUT,
  );

  it(
    'session-based admin script lists applications, invite URLs and logs, then logs out',
    async () => {
      const bot = new Client({ baseUrl: emulator.url, auth: { botToken: emulator.seed.botToken } });
      await bot.users.getMe();
      await bot.close();
      const run = await startScript('examples/admin-session.ts', { env });
      expect(await run.exited).toBe(0);
      expect(run.stdout()).toMatch(/Demo App: invite http/);
      expect(run.stdout()).toMatch(/log:/);
    },
    TIMEOUT,
  );

  it(
    'http interactions bot registers its webhook, answers /quiz over HTTP only (no Gateway), and removes the webhook on SIGINT',
    async () => {
      const admin = new Client({ baseUrl: emulator.url });
      await admin.auth.login({ email: emulator.seed.user.email, password: emulator.seed.user.password });
      await admin.commands.sync(emulator.seed.applicationId, [
        {
          name: 'quiz',
          description: 'Start a quiz',
          options: [
            { type: 3, name: 'topic', description: 'Topic', required: true, autocomplete: true },
            { type: 4, name: 'rounds', description: 'Rounds' },
          ],
        },
      ]);
      const connectionsBefore = emulator.gatewayStats.counts.connections;
      const bot = await startScript('examples/http-interactions.ts', { env: { ...env, PORT: '0' } });
      try {
        await bot.waitForOutput(/http interactions bot listening on http:\/\/127\.0\.0\.1:\d+\/interactions/);
        const [, hookId] = await bot.waitForOutput(/registered application webhook (\S+)/);
        const interaction = emulator.invokeCommand({ name: 'quiz', options: { topic: 'space', rounds: 2 } });
        expect(interaction.via).toBe('webhook');
        expect(await interaction.response).toMatchObject({ interaction_type: 4, data: { content: 'Quiz about space, 2 rounds. Ready?' } });
        const typing = emulator.invokeCommand({ name: 'quiz', options: { topic: 'sp' }, focused: 'topic' });
        expect((await typing.response).data['choices']).toEqual([
          { name: 'space', value: 'space' },
          { name: 'spices', value: 'spices' },
          { name: 'sports', value: 'sports' },
        ]);
        expect(emulator.messages().filter((message) => message.interactionId === interaction.id)).toHaveLength(1);
        expect(emulator.gatewayStats.counts.connections).toBe(connectionsBefore);
        await admin.applicationWebhooks.test(emulator.seed.applicationId, String(hookId));
        await bot.waitForOutput(/test delivery \S+ received/);
        bot.kill('SIGINT');
        expect(await bot.exited).toBe(0);
        expect(bot.stdout()).toMatch(/http interactions bot stopped/);
        expect(await admin.applicationWebhooks.list(emulator.seed.applicationId)).toEqual([]);
      } finally {
        bot.kill('SIGKILL');
        await admin.close();
      }
    },
    TIMEOUT,
  );

  it(
    'the emulator CLI prints its seed data and shuts down cleanly on SIGINT',
    async () => {
      const cli = await startScript('src/testing/cli.ts', { args: ['--port', '0'] });
      const [, url] = await cli.waitForOutput(/listening on (http:\/\/\S+)/);
      await cli.waitForOutput(/bot token\s+\S+/);
      const [, email, password] = await cli.waitForOutput(/user\s+(\S+) \/ (\S+)/);
      const response = await fetch(`${String(url)}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password }),
      });
      expect(response.status).toBe(200);
      cli.kill('SIGINT');
      expect(await cli.exited).toBe(0);
      expect(cli.stdout()).toMatch(/SIGINT: shutting down/);
    },
    TIMEOUT,
  );
});

describeWithRedis('the sharded-bot example against a real redis-server', () => {
  it('examples/sharded-bot.ts runs two bot processes (4 shards): 4 Identify, none too early, and both pings answered by the right process and shard', async () => {
    const redis = await startRedisServer();
    let example: Awaited<ReturnType<typeof startScript>> | undefined;
    try {
      example = await startScript('examples/sharded-bot.ts', { env: { REDIS_URL: redis.url } });
      const code = await example.exited;
      const out = example.stdout();
      expect(code, `stdout:\n${out}\nstderr:\n${example.stderr()}`).toBe(0);
      expect(out).toMatch(/^\[A\] ready: shards 0, 1 of 4$/m);
      expect(out).toMatch(/^\[B\] ready: shards 2, 3 of 4$/m);
      for (const shard of [0, 1, 2, 3]) expect(out).toMatch(new RegExp(`^\\[${shard < 2 ? 'A' : 'B'}\\] shard ${shard} identified$`, 'm'));
      expect(out).toMatch(/^The emulator saw 4 Identify, 0 too early\.$/m);
      // The community's ping reaches the process running the shard that owns it; the DM's, shard 0 in process A.
      const community = /^\/ping in community (\d+): pong from process ([AB]), shard (\d)$/m.exec(out);
      expect(community).not.toBeNull();
      const shard = Number((BigInt(community?.[1] as string) >> 22n) % 4n);
      expect(community?.[3]).toBe(String(shard));
      expect(community?.[2]).toBe(shard < 2 ? 'A' : 'B');
      expect(out).toMatch(/^\/ping in a DM: pong from process A, shard 0$/m);
    } finally {
      example?.kill('SIGKILL'); // harmless once it has exited
      await redis.stop();
    }
  }, 120_000);
});

describeWithRedis('the worker-pool example against a real redis-server', () => {
  it('examples/worker-pool.ts: two Gateway processes, three workers, one dying (SIGKILL) mid-interaction: 3,000 interactions answered once, 2,000 messages handled, its events taken over, the stream empty after the trim', async () => {
    const redis = await startRedisServer();
    let example: Awaited<ReturnType<typeof startScript>> | undefined;
    try {
      example = await startScript('examples/worker-pool.ts', { env: { REDIS_URL: redis.url, INTERACTIONS: '3000', MESSAGES: '2000' } });
      const code = await example.exited;
      const out = example.stdout();
      expect(code, `stdout:\n${out}\nstderr:\n${example.stderr()}`).toBe(0);
      expect(out).toMatch(/^Worker w1 crashed \(SIGKILL\) in the middle of an interaction/m);
      expect(out).toMatch(/took over \d+ events another worker left pending/);
      // Every interaction's first answer was accepted (a second, from a reclaimed delivery of a worker that died mid-answer, is refused).
      const summary = /^answered (\d+) of (\d+) exactly once \((\d+) second answers refused\); by worker: (.+)$/m.exec(out);
      expect(summary?.[1]).toBe('3000');
      expect(summary?.[2]).toBe('3000');
      // Every other dispatch handled at least once, and nothing left in the stream after the trim.
      expect(out).toMatch(/^messages handled: 2000 of 2000; after the trim the stream holds 0 entries, 0 pending$/m);
      expect(Number(summary?.[3])).toBeLessThanOrEqual(4);
      expect(summary?.[4]).toMatch(/w2 \d+/);
      expect(summary?.[4]).toMatch(/w3 \d+/);
    } finally {
      example?.kill('SIGKILL');
      await redis.stop();
    }
  }, 240_000);
});

describe('the examples that need Redis, without it', () => {
  it.each(['examples/fleet.ts', 'examples/sharded-bot.ts'])(
    '%s says within seconds what it could not reach and how to start Redis, and exits 1',
    async (file) => {
      // A port nothing listens on: bound, then closed.
      const net = await import('node:net');
      const port = await new Promise<number>((resolve) => {
        const probe = net.createServer().listen(0, '127.0.0.1', () => {
          const { port: free } = probe.address() as import('node:net').AddressInfo;
          probe.close(() => resolve(free));
        });
      });
      const started = performance.now();
      const example = await startScript(file, { env: { REDIS_URL: `redis://127.0.0.1:${port}` } });
      try {
        const code = await example.exited;
        expect(code, `stdout:\n${example.stdout()}\nstderr:\n${example.stderr()}`).toBe(1);
        expect(performance.now() - started).toBeLessThan(10_000);
        expect(example.stderr()).toContain(`No Redis answers at redis://127.0.0.1:${port}`);
        expect(example.stderr()).toContain('apt-get install -y redis-server');
        expect(example.stderr()).toContain('REDIS_URL=');
      } finally {
        example.kill('SIGKILL');
      }
    },
    30_000,
  );
});
