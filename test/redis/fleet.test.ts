/**
 * A fleet of real processes (`examples/fleet.ts`, ROLE=member) sharing 8
 * shards through Redis leases, against the emulator, while /ping arrives
 * 25 times a second: a rolling restart of all three, a SIGKILL, and a
 * SIGSTOP past the lease. Every interaction is answered exactly once, no
 * Identify after the first 8, no refused Resume.
 */
import { expect, it } from 'vitest';
import { createClient } from 'redis';
import { shardOfGuild } from '../../src/index.js';
import { createRedisShardCoordinator } from '../../src/redis/index.js';
import { useEmulatorWithAdmin } from '../helpers/emulators.js';
import { startScript, type RunningScript } from '../helpers/index.js';
import { describeWithRedis, useRedis } from '../helpers/redis-server.js';
import { until } from '../helpers/until.js';

const start = useEmulatorWithAdmin();
const LEASE_MS = 3000;
const SHARDS = 8;
/** How many times the reshard 8 → 12 runs (each with a fresh emulator and fleet). */
const RESHARD_RUNS = Math.max(1, Number(process.env['FLEET_RESHARD_RUNS'] ?? 1));

/** The shards a member printed last (`shards <name> [..]`). */
function heldBy(script: RunningScript, name: string): number[] {
  const lines = script.stdout().match(new RegExp(`^shards ${name} (\\[.*\\])$`, 'gm')) ?? [];
  const last = lines.at(-1)?.replace(`shards ${name} `, '');
  return last === undefined ? [] : (JSON.parse(last) as number[]);
}

/** Interaction ids a member printed with this word (`handled`, `answered`, `answered-twice`, `not-answered`), in order. */
function idsBy(script: RunningScript, word: string): string[] {
  return [...script.stdout().matchAll(new RegExp(`^${word} \\S+ (\\d+)`, 'gm'))].map((match) => match[1] as string);
}
const handledBy = (script: RunningScript) => idsBy(script, 'handled');

/** What each process printed about an interaction, beside its ready and stopped lines (for a failure's report). */
function linesAbout(scripts: readonly RunningScript[], id: string): string {
  const about = (line: string) => line.includes(id) || /^(ready|stopped)/.test(line);
  return scripts.map((script, i) => `${i}: ${script.stdout().split('\n').filter(about).join(' | ')}`).join('\n');
}

/** Rejects with a readable error if `promise` has not settled within `ms` (a deadline, so a lost answer fails the test instead of hanging it). */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/** Waits for every interaction's answer; past `ms`, fails naming each one still unanswered and what each process said of it. */
async function allAnswered(runs: readonly { id: string; response: Promise<unknown> }[], scripts: readonly RunningScript[], ms: number): Promise<unknown[]> {
  const settled = new Set<string>();
  for (const run of runs)
    void run.response.then(
      () => settled.add(run.id),
      () => settled.add(run.id),
    );
  try {
    return await within(Promise.all(runs.map((run) => run.response)), ms, 'every interaction answered');
  } catch (error) {
    const open = runs.filter((run) => !settled.has(run.id)).map((run) => run.id);
    const detail = open
      .slice(0, 5)
      .map((id) => `interaction ${id}:\n${linesAbout(scripts, id)}`)
      .join('\n');
    throw new Error(`${(error as Error).message}: ${open.length} of ${runs.length} unanswered\n${detail}`, { cause: error });
  }
}

