/**
 * The event worker's rules that the mutation measure (`npm run mutate`, area `worker`) found unguarded: the heartbeat of
 * `worker-leases.ts` on a clock the test moves and a stream that answers what the test says, and on a real Redis an entry
 * this worker reclaims from itself while its handler runs, and a claim taken over from a lapsed holder.
 */
import { expect, it } from 'vitest';
import { makeSnowflake } from '../../src/core/constants.js';
import type { RedisEventStream } from '../../src/redis/event-stream.js';
import { createEventWorker, createRedisEventStream } from '../../src/redis/index.js';
import { AnsweredMarks } from '../../src/redis/event-worker-marks.js';
import { type ClaimScriptRunner, HeldClaim, markAnswered } from '../../src/redis/interaction-claim.js';
import { WorkerLeases } from '../../src/redis/worker-leases.js';
import { describeWithRedis, useRedis } from '../helpers/redis-server.js';
import { until } from '../helpers/until.js';

/** Worker leases of 300 ms on a clock the test moves, over a stream whose `XCLAIM … JUSTID` gives back `touched` (and records each). */
function leasesOver(touched: (ids: string[]) => string[]) {
  const clock = { now: 0 };
  const touches: string[][] = [];
  const stream = {
    key: 's',
    command: async (args: string[]) => {
      const ids = args.slice(5, -1);
      touches.push(ids);
      return touched(ids);
    },
    script: async () => [1, 1],
  } as unknown as RedisEventStream;
  const failures: unknown[] = [];
  const leases = new WorkerLeases(
    stream,
    'g',
    'c',
    300,
    (error) => failures.push(error),
    () => clock.now,
  );
  return { leases, clock, touches, failures };
}

it('the heartbeat touches only entries whose hold is still known valid: one that lapsed may be another worker’s now', async () => {
  const { leases, clock, touches, failures } = leasesOver((ids) => ids);
  leases.hold('1-0', 0);
  clock.now = 500; // past 80% of the 300 ms lease from the read: lapsed
  leases.hold('2-0', 450);
  await leases.beat();
  expect(touches, 'the entries the heartbeat touched').toEqual([['2-0']]);
  expect(failures).toEqual([]);
});

it('a touch renews only the entries Redis gave back: one it did not give (reclaimed elsewhere) lapses on its own time', async () => {
  const { leases, clock } = leasesOver((ids) => ids.filter((id) => id === '2-0'));
  leases.hold('1-0', 0);
  leases.hold('2-0', 0);
  clock.now = 100;
  await leases.beat();
  clock.now = 250; // past the reads' 240 ms, within the touch's 100 + 240
  expect(leases.valid('2-0'), 'the entry Redis gave back').toBe(true);
  expect(leases.valid('1-0'), 'the entry Redis did not give back, renewed anyway').toBe(false);
});

it("an entry whose interaction's claim lapsed is no longer this worker's, though its own hold is still valid", () => {
  const { leases, clock } = leasesOver((ids) => ids);
  leases.hold('1-0', 0);
  // The claim was sent 200 ms before the read: known valid until 40 (80% of 300 ms from its send), the hold until 240.
  leases.claimed('1-0', { claim: 'k' }, 'holder', new HeldClaim(1, 300, -200, () => clock.now));
  clock.now = 20;
  expect(leases.valid('1-0')).toBe(true);
  clock.now = 100;
  expect(leases.valid('1-0'), 'an entry whose claim lapsed counted as valid (its answer would be sent)').toBe(false);
});

