/**
 * A leased shard's retries (`gateway/shard-start.ts`) end with its set: once the Gateway closed, or a reshard dropped the set,
 * no retry timer is left waiting (to create the shard again, to connect it again), and none runs later.
 */
import { afterEach, expect, it, vi } from 'vitest';
import { RECONNECT_AFTER_MS, type ShardStartTarget, startShard, stopAttempts } from '../../src/gateway/shard-start.js';
import type { ShardHandle } from '../../src/gateway/shards.js';
import { Client } from '../../src/index.js';
import { MemoryShardCoordinator } from '../../src/testing/index.js';
import { dropSet, type ShardSet } from '../../src/gateway/reshard.js';

/** How many times the Gateway's shard factory ran (every one throws: a worker thread that cannot start). */
let creates = 0;
vi.mock('../../src/gateway/worker-pool.js', () => ({
  workerShards: () => () => {
    creates++;
    throw Object.assign(new Error('ERR_WORKER_INIT_FAILED: EAGAIN'), { code: 'ERR_WORKER_INIT_FAILED' });
  },
}));

afterEach(() => {
  vi.useRealTimers();
  creates = 0;
});

const FAKE = { toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'] } as const;

it("close() while a leased shard waits to be created again: the Gateway's retry timer is cleared, no create after", async () => {
  vi.useFakeTimers({ toFake: [...FAKE.toFake] });
  const coordinator = new MemoryShardCoordinator({ leaseMs: 3000, clock: () => performance.now() });
  const client = new Client({
    baseUrl: 'http://127.0.0.1:9',
    auth: { botToken: 'Bot.token.x' },
    gateway: { url: 'ws://127.0.0.1:9', shards: 'auto', shardCount: 1, maxConcurrency: 1, shardsPerWorker: 1, sessionStartReserve: false, coordinator },
  });
  const errors: string[] = [];
  client.gateway.on('error', (error) => errors.push(error.message));
  await client.gateway.connect();
  await vi.advanceTimersByTimeAsync(RECONNECT_AFTER_MS * (1 + 2 + 4 + 8)); // four more tries: the wait is now 16 s
  expect(creates, 'the first try and four more').toBe(5);
  expect(errors, 'one error for the run').toEqual([expect.stringMatching(/^shard 0 could not be created \(ERR_WORKER_INIT_FAILED: EAGAIN\)/)]);
  await client.close();
  expect(vi.getTimerCount(), 'timers left once the Gateway closed').toBe(0);
  await vi.advanceTimersByTimeAsync(60_000);
  expect(creates, 'no create after close()').toBe(5);
});

/** A set of one leased shard (held until the test says) whose factory throws, or whose shard's connects fail. */
function leasedSet(how: 'throws' | 'connect fails') {
  const list: ShardHandle[] = [];
  const counts = { creates: 0, connects: 0 };
  const target: ShardStartTarget = {
    ...{ list, savers: new Map(), count: 1, store: undefined, record: () => undefined, storeFailed: () => undefined, report: () => undefined },
    create: (id) => {
      counts.creates++;
      if (how === 'throws') throw new Error('ERR_WORKER_INIT_FAILED');
      return {
        ...{ id, status: 'idle', sessionId: undefined, sequence: null, latency: undefined, lastAckAt: undefined, resumeUrl: undefined },
        restore: () => undefined,
        connect: async () => {
          counts.connects++;
          throw new Error('connect timed out');
        },
        destroy: async () => undefined,
      };
    },
  };
  const start = () => startShard(target, 0, { kind: 'lease', holds: () => true, connected: () => undefined });
  return { list, counts, start };
}

it('stopAttempts(set) clears the waits of its leased shards (to be created again, to connect again), not those of another set', async () => {
  vi.useFakeTimers({ toFake: [...FAKE.toFake] });
  const creating = leasedSet('throws');
  const connecting = leasedSet('connect fails');
  await creating.start();
  await connecting.start();
  await vi.advanceTimersByTimeAsync(RECONNECT_AFTER_MS);
  expect([creating.counts, connecting.counts], 'each tried again once').toEqual([
    { creates: 2, connects: 0 },
    { creates: 1, connects: 2 },
  ]);
  expect(vi.getTimerCount(), 'the two waits').toBe(2);
  stopAttempts(connecting.list);
  expect(vi.getTimerCount(), "the connect retry's wait cleared; the other set's left").toBe(1);
  stopAttempts(creating.list);
  expect(vi.getTimerCount(), "the create retry's wait cleared").toBe(0);
  await vi.advanceTimersByTimeAsync(60_000);
  expect([creating.counts, connecting.counts], 'nothing tried once their sets ended').toEqual([
    { creates: 2, connects: 0 },
    { creates: 1, connects: 2 },
  ]);
});

it("a set a reshard drops (dropSet) ends its shards' waits to be tried again", async () => {
  vi.useFakeTimers({ toFake: [...FAKE.toFake] });
  const connecting = leasedSet('connect fails');
  await connecting.start();
  await vi.advanceTimersByTimeAsync(RECONNECT_AFTER_MS);
  expect(vi.getTimerCount(), 'the connect retry waiting').toBe(1);
  const set: ShardSet = { plan: undefined, shards: connecting.list, savers: new Map(), replayed: new Map(), fleet: undefined, generation: 1 };
  await dropSet(set, () => undefined);
  expect(vi.getTimerCount(), 'the wait of the dropped set').toBe(0);
  const connects = connecting.counts.connects;
  await vi.advanceTimersByTimeAsync(60_000);
  expect(connecting.counts.connects, 'no connect after the set was dropped').toBe(connects);
});
