/**
 * The Gateway's options, status and event types, and the one place where the
 * options get their defaults.
 *
 * @module
 */

import type { ShardCoordinator } from './coordinator.js';
import type { FleetEvents } from './fleet-events.js';
import type { Interaction } from '../interactions/interaction.js';
import type { InteractionResponder } from '../interactions/types.js';
import type { InteractionRouterEvents } from '../interactions/router-events.js';
import type { IdentifyThrottle } from './identify-throttle.js';
import { MIN_HEARTBEAT_INTERVAL_MS } from './protocol.js';
import type { GatewaySessionStore } from './gateway-session-store.js';
import { resolveCompression, type GatewayCompression } from './compression.js';
import type { StoreErrorEvent, StoreRecoveredEvent } from '../observe/events.js';
import { checkCount, checkDuration, optionNames, refuseUnknownOptions, DEFAULT_MAX_SHARDS, MAX_SHARDS_LIMIT } from '../core/bounds.js';
import { ValidationError } from '../errors/index.js';

/** Status of the Gateway connection. */
export type GatewayStatus = 'idle' | 'connecting' | 'identifying' | 'resuming' | 'ready' | 'reconnecting' | 'destroyed';

/** Options of every Gateway connection (each shard's, when sharded). */
export interface GatewayConnectionOptions {
  /** The Gateway URL. @default the base URL with a ws(s) scheme and the path /api/v1/gateway */
  url?: string | undefined;
  /** Gateway intents sent with Identify. INTERACTION_CREATE needs none. @default 0 */
  intents?: number | undefined;
  /** Fails `connect()` if no session is ready within this time. @default 60000 */
  connectTimeoutMs?: number | undefined;
  /** Time allowed for the WebSocket to open. @default 15000 */
  openTimeoutMs?: number | undefined;
  /** Time allowed between open and Hello. @default 10000 */
  helloTimeoutMs?: number | undefined;
  /** Time allowed between Identify or Resume and READY or RESUMED. @default 15000 */
  readyTimeoutMs?: number | undefined;
  /** First reconnect backoff ceiling, milliseconds; doubles each attempt. @default 1000 */
  reconnectBaseDelayMs?: number | undefined;
  /** Largest reconnect backoff ceiling, milliseconds; also caps the delay a Reconnect (op 7) asks for in `d`. @default 30000 */
  reconnectMaxDelayMs?: number | undefined;
  /**
   * Identify attempts in a row that may end without READY (whatever the close
   * code, or a READY timeout) before the Gateway stops and `connect()` rejects
   * with a `GatewayFatalError` naming the likely cause (an invalid token or
   * intents). An Identify the service refused for pacing (Invalid Session
   * before READY, or close 4008) is not counted: the `reconnecting` event says
   * it came too early. The count resets only on READY. @default 3
   */
  maxIdentifyFailures?: number | undefined;
  /**
   * Extra headers for the WebSocket upgrade request. The SDK always sends
   * `User-Agent: community-chat-sdk/<version>`; a `User-Agent` given here is
   * appended after that product token (`community-chat-sdk/0.1.0 my-bot/2.0`),
   * never replacing it. Handshake headers (`Host`, `Connection`, `Upgrade`,
   * `Sec-WebSocket-*`) are refused. @default {}
   */
  headers?: Readonly<Record<string, string>> | undefined;
  /**
   * The shortest `heartbeat_interval` a Hello may announce, milliseconds; a
   * shorter one is a protocol error (an `error` event and a reconnect), so a
   * broken server cannot make the SDK beat every millisecond. Lower it only to
   * test against a fast local server. @default 1000
   */
  minHeartbeatIntervalMs?: number | undefined;
  /**
   * Whether to resume on a READY's `resume_gateway_url` (Discord gives a
   * different host). It must still pass the transport rule of the configured
   * URL (`wss:`, or `ws:` to loopback) and carry no credentials; `false`
   * always resumes on the configured URL. A boolean (not a function) because
   * it also reaches shard workers. @default true
   */
  trustResumeUrl?: boolean | undefined;
  /** A source of numbers in [0, 1) for jitter. @default Math.random */
  random?: (() => number) | undefined;
  /**
   * Gateway transport compression, asked for with `compress=` on the Gateway
   * URL (Discord's parameter): `'zstd-stream'` or `'zlib-stream'` (one
   * decompression context per connection, a new one on each reconnect; a
   * message that inflates past 16 MiB, or a corrupt stream, is an `error`
   * event and a reconnect), or `'none'`. `'zstd-stream'` needs zstd in
   * `node:zlib` (Node 22.15 or later): asked for elsewhere, the Gateway's
   * constructor throws a `ValidationError`. Shard workers use the same.
   * @default the best available: 'zstd-stream' where node:zlib has zstd, else 'zlib-stream'
   */
  compression?: GatewayCompression | undefined;
}

