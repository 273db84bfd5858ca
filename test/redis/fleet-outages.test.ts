/**
 * A fleet of three real processes (`examples/fleet.ts`) sharing 8 shards
 * through a real `redis-server`, against the emulator, at 25 interactions a
 * second, through the outages an operator meets: one member cut off from
 * Redis by a proxy that stops forwarding, one SIGSTOPped past its lease,
 * and Redis SIGKILLed and started again empty. No handler starts on a shard
 * after its fence; every interaction is answered exactly once; sessions the
 * service still accepts are resumed, never identified again.
 */
import { expect, it } from 'vitest';
import { shardOfGuild } from '../../src/index.js';
import { startScript, type RunningScript } from '../helpers/index.js';
import { useEmulatorWithAdmin } from '../helpers/emulators.js';
import { describeWithRedis, freePort, startRedisServer, type RunningRedis } from '../helpers/redis-server.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { until } from '../helpers/until.js';

const start = useEmulatorWithAdmin();
/** Generous: the machine is shared, and a step delayed by the CPU must not read as a lapse. */
const LEASE_MS = 3000;
const SHARDS = 8;
const NAMES = ['a', 'b', 'c'] as const;

/** The shards a member printed last (`shards <name> [..]`). */
function heldBy(script: RunningScript, name: string): number[] {
  const last = (script.stdout().match(new RegExp(`^shards ${name} (\\[.*\\])$`, 'gm')) ?? []).at(-1)?.replace(`shards ${name} `, '');
  return last === undefined ? [] : (JSON.parse(last) as number[]);
}

/** Interaction ids a member printed with this word (`handled`, `answered`, `answered-twice`, `not-answered`). */
function idsBy(script: RunningScript, word: string): string[] {
  return [...script.stdout().matchAll(new RegExp(`^${word} \\S+ (\\d+)`, 'gm'))].map((match) => match[1] as string);
}

/**
 * The handlers a member started on a shard after fencing it (before acquiring it again), read in the order the member printed:
 * `handled <name> <id> shard <n>` against its `[fleet] shard <n> acquired|fenced|handed off`. A handler started after a hand-off
 * is not one: the member keeps the claims it made before handing the shard off, and the successor skips their replays.
 */
function handlersAfterFence(script: RunningScript): string[] {
  const fenced = new Set<number>();
  const wrong: string[] = [];
  for (const line of script.stdout().split('\n')) {
    const fleet = /\[fleet\] shard (\d+) (acquired|fenced|handed off)/.exec(line);
    if (fleet !== null) {
      if (fleet[2] === 'fenced') fenced.add(Number(fleet[1]));
      else fenced.delete(Number(fleet[1]));
      continue;
    }
    const handled = /^handled \S+ (\d+) shard (\d+)/.exec(line);
    if (handled !== null && fenced.has(Number(handled[2]))) wrong.push(`${handled[1]} on shard ${handled[2]}`);
  }
  return wrong;
}

