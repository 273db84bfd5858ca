/**
 * The Gateway handle a client exposes. It holds the options, the events and
 * the interaction handlers; the WebSocket connection itself (with `ws`, the
 * protocol state machine and the interaction classes) loads on `connect()`,
 * so importing the SDK does not pay for it.
 *
 * @module
 */

import { EventEmitter } from 'eventemitter3';
import { GatewayError, ValidationError } from '../errors/index.js';
import { inspectSymbol } from '../core/redact.js';
import type { InteractionFromDispatch } from '../interactions/from-dispatch.js';
import { InteractionRouter } from '../interactions/router.js';
import type { CommandOptionValues, TypedCommandDefinition } from '../interactions/options.js';
import type { CommandInteraction, Interaction, InteractionByKind, InteractionKind } from '../interactions/interaction.js';
import type { ConnectionReport } from './connection-host.js';
import { storeErrorOf } from '../observe/events.js';
import { observeGatewayConnect, publishGatewayReport } from '../observe/gateway.js';
import { MemoryIdentifyThrottle, type IdentifyThrottle } from './identify-throttle.js';
import {
  resolveGatewayOptions,
  type GatewayCloseOptions,
  type GatewayDispatchEvent,
  type GatewayEvents,
  type GatewayOptions,
  type GatewayShardingOptions,
  type GatewayStatus,
  type GatewayWiring,
  type InteractionErrorEvent,
  type InteractionHandler,
  type ResolvedGatewayOptions,
} from './options.js';
import { GatewayDispatch } from './protocol.js';
import { SecretBook, scrubError } from './secrets.js';
import { SessionBudget } from './session-budget.js';
import { restoreSessions, type SessionSaver } from './gateway-session-store.js';
import { DispatchPublisher, type DispatchSink, type PublishOptions } from './publisher.js';
import { checkShardingOptions, resolveShardPlan, type ShardPlan } from './shard-plan.js';
import { connectShards, connectionHost, localShard, overallStatus, sessionRecordOf, type ShardHandle, type ShardHost, type ShardInfo } from './shards.js';
import { checkGatewayUrl, upgradeHeaders } from './transport.js';

export type { ShardInfo } from './shards.js';
export type { GatewayCloseOptions } from './options.js';

/** The Gateway: connection state, events, and typed interaction handlers. */
export class Gateway extends EventEmitter<GatewayEvents> {
  readonly #options: ResolvedGatewayOptions;
  readonly #wiring: GatewayWiring;
  /** The handlers registered with `gateway.onCommand` / `gateway.onInteraction`. */
  readonly #router = new InteractionRouter();
  /** Routers added with `use()`, run after the Gateway's own. */
  readonly #routers = new Set<InteractionRouter>();
  /** The bot token and recent interaction tokens, scrubbed from everything this Gateway emits. */
  readonly #secrets: SecretBook;
  readonly #sharding: GatewayShardingOptions;
  /** Paces Identify of the shards (and of the single connection when `identifyThrottle` is given). */
  readonly #throttle: IdentifyThrottle;
  /** Guards the daily session start budget before each Identify; `undefined` when off. */
  readonly #budget: SessionBudget | undefined;
  #plan: ShardPlan | undefined;
  #shards: ShardHandle[] = [];
  readonly #savers = new Map<number, SessionSaver>();
  #publisher: DispatchPublisher | undefined;
  #loading: Promise<ShardHandle[]> | undefined;
  /** Builds interactions from INTERACTION_CREATE; loaded with the connection (it pulls in zod). */
  #fromDispatch: ((payload: unknown) => InteractionFromDispatch) | undefined;
  #destroyed = false;