describeWithRedis('a fleet of three processes sharing 8 shards through Redis leases', () => {
  const redis = useRedis();

  it('rolling restart, SIGKILL and SIGSTOP under traffic: every interaction answered once, 8 Identify in all, no refused Resume', async () => {
    const { emulator, admin } = await start({ gateway: { shards: SHARDS, maxConcurrency: SHARDS } });
    await admin.commands.sync(emulator.seed.applicationId, [{ name: 'ping', description: 'Ping' }]);
    const busy = shardOfGuild(emulator.seed.guildId, SHARDS);
    const key = `fleet-${Date.now()}`;
    const env = (name: string) => ({
      ROLE: 'member',
      PROC: name,
      FLEET_KEY: key,
      LEASE_MS: String(LEASE_MS),
      HANDLE_MS: '300',
      REDIS_URL: redis.server.url,
      CHAT_BASE_URL: emulator.url,
      CHAT_BOT_TOKEN: emulator.seed.botToken,
    });
    const all: RunningScript[] = [];
    const members = new Map<string, RunningScript>();
    const launch = async (name: string) => {
      const script = await startScript('examples/fleet.ts', { env: env(name) });
      all.push(script);
      members.set(name, script);
      return script;
    };
    const holderOf = (shard: number) => [...members.entries()].find(([name, script]) => heldBy(script, name).includes(shard));
    const everyShardHeld = () => {
      const held = [...members.entries()].flatMap(([name, script]) => heldBy(script, name));
      return held.length === SHARDS && new Set(held).size === SHARDS;
    };

    const runs: { id: string; response: Promise<unknown> }[] = [];
    let traffic: ReturnType<typeof setInterval> | undefined;
    try {
      for (const name of ['a', 'b', 'c']) await launch(name);
      await Promise.all([...members.values()].map((script) => script.waitForOutput(/^ready /m, 30_000)));
      await until(everyShardHeld, { what: 'every shard held once', timeoutMs: 20_000 });
      // 25 a second: on the seed community's shard and in DMs (shard 0).
      let n = 0;
      traffic = setInterval(() => {
        const run = emulator.invokeCommand({ name: 'ping', ...(n++ % 2 === 0 ? {} : { guildId: null }) });
        runs.push({ id: run.id, response: run.response });
      }, 40);

      // A rolling restart: each member stops (SIGTERM: hand-off) and comes back.
      for (const name of ['a', 'b', 'c']) {
        const old = members.get(name) as RunningScript;
        old.kill('SIGTERM');
        expect(await within(old.exited, 20_000, `member ${name} stopping`)).toBe(0);
        const next = await launch(name);
        await next.waitForOutput(/^ready /m, 30_000);
      }
      await until(everyShardHeld, { what: 'every shard held once after the rolling restart', timeoutMs: 20_000 });
      const afterRestart = emulator.gatewayStats.forBot();
      expect(afterRestart.identifies).toBe(SHARDS);

      // A SIGKILL of the member holding the busy shard: another resumes it within the lease plus 5 s.
      const [victim, victimScript] = holderOf(busy) ?? [];
      expect(victim).toBeDefined();
      // Killed while it handles an interaction (printed `handled`, not yet `answered`): the successor must replay and answer it.
      const unfinished = (script: RunningScript) => handledBy(script).some((id) => !idsBy(script, 'answered').includes(id));
      await until(() => unfinished(victimScript as RunningScript), { what: 'the victim handling an interaction', timeoutMs: 10_000 });
      victimScript?.kill('SIGKILL');
      await within(victimScript?.exited ?? Promise.resolve(null), 10_000, 'the killed member exiting');
      const killedAt = Date.now();
      members.delete(victim as string);
      await until(() => holderOf(busy) !== undefined, { what: `shard ${busy} taken over`, timeoutMs: LEASE_MS + 5000 });
      const failoverMs = Date.now() - killedAt;
      await until(everyShardHeld, { what: 'every shard held by the two left', timeoutMs: LEASE_MS + 5000 });
      const replacement = await launch(victim as string);
      await replacement.waitForOutput(/^ready /m, 30_000);

      // A SIGSTOP past the lease of the member holding the busy shard, then SIGCONT.
      const [paused, pausedScript] = holderOf(busy) ?? [];
      pausedScript?.kill('SIGSTOP');
      const handledBeforePause = handledBy(pausedScript as RunningScript).length;
      const takenOver = () => [...members.entries()].some(([name, script]) => name !== paused && heldBy(script, name).includes(busy));
      await until(takenOver, { what: `shard ${busy} taken from the paused member`, timeoutMs: LEASE_MS + 5000 });
      const pausedFor = emulator.invokeCommand({ name: 'ping' });
      runs.push({ id: pausedFor.id, response: pausedFor.response });
      await within(pausedFor.response, 10_000, 'the interaction sent while a member slept answered');
      pausedScript?.kill('SIGCONT');
      await pausedScript?.waitForOutput(/fenced/, 10_000);
      await until(everyShardHeld, { what: 'every shard held once after the pause', timeoutMs: 20_000 });

      clearInterval(traffic);
      traffic = undefined;
      const answers = (await allAnswered(runs, all, 20_000)) as { data?: { content?: unknown } }[];
      await emulator.waitForIdle({ timeoutMs: 10_000 });
      const stats = emulator.gatewayStats.forBot();
      console.log(
        `[fleet] ${runs.length} interactions; ${stats.identifies} Identify, ${stats.resumes} resumes, ${stats.resumesRefused} refused; failover after SIGKILL ${failoverMs} ms (lease ${LEASE_MS} ms)`,
      );
      expect(runs.length).toBeGreaterThan(100);
      expect(answers.filter((answer) => /^pong from [abc]$/.test(String(answer.data?.content)))).toHaveLength(runs.length);

      // A second run is allowed only for what the killed member had started and not seen answered: its successor's replay
      // (the service keeps the first answer, refusing the second with 40060).
      const victimUnfinished = new Set(handledBy(victimScript as RunningScript).filter((id) => !idsBy(victimScript as RunningScript, 'answered').includes(id)));
      // Each run was answered by a member that says so (its line follows the service's answer), or by the killed member
      // before it could print it (the service has the answer).
      const unprinted = () => {
        const printed = new Set(all.flatMap((script) => [...idsBy(script, 'answered'), ...idsBy(script, 'answered-twice')]));
        return runs.filter((run) => !printed.has(run.id) && !victimUnfinished.has(run.id)).map((run) => run.id);
      };
      await until(() => unprinted().length === 0, { what: `every answer printed (missing: ${unprinted().join(', ')})`, timeoutMs: 10_000 }).catch(
        () => undefined,
      );
      for (const id of [...unprinted(), ...all.flatMap((script) => idsBy(script, 'answered-twice')).filter((x) => !victimUnfinished.has(x))])
        console.log(`[fleet] unaccounted for: ${id}\n${linesAbout(all, id)}`);
      expect(unprinted()).toEqual([]);
      const answered = all.flatMap((script) => idsBy(script, 'answered'));
      const twice = all.flatMap((script) => idsBy(script, 'answered-twice'));
      expect(answered).toHaveLength(new Set(answered).size);
      expect(twice.filter((id) => !victimUnfinished.has(id))).toEqual([]);
      expect(victimUnfinished.size).toBeGreaterThan(0);
      // The paused member handled nothing it had lost: the interaction sent while it slept ran elsewhere.
      expect(handledBy(pausedScript as RunningScript).slice(handledBeforePause)).not.toContain(pausedFor.id);
      expect(stats.identifies).toBe(SHARDS);
      expect(stats.resumesRefused).toBe(0);
    } finally {
      if (traffic !== undefined) clearInterval(traffic);
      for (const script of all) script.kill('SIGKILL');
      await Promise.all(all.map((script) => script.exited));
    }
  }, 180_000);

  // The issue asks for ten runs: one takes about 20 s on a loaded 2-core machine, so CI runs RESHARD_RUNS (FLEET_RESHARD_RUNS=10 for all ten).
  // The third member joins once the reshard was asked for: the two others hand old shards off to it while the new set starts, which
  // it must take and resume (a set that refused every shard from the target on left them dark: their interactions were lost).
  // Then once more with every member running its shards in worker threads, two per worker (FLEET_RESHARD_RUNS times too).
  const reshardRuns = Array.from({ length: RESHARD_RUNS }, (_, i) => i + 1).flatMap((run) => [
    { run, workers: undefined },
    { run, workers: 2 },
  ]);
  for (const { run, workers } of reshardRuns)
    it(`reshards 8 → 12 while traffic flows and a member joins (run ${run}${workers === undefined ? '' : `, shards in worker threads, ${workers} per worker`}): every interaction answered once, every message emitted once, exactly 12 new Identify`, {
      timeout: 180_000,
    }, async () => {
      const { emulator, admin } = await start({ gateway: { shards: SHARDS, maxConcurrency: SHARDS } });
      await admin.commands.sync(emulator.seed.applicationId, [{ name: 'ping', description: 'Ping' }]);
      const key = `fleet-reshard-${Date.now()}`;
      const all: RunningScript[] = [];
      const members = new Map<string, RunningScript>();
      const runs: { id: string; response: Promise<unknown> }[] = [];
      const messages: string[] = [];
      let traffic: ReturnType<typeof setInterval> | undefined;
      const control = createClient({ url: redis.server.url });
      await control.connect();
      const launch = async (name: string) => {
        const env = { ROLE: 'member', PROC: name, FLEET_KEY: key, LEASE_MS: String(LEASE_MS), HANDLE_MS: '50', REDIS_URL: redis.server.url };
        const threads = workers === undefined ? {} : { SHARDS_PER_WORKER: String(workers) };
        const script = await startScript('examples/fleet.ts', {
          env: { ...env, ...threads, CHAT_BASE_URL: emulator.url, CHAT_BOT_TOKEN: emulator.seed.botToken },
        });
        all.push(script);
        members.set(name, script);
        return script;
      };
      try {
        for (const name of ['a', 'b']) await launch(name);
        await Promise.all(all.map((script) => script.waitForOutput(/^ready /m, 30_000)));
        const held = () => [...members.entries()].flatMap(([name, script]) => heldBy(script, name));
        await until(() => held().length === SHARDS && new Set(held()).size === SHARDS, { what: 'every shard held once', timeoutMs: 20_000 });
        let n = 0;
        traffic = setInterval(() => {
          const i = n++;
          const run = emulator.invokeCommand({ name: 'ping', ...(i % 2 === 0 ? {} : { guildId: null }) });
          runs.push({ id: run.id, response: run.response });
          // A message in one of 24 communities (every shard of 8 and of 12), each time.
          const id = String(2_000_000 + i);
          emulator.dispatchEvent('MESSAGE_CREATE', { id, guild_id: String((BigInt(i % 24) << 22n) + 5n), channel_id: '1', content: `m${i}` });
          messages.push(id);
        }, 40);
        await until(() => runs.length >= 20, { what: 'traffic before the reshard' });

        // Any process (or a tool) asks the fleet to reshard; every member starts its share of the new set, then all switch.
        await createRedisShardCoordinator({ client: control, key }).requestReshard(12);
        await (await launch('c')).waitForOutput(/^ready /m, 30_000);
        const counted = (name: string, script: RunningScript) =>
          script
            .stdout()
            .trimEnd()
            .split('\n')
            .filter((line) => line.startsWith(`count ${name} `))
            .at(-1);
        await until(() => [...members.entries()].every(([name, script]) => counted(name, script) === `count ${name} 12`), {
          what: 'every member on 12 shards',
          timeoutMs: 40_000,
        });
        await until(() => held().length === 12 && new Set(held()).size === 12, { what: 'the 12 new shards held once', timeoutMs: 20_000 });
        const afterSwitch = runs.length;
        await until(() => runs.length >= afterSwitch + 20, { what: 'traffic after the switch' });
        clearInterval(traffic);
        traffic = undefined;
        await allAnswered(runs, all, 20_000);
        await until(() => new Set(all.flatMap((script) => idsBy(script, 'answered'))).size >= runs.length, { what: 'every answer printed', timeoutMs: 10_000 });
        const emitted = () => all.flatMap((script) => idsBy(script, 'message'));
        const unseen = () => messages.filter((id) => !emitted().includes(id));
        await until(() => unseen().length === 0, { what: 'every message emitted', timeoutMs: 10_000 }).catch(() => {
          throw new Error(`${unseen().length} of ${messages.length} messages emitted by no member: ${unseen().slice(0, 8).join(', ')}`);
        });

        const answered = all.flatMap((script) => idsBy(script, 'answered'));
        const stats = emulator.gatewayStats.forBot();
        const twice = emitted().filter((id, i, list) => list.indexOf(id) !== i);
        console.log(
          `[fleet reshard${workers === undefined ? '' : ', worker threads'}] ${runs.length} interactions, ${messages.length} messages (${twice.length} emitted twice); ${stats.identifies} Identify (8 + 12 expected), ${stats.resumes} resumes, ${stats.resumesRefused} refused`,
        );
        expect(answered.sort()).toEqual(runs.map((run) => run.id).sort());
        expect(all.flatMap((script) => idsBy(script, 'answered-twice'))).toEqual([]);
        expect(twice, 'messages emitted by two members, or by two sets of one').toEqual([]);
        expect(stats.identifies).toBe(SHARDS + 12);
        expect(stats.resumesRefused).toBe(0);
        expect(emulator.gatewayStats.sessionStartsRefused).toBe(0);
      } finally {
        if (traffic !== undefined) clearInterval(traffic);
        for (const script of all) script.kill('SIGKILL');
        await Promise.all(all.map((script) => script.exited));
        await control.close();
      }
    });
});
