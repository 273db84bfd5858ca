/**
 * Resharding while serving: `gateway.reshard(count)` identifies the new set
 * in the background while the old one serves, switches once every new
 * shard is READY and closes the old set; interactions keep arriving the
 * whole time, each is answered once (those arriving on both sets during
 * the overlap included), with exactly `count` new Identify and none refused.
 */
import { expect, it, vi } from 'vitest';
import { Client, shardOfGuild, isCommunityChatError } from '../../src/index.js';
import { MemoryIdentifyThrottle, MemoryGatewaySessionStore } from '../../src/stores.js';
import {
  autoReshardInterval,
  fleetReshardStep,
  newShardSet,
  RecentInteractions,
  RESHARD_DEDUPE_MS,
  reshardDedupeMs,
  SwitchEvents,
  switchEventKey,
  SwitchPairs,
  switchPairMs,
  watchRecommendation,
} from '../../src/gateway/reshard.js';
import { MemoryShardCoordinator } from '../../src/testing/index.js';
import type { GatewayDispatchEvent } from '../../src/gateway/options.js';
import { checkGatewayOptions } from '../../src/gateway/options.js';
import { useEmulatorWithAdmin } from '../helpers/emulators.js';
import { until } from '../helpers/until.js';

const start = useEmulatorWithAdmin();

it('reshards 4 → more under traffic: every interaction answered once, one new Identify per new shard, none refused, the old set closed', async () => {
  const { emulator, admin } = await start({ gateway: { shards: 4, maxConcurrency: 16, identifyIntervalMs: 0 } });
  // A count that puts the seed community on a new shard whose Identify bucket (id % 16) the old set did not use: it is READY
  // seconds before the shards that wait their bucket's turn, so its interactions arrive on both sets meanwhile.
  const count = [5, 6, 7, 8, 9, 10, 11, 12].find((c) => shardOfGuild(emulator.seed.guildId, c) >= 4) ?? 13;
  await admin.commands.create(emulator.seed.applicationId, { name: 'ping', description: 'Ping' });
  const sessionStore = new MemoryGatewaySessionStore();
  const client = new Client({ baseUrl: emulator.url, auth: { botToken: emulator.seed.botToken }, gateway: { shards: 'auto', sessionStore } });
  const handled = new Map<string, number>();
  client.gateway.onCommand('ping', async (interaction) => {
    handled.set(interaction.id, (handled.get(interaction.id) ?? 0) + 1);
    await interaction.reply('pong');
  });
  const runs: { id: string; response: Promise<unknown> }[] = [];
  let n = 0;
  const send = () => {
    const run = emulator.invokeCommand({ name: 'ping', ...(n++ % 2 === 0 ? {} : { guildId: null }) });
    runs.push({ id: run.id, response: run.response });
  };
  let traffic: ReturnType<typeof setInterval> | undefined;
  try {
    await client.gateway.connect();
    expect(emulator.gatewayStats.forBot().identifies).toBe(4);
    traffic = setInterval(send, 20);
    await until(() => runs.length >= 10, { what: 'traffic before the reshard' });
    // Records left for the new count by an earlier deploy are stale: the new set identifies and overwrites them, never loads them.
    for (let id = 0; id < count; id++) await sessionStore.save(id, count, { sessionId: `stale-${id}`, sequence: 1_000_000 });
    const resharding = client.gateway.reshard(count);
    // The emulator counts each Identify it answers with READY: past the old set's 4, the new set is up beside it.
    await until(() => emulator.gatewayStats.forBot().identifies > 4, { what: 'a shard of the new set READY' });
    expect(client.gateway.shardCount, 'the old set serves while the new one identifies').toBe(4);
    const duringOverlap = runs.length;
    await resharding;
    expect(runs.length).toBeGreaterThan(duringOverlap);
    expect(client.gateway.shardCount, 'switched to the new set').toBe(count);
    const afterSwitch = runs.length;
    await until(() => runs.length >= afterSwitch + 10, { what: 'traffic after the switch' });
    clearInterval(traffic);
    traffic = undefined;
    await Promise.all(runs.map((run) => run.response));

    expect([...handled.keys()].sort()).toEqual(runs.map((run) => run.id).sort());
    expect([...handled.values()].filter((count) => count !== 1)).toEqual([]);
    const stats = emulator.gatewayStats.forBot();
    expect(stats.identifies).toBe(4 + count);
    expect(emulator.gatewayStats.sessionStartsRefused).toBe(0);
    expect(client.gateway.shardCount).toBe(count);
    expect(client.gateway.shards.map((shard) => [shard.id, shard.status])).toEqual(Array.from({ length: count }, (_, id) => [id, 'ready']));
    // The old set's sessions are forgotten, the new set's kept for a restart.
    expect(await sessionStore.load(0, 4)).toBeUndefined();
    await until(async () => (await sessionStore.load(count - 1, count))?.sessionId?.startsWith('stale') === false, { what: 'the new set saved' });
    // Asking for the count that runs changes nothing.
    await client.gateway.reshard(count);
    expect(emulator.gatewayStats.forBot().identifies).toBe(4 + count);
  } finally {
    if (traffic !== undefined) clearInterval(traffic);
    await client.close();
  }
}, 60_000);

