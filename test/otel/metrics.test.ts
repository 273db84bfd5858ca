/**
 * community-chat-sdk/otel's metrics (`src/otel/metrics.ts`) through an in-memory MeterProvider: the HTTP client duration
 * of REST calls with the semantic-convention attributes, the fleet's lease renewal, shard start and refused answers from
 * the gateway:fleet channel, dead letters from the stream steps, and a Gateway's and a stream's gauges at collection.
 */
import { channel } from 'node:diagnostics_channel';
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import { Client } from '../../src/index.js';
import { DIAGNOSTICS_CHANNELS } from '../../src/diagnostics.js';
import { createOtelMetrics, METER_NAME, type OtelMetrics } from '../../src/otel/index.js';
import { SECRETS, startLoopbackServer, type LoopbackServer } from '../helpers/index.js';
import { SessionBudget } from '../../src/gateway/session-budget.js';
import { SessionBudgetError } from '../../src/errors/index.js';
import { MemoryMeterProvider } from '../helpers/memory-meter.js';
import { until } from '../helpers/until.js';

let provider: MemoryMeterProvider;
let measuring: OtelMetrics;
let server: LoopbackServer;
let statuses: number[] = [];

beforeAll(async () => {
  server = await startLoopbackServer((_request, response) => {
    const status = statuses.shift() ?? 200;
    response.statusCode = status;
    response.setHeader('content-type', 'application/json');
    response.end(status < 300 ? JSON.stringify({ id: 'ch1' }) : JSON.stringify({ message: 'missing' }));
  });
});
afterAll(() => server.close());

afterEach(() => {
  measuring.disable();
  statuses = [];
});

function start(): MemoryMeterProvider {
  provider = new MemoryMeterProvider();
  measuring = createOtelMetrics({ meterProvider: provider });
  return provider;
}

it('records http.client.request.duration in seconds for each REST call, with method, server, route template, status and error type', async () => {
  const meters = start();
  expect(meters.meters[0]).toMatch(new RegExp(`^${METER_NAME}@\\d`));
  expect(meters.instruments.get('http.client.request.duration')).toMatchObject({ unit: 's' });
  const client = new Client({ baseUrl: server.url, auth: { botToken: SECRETS.botToken } });
  await client.channels.get('ch1');
  statuses = [404];
  await expect(client.channels.get('ch2')).rejects.toThrow();
  await client.close();
  const [ok, missing] = meters.values('http.client.request.duration');
  expect(ok?.attributes).toEqual({
    'http.request.method': 'GET',
    'server.address': '127.0.0.1',
    'server.port': Number(new URL(server.url).port),
    'url.template': '/api/v1/channels/{channel_id}',
    'http.response.status_code': 200,
  });
  expect(ok?.value).toBeGreaterThan(0);
  expect(ok?.value, 'seconds, not milliseconds').toBeLessThan(5);
  expect(missing?.attributes).toMatchObject({ 'http.response.status_code': 404, 'error.type': '404' });
  expect(JSON.stringify(meters.recorded)).not.toContain(SECRETS.botToken);
});

it("records the fleet's lease renewals, shard starts (taken over or not, resumed or not) and refused answers from its channel", () => {
  const meters = start();
  const fleet = channel(DIAGNOSTICS_CHANNELS.gatewayFleet);
  fleet.publish({ type: 'leaseRenewed', member: 'm', shardCount: 2, durationMs: 12 });
  fleet.publish({
    type: 'shardAcquired',
    member: 'm',
    shardCount: 2,
    shardId: 1,
    fence: 3,
    resumed: true,
    from: { member: 'd', live: false, sinceRenewalMs: 3400 },
    durationMs: 250,
    takeoverMs: 3650,
  });
  fleet.publish({
    type: 'shardAcquired',
    member: 'm',
    shardCount: 2,
    shardId: 0,
    fence: 4,
    resumed: false,
    from: { member: 'l', live: true },
    durationMs: 900,
  });
  fleet.publish({ type: 'answerRefused' });
  fleet.publish({ type: 'answerRefused' });
  fleet.publish({ type: 'serving', member: 'm', shardCount: 2, shardIds: [0, 1] });
  expect(meters.values('community_chat.fleet.lease_renewal.duration').map((entry) => entry.value)).toEqual([0.012]);
  expect(meters.values('community_chat.fleet.shard_start.duration')).toEqual([
    {
      name: 'community_chat.fleet.shard_start.duration',
      value: 0.25,
      attributes: { 'community_chat.fleet.taken_over': true, 'community_chat.gateway.resumed': true },
    },
    {
      name: 'community_chat.fleet.shard_start.duration',
      value: 0.9,
      attributes: { 'community_chat.fleet.taken_over': false, 'community_chat.gateway.resumed': false },
    },
  ]);
  // The takeover, from the dead member's last renewal to the session up: only for the shard taken over, not the acquisition's span.
  expect(meters.instruments.get('community_chat.fleet.takeover.duration')).toMatchObject({ unit: 's' });
  expect(meters.values('community_chat.fleet.takeover.duration')).toEqual([
    { name: 'community_chat.fleet.takeover.duration', value: 3.65, attributes: { 'community_chat.gateway.resumed': true } },
  ]);
  expect(meters.values('community_chat.fleet.answers_refused').map((entry) => entry.value)).toEqual([1, 1]);
  channel(DIAGNOSTICS_CHANNELS.streamStep).publish({ step: 'deadLetter', stream: '{s}', reason: 'max-deliveries' });
  channel(DIAGNOSTICS_CHANNELS.streamStep).publish({ step: 'ack', stream: '{s}' });
  expect(meters.values('community_chat.stream.dead_lettered')).toEqual([
    {
      name: 'community_chat.stream.dead_lettered',
      value: 1,
      attributes: { 'messaging.destination.name': '{s}', 'community_chat.stream.dead_letter_reason': 'max-deliveries' },
    },
  ]);
});

