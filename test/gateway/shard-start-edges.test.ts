/**
 * The edges of starting a shard (`gateway/shard-start.ts`), each found by a review: a fixed list or a reshard's next set that
 * fails to start one shard keeps none of the others; a lease lost while the session loads stops the shard it created; a held
 * shard's retry asks again whether it is held when its wait ends, announces READY again without connecting again, and goes on
 * after a run of Identify attempts the service cut (only a close no attempt can fix stops it); a stopped connection refuses
 * connect() at once.
 */
import { afterEach, expect, it, vi } from 'vitest';
import { MemoryGatewaySessionStore } from '../../src/gateway/gateway-session-store.js';
import type { ShardPlan } from '../../src/gateway/shard-plan.js';
import { ShardSets } from '../../src/gateway/shard-sets.js';
import { connectWhileHeld, RECONNECT_AFTER_MS, startShard, type ShardStartTarget } from '../../src/gateway/shard-start.js';
import { GatewayConnection } from '../../src/gateway/connection.js';
import { resolveGatewayOptions } from '../../src/gateway/options.js';
import { connectionHost, localShard } from '../../src/gateway/shards.js';
import { behaveWell, frames, startWsServer, type WsTestServer } from '../helpers/ws-server.js';
import { until } from '../helpers/until.js';
import type { ShardHandle } from '../../src/gateway/shards.js';

function fakeShard(id: number, log: string[]): ShardHandle {
  const shard: ShardHandle = {
    ...{ id, status: 'idle', sessionId: undefined, sequence: null, latency: undefined, lastAckAt: undefined, resumeUrl: undefined },
    restore: (record) => {
      shard.sessionId = record.sessionId;
      shard.sequence = record.sequence;
    },
    connect: async () => {
      log.push(`${id} connect`);
      shard.status = 'ready';
    },
    destroy: async () => void log.push(`${id} destroy`),
  };
  return shard;
}

it('a fixed list whose start failed for one id keeps none of the others: the next try starts each id once', async () => {
  const log: string[] = [];
  let failOnce = true;
  const sets = new ShardSets({
    newShard: (id) => {
      log.push(`${id} create`);
      if (id === 2 && failOnce) {
        failOnce = false;
        throw new Error('worker could not start (ERR_WORKER_INIT_FAILED)');
      }
      return fakeShard(id, log);
    },
    store: undefined,
    storeFailed: () => undefined,
    report: () => undefined,
    now: () => Date.now(),
    maxShards: 16,
    record: () => undefined,
  });
  const plan: ShardPlan = { sharded: true, ids: [0, 1, 2, 3], count: 4, maxConcurrency: 1, perWorker: undefined };
  sets.current.plan = plan;
  await expect(sets.startFixed()).rejects.toThrow(/ERR_WORKER_INIT_FAILED/);
  expect(
    sets.current.shards.map((s) => s.id),
    'none of the set kept after the failed start',
  ).toEqual([]);
  expect(log.filter((line) => line.endsWith('destroy')).sort(), 'those started were stopped').toEqual(['0 destroy', '1 destroy', '3 destroy']);
  // Gateway.#connect: a failed #load is forgotten and the next connect() loads again -> startFixed again.
  await sets.startFixed();
  const afterRetry = sets.current.shards.map((s) => s.id);
  await sets.connect(undefined);
  expect(afterRetry, 'each id once').toEqual([0, 1, 2, 3]);
});

it('a lease lost while the session loads: the shard created for it is destroyed (a worker shard leaves its worker)', async () => {
  const log: string[] = [];
  const store = new MemoryGatewaySessionStore();
  let held = true;
  const slow: typeof store = Object.assign(Object.create(store) as typeof store, {
    load: async (id: number, count: number) => {
      held = false; // the lease is lost while the load is under way
      return store.load(id, count);
    },
  });
  const target: ShardStartTarget = {
    create: (id) => (log.push(`${id} create`), fakeShard(id, log)),
    list: [],
    savers: new Map(),
    count: 1,
    store: slow,
    record: () => undefined,
    storeFailed: () => undefined,
    report: () => undefined,
  };
  const result = await startShard(target, 0, { kind: 'lease', holds: () => held, connected: () => undefined });
  expect(result).toBeUndefined();
  expect(log, 'what was created is destroyed').toContain('0 destroy');
});

it('a held shard whose retry wait is under way connects no more once it is not held (closed, its lease lost)', async () => {
  vi.useFakeTimers();
  try {
    let held = true;
    let connects = 0;
    connectWhileHeld(
      async () => {
        connects++;
        throw new Error('connect failed');
      },
      () => held,
      () => undefined,
    );
    await vi.advanceTimersByTimeAsync(0);
    held = false; // closed / lease lost during the 1 s wait
    await vi.advanceTimersByTimeAsync(RECONNECT_AFTER_MS);
    expect(connects, 'no connect once no longer held').toBe(1);
  } finally {
    vi.useRealTimers();
  }
});