it('refuses a count that is not a whole number, and a Gateway not yet connected, with the current set untouched', async () => {
  const { emulator } = await start({ gateway: { shards: 2, maxConcurrency: 2 } });
  const client = new Client({ baseUrl: emulator.url, auth: { botToken: emulator.seed.botToken }, gateway: { shards: 'auto' } });
  try {
    const early = await client.gateway.reshard(4).catch((error: unknown) => error);
    expect(isCommunityChatError(early, 'ValidationError') && early.message).toMatch(/connect\(\) first/);
    await client.gateway.connect();
    for (const bad of [0, 2.5, Number.NaN]) {
      const error = await client.gateway.reshard(bad).catch((caught: unknown) => caught);
      expect(isCommunityChatError(error, 'ValidationError')).toBe(true);
    }
    expect(client.gateway.shardCount).toBe(2);
    expect(client.gateway.status).toBe('ready');
  } finally {
    await client.close();
  }
});

it('an interaction seen twice during the overlap runs once; ids are forgotten after a minute, and all once the overlap is over', () => {
  let now = 0;
  const recent = new RecentInteractions(() => now);
  expect(recent.first('a')).toBe(true);
  expect(recent.first('a')).toBe(false);
  now = RESHARD_DEDUPE_MS + 1;
  expect(recent.first('b')).toBe(true);
  expect(recent.first('a')).toBe(true);
  recent.until = now;
  now += 1;
  expect(recent.first('b')).toBe(true);
  expect(recent.first('b')).toBe(true);
});

it("a fleet's dedupe window is a minute or three leases, whichever is longer (a member may switch two leases after another)", () => {
  expect(reshardDedupeMs(10_000)).toBe(RESHARD_DEDUPE_MS);
  expect(reshardDedupeMs(30_000)).toBe(90_000);
  let now = 0;
  const recent = new RecentInteractions(() => now, reshardDedupeMs(30_000));
  expect(recent.first('a')).toBe(true);
  now = 80_000; // past the one-minute default, within three leases
  expect(recent.first('a'), 'still remembered at 80 s with 30 s leases').toBe(false);
  now = 170_001;
  expect(recent.first('a')).toBe(true);
});

it("an event's key across a fleet's two sets is its type and payload: the same on both copies, another for any other event", () => {
  const payload = { id: '5', guild_id: '7', content: 'hello' };
  expect(switchEventKey('MESSAGE_CREATE', { ...payload })).toBe(switchEventKey('MESSAGE_CREATE', payload));
  expect(switchEventKey('MESSAGE_UPDATE', payload)).not.toBe(switchEventKey('MESSAGE_CREATE', payload));
  const keys = new Set(Array.from({ length: 2000 }, (_, i) => switchEventKey('MESSAGE_CREATE', { ...payload, id: String(i) })));
  expect(keys.size, 'distinct payloads, distinct keys').toBe(2000);
  expect(switchEventKey('TYPING_START', undefined)).toMatch(/^e:TYPING_START:/);
});

