/**
 * A fleet an operator can see, with real processes, a real redis-server and the emulator: three named members and this
 * test as the tool process. The status (and the CLI) shows the three names and every shard's holder; `serving` tells when
 * the fleet is balanced; after a SIGKILL the survivors emit `shardTakenOver` naming the dead member and the status shows
 * the new holders within leaseMs + 5 s; each member's OpenTelemetry metrics appear; a throwing dispatch handler of a
 * worker on the fleet's stream is reported on its first failure.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { Client } from '../../src/index.js';
import { createEventWorker, createRedisEventStream, type EventWorkerEvents, readFleetStatus } from '../../src/redis/index.js';
import { useEmulatorWithAdmin } from '../helpers/emulators.js';
import { startScript, type RunningScript } from '../helpers/index.js';
import { describeWithRedis, useRedis } from '../helpers/redis-server.js';
import { until } from '../helpers/until.js';

const start = useEmulatorWithAdmin();
const LEASE_MS = 3000;
const SHARDS = 4;
const NAMES = ['alpha', 'beta', 'gamma'] as const;

/** The JSON facts a member printed under `kind` (`event`, `metrics`, `ready`). */
function facts<T = Record<string, unknown>>(script: RunningScript, kind: string): T[] {
  return [...script.stdout().matchAll(new RegExp(`^${kind} (\\{.*\\})$`, 'gm'))].map((match) => JSON.parse(match[1] as string) as T);
}

/** What each member serves by its last `serving` event (none yet: undefined). */
function serving(members: Map<string, RunningScript>): Map<string, number[] | undefined> {
  const held = new Map<string, number[] | undefined>();
  for (const [name, script] of members) {
    const last = facts<{ type: string; shardIds: number[] }>(script, 'event')
      .filter((event) => event.type === 'serving')
      .at(-1);
    held.set(name, last?.shardIds);
  }
  return held;
}

/** Whether the members' last `serving` events cover every shard once, each within the fair share. */
function balanced(members: Map<string, RunningScript>): boolean {
  const held = [...serving(members).values()];
  if (held.some((ids) => ids === undefined)) return false;
  const all = held.flatMap((ids) => ids ?? []).sort();
  const fair = Math.ceil(SHARDS / members.size);
  return all.join() === [...Array(SHARDS).keys()].join() && held.every((ids) => (ids?.length ?? 0) <= fair);
}

