/**
 * The one interaction claim: its script on a real Redis (acquire, renew, release, answered, the fence, a fleet's members
 * key), the monotonic validity of a held claim on a clock the test moves, and the answered mark tried until Redis takes it.
 */
import { describe, expect, it } from 'vitest';
import { wait } from '../../src/core/wait.js';
import { sendCommand } from '../../src/redis/connection.js';
import {
  acquireClaim,
  CLAIM_TTL_MS,
  type ClaimScriptRunner,
  HeldClaim,
  markAnswered,
  markAnsweredUntilTaken,
  releaseClaim,
  renewClaim,
} from '../../src/redis/interaction-claim.js';
import { describeWithRedis, useRedis } from '../helpers/redis-server.js';
import { until } from '../helpers/until.js';

describeWithRedis('the interaction claim script', () => {
  const redis = useRedis();
  const run: ClaimScriptRunner = (script, keys, args) => script.run(redis.connection, keys, args);
  let n = 0;
  const fresh = () => ({ claim: `{claims-${++n}}:i:1` });

  it('a claim is taken once: another holder is told who holds it while the lease lives; the same holder takes it again with a higher fence', async () => {
    const keys = fresh();
    const first = await acquireClaim(run, keys, 'a', 10_000);
    expect(first).toEqual({ status: 'taken', fence: 1, lapsed: false });
    expect(await acquireClaim(run, keys, 'b', 10_000)).toEqual({ status: 'held', holder: 'a' });
    expect(await acquireClaim(run, keys, 'a', 10_000)).toEqual({ status: 'taken', fence: 2, lapsed: false });
    const ttl = Number(await sendCommand(redis.connection, keys.claim, ['PTTL', keys.claim]));
    expect(ttl).toBeGreaterThan(CLAIM_TTL_MS - 5000);
  });

  it('without retake (a worker), the same holder cannot take its own live claim again: it keeps it only by renewing with its fence', async () => {
    const keys = fresh();
    expect(await acquireClaim(run, keys, 'w', 10_000, { retake: false })).toEqual({ status: 'taken', fence: 1, lapsed: false });
    expect(await acquireClaim(run, keys, 'w', 10_000, { retake: false })).toEqual({ status: 'held', holder: 'w' });
    expect(await renewClaim(run, keys, 'w', 1, 10_000)).toBe(true);
  });

  it('a lapsed lease passes to the next holder with a higher fence, saying it lapsed from another; the old holder can no longer renew it', async () => {
    const keys = fresh();
    expect(await acquireClaim(run, keys, 'a', 60)).toEqual({ status: 'taken', fence: 1, lapsed: false });
    expect(await renewClaim(run, keys, 'a', 1, 60)).toBe(true);
    // Redis's clock decides: poll until the lease lapsed there.
    const taken = await until(
      async () => {
        const answer = await acquireClaim(run, keys, 'b', 10_000);
        return answer.status === 'taken' ? answer : undefined;
      },
      { what: 'the lapsed claim taken by b' },
    );
    expect(taken).toEqual({ status: 'taken', fence: 2, lapsed: true });
    expect(await renewClaim(run, keys, 'a', 1, 10_000)).toBe(false);
    expect(await renewClaim(run, keys, 'b', 1, 10_000)).toBe(false); // the wrong fence
    expect(await renewClaim(run, keys, 'b', 2, 10_000)).toBe(true);
  });

  it('a renewal keeps the claim from lapsing, across three times its lease', async () => {
    const keys = fresh();
    const started = performance.now();
    await acquireClaim(run, keys, 'a', 300);
    for (let i = 0; performance.now() - started < 900; i++) {
      // Real time runs on (a third of the lease between renewals): without the renewal's SET the lease lapses after 300 ms.
      await wait(100);
      expect(await renewClaim(run, keys, 'a', 1, 300), `renewal ${i}`).toBe(true);
      expect(await acquireClaim(run, keys, 'b', 300), `b's acquire after renewal ${i}`).toEqual({ status: 'held', holder: 'a' });
    }
  });

  it('a release frees it only for its holder and fence, and keeps the fence growing', async () => {
    const keys = fresh();
    await acquireClaim(run, keys, 'a', 10_000);
    await releaseClaim(run, keys, 'a', 7);
    expect(await acquireClaim(run, keys, 'b', 10_000)).toEqual({ status: 'held', holder: 'a' });
    await releaseClaim(run, keys, 'a', 1);
    expect(await acquireClaim(run, keys, 'b', 10_000)).toEqual({ status: 'taken', fence: 2, lapsed: false });
  });

  it('answered: whoever comes next, even the holder, is told so; renewals fail', async () => {
    const keys = fresh();
    await acquireClaim(run, keys, 'a', 10_000);
    await markAnswered(run, keys);
    expect(await acquireClaim(run, keys, 'a', 10_000)).toEqual({ status: 'answered' });
    expect(await acquireClaim(run, keys, 'b', 10_000)).toEqual({ status: 'answered' });
    expect(await renewClaim(run, keys, 'a', 1, 10_000)).toBe(false);
  });

  it('with a members key (a fleet), a holder that is no longer a live member gives its claim up at once', async () => {
    const members = `{claims-${++n}}:members`;
    const keys = { claim: `{claims-${n}}:i:9`, members };
    const time = (await sendCommand(redis.connection, members, ['TIME'])) as [string, string];
    const now = Number(time[0]) * 1000;
    await sendCommand(redis.connection, members, ['ZADD', members, String(now + 60_000), 'm1', String(now + 60_000), 'm2']);
    expect(await acquireClaim(run, keys, 'm1', CLAIM_TTL_MS)).toEqual({ status: 'taken', fence: 1, lapsed: false });
    expect(await acquireClaim(run, keys, 'm2', CLAIM_TTL_MS)).toEqual({ status: 'held', holder: 'm1' });
    await sendCommand(redis.connection, members, ['ZREM', members, 'm1']);
    expect(await renewClaim(run, keys, 'm1', 1, CLAIM_TTL_MS)).toBe(false);
    expect(await acquireClaim(run, keys, 'm2', CLAIM_TTL_MS)).toEqual({ status: 'taken', fence: 2, lapsed: true });
  });
});

