/**
 * Sharding across real processes with one real redis-server: 4 shards in 2
 * child processes against the emulator (max_concurrency 2). Every
 * interaction is handled exactly once, by the process running the shard
 * that owns its community (DMs: shard 0); Identify is paced through Redis so
 * the emulator never answers Invalid Session for a too-early one; a process
 * killed and started again resumes its shards from the sessions in Redis.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createClient } from 'redis';
import { shardOfGuild } from '../../src/index.js';
import { createRedisGatewaySessionStore, createRedisIdentifyThrottle } from '../../src/redis/index.js';
import type { Emulator } from '../../src/testing/index.js';
import { startScript, type RunningScript } from '../helpers/index.js';
import { describeWithRedis, startRedisServer, type RunningRedis } from '../helpers/redis-server.js';
import { startShardedEmulator } from '../helpers/sharded-emulator.js';

const BOT = 'test/helpers/sharded-bot-process.ts';

/** Every `kind {json}` line a process printed. */
function facts<T>(script: RunningScript, kind: string): T[] {
  return [...script.stdout().matchAll(new RegExp(`^${kind} (.*)$`, 'gm'))].map((match) => JSON.parse(match[1] as string) as T);
}

/**
 * Waits for `script` to print that it handled interaction `id`: its answer can reach the emulator before that line reaches
 * the test. A second handling needs a second delivery, which `delivered` (sessions the emulator sent it to) and the
 * processes' resumes (a replay) account for.
 */
function handledBy(script: RunningScript, id: string): Promise<RegExpMatchArray> {
  return script.waitForOutput(new RegExp(`^interaction \\{.*"id":"${id}"`, 'm'));
}