/**
 * Sharding (Discord's scheme): each shard is one connection that identifies
 * with `shard: [id, count]` and receives the events of the communities with
 * `(guild_id >> 22) % count === id` (DMs go to shard 0).
 */
export interface GatewayShardingOptions {
  /**
   * The shards this Gateway runs: `'auto'` runs every shard of `shardCount`;
   * an array runs those ids only (another process runs the others).
   * @default undefined: no sharding, one connection whose Identify carries no `shard`
   */
  shards?: 'auto' | readonly number[] | undefined;
  /** The total number of shards, across every process (at most `maxShards`). @default the `shards` of `GET /gateway/bot` */
  shardCount?: number | undefined;
  /**
   * The most shards this Gateway accepts in total: `shardCount`, the ids in `shards`, `gateway.reshard(count)`, and the
   * count `GET /gateway/bot` recommends (for `'auto'` and `autoReshard`) are refused past it (a `ValidationError`
   * naming it, or a `GatewayError` for the service's count), so a typo or a broken service cannot make the process
   * plan and open 100,000 shards (it blocks the event loop for seconds, or runs out of memory). Raise it (up to
   * 65536) for a bot that really needs more. @default 10000 (`DEFAULT_MAX_SHARDS`, shared with the shard coordinator)
   */
  maxShards?: number | undefined;
  /**
   * How many shards may identify at once: shard `id` identifies in bucket
   * `id % maxConcurrency`, at most once per 5 s per bucket.
   * @default the `session_start_limit.max_concurrency` of `GET /gateway/bot` (1 when it does not say)
   */
  maxConcurrency?: number | undefined;
  /**
   * Runs the shards in `worker_threads`, this many per worker (the sockets,
   * heartbeats and frame parsing move off the main thread; interactions are
   * still built, handled and answered on the main thread, through this client).
   * With a `coordinator`, each shard this process takes is placed in a worker
   * with room (a new worker when all are full) and a worker ends once its last
   * shard is handed off or lost.
   * @default undefined: every shard in the current thread
   */
  shardsPerWorker?: number | undefined;
  /**
   * Paces Identify: one per 5 s per concurrency bucket. Pass
   * `createRedisIdentifyThrottle()` (`community-chat-sdk/redis`) to pace
   * several processes or hosts together.
   * @default an in-memory throttle of this Gateway
   */
  identifyThrottle?: IdentifyThrottle | undefined;
  /**
   * Where each shard's session (id, sequence, resume URL) is kept, so that a
   * shard restarted in another process resumes it instead of identifying.
   * Pass `createRedisGatewaySessionStore()` to share it between processes.
   * @default undefined: sessions live in this Gateway only
   */
  sessionStore?: GatewaySessionStore | undefined;
  /**
   * Session starts of the daily budget (`session_start_limit` of
   * `GET /gateway/bot`) never spent: before each Identify the Gateway asks
   * the service how many are left, and below this it does not identify
   * (`SessionBudgetError`, reported as `error`; `connect()` rejects with it)
   * until the budget resets. A bot that identifies past the limit has its
   * token reset. Resumes do not count. `false` turns the guard off.
   * @default 5% of the daily total, at least 1 (50 of Discord's 1,000)
   */
  sessionStartReserve?: number | false | undefined;
  /**
   * Shares the shards among live processes (`createRedisShardCoordinator()` of
   * `community-chat-sdk/redis`): each process holds a lease per shard and
   * renews it; a process that dies loses its leases after `leaseMs` and the
   * others take its shards over, resuming their stored sessions (set
   * `sessionStore` too); a process joining or leaving rebalances by hand-off.
   * A process paused past its lease stops dispatching on its shards the
   * moment it wakes. Interactions are claimed through the coordinator, so a
   * replay after a failover runs once. Needs `shards: 'auto'` (or unset)
   * and runs the shards in this thread (not with `shardsPerWorker`).
   * @default undefined: this process runs the shards its options name
   */
  coordinator?: ShardCoordinator | undefined;
  /**
   * Reshards on its own (see `gateway.reshard()`) when `GET /gateway/bot` recommends more shards than run, asked every
   * `intervalMs` (`true`: every hour). Never fewer shards. For a Gateway that runs every shard, or a fleet (each process asks;
   * the fleet reshards once).
   * @default false
   */
  autoReshard?: boolean | AutoReshardOptions | undefined;
}

