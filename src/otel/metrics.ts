/**
 * OpenTelemetry metrics for the SDK, built from its `node:diagnostics_channel` channels (nothing is measured until
 * `createOtelMetrics()` subscribes; the main entry never loads `@opentelemetry/api`), and from the Gateways and streams
 * given to `observeGateway()` and `observeStream()` (read when the metric reader collects).
 *
 * Instruments (seconds for durations, as the semantic conventions ask):
 * - `http.client.request.duration` (histogram, s): each REST call, retries and waits included (HTTP semantic conventions).
 * - `community_chat.gateway.latency` (gauge, s): each shard's last heartbeat round trip.
 * - `community_chat.fleet.shards_held` (gauge): the shards a Gateway runs.
 * - `community_chat.fleet.lease_renewal.duration` (histogram, s): a lease step, from sent to answered.
 * - `community_chat.fleet.shard_start.duration` (histogram, s): from a shard's acquisition to its session up, with
 *   `community_chat.fleet.taken_over` (whether its former holder died: the takeover's part after the lease expired) and
 *   `community_chat.gateway.resumed`.
 * - `community_chat.fleet.takeover.duration` (histogram, s): a shard taken over from a member that died, from that
 *   member's last lease renewal (as recorded in Redis) to the new holder's session up, with `community_chat.gateway.resumed`.
 * - `community_chat.fleet.answers_refused` (counter): answers not sent because their shard was fenced here.
 * - `community_chat.stream.backlog` (gauge): entries waiting in a group (pending or undelivered);
 *   `community_chat.stream.oldest_pending.age` (gauge, s); `community_chat.stream.dead_letters` (gauge).
 * - `community_chat.stream.dead_lettered` (counter): events moved to the dead letters by workers of this process.
 * - `community_chat.gateway.session_starts.remaining` (gauge): the daily session starts left, as last counted by a Gateway
 *   of this process (after each Identify its budget counted or refused).
 *
 * @module
 */

import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { type Attributes, metrics, type MeterProvider, type ObservableResult } from '@opentelemetry/api';
import { checkDuration, optionNames, refuseUnknownOptions } from '../core/bounds.js';
import { SDK_VERSION } from '../core/version.js';
import { diedHolding, type PreviousHolder } from '../gateway/fleet-events.js';
import {
  DIAGNOSTICS_CHANNELS,
  type GatewayFleetMessage,
  type GatewaySessionBudgetMessage,
  type RequestEndMessage,
  type RequestErrorMessage,
  type StreamStepMessage,
} from '../observe/diagnostics.js';

/** Options of {@link createOtelMetrics}. */
export interface OtelMetricsOptions {
  /** Where the meter comes from. @default the global meter provider (`metrics.getMeterProvider()`) */
  meterProvider?: MeterProvider | undefined;
}

/** A shard as the metrics read it. */
export interface ObservedShard {
  /** The shard id. */
  readonly id: number;
  /** Its last heartbeat round trip, milliseconds (`undefined` before the first). */
  readonly latency: number | undefined;
}

/** What a Gateway shows the metrics: its shards (a `Gateway` is one). */
export interface ObservedGateway {
  /** The shards it runs now. */
  readonly shards: readonly ObservedShard[];
}

/** A stream's backlog as the metrics read it (`StreamBacklog` is one). */
export interface ObservedBacklog {
  /** Age of the oldest entry owed, milliseconds. */
  readonly oldestAgeMs: number;
  /** Entries in the dead letters. */
  readonly deadLetters: number;
  /** Each group. */
  readonly groups: readonly ObservedGroup[];
}

/** A consumer group's backlog as the metrics read it. */
export interface ObservedGroup {
  /** The group's name. */
  readonly name: string;
  /** Entries delivered and not acknowledged. */
  readonly pending: number;
  /** Entries not delivered yet. */
  readonly undelivered: number;
}

/** What a stream shows the metrics: its backlog, read every `intervalMs` (a `RedisEventStream` is one). */
export interface ObservedStream {
  /** The stream's key. */
  readonly key: string;
  /** Reads the backlog (`RedisEventStream.backlog()`). */
  backlog(): Promise<ObservedBacklog>;
}