it('a shard READY whose announcement fails (the coordinator is down) is not connected again: only the announcement is tried again, its failures one error', async () => {
  vi.useFakeTimers();
  try {
    let connectedCalls = 0;
    let connects = 0;
    const reports: string[] = [];
    connectWhileHeld(
      async () => void connects++, // the shard is READY
      () => true,
      (r) => void reports.push(`${r.event}: ${r.payload instanceof Error ? r.payload.message : String(r.payload)}`),
      async () => {
        connectedCalls++;
        if (connectedCalls <= 3) throw new Error('coordinator down');
      },
    );
    for (let i = 0; i < 4; i++) await vi.advanceTimersByTimeAsync(RECONNECT_AFTER_MS * 4);
    expect(connectedCalls, 'the announcement tried until it went through (three failures)').toBe(4);
    expect(connects, 'the shard connected once').toBe(1);
    expect(reports, 'one error for the run of failures, a debug line at its end').toEqual([
      'error: coordinator down',
      expect.stringMatching(/^debug: the shard is up after 3 failed attempts/),
    ]);
  } finally {
    vi.useRealTimers();
  }
});

it('a reshard whose next set fails to start one shard stops the shards of that set it did start', async () => {
  const log: string[] = [];
  const sets = new ShardSets({
    newShard: (id, p) => {
      log.push(`${p.count}/${id} create`);
      if (p.count === 4 && id === 3) throw new Error('worker could not start');
      const shard = fakeShard(id, log);
      return { ...shard, destroy: async () => void log.push(`${p.count}/${id} destroy`) };
    },
    store: new MemoryGatewaySessionStore(),
    storeFailed: () => undefined,
    report: () => undefined,
    now: () => Date.now(),
    maxShards: 16,
    record: () => undefined,
  });
  sets.current.plan = { sharded: true, ids: [0, 1], count: 2, maxConcurrency: 1, perWorker: undefined };
  await sets.startFixed();
  await expect(sets.reshard({ sharded: true, ids: [0, 1, 2, 3], count: 4, maxConcurrency: 1, perWorker: undefined }, undefined)).rejects.toThrow();
  expect(log.filter((l) => l.startsWith('4/') && l.endsWith('destroy')).length, 'each started shard of the failed set stopped').toBe(3);
});

it('a stopped connection refuses connect() at once, holding no timer', async () => {
  vi.useFakeTimers();
  try {
    const options = resolveGatewayOptions({}, 'ws://127.0.0.1:1');
    const host = { token: () => 't', now: () => Date.now(), emit: () => undefined, dispatch: () => undefined, allowInsecure: true };
    const connection = new GatewayConnection(options, host as never);
    await connection.destroy();
    const timersBefore = vi.getTimerCount();
    const outcome = await connection.connect(undefined).then(
      () => 'resolved',
      (error: Error) => `rejected: ${error.message}`,
    );
    expect(outcome, 'a destroyed connection refuses connect() at once').toMatch(/^rejected: /);
    expect(vi.getTimerCount(), 'timers the refused connect() left behind').toBe(timersBefore);
  } finally {
    vi.useRealTimers();
  }
});

let server: WsTestServer | undefined;
const started: ShardHandle[] = [];
afterEach(async () => {
  for (const shard of started.splice(0)) await shard.destroy();
  await server?.close();
  server = undefined;
});

it('a leased shard whose first three Identifies the service cut (4000: no READY after 3 attempts) connects once the service is back', async () => {
  let connections = 0;
  server = await startWsServer((peer) => {
    if (++connections > 3) return behaveWell(peer);
    peer.socket.on('message', (data) => {
      if ((JSON.parse(data.toString()) as { op?: number }).op === 2) peer.close(4000, 'Unknown error'); // a service hiccup
    });
    peer.send(frames.hello(45_000));
  });
  const options = resolveGatewayOptions({ reconnectBaseDelayMs: 10, reconnectMaxDelayMs: 20 }, server.url);
  const plan: ShardPlan = { sharded: true, ids: [0], count: 1, maxConcurrency: 1, perWorker: undefined };
  const reports: string[] = [];
  const host = {
    token: () => 'a-bot-token',
    now: () => Date.now(),
    allowInsecure: true,
    emit: () => undefined,
    dispatch: () => undefined,
    changed: () => undefined,
  };
  const target: ShardStartTarget = {
    create: (id) => {
      const shard = localShard(id, new GatewayConnection(options, connectionHost(host, id, plan)));
      started.push(shard);
      return shard;
    },
    list: [],
    savers: new Map(),
    count: 1,
    store: undefined,
    record: () => undefined,
    storeFailed: () => undefined,
    report: (r) => void reports.push(`${r.event}: ${r.payload instanceof Error ? `${r.payload.name}: ${r.payload.message}` : String(r.payload)}`),
  };
  let ready = false;
  await startShard(target, 0, { kind: 'lease', holds: () => true, connected: () => void (ready = true) });
  await until(() => ready, {
    what: () => `the held shard READY after the cut Identifies (${connections} connections; ${reports.join('; ')})`,
    timeoutMs: 8000,
  });
  expect(ready, 'the held shard is READY once the service answers again').toBe(true);
});

it("shards started in any order are kept in the set's list by id (one insertion each, no sort per shard)", async () => {
  const log: string[] = [];
  const target: ShardStartTarget = {
    create: (id) => fakeShard(id, log),
    list: [],
    savers: new Map(),
    count: 8,
    store: undefined,
    record: () => undefined,
    storeFailed: () => undefined,
    report: () => undefined,
  };
  for (const id of [5, 1, 7, 0, 3, 6, 2, 4]) await startShard(target, id, { kind: 'fixed', restore: false });
  expect(
    target.list.map((shard) => shard.id),
    'the list after starting 5, 1, 7, 0, 3, 6, 2, 4',
  ).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
});