/** Options of `gateway.close()` and `client.close()`. */
export interface GatewayCloseOptions {
  /**
   * Keep every session resumable for a successor (a deploy): save the
   * sessions to `gateway.sessionStore` and close with 4000 instead of 1000.
   * @default false (the sessions end)
   */
  handOff?: boolean | undefined;
  /**
   * In a fleet (`coordinator`), how long closing waits for the interactions this process is handling to settle, after it stops
   * dispatching and before it saves the sessions and gives the leases back: their claims are this process's, so a successor
   * skips their replay while it lives. Past it, they are left to the session's replay.
   * @default 10000
   */
  drainTimeoutMs?: number | undefined;
}

/** Options of `gateway.autoReshard`. */
export interface AutoReshardOptions {
  /** How often `GET /gateway/bot` is asked, milliseconds (at least 1000). @default 3600000 */
  intervalMs?: number | undefined;
}

/** Options of the Gateway. */
export interface GatewayOptions extends GatewayConnectionOptions, GatewayShardingOptions {}

/** The names of every Gateway option: any other is refused. */
const GATEWAY_OPTIONS = optionNames<GatewayOptions>({
  ...{ url: true, intents: true, connectTimeoutMs: true, openTimeoutMs: true, helloTimeoutMs: true, readyTimeoutMs: true, compression: true },
  ...{ reconnectBaseDelayMs: true, reconnectMaxDelayMs: true, maxIdentifyFailures: true, headers: true, minHeartbeatIntervalMs: true },
  ...{ trustResumeUrl: true, random: true, shards: true, shardCount: true, maxShards: true, maxConcurrency: true, shardsPerWorker: true },
  ...{ identifyThrottle: true, sessionStore: true, sessionStartReserve: true, coordinator: true, autoReshard: true },
});

const AUTO_RESHARD_OPTIONS = optionNames<AutoReshardOptions>({ intervalMs: true });
const CLOSE_OPTIONS = optionNames<GatewayCloseOptions>({ handOff: true, drainTimeoutMs: true });

/** The durations of a Gateway, each at most `MAX_TIMER_MS`. */
const DURATIONS = ['connectTimeoutMs', 'openTimeoutMs', 'helloTimeoutMs', 'readyTimeoutMs', 'reconnectBaseDelayMs', 'reconnectMaxDelayMs'] as const;

/**
 * Refuses Gateway options it cannot run with, before any I/O: an unknown name, a duration a timer cannot honour (past
 * 2^31 - 1 ms it fires at once), a count that is not a whole number within bounds; a `ValidationError` naming the
 * option as `gateway.<name>`. The `Client` calls it when built, and `connect()` again.
 */