describeWithRedis('Gateway sharding across processes through Redis', () => {
  let redis: RunningRedis;
  let connection: ReturnType<typeof createClient>;
  let emulator: Emulator;
  const scripts: RunningScript[] = [];

  beforeAll(async () => {
    redis = await startRedisServer();
    connection = createClient({ url: redis.url });
    connection.on('error', () => undefined);
    await connection.connect();
    emulator = await startShardedEmulator({ gateway: { shards: 4, maxConcurrency: 2 }, guildNotOnShard0: true });
  }, 30_000);
  afterAll(async () => {
    for (const script of scripts) script.kill('SIGKILL');
    await Promise.all(scripts.map((script) => script.exited));
    await emulator?.close();
    await connection?.quit();
    await redis?.stop();
  });

  it('the Redis throttle: one turn per bucket per interval on Redis TIME, shared by every instance; buckets are independent', async () => {
    const prefix = `unit-${Date.now()}:`;
    const [a, b] = [
      createRedisIdentifyThrottle({ client: connection, prefix, intervalMs: 300, pollMs: 20 }),
      createRedisIdentifyThrottle({ client: connection, prefix, intervalMs: 300, pollMs: 20 }),
    ];
    await a.wait({ shardId: 0, shardCount: 4, maxConcurrency: 2 });
    const first = Number(await connection.get(`${prefix}2:0`));
    // Bucket 1 is free at once; bucket 0 is not, whichever instance asks.
    await b.wait({ shardId: 1, shardCount: 4, maxConcurrency: 2 });
    expect(Number(await connection.get(`${prefix}2:1`))).toBeGreaterThanOrEqual(first);
    await b.wait({ shardId: 2, shardCount: 4, maxConcurrency: 2 });
    const second = Number(await connection.get(`${prefix}2:0`));
    expect(second - first).toBeGreaterThanOrEqual(300);
    expect(await connection.pTTL(`${prefix}2:0`)).toBeLessThanOrEqual(300);
  });

  it('the Redis session store keeps one record per shard and count, and reads anything else as none', async () => {
    const store = createRedisGatewaySessionStore({ client: connection, prefix: 'unit-session:' });
    await store.save(1, 4, { sessionId: 's1', sequence: 7, resumeUrl: 'ws://127.0.0.1:1/api/v1/gateway' });
    expect(await store.load(1, 4)).toEqual({ sessionId: 's1', sequence: 7, resumeUrl: 'ws://127.0.0.1:1/api/v1/gateway' });
    expect(await store.load(1, 8)).toBeUndefined();
    await connection.set('unit-session:2/4', '{"sessionId":5}');
    expect(await store.load(2, 4)).toBeUndefined();
    await store.save(1, 4, undefined);
    expect(await store.load(1, 4)).toBeUndefined();
  });

  it('contrast: with in-memory throttles, each process paces only itself, and the emulator answers too-early Identify with Invalid Session', async () => {
    const own = await startShardedEmulator({ gateway: { shards: 4, maxConcurrency: 2 } });
    try {
      const startAt = String(Date.now() + 2500);
      const env = (proc: string, shards: string) => ({
        PROC: proc,
        SHARDS: shards,
        THROTTLE: 'memory',
        REDIS_URL: redis.url,
        PREFIX: `memory-${startAt}:`,
        BASE_URL: own.url,
        BOT_TOKEN: own.seed.botToken,
        START_AT: startAt,
      });
      const both = await Promise.all([startScript(BOT, { env: env('A', '0,1') }), startScript(BOT, { env: env('B', '2,3') })]);
      scripts.push(...both);
      await Promise.all(both.map((script) => script.waitForOutput(/^ready /m, 60_000)));
      const invalid = both.flatMap((script) => facts(script, 'invalid'));
      console.log(
        `[cross-process sharding, in-memory throttles] ${own.gatewayStats.counts.identifies} Identify, ${own.gatewayStats.counts.tooEarlyIdentifies} too early; Invalid Session seen by the bots: ${invalid.length}`,
      );
      expect(own.gatewayStats.counts.tooEarlyIdentifies).toBeGreaterThanOrEqual(1);
      expect(invalid.length).toBe(own.gatewayStats.counts.tooEarlyIdentifies);
      for (const script of both) script.kill('SIGKILL');
    } finally {
      await own.close();
    }
  }, 90_000);

  it('communities on every shard 0-3: each interaction handled exactly once, by the process running the shard that owns it', async () => {
    // The emulator seeds one community and has no API to add another, so each
    // shard gets its own emulator whose seeded community it owns, served by its
    // own pair of processes (A: shards 0,1; B: shards 2,3) through one Redis.
    const shards = [0, 1, 2, 3];
    const owned = await Promise.all(shards.map((shard) => startShardedEmulator({ gateway: { shards: 4, maxConcurrency: 2 }, guildOnShard: shard })));
    const owner = (shard: number) => (shard < 2 ? 'A' : 'B');
    const local: RunningScript[] = [];
    try {
      const startAt = String(Date.now() + 3000);
      const pairs = await Promise.all(
        owned.map((own, i) => {
          const env = (proc: string, list: string) => ({
            PROC: proc,
            SHARDS: list,
            REDIS_URL: redis.url,
            PREFIX: `every-${startAt}-${i}:`,
            BASE_URL: own.url,
            BOT_TOKEN: own.seed.botToken,
            START_AT: startAt,
          });
          return Promise.all([startScript(BOT, { env: env('A', '0,1') }), startScript(BOT, { env: env('B', '2,3') })]);
        }),
      );
      local.push(...pairs.flat());
      scripts.push(...local);
      await Promise.all(local.map((script) => script.waitForOutput(/^ready /m, 90_000)));

      const covered: number[] = [];
      let total = 0;
      for (const [i, own] of owned.entries()) {
        const shard = shardOfGuild(own.seed.guildId, 4);
        expect(shard).toBe(shards[i]);
        covered.push(shard);
        // Three in the community, one in DMs (shard 0).
        const invoked = [
          own.invokeCommand({ name: 'ping' }),
          own.invokeCommand({ name: 'ping' }),
          own.invokeCommand({ name: 'ping', guildId: null }),
          own.invokeCommand({ name: 'ping' }),
        ];
        const expectedShard = (k: number) => (k === 2 ? 0 : shard);
        const answers = await Promise.all(invoked.map((interaction) => interaction.response));
        for (const [k, answer] of answers.entries()) expect(answer.data['content']).toBe(`pong from ${owner(expectedShard(k))} shard ${expectedShard(k)}`);
        expect(invoked.map((interaction) => interaction.delivered)).toEqual(invoked.map(() => 1));
        const pair = pairs[i] as RunningScript[];
        await Promise.all(invoked.map((interaction, k) => handledBy(pair[expectedShard(k) < 2 ? 0 : 1] as RunningScript, interaction.id)));
        expect(
          pair.flatMap((script) => facts(script, 'resumed')),
          'resumes (a replay could deliver again)',
        ).toEqual([]);
        const handled = pair.flatMap((script) => facts<{ proc: string; id: string; shardId: number }>(script, 'interaction'));
        expect(handled).toHaveLength(invoked.length);
        expect(new Map(handled.map((fact) => [fact.id, `${fact.proc}/${fact.shardId}`]))).toEqual(
          new Map(invoked.map((interaction, k) => [interaction.id, `${owner(expectedShard(k))}/${expectedShard(k)}`])),
        );
        expect(own.gatewayStats.counts.tooEarlyIdentifies).toBe(0);
        total += handled.length;
      }
      console.log(
        `[cross-process sharding] communities on shards ${JSON.stringify(covered)} (one emulator each, 2 processes each): ${total} interactions, each handled once by its shard's process`,
      );
      expect(covered).toEqual([0, 1, 2, 3]);
    } finally {
      for (const script of local) script.kill('SIGKILL');
      await Promise.all(local.map((script) => script.exited));
      await Promise.all(owned.map((own) => own.close()));
    }
  }, 180_000);

  it('4 shards in 2 processes: each interaction handled exactly once on its shard; Identify paced (no Invalid Session); a restarted process resumes', async () => {
    const prefix = `shards-${Date.now()}:`;
    const env = (proc: string, shards: string) => ({
      PROC: proc,
      SHARDS: shards,
      REDIS_URL: redis.url,
      PREFIX: prefix,
      BASE_URL: emulator.url,
      BOT_TOKEN: emulator.seed.botToken,
    });
    const startAt = String(Date.now() + 2500);
    const [a, b] = await Promise.all([
      startScript(BOT, { env: { ...env('A', '0,1'), START_AT: startAt } }),
      startScript(BOT, { env: { ...env('B', '2,3'), START_AT: startAt } }),
    ]);
    scripts.push(a as RunningScript, b as RunningScript);
    await Promise.all([a, b].map((script) => script?.waitForOutput(/^ready /m, 45_000)));
    const owner = (shard: number) => (shard < 2 ? 'A' : 'B');

    const identifies = emulator.gatewayStats.identifies;
    const guildShard = shardOfGuild(emulator.seed.guildId, 4);
    const invoked = Array.from({ length: 12 }, (_, i) =>
      i % 2 === 0 ? emulator.invokeCommand({ name: 'ping' }) : emulator.invokeCommand({ name: 'ping', guildId: null }),
    );
    const expectedShard = (i: number) => (i % 2 === 0 ? guildShard : 0);
    const answers = await Promise.all(invoked.map((interaction) => interaction.response));
    for (const [i, answer] of answers.entries()) expect(answer.data['content']).toBe(`pong from ${owner(expectedShard(i))} shard ${expectedShard(i)}`);
    await Promise.all(invoked.map((interaction, i) => handledBy((expectedShard(i) < 2 ? a : b) as RunningScript, interaction.id)));
    expect(
      [a, b].flatMap((script) => facts(script as RunningScript, 'resumed')),
      'resumes (a replay could deliver again)',
    ).toEqual([]);
    const handled = [a, b].flatMap((script) => facts<{ proc: string; id: string; shardId: number }>(script as RunningScript, 'interaction'));
    expect(handled).toHaveLength(invoked.length);
    expect(new Map(handled.map((fact) => [fact.id, `${fact.proc}/${fact.shardId}`]))).toEqual(
      new Map(invoked.map((interaction, i) => [interaction.id, `${owner(expectedShard(i))}/${expectedShard(i)}`])),
    );
    expect(invoked.map((interaction) => interaction.delivered)).toEqual(invoked.map(() => 1));

    // Identify: 4 accepted, none too early, at most one per bucket per 5 s on the emulator clock.
    const accepted = identifies.filter((record) => record.accepted);
    const tooEarly = emulator.gatewayStats.counts.tooEarlyIdentifies;
    const invalid = [a, b].flatMap((script) => facts(script as RunningScript, 'invalid'));
    const gaps = [0, 1].map((bucket) => {
      const times = accepted.filter((record) => (record.shard?.[0] ?? 0) % 2 === bucket).map((record) => record.at);
      return times.slice(1).map((at, i) => at - (times[i] as number));
    });
    console.log(
      `[cross-process sharding] 4 shards in 2 processes, max_concurrency 2: ${identifies.length} Identify (${accepted.length} accepted, ${tooEarly} too early), ` +
        `Invalid Session seen by the bots: ${invalid.length}; gaps within buckets (emulator clock, ms): ${JSON.stringify(gaps)}; ` +
        `${invoked.length} interactions (${invoked.length / 2} in community ${emulator.seed.guildId} on shard ${guildShard}, ${invoked.length / 2} in DMs on shard 0), handled ${handled.length} times`,
    );
    expect(accepted.map((record) => record.shard?.join('/')).sort()).toEqual(['0/4', '1/4', '2/4', '3/4']);
    expect(tooEarly).toBe(0);
    expect(invalid).toEqual([]);
    for (const bucketGaps of gaps) for (const gap of bucketGaps) expect(gap).toBeGreaterThanOrEqual(5000);

    // Process B dies without closing; a new process B' runs shards 2 and 3 and resumes their sessions from Redis.
    const beforeRestart = { identifies: emulator.gatewayStats.counts.identifies, resumes: emulator.gatewayStats.counts.resumes };
    b?.kill('SIGKILL');
    await b?.exited;
    const missed = emulator.invokeCommand({ name: 'ping', guildId: guildShard >= 2 ? emulator.seed.guildId : null });
    const restarted = await startScript(BOT, { env: env('B2', '2,3') });
    scripts.push(restarted);
    await restarted.waitForOutput(/^ready /m, 45_000);
    const resumed = facts<{ shardId: number }>(restarted, 'resumed').map((fact) => fact.shardId);
    console.log(
      `[cross-process sharding] restarted process: resumed shards ${JSON.stringify(resumed.sort())}, new Identify ${emulator.gatewayStats.counts.identifies - beforeRestart.identifies}`,
    );
    expect(resumed.sort()).toEqual([2, 3]);
    expect(facts(restarted, 'identified')).toEqual([]);
    expect(emulator.gatewayStats.counts.identifies).toBe(beforeRestart.identifies);
    expect(emulator.gatewayStats.counts.resumes).toBe(beforeRestart.resumes + 2);
    // What shard 2 or 3 missed while down is replayed to the new process (shard 0's DMs stay with A).
    const missedAnswer = await missed.response;
    const missedShard = guildShard >= 2 ? guildShard : 0;
    expect(missedAnswer.data['content']).toBe(`pong from ${missedShard >= 2 ? 'B2' : 'A'} shard ${missedShard}`);

    // A deploy: B2 is stopped with SIGTERM (it hands its sessions off: saved, closed with 4000) and B3 takes shards 2 and 3.
    const beforeDeploy = { identifies: emulator.gatewayStats.counts.identifies, resumes: emulator.gatewayStats.counts.resumes };
    restarted.kill('SIGTERM');
    await restarted.exited;
    const duringDeploy = emulator.invokeCommand({ name: 'ping', guildId: guildShard >= 2 ? emulator.seed.guildId : null });
    const successor = await startScript(BOT, { env: env('B3', '2,3') });
    scripts.push(successor);
    await successor.waitForOutput(/^ready /m, 45_000);
    const handedOver = facts<{ shardId: number }>(successor, 'resumed').map((fact) => fact.shardId);
    console.log(
      `[cross-process sharding] deploy (SIGTERM, hand-off): resumed shards ${JSON.stringify(handedOver.sort())}, new Identify ${emulator.gatewayStats.counts.identifies - beforeDeploy.identifies}`,
    );
    expect(handedOver.sort()).toEqual([2, 3]);
    expect(facts(successor, 'identified')).toEqual([]);
    expect(emulator.gatewayStats.counts.identifies).toBe(beforeDeploy.identifies);
    expect(emulator.gatewayStats.counts.resumes).toBe(beforeDeploy.resumes + 2);
    // The interaction sent while no process held the shards is replayed to the successor and answered once.
    const deployAnswer = await duringDeploy.response;
    expect(deployAnswer.data['content']).toBe(`pong from ${missedShard >= 2 ? 'B3' : 'A'} shard ${missedShard}`);
  }, 150_000);
});
