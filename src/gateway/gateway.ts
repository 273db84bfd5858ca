/**
 * The Gateway handle a client exposes. It holds the options, the events and the interaction handlers; the WebSocket
 * connection itself (`ws`, the protocol state machine, the interaction classes) loads on `connect()`.
 *
 * @module
 */

import type { EventEmitter } from 'eventemitter3';
import { DEFAULT_MAX_SHARDS } from '../core/bounds.js';
import { GatewayError, SessionBudgetError } from '../errors/index.js';
import { inspectSymbol } from '../core/redact.js';
import type { InteractionFromDispatch } from '../interactions/from-dispatch.js';
import { InteractionHost } from '../interactions/host.js';
import { CountedFailure, type ConnectionReport } from './connection-host.js';
import { storeErrorOf, type StoreRecoveredEvent } from '../observe/events.js';
import { observeGatewayConnect, publishGatewayReport } from '../observe/gateway.js';
import { MemoryIdentifyThrottle, type IdentifyThrottle } from './identify-throttle.js';
import {
  checkCloseOptions,
  resolveGatewayOptions,
  shardingOptions,
  type GatewayCloseOptions,
  type GatewayDispatchEvent,
  type GatewayEvents,
  type GatewayOptions,
  type GatewayShardingOptions,
  type GatewayStatus,
  type GatewayWiring,
  type ResolvedGatewayOptions,
} from './options.js';
import { GatewayDispatch } from './protocol.js';
import { MAX_REMEMBERED_INTERACTION_TOKENS, SecretBook } from './secrets.js';
import { errorTexts, scrubError } from '../core/redact.js';
import { identifyGate, SessionBudget } from './session-budget.js';
import type { GatewaySessionRecord } from './gateway-session-store.js';
import { DispatchPublisher, publishFailure, type DispatchSink, type PublishOptions } from './publisher.js';
import { resolveShardPlan, type ShardPlan } from './shard-plan.js';
import { connectionHost, localShard, overallStatus, sessionRecordOf, type ShardHandle, type ShardHost, type ShardInfo } from './shards.js';
import { stopShards } from './closing.js';
import { checkConnectOptions, joinFleet } from './connect-checks.js';
import { autoReshardInterval, checkReshard, withCount, type ShardSet } from './reshard.js';
import { ShardSets } from './shard-sets.js';
import { stopAttempts } from './shard-start.js';
import { answerable, deliverClaimed, recordingAnswers } from './fleet.js';
import { emitFleetEvent } from './fleet-events.js';
import { answeringStore, OutageReporter, recoveredLine, SETTLE_MS } from './outages.js';
import { emitReport } from './report.js';

/** The Gateway: connection state, events, and typed interaction handlers. */
export class Gateway extends InteractionHost<GatewayEvents> {
  readonly #options: ResolvedGatewayOptions;
  readonly #wiring: GatewayWiring;
  /** The bot token and recent interaction tokens, scrubbed from everything this Gateway emits. */
  readonly #secrets: SecretBook;
  readonly #sharding: GatewayShardingOptions;
  /** Paces Identify of the shards (and of the single connection when `identifyThrottle` is given). */
  readonly #throttle: IdentifyThrottle;
  /** Guards the daily session start budget before each Identify; `undefined` when off. */
  readonly #budget: SessionBudget | undefined;
  /** The shard set that dispatches (with a coordinator, its `fleet`: the leases that gate every dispatch), and the one a reshard starts. */
  readonly #sets: ShardSets;
  #publisher: DispatchPublisher | undefined;
  #loading: Promise<ShardHandle[]> | undefined;
  /** Builds interactions from INTERACTION_CREATE; loaded with the connection (it pulls in zod). */
  #fromDispatch: ((payload: unknown) => InteractionFromDispatch) | undefined;
  /** What a shard set admitted goes to: one function for every dispatch, not a closure per dispatch. */
  readonly #admitted = (event: GatewayDispatchEvent, set: ShardSet, claimed?: boolean): void => this.#onDispatch(event, set, claimed);
  #destroyed = false;
  /** Builds a shard of a set, in this thread or in a worker (loaded with the connection). */
  #newShard!: (id: number, plan: ShardPlan, set?: ShardSet) => ShardHandle;