export function checkGatewayOptions(operation: string, options: GatewayOptions | undefined): void {
  if (options === undefined) return;
  if (typeof options !== 'object' || options === null)
    throw new ValidationError(operation, [{ path: 'gateway', message: 'must be an object of Gateway options' }]);
  refuseUnknownOptions(`${operation} (gateway)`, options, GATEWAY_OPTIONS);
  const name = (option: string) => `gateway.${option}`;
  for (const option of DURATIONS) checkDuration(operation, name(option), options[option]);
  checkDuration(operation, name('minHeartbeatIntervalMs'), options.minHeartbeatIntervalMs, { min: 1 });
  checkCount(operation, name('intents'), options.intents);
  checkCount(operation, name('maxIdentifyFailures'), options.maxIdentifyFailures, { min: 1, max: 1000 });
  checkCount(operation, name('maxShards'), options.maxShards, { min: 1, max: MAX_SHARDS_LIMIT });
  const maxShards = options.maxShards ?? DEFAULT_MAX_SHARDS;
  checkCount(operation, name('shardCount'), options.shardCount, { min: 1, max: maxShards });
  checkCount(operation, name('maxConcurrency'), options.maxConcurrency, { min: 1, max: maxShards });
  checkCount(operation, name('shardsPerWorker'), options.shardsPerWorker, { min: 1, max: maxShards });
  if (options.sessionStartReserve !== false) checkCount(operation, name('sessionStartReserve'), options.sessionStartReserve);
  if (typeof options.autoReshard === 'object' && options.autoReshard !== null) {
    refuseUnknownOptions(`${operation} (gateway.autoReshard)`, options.autoReshard, AUTO_RESHARD_OPTIONS);
    checkDuration(operation, name('autoReshard.intervalMs'), options.autoReshard.intervalMs, { min: 1000 });
  }
}

/** Refuses close options it cannot honour (an unknown name, a `drainTimeoutMs` past `MAX_TIMER_MS`); returns them. */
export function checkCloseOptions(operation: string, options: GatewayCloseOptions): GatewayCloseOptions {
  refuseUnknownOptions(operation, options, CLOSE_OPTIONS);
  checkDuration(operation, 'drainTimeoutMs', options.drainTimeoutMs);
  return options;
}

/** Gateway connection options with their defaults filled in. */
export type ResolvedGatewayOptions = { readonly [K in keyof GatewayConnectionOptions]-?: Exclude<GatewayConnectionOptions[K], undefined> };

/** Fills in the defaults of every connection option; the only place defaults live. */
export function resolveGatewayOptions(options: GatewayConnectionOptions, defaultUrl: string): ResolvedGatewayOptions {
  return {
    url: options.url ?? defaultUrl,
    intents: options.intents ?? 0,
    connectTimeoutMs: options.connectTimeoutMs ?? 60_000,
    openTimeoutMs: options.openTimeoutMs ?? 15_000,
    helloTimeoutMs: options.helloTimeoutMs ?? 10_000,
    readyTimeoutMs: options.readyTimeoutMs ?? 15_000,
    reconnectBaseDelayMs: options.reconnectBaseDelayMs ?? 1_000,
    reconnectMaxDelayMs: options.reconnectMaxDelayMs ?? 30_000,
    maxIdentifyFailures: options.maxIdentifyFailures ?? 3,
    headers: { ...options.headers },
    minHeartbeatIntervalMs: options.minHeartbeatIntervalMs ?? MIN_HEARTBEAT_INTERVAL_MS,
    trustResumeUrl: options.trustResumeUrl ?? true,
    random: options.random ?? Math.random,
    compression: resolveCompression(options.compression),
  };
}

/** The sharding options of a Gateway's options (those the Gateway keeps as they are). */
export function shardingOptions(options: GatewayShardingOptions): GatewayShardingOptions {
  const { shards, shardCount, maxShards, maxConcurrency, shardsPerWorker, identifyThrottle, sessionStore, coordinator, autoReshard } = options;
  return { shards, shardCount, maxShards, maxConcurrency, shardsPerWorker, identifyThrottle, sessionStore, coordinator, autoReshard };
}