it('an entry is acknowledged only once its "answered" mark is stored: one Redis never took stays pending', async () => {
  const acks: string[] = [];
  const failures: unknown[] = [];
  let up = false;
  const run: ClaimScriptRunner = async () => {
    if (!up) throw new Error('Redis is down');
    return [1];
  };
  const marks = new AnsweredMarks(
    run,
    () => up,
    (error) => failures.push(error),
  );
  // Given up at once (its deadline has passed): never stored.
  await marks.mark('1-0', 'i-1', { claim: 'k1' }, performance.now(), () => undefined);
  marks.afterStored('1-0', async () => void acks.push('1-0'));
  up = true;
  await marks.mark('2-0', 'i-2', { claim: 'k2' }, performance.now() + 60_000, () => undefined);
  marks.afterStored('2-0', async () => void acks.push('2-0'));
  await marks.close();
  expect(acks, 'entries acknowledged (1-0: its mark was never stored)').toEqual(['2-0']);
  expect(failures, 'the failed attempt reported').toHaveLength(1);
});

describeWithRedis('the event worker (mutation guards)', () => {
  const redis = useRedis();
  let n = 0;

  it('an entry this worker reclaims from itself while its handler still runs is not started twice', async () => {
    const stream = createRedisEventStream({ client: redis.connection, stream: `mut-worker-${++n}` });
    // The heartbeat's touches come back empty, so the entry goes idle and this same worker's XAUTOCLAIM takes it again.
    const command = stream.command.bind(stream);
    stream.command = async (args) => (args[0] === 'XCLAIM' && args.at(-1) === 'JUSTID' ? [] : command(args));
    const worker = createEventWorker({
      stream,
      group: 'g',
      consumer: 'w',
      client: { interactions: { respond: async () => undefined } } as never,
      pollMs: 5,
      claimIdleMs: 100,
    });
    let runs = 0;
    let release = () => undefined as void;
    const released = new Promise<void>((resolve) => (release = resolve));
    worker.onDispatch('MESSAGE_CREATE', async () => {
      runs++;
      await released;
    });
    try {
      await worker.start();
      const [id] = await stream.publish([{ t: 'MESSAGE_CREATE', s: 1, d: {}, shardId: 0 }]);
      await until(
        async () => {
          const pending = (await redis.connection.sendCommand(['XPENDING', stream.key, 'g', '-', '+', '10'])) as [string, string, number, number][];
          return Number(pending.find((entry) => entry[0] === id)?.[3] ?? 0) >= 3;
        },
        { what: 'the entry reclaimed twice by its own worker while its handler runs' },
      );
      release();
      await until(async () => (await stream.backlog()).groups[0]?.pending === 0, { what: 'the entry acknowledged' });
      expect(runs, 'handler runs of the one entry').toBe(1);
    } finally {
      release();
      await worker.close();
    }
  });

  /**
   * An interaction whose claim another worker held until its lease ran out (cut off from Redis): it may have answered, its
   * mark still to come. A worker with `claimIdleMs` takes the lapsed claim; the old holder's mark lands while it waits for it.
   * Resolves what became of the interaction (`ran`, `duplicate`, `dead letter: ...`) and the entries still pending.
   */
  async function answeredByLapsedHolder(claimIdleMs: number) {
    const stream = createRedisEventStream({ client: redis.connection, stream: `mut-worker-${++n}`, commandTimeoutMs: 100 });
    const run: ClaimScriptRunner = (script, keys, args) => stream.script(script, keys, args);
    const interactionId = makeSnowflake(Date.now(), n);
    const claim = stream.claimKey(interactionId);
    await redis.connection.sendCommand(['SET', claim, 'old-holder|1|1', 'PX', '60000']);
    const client = { interactions: { respond: async () => undefined } } as never;
    const worker = createEventWorker({ stream, group: 'g', consumer: 'w', client, pollMs: 5, claimIdleMs });
    const outcomes: string[] = [];
    worker.onCommand('ping', () => void outcomes.push('ran'));
    worker.on('duplicate', () => outcomes.push('duplicate'));
    worker.on('deadLetter', (event) => outcomes.push(`dead letter: ${event.reason}, ${event.deliveries} deliveries`));
    try {
      await worker.start();
      const payload = { id: interactionId, application_id: '1', type: 2, token: 'interaction-token', version: 1, data: { id: '2', name: 'ping' } };
      await stream.publish([{ t: 'INTERACTION_CREATE', s: 1, d: payload, shardId: 0 }]);
      await until(async () => String(await redis.connection.sendCommand(['GET', claim])).includes('@'), { what: 'the worker took the lapsed claim' });
      await markAnswered(run, { claim });
      await until(() => outcomes.length > 0, { what: 'the interaction run, skipped or dead-lettered', timeoutMs: 10_000 });
      return { outcomes, pending: (await stream.backlog()).groups[0]?.pending };
    } finally {
      await worker.close();
    }
  }

  it('a claim taken from a lapsed holder runs nothing before that holder’s "answered" mark could land: once it lands, the entry is a duplicate', async () => {
    // claimIdleMs past the wait for the lapsed holder's mark (2 s and the command timeout), so the entry is not reclaimed meanwhile.
    const { outcomes, pending } = await answeredByLapsedHolder(2500);
    expect(outcomes, 'what became of an interaction its lapsed holder answered').toEqual(['duplicate']);
    expect(pending).toBe(0);
  });

  it('with claimIdleMs below that wait, the interaction its lapsed holder answered is acknowledged as a duplicate, not dead-lettered', async () => {
    // While it waits, its entry is reclaimed by this same worker every 100 ms, each counted as a delivery (5 allowed).
    const { outcomes, pending } = await answeredByLapsedHolder(200);
    expect(outcomes, 'what became of an interaction its lapsed holder answered').toEqual(['duplicate']);
    expect(pending).toBe(0);
  });

  it('an answered interaction is acknowledged only after its "answered" mark is stored, not while Redis refuses it', async () => {
    const stream = createRedisEventStream({ client: redis.connection, stream: `mut-worker-${++n}` });
    const order: string[] = [];
    const failures: unknown[] = [];
    let up = false;
    const script = stream.script.bind(stream);
    stream.script = async (...args: Parameters<RedisEventStream['script']>) => {
      if (args[2][0] !== 'answered') return script(...args);
      if (!up) throw new Error('Redis refuses the mark');
      const reply = await script(...args);
      order.push('mark stored');
      return reply;
    };
    const ack = stream.ack.bind(stream);
    stream.ack = async (...args: Parameters<RedisEventStream['ack']>) => {
      order.push('ack');
      return ack(...args);
    };
    const worker = createEventWorker({ stream, group: 'g', consumer: 'w', client: { interactions: { respond: async () => undefined } } as never, pollMs: 5 });
    worker.on('error', (error) => failures.push(error));
    worker.onCommand('ping', (interaction) => interaction.reply('pong'));
    try {
      await worker.start();
      const payload = {
        id: makeSnowflake(Date.now(), 2),
        application_id: '1',
        type: 2,
        token: 'interaction-token',
        version: 1,
        data: { id: '2', name: 'ping' },
      };
      await stream.publish([{ t: 'INTERACTION_CREATE', s: 1, d: payload, shardId: 0 }]);
      // Two refused marks: the second comes 100 ms after the first, long after the handler settled.
      await until(() => failures.length >= 2, { what: 'the answered mark refused twice' });
      expect(order, 'acknowledged while its mark was refused').toEqual([]);
      up = true;
      await until(() => order.includes('ack'), { what: 'the entry acknowledged once the mark was stored' });
      expect(order).toEqual(['mark stored', 'ack']);
    } finally {
      await worker.close();
    }
  });
});

it('an entry let go of after a read was sent is not held again from that read (a reclaim older than its acknowledgement), only from a later one', () => {
  const { leases, clock } = leasesOver((ids) => ids);
  expect(leases.hold('1-0', 0)).toBe(true);
  clock.now = 100;
  leases.release('1-0'); // handled and acknowledged at 100
  expect(leases.hold('1-0', 50), 'a reclaim sent at 50, before the acknowledgement, answering after it').toBe(false);
  expect(leases.hold('1-0', 100), 'a read sent at the very time it was let go of').toBe(false);
  expect(leases.hold('1-0', 150), 'a read sent after it was let go of (left pending for a later delivery)').toBe(true);
});