/** The running metrics. */
export interface OtelMetrics {
  /** Reports a Gateway's shards (held count, heartbeat latency) at each collection; returns a function that stops it. */
  observeGateway(gateway: ObservedGateway, attributes?: Attributes): () => void;
  /**
   * Reports a stream's backlog, oldest pending age and dead letters, read every `intervalMs` (reported at each collection,
   * the last read; one read at a time; after a failed read, or when the last one is older than two intervals because a read
   * hangs, nothing is reported rather than stale values); returns a function that stops it.
   */
  observeStream(stream: ObservedStream, options?: { intervalMs?: number | undefined }): () => void;
  /** Stops measuring: unsubscribes from the channels and stops every observation. */
  disable(): void;
}

/** The instrumentation scope name of the metrics. */
export const METER_NAME = 'community-chat-sdk';

/** Buckets of `http.client.request.duration`, seconds (the HTTP semantic conventions' advice). */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

/** Starts measuring for every client, Gateway and worker of the process (see the module's list of instruments). */
export function createOtelMetrics(options: OtelMetricsOptions = {}): OtelMetrics {
  refuseUnknownOptions('createOtelMetrics', options, optionNames<OtelMetricsOptions>({ meterProvider: true }));
  const meter = (options.meterProvider ?? metrics.getMeterProvider()).getMeter(METER_NAME, SDK_VERSION);
  const requests = meter.createHistogram('http.client.request.duration', {
    unit: 's',
    description: 'Duration of HTTP client requests.',
    advice: { explicitBucketBoundaries: HTTP_BUCKETS },
  });
  const renewals = meter.createHistogram('community_chat.fleet.lease_renewal.duration', { unit: 's', description: 'A lease step, from sent to answered.' });
  const starts = meter.createHistogram('community_chat.fleet.shard_start.duration', {
    unit: 's',
    description: "From a shard's acquisition to its session up.",
  });
  const takeovers = meter.createHistogram('community_chat.fleet.takeover.duration', {
    unit: 's',
    description: "From a dead member's last lease renewal to the new holder's session up.",
  });
  const refused = meter.createCounter('community_chat.fleet.answers_refused', { description: 'Answers not sent: their shard was fenced here.' });
  const deadLettered = meter.createCounter('community_chat.stream.dead_lettered', { description: 'Events moved to the dead letters.' });
  const latency = meter.createObservableGauge('community_chat.gateway.latency', { unit: 's', description: "Each shard's last heartbeat round trip." });
  const held = meter.createObservableGauge('community_chat.fleet.shards_held', { description: 'The shards a Gateway runs.' });
  const backlog = meter.createObservableGauge('community_chat.stream.backlog', { description: 'Entries waiting in a consumer group.' });
  const oldest = meter.createObservableGauge('community_chat.stream.oldest_pending.age', { unit: 's', description: 'Age of the oldest entry owed.' });
  const dead = meter.createObservableGauge('community_chat.stream.dead_letters', { description: 'Entries in the dead letters.' });
  const budget = meter.createObservableGauge('community_chat.gateway.session_starts.remaining', { description: 'Daily session starts left.' });
  let budgetLeft: GatewaySessionBudgetMessage | undefined;
  const onBudget = (result: ObservableResult) => {
    if (budgetLeft !== undefined) result.observe(budgetLeft.remaining, { 'community_chat.gateway.session_starts.total': budgetLeft.total });
  };
  budget.addCallback(onBudget);

  const onEnd = (message: unknown) => {
    const end = message as RequestEndMessage | RequestErrorMessage;
    const attributes: Attributes = {
      'http.request.method': end.method,
      'server.address': end.serverAddress,
      'server.port': end.serverPort,
      'url.template': end.route,
    };
    if (end.status !== undefined) attributes['http.response.status_code'] = end.status;
    if ('errorType' in end) attributes['error.type'] = end.errorType;
    requests.record(end.durationMs / 1000, attributes);
  };
  const onFleet = (message: unknown) => {
    const fleet = message as GatewayFleetMessage & { resumed?: boolean; from?: PreviousHolder };
    if (fleet.type === 'leaseRenewed' && fleet.durationMs !== undefined) renewals.record(fleet.durationMs / 1000);
    else if (fleet.type === 'answerRefused') refused.add(1);
    else if (fleet.type === 'shardAcquired' && fleet.durationMs !== undefined) {
      const resumed = { 'community_chat.gateway.resumed': fleet.resumed === true };
      starts.record(fleet.durationMs / 1000, { 'community_chat.fleet.taken_over': diedHolding(fleet.from), ...resumed });
      if (fleet.takeoverMs !== undefined) takeovers.record(fleet.takeoverMs / 1000, resumed);
    }
  };
  const onStep = (message: unknown) => {
    const step = message as StreamStepMessage;
    if (step.step === 'deadLetter')
      deadLettered.add(1, { 'messaging.destination.name': step.stream, 'community_chat.stream.dead_letter_reason': step.reason ?? '' });
  };
  const subscriptions: [string, (message: unknown) => void][] = [
    [DIAGNOSTICS_CHANNELS.requestEnd, onEnd],
    [DIAGNOSTICS_CHANNELS.requestError, onEnd],
    [DIAGNOSTICS_CHANNELS.gatewayFleet, onFleet],
    [DIAGNOSTICS_CHANNELS.streamStep, onStep],
    [DIAGNOSTICS_CHANNELS.gatewaySessionBudget, (message: unknown) => void (budgetLeft = message as GatewaySessionBudgetMessage)],
  ];
  for (const [name, listener] of subscriptions) subscribe(name, listener);

  const stops = new Set<() => void>();
  const observeGateway = (gateway: ObservedGateway, attributes: Attributes = {}) => {
    const onLatency = (result: ObservableResult) => {
      for (const shard of gateway.shards)
        if (shard.latency !== undefined) result.observe(shard.latency / 1000, { ...attributes, 'community_chat.shard.id': shard.id });
    };
    const onHeld = (result: ObservableResult) => result.observe(gateway.shards.length, attributes);
    latency.addCallback(onLatency);
    held.addCallback(onHeld);
    const stop = () => {
      latency.removeCallback(onLatency);
      held.removeCallback(onHeld);
      stops.delete(stop);
    };
    stops.add(stop);
    return stop;
  };
  const observeStream = (stream: ObservedStream, observed: { intervalMs?: number | undefined } = {}) => {
    const intervalMs = checkDuration('observeStream', 'intervalMs', observed.intervalMs, { min: 100 }) ?? 15_000;
    let read: { value: Awaited<ReturnType<ObservedStream['backlog']>>; at: number } | undefined;
    let reading = false;
    const update = () => {
      if (reading) return; // one read at a time: a slow Redis is not asked again and again
      reading = true;
      stream.backlog().then(
        (value) => {
          read = { value, at: Date.now() };
          reading = false;
        },
        () => {
          read = undefined; // a failed read: the last values are no longer reported as current
          reading = false;
        },
      );
    };
    /** The last values read, unless older than two intervals (a read that failed or hangs): then none. */
    const current = () => (read !== undefined && Date.now() - read.at <= 2 * intervalMs ? read.value : undefined);
    const timer = setInterval(update, intervalMs);
    timer.unref?.();
    update();
    const name = { 'messaging.destination.name': stream.key };
    const onBacklog = (result: ObservableResult) => {
      for (const group of current()?.groups ?? []) result.observe(group.pending + group.undelivered, { ...name, 'messaging.consumer.group.name': group.name });
    };
    const onOldest = (result: ObservableResult) => {
      const last = current();
      if (last !== undefined) result.observe(last.oldestAgeMs / 1000, name);
    };
    const onDead = (result: ObservableResult) => {
      const last = current();
      if (last !== undefined) result.observe(last.deadLetters, name);
    };
    backlog.addCallback(onBacklog);
    oldest.addCallback(onOldest);
    dead.addCallback(onDead);
    const stop = () => {
      clearInterval(timer);
      backlog.removeCallback(onBacklog);
      oldest.removeCallback(onOldest);
      dead.removeCallback(onDead);
      stops.delete(stop);
    };
    stops.add(stop);
    return stop;
  };
  return {
    observeGateway,
    observeStream,
    disable() {
      for (const [name, listener] of subscriptions) unsubscribe(name, listener);
      for (const stop of [...stops]) stop();
      budget.removeCallback(onBudget);
    },
  };
}