it("a fleet's switch pairs the k-th copy on one set with the k-th on the other: identical payloads sent again are other events, once each", async () => {
  const clock = { now: 0 };
  const coordinator = new MemoryShardCoordinator({ leaseMs: 10_000, clock: () => clock.now });
  await coordinator.tick('a', 2, true);
  await coordinator.tick('b', 2, true);
  // Member a runs the old set (generation 0, the guild on shard 0), member b the next one (generation 1, the guild on shard 1).
  const members = [
    { member: 'a', generation: 0, shardId: 0, pairs: new SwitchPairs(() => clock.now, switchPairMs(10_000)) },
    { member: 'b', generation: 1, shardId: 1, pairs: new SwitchPairs(() => clock.now, switchPairMs(10_000)) },
  ];
  const emitted: string[] = [];
  const deliver = async (name: string, t: string, d: unknown, first: 0 | 1) => {
    for (const { member, generation, shardId, pairs } of first === 0 ? members : [...members].reverse()) {
      const key = pairs.pair(generation, shardId, switchEventKey(t, d));
      if (key !== undefined && (await coordinator.claimInteraction(member, key, pairs.pairMs))) emitted.push(`${name} by ${member}`);
    }
    clock.now += 1_000;
  };
  const reaction = { user_id: '9', channel_id: '1', message_id: '2', guild_id: '3', emoji: { id: null, name: 'x' } };
  const member = (roles: string[]) => ({ guild_id: '3', user: { id: '9' }, roles });
  await deliver('add', 'MESSAGE_REACTION_ADD', reaction, 0);
  await deliver('remove', 'MESSAGE_REACTION_REMOVE', reaction, 1);
  await deliver('add again', 'MESSAGE_REACTION_ADD', { ...reaction }, 1);
  await deliver('roles a', 'GUILD_MEMBER_UPDATE', member(['a']), 0);
  await deliver('roles a b', 'GUILD_MEMBER_UPDATE', member(['a', 'b']), 1);
  await deliver('roles a again', 'GUILD_MEMBER_UPDATE', member(['a']), 0);
  clock.now += 10 * 60_000; // ten minutes on (a user back online): its earlier claims are long gone, the counts started again
  await coordinator.tick('a', 2, true);
  await coordinator.tick('b', 2, true);
  await deliver('add later', 'MESSAGE_REACTION_ADD', reaction, 1);
  expect(emitted, 'each event once across the two members, the repeated payloads too').toEqual([
    'add by a',
    'remove by b',
    'add again by b',
    'roles a by a',
    'roles a b by b',
    'roles a again by a',
    'add later by b',
  ]);
  // On one member, the second set's copy of the event is dropped at once (no claim asked).
  const here = new SwitchPairs(() => clock.now, 5_000);
  const key = switchEventKey('TYPING_START', { user_id: '9' });
  expect(here.pair(0, 0, key)).toBe(`${key}#1`);
  expect(here.pair(1, 3, key), 'the other set: the same occurrence, seen here already').toBeUndefined();
  expect(here.pair(1, 3, key)).toBe(`${key}#2`);
  expect(switchPairMs(2_000)).toBe(5_000);
  expect(switchPairMs(30_000)).toBe(30_000);
});