/** What the Gateway needs from its client. @internal */
export interface GatewayWiring {
  /** The bot token, read at each Identify and Resume. */
  token: () => string | undefined;
  /** Sends interaction callbacks. */
  respond: InteractionResponder;
  /** The default Gateway URL, derived from the client's base URL. */
  defaultUrl: string;
  /** The clock. */
  now: () => number;
  /** Whether the token may go over plain ws:// to a host that is not loopback. */
  allowInsecure: boolean;
  /** `GET /gateway/bot` (the recommended shard count and the session start limit), for sharding; without it, `shardCount` and `maxConcurrency` must be given. @default undefined */
  gatewayBot?: (() => Promise<unknown>) | undefined;
  /** `GET /gateway/bot` asked once, failing fast (no retry, a short timeout), before each Identify: the session start budget. @default undefined (no budget guard) */
  sessionStartLimit?: (() => Promise<unknown>) | undefined;
}

/** Which shard an event came from. Without sharding, every event comes from shard 0. */
export interface ShardEvent {
  /** The shard's id. */
  shardId: number;
}

/** Emitted on READY. */
export interface GatewayReadyEvent extends ShardEvent {
  /** The new session's id. */
  sessionId: string;
  /** The READY payload, with secret-named fields (e.g. `session_id`) and known secrets (the bot token) redacted. */
  data: Record<string, unknown>;
}

/** Emitted on RESUMED. */
export interface GatewayResumedEvent extends ShardEvent {
  /** How many missed dispatches the service replayed. */
  replayed: number;
}

/** Emitted before a reconnect. */
export interface GatewayReconnectingEvent extends ShardEvent {
  /** Reconnect attempt since the last READY or RESUMED, starting at 1. */
  attempt: number;
  /** Milliseconds until it starts. */
  delayMs: number;
  /** Whether it will resume the session (or identify anew). */
  resume: boolean;
  /** Why. */
  reason: string;
}

/** Emitted when the connection closes. */
export interface GatewayCloseEvent extends ShardEvent {
  /** Close code. */
  code: number;
  /** The server's close reason, with known secrets (the bot token, interaction tokens) scrubbed. */
  reason: string;
  /** Whether the Gateway will reconnect. */
  willReconnect: boolean;
}

/** A raw dispatch. */
export interface GatewayDispatchEvent extends ShardEvent {
  /** Event name, e.g. `INTERACTION_CREATE`. */
  t: string;
  /** Sequence number. */
  s: number | null;
  /** Payload, with secret-named fields (e.g. `token`) and known secrets redacted. */
  d: unknown;
}

/** Every event the Gateway emits (a fleet member's events included, see {@link FleetEvents}). */
export interface GatewayEvents extends FleetEvents, InteractionRouterEvents {
  /** A new session is ready. */
  ready: [event: GatewayReadyEvent];
  /** A session was resumed. */
  resumed: [event: GatewayResumedEvent];
  /** A reconnect is scheduled. */
  reconnecting: [event: GatewayReconnectingEvent];
  /** The connection closed. */
  close: [event: GatewayCloseEvent];
  /** Diagnostics (never with a token). */
  debug: [message: string];
  /** A problem that does not stop the Gateway (a bad frame, a payload that failed validation, a socket error). */
  error: [error: Error];
  /** Every dispatch, raw. */
  dispatch: [event: GatewayDispatchEvent];
  /**
   * A typed interaction arrived, on shard `shardId` (0 without sharding): the router's event, whose `shardId` the Gateway
   * always knows (a listener written for the router's `number | undefined` works here too).
   */
  interactionCreate: [interaction: Interaction, shardId: number];
  /**
   * The Gateway session store failed (the shards go on; a successor may have to identify instead of resuming); also a `debug`
   * line. Once per outage: the failures after the first are counted until the store answers again (`storeRecovered`). The
   * Client emits the same event for its user session store.
   */
  storeError: [event: StoreErrorEvent];
  /**
   * The Gateway session store (`store: 'gatewaySession'`), the shard coordinator (`'shardCoordinator'`) or the Identify
   * throttle (`'identifyThrottle'`) answers again after an outage: how long it lasted and how many calls failed; also a
   * `debug` line. Its first failure was a `storeError` (the session store) or an `error` (the coordinator, the throttle); an
   * outage ends once the component answered and then went 5 s without a failure (the coordinator's: at its next answer), so a
   * store that fails some calls and answers others is one outage (see {@link StoreRecoveredEvent}).
   */
  storeRecovered: [event: StoreRecoveredEvent];
}