describeWithRedis('a fleet an operator can see', () => {
  const redis = useRedis();

  it('status, CLI, serving, takeover by name, metrics and a failing handler reported at once', async () => {
    const { emulator, admin } = await start({ gateway: { shards: SHARDS, maxConcurrency: SHARDS } });
    await admin.commands.sync(emulator.seed.applicationId, [{ name: 'ping', description: 'Ping' }]);
    const key = `operator-${Date.now()}`;
    const streamName = `${key}-events`;
    const members = new Map<string, RunningScript>();
    const report = () => [...members].map(([name, script]) => `${name}:\n${script.stdout().slice(-1500)}\n${script.stderr().slice(-500)}`).join('\n');
    try {
      for (const name of NAMES) {
        const env = {
          ...{ NAME: name, FLEET_KEY: key, LEASE_MS: String(LEASE_MS), STREAM: streamName },
          ...{ REDIS_URL: redis.server.url, BASE_URL: emulator.url, BOT_TOKEN: emulator.seed.botToken },
        };
        members.set(name, await startScript('test/helpers/named-member-process.ts', { env }));
      }
      // A deploy script's wait: each member's serving event, until they cover every shard within the fair share.
      await until(() => balanced(members), { what: `the fleet balanced by its serving events\n${report()}`, timeoutMs: 30_000 });

      // The tool process: the status lists the three names, and every shard's holder is one of them.
      const status = await until(
        async () => {
          const read = await readFleetStatus({ client: redis.connection, key, sessionPrefix: `${key}:session:` });
          return read.members.length === 3 && read.shards.every((shard) => shard.holderName !== undefined) ? read : undefined;
        },
        { what: 'the status showing three members holding every shard' },
      );
      expect(status.members.map((member) => member.name)).toEqual([...NAMES]);
      expect(status.shardCount).toBe(SHARDS);
      for (const [name, ids] of serving(members)) expect(status.members.find((m) => m.name === name)?.shardIds, `${name}'s shards in the status`).toEqual(ids);

      // The CLI prints the same fleet.
      const { stdout } = await promisify(execFile)(
        'npx',
        ['tsx', 'src/redis/cli.ts', 'status', '--redis', redis.server.url, '--key', key, '--stream', streamName],
        {
          timeout: 30_000,
        },
      );
      expect(stdout).toContain(`fleet {${key}}: ${SHARDS} shards, 3 members`);
      for (const name of NAMES) expect(stdout).toMatch(new RegExp(`^  ${name} on .* pid \\d+ \\[`, 'm'));
      for (let shardId = 0; shardId < SHARDS; shardId++) expect(stdout).toMatch(new RegExp(`^  ${shardId}: (alpha|beta|gamma) \\(fence \\d+\\)`, 'm'));
      expect(stdout).toContain(`stream {${streamName}}:`);

      // Metrics: each member's in-memory meter has lease renewals and the shards it holds.
      for (const [name, script] of members) {
        const last = await until(() => facts<{ renewals: number; shardsHeld: number }>(script, 'metrics').at(-1), { what: `${name}'s metrics line` });
        expect(last.renewals, `${name}'s lease renewals measured`).toBeGreaterThan(0);
        expect(last.shardsHeld, `${name}'s shards_held gauge`).toBe(serving(members).get(name)?.length);
      }

      // SIGKILL the member holding shard 0: the survivors take its shards over, naming it.
      const victim = status.shards[0]?.holderName as string;
      const lost = status.members.find((member) => member.name === victim)?.shardIds ?? [];
      const killedAt = Date.now();
      members.get(victim)?.kill('SIGKILL');
      const survivors = [...members].filter(([name]) => name !== victim);
      const takenOver = () =>
        survivors
          .flatMap(([, script]) => facts<{ type: string; shardId: number; fromName?: string }>(script, 'event'))
          .filter((e) => e.type === 'shardTakenOver');
      await until(() => takenOver().length >= lost.length, { what: `shardTakenOver for ${victim}'s shards ${lost}\n${report()}`, timeoutMs: LEASE_MS + 5000 });
      // Not before its lease could have lapsed: it was renewed at most a third of a lease before the kill.
      const takeoverMs = Date.now() - killedAt;
      expect(takeoverMs, `taken over ${takeoverMs} ms after the kill, with leases of ${LEASE_MS} ms`).toBeGreaterThanOrEqual(LEASE_MS / 2);
      expect(takenOver().map((event) => event.fromName)).toEqual(lost.map(() => victim));
      expect(
        takenOver()
          .map((event) => event.shardId)
          .sort(),
      ).toEqual([...lost].sort());
      const after = await until(
        async () => {
          const read = await readFleetStatus({ client: redis.connection, key, sessionPrefix: `${key}:session:` });
          return read.members.length === 2 && read.shards.every((shard) => shard.holderName !== undefined && shard.holderName !== victim) ? read : undefined;
        },
        { what: 'the status showing the survivors holding every shard', timeoutMs: Math.max(1, killedAt + LEASE_MS + 5000 - Date.now()) },
      );
      expect(after.members.map((member) => member.name)).toEqual(NAMES.filter((name) => name !== victim));
      // The survivors' takeover time, from the victim's last renewal to each shard's session up: at least its lease.
      const takeovers = () => survivors.flatMap(([, script]) => facts<{ takeovers: number[] }>(script, 'metrics').at(-1)?.takeovers ?? []);
      await until(() => takeovers().length >= lost.length, { what: `community_chat.fleet.takeover.duration for ${lost}\n${report()}` });
      for (const seconds of takeovers()) expect(seconds, 'a takeover measured from the last renewal, in seconds').toBeGreaterThanOrEqual(LEASE_MS / 1000);

      // A worker on the fleet's stream whose dispatch handler throws: reported on its first failure. The service sends a
      // message; a surviving member publishes it.
      const stream = createRedisEventStream({ client: redis.connection, stream: streamName });
      const type = 'MESSAGE_CREATE';
      // Its shard may still be resuming on its new holder: the emulator delivers it on the resume.
      emulator.dispatchEvent(type, { id: '1', guild_id: emulator.seed.guildId, content: 'hello' });
      const bot = new Client({ baseUrl: emulator.url, auth: { botToken: emulator.seed.botToken } });
      const worker = createEventWorker({ stream, group: 'g', consumer: 'w', client: bot, claimIdleMs: 60_000 });
      const failures: EventWorkerEvents['handlerFailed'][0][] = [];
      worker.on('handlerFailed', (event) => failures.push(event));
      worker.onDispatch(type, () => {
        throw new Error('the handler is broken');
      });
      try {
        await worker.start();
        await until(() => failures.length > 0, { what: `the first failed attempt reported\n${report()}`, timeoutMs: 10_000 });
        expect(failures[0]).toMatchObject({ type, deliveries: 1, retried: true });
      } finally {
        await worker.close();
        await bot.close();
      }
    } finally {
      for (const script of members.values()) script.kill('SIGTERM');
      await Promise.all([...members.values()].map((script) => script.exited));
    }
  }, 120_000);
});