it("a fleet's switch: a resume's replay of an event (the same sequence on the same set's shard) is not another occurrence, so it is not emitted twice", async () => {
  const clock = { now: 0 };
  const coordinator = new MemoryShardCoordinator({ leaseMs: 1_500, clock: () => clock.now });
  await coordinator.tick('a', 2, true);
  const pairs = new SwitchPairs(() => clock.now, switchPairMs(1_500));
  const emitted: string[] = [];
  const deliver = async (name: string, generation: number, shardId: number, s: number, d: unknown) => {
    const key = pairs.pair(generation, shardId, switchEventKey('MESSAGE_CREATE', d), s);
    // Claims are the fleet's: one member asking again for a key it holds wins it again, so only the pairing can drop a replay.
    if (key !== undefined && (await coordinator.claimInteraction('a', key, pairs.pairMs))) emitted.push(`${name}: ${key.slice(-2)}`);
    clock.now += 100;
  };
  const message = { id: '1000632', guild_id: '7', channel_id: '1', content: 'm632' };
  // Member a: the old set's shard 0 emits the message; the next set's shard 2 gets its copy (dropped), then resumes from a record
  // held below it and the service replays it at the same sequence 83.
  await deliver('old set', 0, 0, 319, message);
  await deliver('next set', 1, 2, 83, message);
  await deliver('next set, replayed', 1, 2, 83, message);
  await deliver('old set, replayed', 0, 0, 319, message);
  // The same payload sent again is another event (another sequence), on both sets, and once.
  await deliver('again, old set', 0, 0, 330, message);
  await deliver('again, next set', 1, 2, 90, message);
  await deliver('again, next set replayed', 1, 2, 90, message);
  // A new session on the next set's shard: its sequences start again, so sequence 83 there is a new event.
  pairs.newSession(1, 2);
  await deliver('third, next set (new session)', 1, 2, 83, message);
  expect(emitted, 'each occurrence once on member a, whichever set delivered or replayed it').toEqual([
    'old set: #1',
    'again, old set: #2',
    'third, next set (new session): #3',
  ]);
  expect(pairs.pair(1, 2, switchEventKey('MESSAGE_CREATE', message)), 'without a sequence: counted, as before').toBe(
    `${switchEventKey('MESSAGE_CREATE', message)}#4`,
  );
});

it("a fleet's switch queues a shard's events in order behind their claims, holds each one's sequence while it waits, and covers only non-interaction events", async () => {
  const events = new SwitchEvents();
  const event = (s: number, shardId = 0): GatewayDispatchEvent => ({ t: 'MESSAGE_CREATE', s, d: { id: String(s) }, shardId });
  const claims = new Map<number, (claimed: boolean) => void>();
  const passed: number[] = [];
  const held: number[] = [];
  const queue = (e: GatewayDispatchEvent) =>
    events.queue(
      1,
      e,
      () => new Promise<boolean>((resolve) => claims.set(e.s as number, resolve)),
      () => passed.push(e.s as number),
      () => {
        held.push(e.s as number);
        return () => held.splice(held.indexOf(e.s as number), 1);
      },
    );
  queue(event(1));
  queue(event(2));
  queue(event(3, 1)); // another shard: its own queue
  expect(held).toEqual([1, 2, 3]);
  await until(() => claims.has(1) && claims.has(3), { what: 'the first claim of each shard asked' });
  expect(claims.has(2), 'a later event of the shard waits for the one before it').toBe(false);
  claims.get(3)?.(true);
  await until(() => passed.includes(3), { what: 'shard 1 passing on its own' });
  claims.get(1)?.(false); // claimed elsewhere: not passed on here, and the next goes on
  await until(() => claims.has(2), { what: 'the second claim asked once the first settled' });
  expect(events.queued(1, 0), 'shard 0 still has an event waiting').toBe(true);
  claims.get(2)?.(true);
  await until(() => !events.queued(1, 0), { what: 'shard 0 drained' });
  expect(passed).toEqual([3, 2]);
  expect(held, 'every sequence let go').toEqual([]);
  expect(SwitchEvents.covers({ t: 'INTERACTION_CREATE', s: 1, d: {}, shardId: 0 })).toBe(false);
  expect(SwitchEvents.covers({ t: 'READY', s: 1, d: {}, shardId: 0 })).toBe(false);
  expect(SwitchEvents.covers({ t: 'RESUMED', s: 1, d: {}, shardId: 0 })).toBe(false);
  expect(SwitchEvents.covers(event(1))).toBe(true);
});