describe('a held claim on the monotonic clock', () => {
  it('is valid for 80% of the lease from when its acquire was sent, not from the reply', () => {
    let now = 1000;
    const held = new HeldClaim(3, 1000, 500, () => now);
    expect(held.fence).toBe(3);
    expect(held.valid).toBe(true);
    now = 1299;
    expect(held.valid).toBe(true);
    now = 1300;
    expect(held.valid).toBe(false);
  });

  it('a renewal counts from its send: one answered late (a pause) does not make it valid again', async () => {
    let now = 0;
    const held = new HeldClaim(1, 1000, 0, () => now);
    // Sent at 100, answered at 1500 (the process slept meanwhile): valid until 900 only.
    now = 100;
    expect(
      await held.renew(async () => {
        now = 1500;
        return true;
      }),
    ).toBe(false);
    now = 850;
    expect(held.valid).toBe(true);
    now = 1000;
    const renewed = held.renew(async () => true);
    expect(await renewed).toBe(true);
    now = 1799;
    expect(held.valid).toBe(true);
  });

  it('a renewal Redis refuses loses it for good; one that fails leaves it to run out', async () => {
    let now = 0;
    const failing = new HeldClaim(1, 1000, 0, () => now);
    await expect(failing.renew(() => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(failing.valid).toBe(true);
    now = 800;
    expect(failing.valid).toBe(false);

    now = 0;
    const refused = new HeldClaim(1, 1000, 0, () => now);
    expect(await refused.renew(async () => false)).toBe(false);
    expect(refused.lost).toBe(true);
    refused.confirm(0);
    expect(refused.valid).toBe(false);
  });
});

describe('the answered mark', () => {
  it('is tried again until Redis takes it, each failure reported', async () => {
    const failures: unknown[] = [];
    let attempts = 0;
    const run: ClaimScriptRunner = async (_script, _keys, args) => {
      attempts++;
      if (attempts <= 2) throw new Error(`Redis down (attempt ${attempts})`);
      expect(args[0]).toBe('answered');
      return [1];
    };
    const stored = await markAnsweredUntilTaken(
      run,
      { claim: '{s}:claimed:1' },
      { until: performance.now() + 10_000, failed: (e) => failures.push(e), firstPauseMs: 1 },
    );
    expect(stored).toBe(true);
    expect(attempts).toBe(3);
    expect(failures.map(String)).toEqual(['Error: Redis down (attempt 1)', 'Error: Redis down (attempt 2)']);
  });

  it('is tried again as soon as the client is connected again, not only when its pause ran out', async () => {
    let ready = false;
    let attempts = 0;
    const run: ClaimScriptRunner = async () => {
      attempts++;
      if (!ready) throw new Error('Redis down');
      return [1];
    };
    const marking = markAnsweredUntilTaken(
      run,
      { claim: '{s}:claimed:1' },
      { until: performance.now() + 60_000, failed: () => undefined, firstPauseMs: 30_000, ready: () => ready },
    );
    await until(() => attempts === 1, { what: 'the first attempt' });
    const back = performance.now();
    ready = true;
    expect(await marking).toBe(true);
    // Its pause was 30 s: the second attempt went once the client was back.
    expect(performance.now() - back, 'ms from reconnect to the stored mark').toBeLessThan(5000);
    expect(attempts).toBe(2);
  });

  it('stops after the attempt under way once its signal aborts, saying it was not stored', async () => {
    const stop = new AbortController();
    let attempts = 0;
    const run: ClaimScriptRunner = async () => {
      attempts++;
      throw new Error('Redis down');
    };
    const marking = markAnsweredUntilTaken(
      run,
      { claim: '{s}:claimed:1' },
      { until: performance.now() + 60_000, failed: () => undefined, firstPauseMs: 30_000, signal: stop.signal },
    );
    await until(() => attempts === 1, { what: 'the first attempt' });
    stop.abort();
    expect(await marking).toBe(false);
    expect(attempts).toBe(1);
  });

  it('gives up once no one could answer the interaction anyway, saying it was not stored', async () => {
    let now = 0;
    let attempts = 0;
    const run: ClaimScriptRunner = async () => {
      attempts++;
      now += 400;
      throw new Error('Redis down');
    };
    const stored = await markAnsweredUntilTaken(run, { claim: '{s}:claimed:1' }, { until: 1000, now: () => now, failed: () => undefined, firstPauseMs: 1 });
    expect(stored).toBe(false);
    expect(attempts).toBe(3);
  });
});