/** How many claims a member dropped because they were answered after the shard's lease lapsed. */
const lateClaims = (script: RunningScript) => (script.stdout().match(/its claim was answered after shard \d+'s lease lapsed/g) ?? []).length;

/** Whether a process of this pid still exists. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** What each member printed about an interaction, beside its fleet lines (for a failure's report). */
function linesAbout(scripts: readonly RunningScript[], id: string): string {
  const about = (line: string) => line.includes(id) || /\[fleet\] (shard \d+ (acquired|fenced|handed)|joining)|^session /.test(line);
  return scripts.map((script, i) => `${NAMES[i]}: ${script.stdout().split('\n').filter(about).join(' | ')}`).join('\n');
}

/** Three members on `redisUrl(name)`, traffic at 25 a second, and the checks every scenario ends with. */
async function fleetUnderTraffic(redisUrl: (name: string) => string, handleMs = 300) {
  const { emulator, admin } = await start({ gateway: { shards: SHARDS, maxConcurrency: SHARDS } });
  await admin.commands.sync(emulator.seed.applicationId, [{ name: 'ping', description: 'Ping' }]);
  const key = `fleet-outage-${Date.now()}`;
  const members = new Map<string, RunningScript>();
  for (const name of NAMES) {
    const env = { ROLE: 'member', PROC: name, FLEET_KEY: key, LEASE_MS: String(LEASE_MS), HANDLE_MS: String(handleMs), REDIS_URL: redisUrl(name) };
    members.set(name, await startScript('examples/fleet.ts', { env: { ...env, CHAT_BASE_URL: emulator.url, CHAT_BOT_TOKEN: emulator.seed.botToken } }));
  }
  const scripts = [...members.values()];
  const held = (except?: string) => [...members].filter(([name]) => name !== except).flatMap(([name, script]) => heldBy(script, name));
  const everyShardHeld = (except?: string) => held(except).length === SHARDS && new Set(held(except)).size === SHARDS;
  const runs: { id: string; response: Promise<unknown>; settled: boolean }[] = [];
  let traffic: ReturnType<typeof setInterval> | undefined;
  const fleet = {
    emulator,
    members,
    /** The shard the seed community's interactions arrive on (the others' come in DMs, on shard 0). */
    busy: shardOfGuild(emulator.seed.guildId, SHARDS),
    /** The member holding a shard now. */
    holderOf(shard: number): [string, RunningScript] {
      const found = [...members].find(([name, script]) => heldBy(script, name).includes(shard));
      if (found === undefined) throw new Error(`nobody holds shard ${shard}`);
      return found;
    },
    runs,
    everyShardHeld,
    async started() {
      await Promise.all(scripts.map((script) => script.waitForOutput(/^ready /m, 30_000)));
      // Balanced (3, 3 and 2 shards) before the traffic: a shard handed off and not yet taken dispatches nothing, so an outage
      // then would begin with no member able to notice it.
      const counts = () => NAMES.map((name) => heldBy(members.get(name) as RunningScript, name).length).sort();
      await until(() => everyShardHeld() && counts().join() === '2,3,3', { what: 'the fleet balanced (2, 3 and 3 shards)', timeoutMs: 20_000 }).catch(
        (error: unknown) => {
          throw new Error(`${String(error)}; shards held per member: ${counts().join(', ')}`);
        },
      );
      let n = 0;
      traffic = setInterval(() => {
        const run = emulator.invokeCommand({ name: 'ping', ...(n++ % 2 === 0 ? {} : { guildId: null }) });
        const entry = { id: run.id, response: run.response, settled: false };
        run.response.finally(() => (entry.settled = true)).catch(() => undefined);
        runs.push(entry);
      }, 40);
    },
    /** Waits for `count` more interactions sent. */
    async more(count: number, what: string) {
      const from = runs.length;
      await until(() => runs.length >= from + count, { what, timeoutMs: 20_000 });
    },
    /** Stops the traffic and checks: every interaction answered once, no handler started after its shard's fence. */
    async finish(label: string) {
      clearInterval(traffic);
      traffic = undefined;
      const unanswered = () => runs.filter((run) => !run.settled).map((run) => run.id);
      await until(() => unanswered().length === 0, { what: 'every interaction answered', timeoutMs: 30_000 }).catch((error: unknown) => {
        const stats = emulator.gatewayStats.forBot();
        console.log(
          `[${label}] ${unanswered().length} of ${runs.length} unanswered; ${stats.identifies} Identify, ${stats.resumes} resumes, ${stats.resumesRefused} refused`,
        );
        for (const id of unanswered().slice(0, 5)) console.log(`[${label}] unanswered ${id}\n${linesAbout(scripts, id)}`);
        throw error;
      });
      const answered = () => scripts.flatMap((script) => idsBy(script, 'answered'));
      await until(() => new Set(answered()).size >= runs.length, { what: 'every answer printed', timeoutMs: 10_000 }).catch(() => undefined);
      const stats = emulator.gatewayStats.forBot();
      const afterFence = scripts.map((script, i) => `${NAMES[i]}: [${handlersAfterFence(script).join(', ')}]`);
      const notAnswered = scripts.reduce((sum, script) => sum + idsBy(script, 'not-answered').length, 0);
      console.log(
        `[${label}] ${runs.length} interactions; ${stats.identifies} Identify, ${stats.resumes} resumes, ${stats.resumesRefused} refused; ` +
          `answers refused after a fence then run by the new holder: ${notAnswered}; late claims dropped: ${scripts.map(lateClaims).join('/')}; ` +
          `handlers after a fence: ${afterFence.join(' ')}`,
      );
      for (const wrong of scripts.flatMap(handlersAfterFence).slice(0, 3))
        console.log(`[${label}] after a fence: ${wrong}\n${linesAbout(scripts, wrong.split(' ')[0] as string)}`);
      expect(afterFence, 'handlers started on a shard after its fence, per member').toEqual(NAMES.map((name) => `${name}: []`));
      expect(answered().sort(), 'each interaction answered by exactly one member').toEqual(runs.map((run) => run.id).sort());
      expect(
        scripts.flatMap((script) => idsBy(script, 'answered-twice')),
        'second answers the service refused',
      ).toEqual([]);
      expect(stats.resumesRefused).toBe(0);
      return stats;
    },
    async stop() {
      if (traffic !== undefined) clearInterval(traffic);
      for (const script of scripts) script.kill('SIGKILL');
      await Promise.all(scripts.map((script) => script.exited));
    },
  };
  return fleet;
}

describeWithRedis('a fleet of three processes through Redis outages', () => {
  it('a member cut off from Redis, then one SIGSTOPped past its lease: no handler starts on a shard after its fence, each interaction answered once', async () => {
    const redis = await startRedisServer();
    // Each member reaches Redis through its own proxy, so whichever holds the busy shard can be cut off.
    const proxies = new Map<string, TcpProxy>();
    for (const name of NAMES) proxies.set(name, await startTcpProxy(redis.port));
    const fleet = await fleetUnderTraffic((name) => `redis://127.0.0.1:${proxies.get(name)?.port}`);
    try {
      await fleet.started();
      await fleet.more(25, 'traffic before the cut');
      const [cutName, cut] = fleet.holderOf(fleet.busy);
      proxies.get(cutName)?.cut();
      await cut.waitForOutput(/fenced/, LEASE_MS + 5000);
      await until(() => fleet.everyShardHeld(cutName), { what: `${cutName}'s shards taken by the others`, timeoutMs: LEASE_MS + 10_000 });
      await fleet.more(50, `traffic while ${cutName} is cut off`);
      proxies.get(cutName)?.heal();
      await until(() => fleet.everyShardHeld() && heldBy(cut, cutName).length > 0, { what: `${cutName} back with a share`, timeoutMs: 20_000 });

      const [pausedName, paused] = fleet.holderOf(fleet.busy);
      const fencedBefore = (paused.stdout().match(/fenced/g) ?? []).length;
      paused.kill('SIGSTOP');
      await until(() => fleet.everyShardHeld(pausedName), { what: `${pausedName}'s shards taken while it sleeps`, timeoutMs: LEASE_MS + 10_000 });
      await fleet.more(25, `traffic while ${pausedName} sleeps`);
      paused.kill('SIGCONT');
      await until(() => (paused.stdout().match(/fenced/g) ?? []).length > fencedBefore, { what: `${pausedName} fencing on wake`, timeoutMs: 10_000 });
      await until(() => fleet.everyShardHeld(), { what: 'every shard held once after the pause', timeoutMs: 20_000 });
      await fleet.more(25, 'traffic after the pause');
      const stats = await fleet.finish(`fleet partition of ${cutName} + SIGSTOP of ${pausedName}`);
      expect(stats.identifies).toBe(SHARDS);
    } finally {
      await fleet.stop();
      for (const proxy of proxies.values()) await proxy.close();
      await redis.stop();
    }
  }, 180_000);

  it('Redis SIGKILLed and started again empty: each interaction answered once, every session resumed (no Identify after the first 8)', async () => {
    const port = await freePort();
    let redis: RunningRedis = await startRedisServer({ port });
    const fleet = await fleetUnderTraffic(() => redis.url);
    try {
      await fleet.started();
      await fleet.more(25, 'traffic before Redis dies');
      const killed = redis.pid;
      process.kill(killed, 'SIGKILL');
      await until(() => !isAlive(killed), { what: 'redis-server gone after SIGKILL' });
      await fleet.more(25, 'traffic while Redis is down');
      // Down past the leases: a member with traffic fences its shards while the store cannot be written, and keeps the sessions.
      await until(() => [...fleet.members.values()].some((script) => /fenced/.test(script.stdout())), { what: 'a member fencing', timeoutMs: 10_000 });
      redis = await startRedisServer({ port });
      await until(() => [...fleet.members.values()].every((script) => /joining the fleet again/.test(script.stdout())), {
        what: 'every member joining the new Redis',
        timeoutMs: 20_000,
      });
      await until(() => fleet.everyShardHeld(), { what: 'every shard held once after the restart', timeoutMs: 30_000 });
      await fleet.more(50, 'traffic after the restart');
      const stats = await fleet.finish('fleet Redis restarted empty');
      if (stats.identifies !== SHARDS)
        for (const [name, script] of fleet.members)
          console.log(
            `[fleet Redis restarted empty] ${name}:\n${script
              .stdout()
              .split('\n')
              .filter((line) => /^(fleet|session|shards|serving|taken-over) /.test(line))
              .join('\n')}`,
          );
      expect(stats.identifies, 'Identify in all (the first 8 only: every session resumed after the restart)').toBe(SHARDS);
    } finally {
      await fleet.stop();
      await redis.stop().catch(() => undefined); // the killed one, if the test failed before the restart
    }
  }, 180_000);

  it('Redis paused 8 s with its data kept, handlers taking 500 ms: what the members were handling when they fenced is answered once, by a replay', async () => {
    const redis = await startRedisServer();
    const fleet = await fleetUnderTraffic(() => redis.url, 500);
    try {
      await fleet.started();
      await fleet.more(25, 'traffic before Redis pauses');
      process.kill(redis.pid, 'SIGSTOP');
      const pausedAt = Date.now();
      await until(() => [...fleet.members.values()].some((script) => /fenced/.test(script.stdout())), { what: 'a member fencing', timeoutMs: 10_000 });
      await until(() => Date.now() - pausedAt >= 8000, { what: '8 s of pause', timeoutMs: 20_000 });
      process.kill(redis.pid, 'SIGCONT');
      await until(() => fleet.everyShardHeld(), { what: 'every shard held once after the pause', timeoutMs: 30_000 });
      await fleet.more(25, 'traffic after the pause');
      const stats = await fleet.finish('fleet Redis paused 8 s');
      expect(stats.identifies).toBe(SHARDS);
    } finally {
      await fleet.stop();
      await redis.stop();
    }
  }, 180_000);
});
