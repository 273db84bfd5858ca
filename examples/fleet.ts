/**
 * A fleet: three processes share a bot's 8 shards through Redis leases.
 * Each holds a fair share and renews its leases; a process that stops
 * (SIGTERM) hands its shards off (sessions saved, closed resumable); one
 * that dies (SIGKILL) loses them after `leaseMs` and the others resume its
 * sessions; a process paused past its lease dispatches nothing more when it
 * wakes. Interactions are claimed through Redis, so none runs twice.
 *
 *   redis-server --port 6379 --save '' --appendonly no &   # or: docker run -p 6379:6379 redis:7
 *   REDIS_URL=redis://127.0.0.1:6379 node --import tsx examples/fleet.ts
 *
 * In production run ROLE=member on every host, with the real service's
 * CHAT_BASE_URL and CHAT_BOT_TOKEN and the same Redis.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { ApiError, Client } from 'community-chat-sdk';
import { createEmulator } from 'community-chat-sdk/testing';
// In your project: import { ... } from 'community-chat-sdk/redis';
import { createRedisGatewaySessionStore, createRedisIdentifyThrottle, createRedisShardCoordinator, readFleetStatus } from '../src/redis/index.js';
import { connectRedis } from './connect-redis.js';

/** One member of the fleet: answers /ping on the shards it holds, prints them as they change. */
async function member(): Promise<void> {
  const name = process.env['PROC'] ?? 'member';
  const work = Number(process.env['HANDLE_MS'] ?? 0);
  const key = process.env['FLEET_KEY'] ?? 'fleet-example';
  const redis = await connectRedis();
  const client = new Client({
    baseUrl: process.env['CHAT_BASE_URL'],
    auth: { botToken: process.env['CHAT_BOT_TOKEN'] },
    gateway: {
      shards: 'auto',
      coordinator: createRedisShardCoordinator({ client: redis, key, leaseMs: Number(process.env['LEASE_MS'] ?? 3000), name }),
      sessionStore: createRedisGatewaySessionStore({ client: redis, prefix: `${key}:session:` }),
      identifyThrottle: createRedisIdentifyThrottle({ client: redis, prefix: `${key}:identify:` }),
      // SHARDS_PER_WORKER=2 runs this member's shards in worker threads, two per worker (the fleet rules hold the same).
      ...(process.env['SHARDS_PER_WORKER'] === undefined ? {} : { shardsPerWorker: Number(process.env['SHARDS_PER_WORKER']) }),
    },
  });
  const gateway = client.gateway;
  const shardOf = new Map<string, number>();
  gateway.on('interactionCreate', (interaction, shardId) => shardOf.set(interaction.id, shardId));
  // Other events reach one member too, a reshard's switch included: each message is printed once across the fleet.
  gateway.on('dispatch', (event) => {
    if (event.t === 'MESSAGE_CREATE') console.log(`message ${name} ${(event.d as { id?: unknown }).id} shard ${event.shardId}`);
  });
  gateway.onCommand('ping', async (interaction) => {
    console.log(`handled ${name} ${interaction.id} shard ${shardOf.get(interaction.id)}`);
    shardOf.delete(interaction.id);
    if (work > 0) await delay(work); // the handler's own work (a database, another service)
    try {
      await interaction.reply(`pong from ${name}`);
      console.log(`answered ${name} ${interaction.id}`);
    } catch (error) {
      // 40060: the service already had an answer, so this one was a second run; anything else left it to the shard's new holder.
      const twice = error instanceof ApiError && error.code === 40060;
      console.log(`${twice ? 'answered-twice' : 'not-answered'} ${name} ${interaction.id}: ${String(error)}`);
    }
  });
  let last = '';
  let lastCount: number | undefined;
  const report = () => {
    const held = JSON.stringify(gateway.shards.map((shard) => shard.id));
    if (held !== last) console.log(`shards ${name} ${(last = held)}`);
    if (gateway.shardCount !== lastCount) console.log(`count ${name} ${(lastCount = gateway.shardCount)}`);
  };
  gateway.on('debug', (line) => {
    if (line.includes('[fleet]') || line.includes(' skipped')) console.log(`fleet ${name} ${line}`);
    report();
  });
  gateway.on('ready', report);
  gateway.on('resumed', report);
  // The fleet's own events: what this process serves (a spare says so), shards taken over from a member that died (by
  // name), given back or fenced (the shard list is read once the stop ran).
  gateway.on('serving', (event) => {
    console.log(`serving ${name} ${JSON.stringify(event.shardIds)} of ${event.shardCount}${event.spare ? ' (a spare)' : ''}, ${event.members} members`);
    report();
  });
  gateway.on('shardTakenOver', (event) => console.log(`taken-over ${name} shard ${event.shardId} from ${event.fromName ?? event.fromMember}`));
  gateway.on('shardAcquired', (event) =>
    console.log(`session ${name} shard ${event.shardId} ${event.resumed ? 'resumed' : 'identified'} (fence ${event.fence})`),
  );
  gateway.on('shardReleased', () => setImmediate(report));
  gateway.on('shardFenced', () => setImmediate(report));
  await gateway.connect();
  report();
  console.log(`ready ${name}`);
  process.on('SIGTERM', () => {
    void client.close({ handOff: true }).finally(async () => {
      console.log(`stopped ${name}`);
      await redis.close();
      process.exit(0);
    });
  });
}

