/**
 * A fleet's status read by a process that is not a member (`readFleetStatus`), the member records behind it (the
 * coordinator's `name` option), where a newly acquired shard came from (a step's `previous`), and the CLI printing it.
 */
import { execFile } from 'node:child_process';
import { hostname } from 'node:os';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { createRedisGatewaySessionStore, createRedisShardCoordinator, fleetStatusText, readFleetStatus } from '../../src/redis/index.js';
import { describeWithRedis, useRedis } from '../helpers/redis-server.js';
import { validationRefusal } from '../helpers/refusal.js';
import { until } from '../helpers/until.js';

describeWithRedis('the fleet status', () => {
  const redis = useRedis();
  let n = 0;

  it('lists each member by name, host and pid with its shards, and each shard with its holder, fence and stored session', async () => {
    const key = `status-${++n}`;
    const alpha = createRedisShardCoordinator({ client: redis.connection, key, leaseMs: 5000, name: 'alpha' });
    const beta = createRedisShardCoordinator({ client: redis.connection, key, leaseMs: 5000, name: 'beta' });
    await alpha.shardCount(4);
    await alpha.tick('a-1', 4, false);
    await beta.tick('b-1', 4, false);
    const a = await alpha.tick('a-1', 4, true, true);
    const b = await beta.tick('b-1', 4, true, true);
    const sessions = createRedisGatewaySessionStore({ client: redis.connection, prefix: `${key}:s:` });
    await sessions.save(1, 4, { sessionId: 'secret-session', sequence: 42 });
    const status = await readFleetStatus({ client: redis.connection, key, sessionPrefix: `${key}:s:` });
    expect(status.shardCount).toBe(4);
    expect(status.leaseMs).toBe(5000);
    expect(status.members.map((m) => [m.name, m.id, m.host, m.pid])).toEqual([
      ['alpha', 'a-1', hostname(), process.pid],
      ['beta', 'b-1', hostname(), process.pid],
    ]);
    expect(status.members[0]?.shardIds).toEqual(a.leases.map((lease) => lease.shardId));
    expect(status.members[1]?.shardIds).toEqual(b.leases.map((lease) => lease.shardId));
    for (const member of status.members) expect(member.expiresAt - member.renewedAt).toBe(5000);
    const held = [...a.leases.map((l) => ({ ...l, name: 'alpha' })), ...b.leases.map((l) => ({ ...l, name: 'beta' }))].sort((x, y) => x.shardId - y.shardId);
    expect(status.shards.map((s) => [s.shardId, s.holderName, s.fence])).toEqual(held.map((l) => [l.shardId, l.name, l.fence]));
    expect(status.shards[1]?.session).toEqual({ resumable: true, sequence: 42 });
    expect(status.shards[0]?.session).toEqual({ resumable: false, sequence: null });
    expect(JSON.stringify(status)).not.toContain('secret-session');
    expect(status.reshard).toBeUndefined();
    const text = fleetStatusText(status);
    expect(text).toContain('alpha on');
    expect(text).toMatch(/1: (alpha|beta) \(fence \d+\); session resumable at sequence 42/);
    // The same from the coordinator (its client, key and maxShards), e.g. one a tool builds to read it: building one joins nothing.
    const tool = createRedisShardCoordinator({ client: redis.connection, key, name: 'tool' });
    const viaCoordinator = await tool.status({ sessionPrefix: `${key}:s:` });
    expect(viaCoordinator.shards).toEqual(status.shards);
    expect(
      viaCoordinator.members.map((m) => m.name),
      'the tool is not a member',
    ).toEqual(['alpha', 'beta']);
  });

  it('lists a reshard under way, and no shard of a member that died (its lease is free)', async () => {
    const key = `status-${++n}`;
    const c = createRedisShardCoordinator({ client: redis.connection, key, leaseMs: 400, name: 'solo' });
    await c.shardCount(2);
    await c.tick('dead', 2, false);
    expect((await c.tick('dead', 2, true, true)).leases).toHaveLength(2);
    await c.requestReshard(3);
    const during = await readFleetStatus({ client: redis.connection, key, sessionPrefix: false });
    expect(during.reshard).toEqual({ target: 3, ready: 0, switching: false });
    expect(during.shards.map((s) => s.holder)).toEqual(['dead', 'dead']);
    expect(during.shards[0]?.session).toBeUndefined();
    await until(async () => (await readFleetStatus({ client: redis.connection, key })).members.length === 0, { what: "the dead member's membership expiring" });
    const after = await readFleetStatus({ client: redis.connection, key });
    expect(after.shards.map((s) => s.holder)).toEqual([undefined, undefined]);
  });

  it('tells a step where each newly acquired shard came from: a dead member by name, a member that left, none the first time', async () => {
    const key = `status-${++n}`;
    const gone = createRedisShardCoordinator({ client: redis.connection, key, leaseMs: 400, name: 'gone' });
    const next = createRedisShardCoordinator({ client: redis.connection, key, leaseMs: 400, name: 'next' });
    await gone.tick('g', 1, false);
    const first = await gone.tick('g', 1, true, true);
    expect(first.leases).toHaveLength(1);
    expect(first.previous).toBeUndefined(); // newly acquired, never held before: no previous holder, so no map (as the memory one)
    expect((await gone.tick('g', 1, true, true)).previous).toBeUndefined(); // renewed, not newly acquired
    await next.tick('x', 1, false);
    const taken = await until(
      async () => {
        const tick = await next.tick('x', 1, true, true);
        return tick.leases.length === 1 ? tick : undefined;
      },
      { what: "the dead member's shard taken" },
    );
    expect(taken.previous?.get(0)).toEqual({ member: 'g', name: 'gone', live: false, left: false, sinceRenewalMs: expect.any(Number) });
    // x leaves; a third member takes the shard from a member that left, not one that died.
    await next.leave('x', 1);
    const third = createRedisShardCoordinator({ client: redis.connection, key, leaseMs: 400, name: 'third' });
    await third.tick('y', 1, false);
    const after = await until(
      async () => {
        const tick = await third.tick('y', 1, true, true);
        return tick.leases.length === 1 ? tick : undefined;
      },
      { what: 'the shard given back taken' },
    );
    expect(after.previous?.get(0)).toEqual({ member: 'x', name: 'next', live: false, left: true });
  });

  it('keeps the records of members no longer live (a taker names them) up to 64, pruning the surplus when a member joins', async () => {
    const key = `status-${++n}`;
    const info = `{${key}}:info`;
    const earlier = createRedisShardCoordinator({ client: redis.connection, key, name: 'earlier' });
    await earlier.tick('first', 1, false);
    for (let i = 0; i < 70; i++) await redis.connection.hSet(info, `gone-${i}`, JSON.stringify({ name: `g${i}`, host: 'h', pid: i }));
    const c = createRedisShardCoordinator({ client: redis.connection, key, name: 'joiner' });
    await c.tick('live', 1, false);
    expect(await redis.connection.hLen(info), 'two live members and 64 records of members gone').toBe(66);
    expect(JSON.parse((await redis.connection.hGet(info, 'live')) ?? '{}')).toMatchObject({ name: 'joiner', pid: process.pid });
    expect(JSON.parse((await redis.connection.hGet(info, 'first')) ?? '{}'), "a live member's record is never pruned").toMatchObject({ name: 'earlier' });
    await redis.connection.hSet(info, 'live', 'written-by-the-test');
    await c.tick('live', 1, true, true);
    expect(await redis.connection.hGet(info, 'live'), 'a registered step writes no record').toBe('written-by-the-test');
  });

  it('reads values the SDK did not write as missing, and prints names read from Redis with control characters escaped', async () => {
    const key = `status-${++n}`;
    const now = Date.now(); // the test's Redis runs on this machine: its TIME is this clock
    await redis.connection.zAdd(`{${key}}:members`, [
      { score: now + 60_000, value: 'm1' },
      { score: now + 60_000, value: 'm2' },
    ]);
    await redis.connection.hSet(`{${key}}:info`, {
      m1: 'not json',
      m2: JSON.stringify({ name: 'evil\u001b[2Jname\u009b2J\u202eright\u2028x\u200b', host: 'h', pid: 'x' }),
    });
    await redis.connection.set(`{${key}}:count`, '3');
    await redis.connection.set(`{${key}}:lease`, '1e9');
    await redis.connection.set(`{${key}}:target`, 'many');
    await redis.connection.hSet(`{${key}}:leases:3`, { '0': 'm1|12', '1': 'm2|not-a-fence', '7': 'm1|5', '2': 'gone|4' });
    const status = await readFleetStatus({ client: redis.connection, key, sessionPrefix: false });
    expect(status.leaseMs, 'a lease that is not a plain decimal').toBeUndefined();
    expect(status.reshard, 'a target that is not a count').toBeUndefined();
    expect(status.members.map((m) => [m.id, m.name, m.pid])).toEqual([
      ['m1', undefined, undefined],
      ['m2', 'evil\u001b[2Jname\u009b2J\u202eright\u2028x\u200b', 0],
    ]);
    // Shard 1's lease is malformed, shard 7 is past the count, shard 2's holder is no live member: all free.
    expect(status.shards.map((shard) => shard.holder)).toEqual(['m1', undefined, undefined]);
    const text = fleetStatusText(status);
    // C0, the 8-bit CSI (C1), a right-to-left override, a line separator and a zero-width space: each escaped.
    expect(text).toContain('evil\\x1b[2Jname\\x9b2J\\u202eright\\u2028x\\u200b');
    for (const char of ['\u001b', '\u009b', '\u202e', '\u2028', '\u200b']) expect(text, `U+${char.charCodeAt(0).toString(16)} printed raw`).not.toContain(char);
  });

  it("a member's steps keep the member records and last holders a week more, so a quiet fleet still names a dead member", async () => {
    const key = `status-${++n}`;
    const first = createRedisShardCoordinator({ client: redis.connection, key, leaseMs: 5000, name: 'quiet' });
    await first.tick('q', 1, false);
    expect((await first.tick('q', 1, true, true)).leases).toHaveLength(1);
    // Six days and more of quiet: no join, no acquisition, only renewals.
    for (const suffix of ['info', 'last:1']) await redis.connection.pExpire(`{${key}}:${suffix}`, 60_000);
    const later = createRedisShardCoordinator({ client: redis.connection, key, leaseMs: 5000, name: 'quiet' });
    expect((await later.tick('q', 1, true, true)).leases).toHaveLength(1); // a renewal, registered already
    for (const suffix of ['info', 'last:1']) {
      expect(await redis.connection.pTTL(`{${key}}:${suffix}`), `{${key}}:${suffix} kept a week by a step`).toBeGreaterThan(6 * 24 * 3600 * 1000);
    }
  });

  it('reads a count, target or lease past its bound as missing (not clamped), and skips members with impossible scores', async () => {
    const key = `status-${++n}`;
    const now = Date.now(); // the test's Redis runs on this machine: its TIME is this clock
    await redis.connection.zAdd(`{${key}}:members`, [
      { score: now + 60_000, value: 'real' },
      { score: Number.POSITIVE_INFINITY, value: 'forever' },
      { score: now + 10 ** 13, value: 'far' },
    ]);
    await redis.connection.set(`{${key}}:count`, '999999');
    await redis.connection.set(`{${key}}:target`, '999999');
    await redis.connection.set(`{${key}}:lease`, '99999999999');
    const status = await readFleetStatus({ client: redis.connection, key, sessionPrefix: false });
    expect(status.shardCount, 'a count past 65536').toBeUndefined();
    expect(status.reshard, 'a target past 65536').toBeUndefined();
    expect(status.leaseMs, 'a lease past 2^31 - 1').toBeUndefined();
    expect(status.members.map((member) => member.id)).toEqual(['real']);
    expect(fleetStatusText(status), 'an impossible time printed').not.toMatch(/\d{12,} ms/);
  });

  it('shows the holder of a shard held by a member past the 1,000 listed (not listed), never the shard as free', async () => {
    const key = `status-${++n}`;
    const now = Date.now(); // the test's Redis runs on this machine: its TIME is this clock
    // 1,001 live members; the last by expiry is past the 1,000 listed, and holds shard 1.
    const planted = Array.from({ length: 1000 }, (_, i) => ({ score: now + 60_000, value: `m${i}` }));
    await redis.connection.zAdd(`{${key}}:members`, [...planted, { score: now + 90_000, value: 'late' }]);
    await redis.connection.set(`{${key}}:count`, '3');
    await redis.connection.hSet(`{${key}}:leases:3`, { '0': 'm5|7', '1': 'late|9' });
    const status = await readFleetStatus({ client: redis.connection, key, sessionPrefix: false });
    expect(status.members).toHaveLength(1000);
    expect(status.liveMembers).toBe(1001);
    expect(status.truncated).toEqual(['1001 live members: the first 1000 listed']);
    expect(status.shards.map((shard) => [shard.holder, shard.holderListed, shard.fence])).toEqual([
      ['m5', true, 7],
      ['late', false, 9],
      [undefined, undefined, undefined],
    ]);
    const text = fleetStatusText(status);
    expect(text).toContain('3 shards, 1001 members (1000 listed)');
    expect(text).toContain('  1: late (a member not listed) (fence 9)');
    expect(text).toContain('  2: free');
  });

  it("never reads a planted huge leases hash whole: only the shard count's fields, the rest said not read", async () => {
    const key = `status-${++n}`;
    const leases = `{${key}}:leases:4`;
    // 200,000 fields planted in one script; one real member holding shard 2.
    await redis.connection.eval("for i = 1, 200000 do redis.call('HSET', KEYS[1], 'x' .. i, 'm|1') end", { keys: [leases] });
    const c = createRedisShardCoordinator({ client: redis.connection, key, leaseMs: 10_000, name: 'real' });
    await c.shardCount(4);
    await c.tick('real-1', 4, false);
    const held = (await c.tick('real-1', 4, true, true)).leases;
    expect(held).toHaveLength(4);
    await redis.connection.sendCommand(['CONFIG', 'RESETSTAT']);
    const status = await readFleetStatus({ client: redis.connection, key, sessionPrefix: false });
    const stats = String(await redis.connection.sendCommand(['INFO', 'commandstats']));
    expect(stats, 'the hash read whole').not.toMatch(/cmdstat_(hgetall|hkeys|hvals|hscan):/);
    expect(status.shards.map((shard) => shard.holderName)).toEqual(['real', 'real', 'real', 'real']);
    expect(status.truncated).toEqual([`${leases} holds 200000 fields past the 4 shards: not read`]);
    expect(fleetStatusText(status)).toContain(`not read whole: ${leases} holds 200000 fields`);
    // A recorded count past maxShards is not read (a planted count never makes the status read its shards).
    const bounded = await readFleetStatus({ client: redis.connection, key, sessionPrefix: false, maxShards: 3 });
    expect(bounded.shardCount).toBeUndefined();
    expect(bounded.shards).toEqual([]);
    expect(bounded.truncated).toEqual(['the recorded shard count 4 is past maxShards 3: not read']);
  }, 30_000);

  it('refuses a name that is blank, too long or holds a control character, and unknown status options', () => {
    for (const name of ['', '  ', 'x'.repeat(101), 'a\nb', 'a\u009bb', 'a\u202eb', 'a\u2029b', 'a\u200bb']) {
      const refusal = validationRefusal(() => createRedisShardCoordinator({ client: redis.connection, name }));
      expect(
        refusal.issues.map((issue) => issue.path),
        JSON.stringify(name),
      ).toEqual(['name']);
    }
    expect(createRedisShardCoordinator({ client: redis.connection, name: 'x'.repeat(100) })).toBeDefined();
    return expect(readFleetStatus({ client: redis.connection, keys: 'x' } as never)).rejects.toThrow(/keys/);
  });

  it('community-chat-fleet status prints the members, holders and sessions of a running fleet', async () => {
    const key = `status-${++n}`;
    const c = createRedisShardCoordinator({ client: redis.connection, key, leaseMs: 10_000, name: 'printed' });
    await c.shardCount(2);
    await c.tick('p', 2, false);
    await c.tick('p', 2, true, true);
    const { stdout } = await promisify(execFile)('npx', ['tsx', 'src/redis/cli.ts', 'status', '--redis', redis.server.url, '--key', key], { timeout: 30_000 });
    expect(stdout).toContain(`fleet {${key}}: 2 shards, 1 members, leases of 10000 ms`);
    expect(stdout).toMatch(/printed on .* pid \d+ \[p\]: shards 0,1/);
    expect(stdout).toMatch(/0: printed \(fence \d+\); no session stored/);
    const failed = await promisify(execFile)('npx', ['tsx', 'src/redis/cli.ts', 'status'], { timeout: 30_000 }).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(failed).toMatchObject({ code: 2, stderr: expect.stringContaining('--redis URL') });
  });
});