it("a fleet's coordinator steps: a target starts the next set once, the next set all READY switches, nothing else does", () => {
  const plan = { sharded: true, ids: [], count: 8, maxConcurrency: 1, perWorker: undefined };
  const current = newShardSet(plan, 0);
  const next = newShardSet({ ...plan, count: 12 }, 1);
  const tick = (extra: { target?: number; ready?: number }) => ({ members: 3, index: 0, leases: [], ...extra });
  expect(fleetReshardStep(current, current, undefined, tick({}))).toBeUndefined();
  expect(fleetReshardStep(current, current, undefined, tick({ target: 8 }))).toBeUndefined();
  expect(fleetReshardStep(current, current, undefined, tick({ target: 12 }))).toBe('start');
  expect(fleetReshardStep(current, current, next, tick({ target: 12 }))).toBeUndefined();
  expect(fleetReshardStep(next, current, next, tick({ target: 12, ready: 11 }))).toBeUndefined();
  expect(fleetReshardStep(next, current, next, tick({ target: 12, ready: 12 }))).toBe('switch');
  expect(fleetReshardStep(current, current, next, tick({ ready: 12 }))).toBeUndefined();
});

it('autoReshard follows GET /gateway/bot when it recommends more shards than run, at its interval (fake interval timers)', async () => {
  const { emulator } = await start({ gateway: { shards: 2, maxConcurrency: 16, identifyIntervalMs: 0 } });
  const client = new Client({
    baseUrl: emulator.url,
    auth: { botToken: emulator.seed.botToken },
    // Identify pacing is not the subject here: the new set identifies at once.
    gateway: { shards: 'auto', autoReshard: { intervalMs: 60_000 }, identifyThrottle: new MemoryIdentifyThrottle({ intervalMs: 0 }) },
  });
  // Only intervals are faked (the check's, heartbeats'): sockets and timeouts keep real time.
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
  try {
    await client.gateway.connect();
    emulator.recommendShards(3);
    await vi.advanceTimersByTimeAsync(59_999);
    expect(client.gateway.shardCount, 'shards before the first check is due').toBe(2);
    expect(emulator.gatewayStats.forBot().identifies).toBe(2);
    await vi.advanceTimersByTimeAsync(1);
    await until(() => client.gateway.shardCount === 3 && client.gateway.status === 'ready', { what: 'the automatic reshard to 3' });
    expect(emulator.gatewayStats.forBot().identifies, 'Identify: 2 of the first set, 3 of the new').toBe(2 + 3);
  } finally {
    vi.useRealTimers();
    await client.close();
  }
});

it('the automatic mode reshards only to more shards, one reshard at a time, and reports a failed check', async () => {
  vi.useFakeTimers();
  try {
    let recommended = 6;
    let running = 4;
    const reshards: number[] = [];
    let finish = () => undefined as void;
    const reshard = (count: number) => {
      reshards.push(count);
      return new Promise<void>((resolve) => (finish = resolve));
    };
    const errors: string[] = [];
    const read = async () => {
      if (recommended < 0) throw new Error('GET /gateway/bot failed');
      return { shards: recommended };
    };
    const stop = watchRecommendation(
      1000,
      read,
      () => running,
      reshard,
      (line, error) => error !== undefined && errors.push(line),
    );
    await vi.advanceTimersByTimeAsync(1000);
    expect(reshards).toEqual([6]);
    await vi.advanceTimersByTimeAsync(3000);
    expect(reshards).toEqual([6]);
    finish();
    running = 6;
    recommended = 5;
    await vi.advanceTimersByTimeAsync(2000);
    expect(reshards).toEqual([6]);
    recommended = -1;
    await vi.advanceTimersByTimeAsync(1000);
    expect(errors).toEqual(['the automatic reshard failed (tried again at the next check)']);
    stop();
    recommended = 9;
    await vi.advanceTimersByTimeAsync(5000);
    expect(reshards).toEqual([6]);
    expect(() => checkGatewayOptions('gateway.connect', { autoReshard: { intervalMs: 10 } })).toThrow(/gateway.autoReshard.intervalMs: must be at least 1000/);
    expect(autoReshardInterval(true)).toBe(3_600_000);
    expect(autoReshardInterval(false)).toBeUndefined();
  } finally {
    vi.useRealTimers();
  }
});