/** The demo: an emulator with 8 shards, three members, a rolling restart, then a reshard to 12, while /ping runs 20 times a second. */
async function demo(): Promise<void> {
  // Redis first: without it the members would wait in silence.
  const redis = await connectRedis();
  const emulator = await createEmulator({ gateway: { shards: 8, maxConcurrency: 8 } });
  const admin = new Client({ baseUrl: emulator.url });
  await admin.auth.login({ email: emulator.seed.user.email, password: emulator.seed.user.password });
  await admin.commands.sync(emulator.seed.applicationId, [{ name: 'ping', description: 'Ping' }]);
  const key = `fleet-example-${Date.now()}`;
  /** What each member said it serves, from its latest `serving` line, and who waits for the next one. */
  const serving = new Map<string, { shardIds: number[]; shardCount: number }>();
  const servingChanged: (() => void)[] = [];
  const start = (name: string) => {
    const env = { ...process.env, ROLE: 'member', PROC: name, FLEET_KEY: key, CHAT_BASE_URL: emulator.url, CHAT_BOT_TOKEN: emulator.seed.botToken };
    const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url)], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    let seen = '';
    let partial = '';
    const waiting: { text: string; resolve: () => void }[] = [];
    child.stdout?.on('data', (chunk: Buffer) => {
      process.stdout.write(chunk);
      seen += chunk.toString();
      for (const wait of waiting.filter((w) => seen.includes(w.text))) wait.resolve();
      // Each `serving` line is what the member holds now: the fleet's balance is judged from these events, not polled.
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        const match = /^serving (\S+) (\[[\d,]*\]) of (\d+)/.exec(line);
        if (match?.[1] === name) serving.set(name, { shardIds: JSON.parse(match[2] ?? '[]') as number[], shardCount: Number(match[3]) });
      }
      if (lines.some((line) => line.startsWith('serving '))) for (const check of servingChanged.splice(0)) check();
    });
    /** Resolves once the member has printed `text`. */
    const output = (text: string) => new Promise<void>((resolve) => (seen.includes(text) ? resolve() : waiting.push({ text, resolve })));
    return { child, ready: output(`ready ${name}`), output };
  };
  const stopped = (child: ChildProcess) => new Promise((resolve) => child.once('exit', resolve));
  /**
   * Waits until the members' `serving` events show `count` members sharing every shard once, each within the fair share;
   * then reads the fleet's status from Redis, as any tool can, to print it.
   */
  const balanced = async (count: number) => {
    const isBalanced = () => {
      const views = [...members.keys()].map((name) => serving.get(name));
      if (views.length !== count || views.some((view) => view === undefined)) return false;
      const shardCount = views[0]?.shardCount ?? 0;
      const held = views.flatMap((view) => view?.shardIds ?? []);
      const fair = Math.ceil(shardCount / count);
      return (
        views.every((view) => view?.shardCount === shardCount && (view?.shardIds.length ?? 0) <= fair) &&
        held.length === shardCount &&
        new Set(held).size === shardCount
      );
    };
    while (!isBalanced()) await new Promise<void>((resolve) => servingChanged.push(resolve));
    return readFleetStatus({ client: redis, key, sessionPrefix: false });
  };
  const members = new Map(['a', 'b', 'c'].map((name) => [name, start(name)]));
  await Promise.all([...members.values()].map((m) => m.ready));
  const first = await balanced(3);
  console.log(`balanced: ${first.members.map((m) => `${m.name} holds ${JSON.stringify(m.shardIds)}`).join(', ')}`);
  // Each interaction matched to its own answers (the callbacks the emulator got for that interaction id).
  const runs: ReturnType<typeof emulator.invokeCommand>[] = [];
  const traffic = setInterval(() => runs.push(emulator.invokeCommand({ name: 'ping' })), 50);
  for (const name of ['a', 'b', 'c']) {
    const old = members.get(name);
    if (old === undefined) continue;
    old.child.kill('SIGTERM');
    await stopped(old.child);
    serving.delete(name);
    const next = start(name);
    members.set(name, next);
    await next.ready;
    await balanced(3); // the next restart waits until the new process serves its share
  }
  const restarted = emulator.gatewayStats.forBot();
  console.log(`rolling restart: ${runs.length} interactions so far, ${restarted.identifies} Identify, ${restarted.resumes} resumes`);
  // A reshard 8 → 12 while traffic flows: asked through the coordinator (gateway.reshard(12) in any member does the same).
  await createRedisShardCoordinator({ client: redis, key }).requestReshard(12);
  await Promise.all([...members.entries()].map(([name, m]) => m.output(`count ${name} 12`)));
  await redis.quit();
  clearInterval(traffic);
  await Promise.allSettled(runs.map((run) => run.response));
  await emulator.waitForIdle();
  const once = (run: (typeof runs)[number]) => run.callbacks().length === 1 && /^pong from /.test(String(run.callbacks()[0]?.data['content']));
  const answered = runs.filter(once).length;
  const stats = emulator.gatewayStats.forBot();
  const expected = 8 + 12; // every shard of the first set once, then each new shard once; hand-offs and the restart resume
  console.log(
    `after the reshard: ${runs.length} interactions, ${answered} answered once, ${stats.identifies} Identify (${expected} expected), ${stats.resumes} resumes`,
  );
  for (const m of members.values()) m.child.kill('SIGTERM');
  await Promise.all([...members.values()].map((m) => stopped(m.child)));
  await admin.close();
  await emulator.close();
  // The summary's own claims: every interaction answered once, 8 Identify at the start and 12 after the reshard, none more.
  const wrong = [
    answered === runs.length ? '' : `${runs.length} interactions but ${answered} answered exactly once with a pong`,
    stats.identifies === expected ? '' : `${stats.identifies} Identify, not ${expected} (a handed-off or resharded shard identified again instead of resuming)`,
  ].filter((line) => line !== '');
  if (wrong.length > 0) {
    console.error(`FAILED: ${wrong.join('; ')}`);
    process.exitCode = 1;
  }
}

if (process.env['ROLE'] === 'member') await member();
else await demo();