  /** @internal Built by the client: use `client.gateway` (or `createTestGateway()` from the testing kit). */
  constructor(options: GatewayOptions, wiring: GatewayWiring) {
    super();
    this.#options = resolveGatewayOptions(options, wiring.defaultUrl);
    const { shards, shardCount, maxConcurrency, shardsPerWorker, identifyThrottle, sessionStore, sessionStartReserve } = options;
    this.#sharding = { shards, shardCount, maxConcurrency, shardsPerWorker, identifyThrottle, sessionStore };
    const read = wiring.sessionStartLimit;
    this.#budget =
      read === undefined || sessionStartReserve === false
        ? undefined
        : new SessionBudget(read, sessionStartReserve, wiring.now, (line) => this.#report({ event: 'debug', payload: line }));
    this.#throttle = identifyThrottle ?? new MemoryIdentifyThrottle({ clock: wiring.now });
    this.#wiring = wiring;
    this.#secrets = new SecretBook(wiring.now);
  }

  /** The status: that of the connection, or with shards `ready` once every shard is (else the least advanced shard's). */
  get status(): GatewayStatus {
    if (this.#destroyed) return 'destroyed';
    return overallStatus(this.#shards);
  }

  /** Milliseconds between the last heartbeat and its ACK (of the first shard), or `undefined` before the first ACK. */
  get latency(): number | undefined {
    return this.#shards[0]?.latency;
  }

  /** When the last heartbeat ACK arrived (on the first shard), epoch milliseconds. */
  get lastAckAt(): number | undefined {
    return this.#shards[0]?.lastAckAt;
  }

  /** The current session id (of the first shard; see {@link Gateway.shards}). */
  get sessionId(): string | undefined {
    return this.#shards[0]?.sessionId;
  }

  /** The last dispatch sequence number received (by the first shard). */
  get sequence(): number | null {
    return this.#shards[0]?.sequence ?? null;
  }

  /** The shards this Gateway runs, with their state (one, shard 0, without sharding); empty before `connect()`. */
  get shards(): ShardInfo[] {
    return this.#shards.map(({ id, status, sessionId, sequence, latency, lastAckAt }) => ({ id, status, sessionId, sequence, latency, lastAckAt }));
  }

  /** The total number of shards across every process (1 without sharding); `undefined` until `connect()` has resolved it. */
  get shardCount(): number | undefined {
    return this.#plan?.count;
  }

  /**
   * Handles interactions of one kind; the handler's parameter is narrowed to
   * that kind. Exceptions and rejections become `interactionError` events.
   * Returns a function that removes the handler.
   */
  onInteraction<K extends InteractionKind>(kind: K, handler: InteractionHandler<InteractionByKind[K]>): () => void {
    return this.#router.onInteraction(kind, handler);
  }

  /** Handles one slash command by name. Returns a function that removes the handler. */
  onCommand(name: string, handler: InteractionHandler<CommandInteraction>): () => void;
  /** Handles one slash command by its definition (from `defineCommand`), which types `interaction.options`. */
  onCommand<D extends TypedCommandDefinition>(command: D, handler: InteractionHandler<CommandInteraction<CommandOptionValues<D>>>): () => void;
  onCommand(command: TypedCommandDefinition | string, handler: InteractionHandler<CommandInteraction<never>>): () => void {
    return this.#router.onCommand(command as string, handler as InteractionHandler<CommandInteraction>);
  }

  /**
   * Runs the handlers of a shared {@link InteractionRouter} (from
   * `createInteractionRouter()`) for every interaction this Gateway receives,
   * after its own. Their errors are emitted as `interactionError` on the
   * router and on this Gateway. Returns a function that stops using it.
   */
  use(router: InteractionRouter): () => void {
    this.#routers.add(router);
    return () => {
      this.#routers.delete(router);
    };
  }

  /**
   * Runs the handlers of an interaction: first it is offered to the pending `awaitComponent` / `awaitModalSubmit` waits (one
   * that takes it is the only one to see it: no `interactionCreate` listener or handler runs); then `interactionCreate`
   * listeners, the handlers of its kind, and for commands those of its name, then those of every router added with `use()`.
   * A click or submit nothing took is held briefly for a wait about to register, then reported (`interactionUnhandled` and a
   * `debug` line). Nothing a handler throws escapes: it is emitted as `interactionError`. Resolves once every handler has
   * settled; never rejects.
   */
  deliver(interaction: Interaction, shardId = 0): Promise<void> {
    // A click or submit a pending wait takes goes to that wait only: no interactionCreate listener or handler sees it.
    if (this.#router.offerToWaits(interaction)) return Promise.resolve();
    const listened = this.listenerCount('interactionCreate') > 0;
    try {
      this.emit('interactionCreate', interaction, shardId);
    } catch (error) {
      this.#reportHandlerError({ error, interaction });
    }
    const routers = this.#routers.size === 0 ? [this.#router] : [this.#router, ...this.#routers];
    const handled = listened || routers.some((router) => router.wouldHandle(interaction));
    const running = routers.map((router) => router.dispatch(interaction, (event) => this.#reportHandlerError(event)));
    // Nothing took a click or submit: held briefly for a wait about to register, then reported.
    this.#router.holdUnclaimed(interaction, handled, (event) => {
      this.#report({ event: 'debug', payload: event.message }, shardId);
      this.#emitSafely('interactionUnhandled', event);
    });
    // One router (no use()): its promise already settles with undefined and never rejects; no Promise.all per interaction.
    return running.length === 1 ? (running[0] as Promise<void>) : Promise.all(running).then(() => undefined);
  }

  #reportHandlerError(event: InteractionErrorEvent): void {
    try {
      this.emit('interactionError', event);
    } catch {
      // A throwing interactionError listener must not crash the connection either.
    }
  }

  /**
   * Connects, identifies (or resumes), and resolves when the session is READY
   * or RESUMED. Rejects with `GatewayFatalError` on a close code that must not
   * be retried or after `maxIdentifyFailures` Identify attempts in a row
   * without READY (a likely invalid token or intents), with `GatewayError`
   * after `connectTimeoutMs`, on `close()` or when `signal` aborts, and with
   * `ValidationError` / `InsecureTransportError` for unusable options.
   */
  connect(options: { signal?: AbortSignal | undefined } = {}): Promise<void> {
    return observeGatewayConnect(() => this.#connect(options), this.#wiring.now);
  }

  async #connect(options: { signal?: AbortSignal | undefined }): Promise<void> {
    if (this.#destroyed) throw new GatewayError('this Gateway was destroyed; client.gateway gives a new one');
    if (this.#wiring.token() === undefined) {
      throw new ValidationError('gateway.connect', [{ path: 'auth.botToken', message: 'the Gateway identifies with the bot token; the client has none' }]);
    }
    checkGatewayUrl(this.#options.url, this.#wiring.allowInsecure);
    upgradeHeaders(this.#options.headers);
    if (!Number.isInteger(this.#options.maxIdentifyFailures) || this.#options.maxIdentifyFailures < 1) {
      throw new ValidationError('gateway.connect', [{ path: 'gateway.maxIdentifyFailures', message: 'must be a whole number of at least 1' }]);
    }
    checkShardingOptions(this.#sharding);
    const loading = (this.#loading ??= this.#load());
    // A failed start (GET /gateway/bot, a worker) may be tried again.
    loading.catch(() => {
      if (this.#loading === loading) this.#loading = undefined;
    });
    try {
      const shards = await loading;
      if (this.#destroyed) throw new GatewayError('the Gateway was destroyed while connecting');
      await connectShards(shards, this.#plan?.maxConcurrency ?? 1, options.signal);
    } catch (error) {
      throw error instanceof Error ? this.#scrubError(error) : error;
    }
  }

  async #load(): Promise<ShardHandle[]> {
    const [{ GatewayConnection }, { interactionFromDispatch }] = await Promise.all([import('./connection.js'), import('../interactions/from-dispatch.js')]);
    this.#fromDispatch = (payload) => interactionFromDispatch(payload, this.#wiring.respond, this.#wiring.now);
    const plan = await resolveShardPlan(this.#sharding, this.#wiring.gatewayBot);
    this.#plan = plan;
    const host = this.#host(plan);
    let shards: ShardHandle[];
    if (plan.perWorker === undefined) {
      shards = plan.ids.map((id) => localShard(id, new GatewayConnection(this.#options, connectionHost(host, id, plan))));
    } else {
      const { startShardWorkers } = await import('./worker-pool.js');
      shards = await startShardWorkers(plan, this.#options, host);
    }
    const store = this.#sharding.sessionStore;
    if (store) {
      const savers = await restoreSessions(
        store,
        shards,
        plan.count,
        (shard) => sessionRecordOf(shard, this.#publisher),
        (error) => this.#storeFailed(error),
      );
      for (const [id, saver] of savers) this.#savers.set(id, saver);
    }
    this.#shards = shards;
    if (this.#destroyed) await Promise.all(shards.map((shard) => shard.destroy()));
    return shards;
  }

  #storeFailed(error: unknown): undefined {
    const texts = error instanceof Error ? [error.message] : [];
    const event = { store: 'gatewaySession' as const, error: storeErrorOf(error, this.#secrets.secretsIn(texts, this.#wiring.token())) };
    this.#report({ event: 'debug', payload: `the Gateway session store failed: ${event.error.message}` });
    this.#emitSafely('storeError', event);
    return undefined;
  }

  #host(plan: ShardPlan): ShardHost {
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
      dispatch: (event) => this.#onDispatch(event),
      beforeIdentify: this.#beforeIdentify(throttled, plan),
      changed: (shardId) => this.#savers.get(shardId)?.schedule(),
    };
  }

  /** What a shard waits for before it identifies: its turn under the throttle (when sharded or given one), then the session start budget. */
  #beforeIdentify(throttled: boolean, plan: ShardPlan): ShardHost['beforeIdentify'] {
    const budget = this.#budget;
    const turn = (shardId: number, signal: AbortSignal) =>
      this.#throttle.wait({ shardId, shardCount: plan.count, maxConcurrency: plan.maxConcurrency, signal });
    if (budget === undefined) return throttled ? turn : undefined;
    return throttled ? (shardId, signal) => turn(shardId, signal).then(() => budget.take()) : () => budget.take();
  }

  /** An error scrubbed (in place) of every known secret it may hold. */
  #scrubError(error: Error): Error {
    return scrubError(error, this.#secrets.secretsIn([error.message, error.stack ?? ''], this.#wiring.token()));
  }

  /** Publishes a shard's connection event on the diagnostics channels, and emits it scrubbed of every known secret (when listened to). */
  #report(report: ConnectionReport, shardId = 0): void {
    publishGatewayReport(report, shardId);
    if (this.listenerCount(report.event) === 0) return;
    const current = this.#wiring.token();
    switch (report.event) {
      case 'debug': {
        const line = this.#plan?.sharded === true ? `[shard ${shardId}] ${report.payload}` : report.payload;
        this.#emitSafely('debug', this.#secrets.scrubText(line, current));
        return;
      }
      case 'error':
        this.#emitSafely('error', this.#scrubError(report.payload));
        return;
      case 'ready':
        this.#emitSafely('ready', { ...report.payload, data: this.#secrets.redact(report.payload.data, current) as Record<string, unknown>, shardId });
        return;
      case 'close':
        this.#emitSafely('close', { ...report.payload, reason: this.#secrets.scrubText(report.payload.reason, current), shardId });
        return;
      case 'reconnecting':
        this.#emitSafely('reconnecting', { ...report.payload, reason: this.#secrets.scrubText(report.payload.reason, current), shardId });
        return;
      case 'resumed':
        this.#emitSafely('resumed', { ...report.payload, shardId });
    }
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
  #onDispatch(event: GatewayDispatchEvent): void {
    // Closing (a hand-off above all): nothing more is dispatched here; a successor resumes from the saved sequence.
    if (this.#destroyed) return;
    const interaction = event.t === GatewayDispatch.InteractionCreate;
    if (interaction) {
      const token = (event.d as { token?: unknown } | null | undefined)?.token;
      if (typeof token === 'string' && token !== '') this.#secrets.remember(token);
    }
    // Redaction is paid for only when someone listens, and each string is checked only against the secrets it may hold.
    if (this.listenerCount('dispatch') > 0)
      this.#emitSafely('dispatch', { t: event.t, s: event.s, d: this.#secrets.redact(event.d, this.#wiring.token()), shardId: event.shardId });
    const publisher = this.#publisher;
    if (publisher?.publishes(event.t)) {
      publisher.push(event);
      if (!publisher.handleLocally) return;
    }
    if (!interaction || !this.#fromDispatch) return;
    const built = this.#fromDispatch(event.d);
    if (built.ok) void this.deliver(built.interaction, event.shardId);
    else this.#report({ event: 'error', payload: built.error }, event.shardId);
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
      changed: (shardId) => this.#savers.get(shardId)?.schedule(),
      failed: (error, shardId) =>
        this.#report(
          {
            event: 'error',
            payload: new GatewayError(`publishing dispatches failed (tried again): ${error instanceof Error ? error.message : String(error)}`),
          },
          shardId,
        ),
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
   */
  async close(options: GatewayCloseOptions = {}): Promise<void> {
    const handOff = options.handOff === true;
    if (handOff && this.#sharding.sessionStore === undefined && this.#shards.length > 0) {
      this.#report({ event: 'debug', payload: 'handing off without a gateway.sessionStore: no successor can find the sessions to resume' });
    }
    this.#destroyed = true;
    await Promise.all(this.#shards.map((shard) => shard.destroy({ handOff })));
    // What was received is published before the sessions are saved (at most 2 s); the rest the successor's resume replays.
    await this.#publisher?.flush(2000);
    this.#publisher?.stop();
    for (const saver of this.#savers.values()) {
      if (handOff) saver.schedule();
      else saver.end();
    }
    // What a successor needs (or that there is nothing to resume) reaches the store before close() resolves.
    await Promise.all([...this.#savers.values()].map((saver) => saver.flush()));
    await this.#router.close();
    this.#routers.clear();
    this.removeAllListeners();
  }

  /** `await using gateway = client.gateway` closes it at the end of the scope. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /** Redacted view for `util.inspect`. */
  [inspectSymbol](): string {
    const shards = this.#plan?.sharded ? `, shards: ${this.#shards.map((shard) => shard.id).join(',')} of ${this.#plan.count}` : '';
    return `Gateway { status: ${this.status}, sessionId: ${this.sessionId ?? 'none'}, latency: ${this.latency ?? 'n/a'}${shards} }`;
  }
}