  /** @internal Built by the client: use `client.gateway` (or `createTestGateway()` from the testing kit). */
  constructor(options: GatewayOptions, wiring: GatewayWiring) {
    super();
    this.#options = resolveGatewayOptions(options, wiring.defaultUrl);
    this.#sharding = shardingOptions(options);
    const { sessionStartReserve, identifyThrottle } = options;
    const stored = this.#sharding.sessionStore; // its failures are reported once per outage, ended by its next answer
    const sessionStore = (this.#sharding.sessionStore = stored && answeringStore(stored, () => this.#storeReports.answered()));
    this.#budget =
      wiring.sessionStartLimit === undefined || sessionStartReserve === false
        ? undefined
        : new SessionBudget(wiring.sessionStartLimit, sessionStartReserve, wiring.now, (line) => this.#report({ event: 'debug', payload: line }));
    this.#throttle = identifyThrottle ?? new MemoryIdentifyThrottle({ clock: wiring.now });
    this.#wiring = wiring;
    this.#secrets = new SecretBook(wiring.now, MAX_REMEMBERED_INTERACTION_TOKENS, (line) => this.#report({ event: 'debug', payload: line }));
    // A click or submit nothing took is also a debug line (the router emits `interactionUnhandled` on this Gateway).
    this.router.on('interactionUnhandled', (event) => this.#report({ event: 'debug', payload: event.message }, event.shardId));
    this.#sets = new ShardSets({
      ...{ newShard: (id, plan, set) => this.#newShard(id, plan, set), record: (shard, set) => this.#recordOf(shard, set), store: sessionStore },
      ...{
        storeFailed: (error) => this.#storeReports.failed(error),
        storeRecovered: (event) => this.#recovered(event),
        report: (report, shardId) => this.#report(report, shardId),
      },
      now: () => wiring.now(),
      ...{ maxShards: options.maxShards ?? DEFAULT_MAX_SHARDS, fleetEvent: (event) => emitFleetEvent(event, (name, e) => this.#emitSafely(name, e as never)) },
    });
  }

  /** The status: that of the connection, or with shards `ready` once every shard is (else the least advanced shard's). */
  get status(): GatewayStatus {
    if (this.#destroyed) return 'destroyed';
    return overallStatus(this.#sets.current.shards);
  }

  /** Milliseconds between the last heartbeat and its ACK (of the first shard), or `undefined` before the first ACK. */
  get latency(): number | undefined {
    return this.#sets.current.shards[0]?.latency;
  }

  /** When the last heartbeat ACK arrived (on the first shard), epoch milliseconds. */
  get lastAckAt(): number | undefined {
    return this.#sets.current.shards[0]?.lastAckAt;
  }

  /** The current session id (of the first shard; see {@link Gateway.shards}). */
  get sessionId(): string | undefined {
    return this.#sets.current.shards[0]?.sessionId;
  }

  /** The last dispatch sequence number received (by the first shard). */
  get sequence(): number | null {
    return this.#sets.current.shards[0]?.sequence ?? null;
  }

  /** The shards this Gateway runs, with their state (one, shard 0, without sharding); empty before `connect()`. */
  get shards(): ShardInfo[] {
    return this.#sets.current.shards.map(({ id, status, sessionId, sequence, latency, lastAckAt }) => ({
      id,
      status,
      sessionId,
      sequence,
      latency,
      lastAckAt,
    }));
  }

  /** The total number of shards across every process (1 without sharding); `undefined` until `connect()` has resolved it. */
  get shardCount(): number | undefined {
    return this.#sets.current.plan?.count;
  }

  /**
   * Connects, identifies (or resumes), and resolves when the session is READY or RESUMED. Rejects with `GatewayFatalError` on a close code that must not be
   * retried or after `maxIdentifyFailures` Identify attempts in a row without READY (a likely invalid token or intents), with `GatewayError` after
   * `connectTimeoutMs`, on `close()` or when `signal` aborts, and with `ValidationError` / `InsecureTransportError` for unusable options.
   */
  connect(options: { signal?: AbortSignal | undefined } = {}): Promise<void> {
    return observeGatewayConnect(() => this.#connect(options), this.#wiring.now);
  }

  async #connect(options: { signal?: AbortSignal | undefined }): Promise<void> {
    if (this.#destroyed) throw new GatewayError('this Gateway was destroyed; client.gateway gives a new one');
    checkConnectOptions(this.#options, this.#sharding, this.#wiring.token(), this.#wiring.allowInsecure);
    const autoMs = autoReshardInterval(this.#sharding.autoReshard);
    const loading = (this.#loading ??= this.#load());
    // A failed start (GET /gateway/bot, a worker) may be tried again.
    loading.catch(() => {
      if (this.#loading === loading) this.#loading = undefined;
    });
    try {
      await loading;
      if (this.#destroyed) throw new GatewayError('the Gateway was destroyed while connecting');
      await this.#sets.connect(options.signal);
      if (autoMs !== undefined && this.#wiring.gatewayBot) this.#sets.watch(autoMs, this.#wiring.gatewayBot, (count) => this.reshard(count));
    } catch (error) {
      throw error instanceof Error ? this.#scrubError(error) : error;
    }
  }

  async #load(): Promise<ShardHandle[]> {
    const [{ GatewayConnection }, { interactionFromDispatch }] = await Promise.all([import('./connection.js'), import('../interactions/from-dispatch.js')]);
    const { coordinator } = this.#sharding;
    const respond =
      coordinator === undefined
        ? this.#wiring.respond
        : recordingAnswers(coordinator, this.#wiring.respond, (id) => answerable([this.#sets.current.fleet, this.#sets.next?.fleet], id));
    this.#fromDispatch = (payload) => interactionFromDispatch(payload, respond, this.#wiring.now);
    const resolved = await resolveShardPlan(this.#sharding, this.#wiring.gatewayBot);
    const fleetCount = await coordinator?.shardCount?.(resolved.count); // the fleet's count wins: every process runs the same set
    const plan = fleetCount === undefined ? resolved : withCount(resolved, fleetCount);
    this.#sets.current.plan = plan;
    // With shardsPerWorker, every shard of every set (a fixed list, a fleet's leases, a reshard's next set) starts in a worker.
    const inWorkers =
      plan.perWorker === undefined ? undefined : (await import('./worker-pool.js')).workerShards(this.#options, (p, s: ShardSet) => this.#host(p, s));
    this.#newShard = (id, shardPlan, set = this.#sets.current) =>
      inWorkers?.(id, shardPlan, set) ?? localShard(id, new GatewayConnection(this.#options, connectionHost(this.#host(shardPlan, set), id, shardPlan)));
    if (coordinator !== undefined) {
      joinFleet(coordinator, this.#wiring.token());
      await this.#sets.fleetOf(this.#sets.current, coordinator).start();
      return this.#sets.current.shards;
    }
    const shards = await this.#sets.startFixed();
    if (this.#destroyed) await Promise.all(shards.map((shard) => shard.destroy()));
    return shards;
  }

  readonly #turnReports = new OutageReporter(
    'identifyThrottle',
    () => undefined, // the shard whose wait failed first reports it (an `error` event)
    (event) => this.#recovered(event),
    () => this.#wiring.now(),
    SETTLE_MS,
  );
  readonly #storeReports = new OutageReporter(
    'gatewaySession',
    (error) => {
      const texts = error instanceof Error ? [error.message] : [];
      const event = { store: 'gatewaySession' as const, error: storeErrorOf(error, this.#secrets.secretsIn(texts, this.#wiring.token())) };
      this.#report({ event: 'debug', payload: `the Gateway session store failed: ${event.error.message} (further failures are counted until it answers)` });
      this.#emitSafely('storeError', event);
    },
    (event) => this.#recovered(event),
    () => this.#wiring.now(),
    SETTLE_MS,
  );

  /** The end of an outage of the session store, the coordinator or the throttle: a `storeRecovered` event (and a debug line). */
  #recovered(event: StoreRecoveredEvent): void {
    this.#report({ event: 'debug', payload: recoveredLine(event) });
    this.#emitSafely('storeRecovered', event);
  }

  #recordOf(shard: ShardHandle, set: ShardSet): GatewaySessionRecord | undefined {
    return sessionRecordOf(shard, this.#publisher?.of(set.generation), set.fleet?.inFlight);
  }

  /** The host of a shard set; a set a reshard is starting dispatches interactions only until the switch. */
  #host(plan: ShardPlan, set: ShardSet): ShardHost {
    const throttled = plan.sharded || this.#sharding.identifyThrottle !== undefined;
    return {
      token: () => {
        const token = this.#wiring.token();
        this.#secrets.rememberBotToken(token);
        return token;
      },
      now: () => this.#wiring.now(),
      allowInsecure: this.#wiring.allowInsecure,
      emit: (report, shardId) => this.#report(report, shardId),
      dispatch: (event) => this.#sets.admit(set, event, this.#admitted),
      beforeIdentify: this.#reportedTurns(identifyGate(throttled ? this.#throttle : undefined, this.#budget, plan)),
      changed: (shardId) => {
        if (set.fleet === undefined || set.fleet.saves(shardId)) set.savers.get(shardId)?.schedule();
      },
    };
  }

  /** The Identify gate, its throttle's failures reported once per outage: the ones after the first are counted, not emitted. */
  #reportedTurns(gate: ShardHost['beforeIdentify']): ShardHost['beforeIdentify'] {
    const reports = this.#turnReports;
    return (
      gate &&
      ((shardId, signal) =>
        gate(shardId, signal).then(
          () => reports.answered(),
          (error: unknown) => {
            if (signal.aborted || error instanceof SessionBudgetError || reports.failed(error)) throw error;
            throw new CountedFailure(error instanceof Error ? error.message : String(error));
          },
        ))
    );
  }

  /** An error scrubbed (in place) of every known secret it may hold. */
  #scrubError(error: Error): Error {
    return scrubError(error, this.#secrets.secretsIn(errorTexts(error), this.#wiring.token()));
  }

  /** Publishes a shard's connection event on the diagnostics channels, and emits it scrubbed of every known secret (when listened to). */
  #report(report: ConnectionReport, shardId = 0): void {
    publishGatewayReport(report, shardId);
    if (report.event === 'reconnecting' && this.#sets.current.fleet !== undefined && !this.#sets.current.fleet.holds(shardId)) return;
    if (this.listenerCount(report.event) === 0) return;
    emitReport(report, shardId, {
      sharded: this.#sets.current.plan?.sharded === true,
      secrets: this.#secrets,
      token: this.#wiring.token(),
      scrubError: (error) => this.#scrubError(error),
      emit: (event, ...args) => this.#emitSafely(event, ...args),
    });
  }

  /** Emits; a listener that throws becomes an `error` event instead of escaping into the socket handler. */
  #emitSafely<K extends keyof GatewayEvents>(event: K, ...args: EventEmitter.EventArgs<GatewayEvents, K>): void {
    try {
      this.emit(event, ...args);
    } catch (error) {
      if (event === 'error') return;
      const message = error instanceof Error ? error.message : String(error);
      this.#report({ event: 'error', payload: new GatewayError(`a '${event}' listener threw: ${message}`, undefined, { cause: error }) });
    }
  }

  /** Emits the dispatch (redacted), and turns INTERACTION_CREATE into a typed interaction for the handlers. */
  #onDispatch(event: GatewayDispatchEvent, set: ShardSet, claimed = false): void {
    const { fleet, savers } = set;
    // Closing, or a shard handed off or whose lease may have lapsed: nothing more dispatched here (but a switch event it won).
    if (this.#destroyed || (fleet !== undefined && !claimed && !fleet.holds(event.shardId))) return;
    if (event.t === GatewayDispatch.Ready) fleet?.inFlight.reset(event.shardId); // a new session: nothing holds its sequence back
    const interaction = event.t === GatewayDispatch.InteractionCreate;
    if (interaction && this.#sets.seenTwice(event.d)) return;
    if (interaction) {
      const token = (event.d as { token?: unknown } | null | undefined)?.token;
      if (typeof token === 'string' && token !== '') this.#secrets.remember(token);
    }
    // Redaction is paid for only when someone listens, and each string is checked only against the secrets it may hold.
    if (this.listenerCount('dispatch') > 0)
      this.#emitSafely('dispatch', { t: event.t, s: event.s, d: this.#secrets.redact(event.d, this.#wiring.token()), shardId: event.shardId });
    const publisher = this.#publisher;
    if (publisher?.publishes(event.t)) {
      publisher.push(event, set.generation);
      if (!publisher.handleLocally) return;
    }
    if (!interaction || !this.#fromDispatch) return;
    const built = this.#fromDispatch(event.d);
    if (!built.ok) return this.#report({ event: 'error', payload: built.error }, event.shardId);
    if (fleet === undefined) return void this.router.handle(built.interaction, event.shardId);
    deliverClaimed(fleet, event, built.interaction, {
      deliver: (interaction, shardId) => this.router.handle(interaction, shardId),
      skipped: (line, shardId) => this.#report({ event: 'debug', payload: line }, shardId),
      savers,
    });
  }

  /**
   * Reshards while serving: identifies `count` shards in the background (under the Identify throttle and the session start budget) while the current set
   * keeps serving; once every new shard is READY, switches (the current set stops dispatching, then closes with 1000, its stored sessions forgotten). An
   * interaction arriving on both sets during the overlap runs once. Resolves after the switch; rejects (`ValidationError`, or what a new shard's connect
   * rejected with) with the current set still serving. In a fleet (a `coordinator`), the members agree on the new count through it and each switches its own
   * shards; it resolves once `count` shards run across the members.
   */
  async reshard(count: number, options: { signal?: AbortSignal | undefined } = {}): Promise<void> {
    const { coordinator } = this.#sharding;
    const plan = checkReshard(count, this.#sets.current.plan, coordinator, this.#sharding.maxShards);
    await (coordinator === undefined ? this.#sets.reshard(plan, options.signal) : this.#sets.reshardFleet(coordinator, count, options.signal));
  }

  /**
   * Publishes every dispatch (but READY and RESUMED, unless `types` says otherwise) to `sink`, in order per shard, for workers
   * (`createRedisEventStream()`, `createEventWorker()` of `community-chat-sdk/redis`); no handler of this process runs unless
   * `handleLocally`. A shard's saved session counts a dispatch once it is published: a successor resumes from there and the
   * service replays the rest. A failing sink is tried again in order (an `error` event each time). Call it before `connect()`.
   */
  publishTo(sink: DispatchSink, options: PublishOptions = {}): this {
    this.#publisher?.stop();
    this.#publisher = new DispatchPublisher(sink, options, {
      changed: (shardId, generation) => this.#sets.published(shardId, generation),
      failed: (error, shardId) => this.#report({ event: 'error', payload: publishFailure(error) }, shardId),
    });
    return this;
  }

  /**
   * Closes the connection (every shard) for good, clearing every timer and listener. Safe to call more than once.
   * `client.close()` calls it; `client.gateway` then gives a new Gateway.
   *
   * By default each socket closes with 1000, which ends the session on the service's side (Discord's rule), and the session
   * store forgets it. With `handOff: true` (a deploy: the successor takes over), dispatching stops, each shard's session id,
   * last sequence and resume URL are saved to the session store, and each socket closes with 4000, which keeps the session
   * resumable: a successor with the same store and shard ids resumes it, the service replays what it missed, no Identify.
   * In a fleet, the interactions being handled here settle first (at most `drainTimeoutMs`), while the leases are renewed.
   */
  async close(options: GatewayCloseOptions = {}): Promise<void> {
    const handOff = checkCloseOptions('gateway.close', options).handOff === true;
    if (handOff && this.#sharding.sessionStore === undefined && this.#sets.current.shards.length > 0)
      this.#report({ event: 'debug', payload: 'handing off without a gateway.sessionStore: no successor can find the sessions' });
    this.#destroyed = true;
    await this.#loading?.catch(() => undefined); // a start under way finishes first, so that what it started is stopped here
    await this.#sets.close();
    const report = (line: string) => this.#report({ event: 'debug', payload: line });
    const parts = {
      shards: this.#sets.current.shards,
      inFlight: this.#sets.current.fleet?.inFlight,
      publisher: this.#publisher,
      savers: this.#sets.current.savers,
      report,
    };
    const stopAll = () => stopShards(parts, handOff, options.drainTimeoutMs ?? 10_000);
    try {
      await (this.#sets.current.fleet === undefined ? stopAll() : this.#sets.current.fleet.close(stopAll));
    } finally {
      stopAttempts(this.#sets.current.shards); // a leased shard's retry waiting (to be created, to connect): none once closed
    }
    await this.router.close();
    this.removeAllListeners();
  }

  /** `await using gateway = client.gateway` closes it at the end of the scope. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /** @internal Redacted view for `util.inspect`. (Node finds it by its registered symbol). */
  [inspectSymbol](): string {
    const shards = this.#sets.current.plan?.sharded
      ? `, shards: ${this.#sets.current.shards.map((shard) => shard.id).join(',')} of ${this.#sets.current.plan.count}`
      : '';
    return `Gateway { status: ${this.status}, sessionId: ${this.sessionId ?? 'none'}, latency: ${this.latency ?? 'n/a'}${shards} }`;
  }
}