it("reports a Gateway's held shards and heartbeat latency, and a stream's backlog, oldest age and dead letters, at collection; nothing once stopped", async () => {
  const meters = start();
  const gateway = {
    shards: [
      { id: 0, latency: 40 },
      { id: 3, latency: undefined },
    ],
  };
  const stopGateway = measuring.observeGateway(gateway, { 'service.instance.id': 'a' });
  let reads = 0;
  const stream = {
    key: '{events}',
    backlog: async () => {
      reads++;
      return { oldestAgeMs: 1500, deadLetters: 2, groups: [{ name: 'g', pending: 3, undelivered: 4 }] };
    },
  };
  measuring.observeStream(stream, { intervalMs: 60_000 });
  await until(() => reads === 1, { what: 'the stream read once' });
  const observed = await meters.collect();
  expect(observed.get('community_chat.fleet.shards_held')?.map((entry) => [entry.value, entry.attributes])).toEqual([[2, { 'service.instance.id': 'a' }]]);
  expect(observed.get('community_chat.gateway.latency')?.map((entry) => [entry.value, entry.attributes['community_chat.shard.id']])).toEqual([[0.04, 0]]);
  expect(observed.get('community_chat.stream.backlog')?.map((entry) => [entry.value, entry.attributes])).toEqual([
    [7, { 'messaging.destination.name': '{events}', 'messaging.consumer.group.name': 'g' }],
  ]);
  expect(observed.get('community_chat.stream.oldest_pending.age')?.map((entry) => entry.value)).toEqual([1.5]);
  expect(observed.get('community_chat.stream.dead_letters')?.map((entry) => entry.value)).toEqual([2]);
  stopGateway();
  expect((await meters.collect()).get('community_chat.fleet.shards_held')).toEqual([]);
  measuring.disable();
  const after = await meters.collect();
  expect(after.get('community_chat.stream.backlog')).toEqual([]);
  channel(DIAGNOSTICS_CHANNELS.gatewayFleet).publish({ type: 'answerRefused' });
  expect(meters.values('community_chat.fleet.answers_refused'), 'disabled: nothing recorded').toEqual([]);
});

it("stops reporting a stream's values after a failed read, and while a read hangs reads no more and reports nothing past two intervals", async () => {
  const meters = start();
  const backlogOf = async () => (await meters.collect()).get('community_chat.stream.backlog')?.map((entry) => entry.value);
  let reads = 0;
  let answer: 'ok' | 'fail' | 'hang' = 'ok';
  const stream = {
    key: '{events}',
    backlog: () => {
      reads++;
      if (answer === 'fail') return Promise.reject(new Error('redis down'));
      if (answer === 'hang') return new Promise<never>(() => undefined);
      return Promise.resolve({ oldestAgeMs: 1500, deadLetters: 2, groups: [{ name: 'g', pending: 3, undelivered: 4 }] });
    },
  };
  const stop = measuring.observeStream(stream, { intervalMs: 100 });
  await until(async () => (await backlogOf())?.length === 1, { what: 'the first read reported' });
  answer = 'fail';
  const failedFrom = reads;
  await until(() => reads > failedFrom + 1, { what: 'a read failing' });
  expect(await backlogOf(), 'values of before the failed read reported as current').toEqual([]);
  expect((await meters.collect()).get('community_chat.stream.dead_letters'), 'dead letters after a failed read').toEqual([]);
  stop();
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
  try {
    answer = 'ok';
    reads = 0;
    const stopHanging = measuring.observeStream(stream, { intervalMs: 100 });
    await until(async () => (await backlogOf())?.length === 1, { what: 'the first read reported' });
    answer = 'hang';
    vi.advanceTimersByTime(100);
    expect(reads, 'the second read started').toBe(2);
    vi.advanceTimersByTime(1000);
    expect(reads, 'reads started while one hangs').toBe(2);
    expect(await backlogOf(), 'values older than two intervals reported').toEqual([]);
    stopHanging();
  } finally {
    vi.useRealTimers();
  }
});

it('reports the session starts left as the Gateway counts them: after each Identify allowed, and at the reserve when one is refused', async () => {
  const meters = start();
  const remaining = async () =>
    (await meters.collect()).get('community_chat.gateway.session_starts.remaining')?.map((entry) => [entry.value, entry.attributes]);
  expect(await remaining(), 'nothing counted yet').toEqual([]);
  let told = 3;
  const budget = new SessionBudget(
    async () => ({ session_start_limit: { total: 1000, remaining: told, reset_after: 60_000 } }),
    1,
    Date.now,
    () => undefined,
  );
  await budget.take();
  expect(await remaining()).toEqual([[2, { 'community_chat.gateway.session_starts.total': 1000 }]]);
  told = 1;
  await expect(budget.take()).rejects.toBeInstanceOf(SessionBudgetError);
  expect(await remaining(), 'refused at the reserve: none spent').toEqual([[1, { 'community_chat.gateway.session_starts.total': 1000 }]]);
});
