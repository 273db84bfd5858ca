/**
 * The shards of a Gateway, as the `Gateway` sees them whether they run in
 * this thread or in a worker: a handle per shard, the host each connection
 * reports to, and the status of them all.
 *
 * @module
 */

import type { ConnectionHost, ConnectionReport } from './connection-host.js';
import type { GatewayConnection } from './connection.js';
import type { GatewayDispatchEvent, GatewayStatus } from './options.js';
import type { ShardPlan } from './shard-plan.js';
import type { GatewaySessionRecord } from './gateway-session-store.js';

/** One shard's state, as `gateway.shards` lists it. */
export interface ShardInfo {
  /** The shard id (0 without sharding). */
  id: number;
  /** Its connection's status. */
  status: GatewayStatus;
  /** Its session id, once READY. */
  sessionId: string | undefined;
  /** The last dispatch sequence it received. */
  sequence: number | null;
  /** Milliseconds between its last heartbeat and the ACK. */
  latency: number | undefined;
  /** When its last heartbeat ACK arrived, epoch milliseconds. */
  lastAckAt: number | undefined;
}

/** A shard, in this thread or in a worker. */
export interface ShardHandle extends ShardInfo {
  /** The resume URL in use, for the session store. */
  readonly resumeUrl: string | undefined;
  /** Resumes this session on the next connect. */
  restore(record: GatewaySessionRecord): void;
  /** Resolves on READY or RESUMED. */
  connect(signal: AbortSignal | undefined): Promise<void>;
  /** Closes for good; `handOff` keeps the session resumable (closes with 4000, not 1000). */
  destroy(options?: { handOff?: boolean }): Promise<void>;
}

/** What the shards report to and ask of the `Gateway`. */
export interface ShardHost {
  /** The bot token. */
  token(): string | undefined;
  /** The clock. */
  now(): number;
  /** Whether the token may go over plain ws:// to a host that is not loopback. */
  readonly allowInsecure: boolean;
  /** Reports a connection event of a shard (its payload without the shard id). */
  emit(report: ConnectionReport, shardId: number): void;
  /** Receives a dispatch of a shard. */
  dispatch(event: GatewayDispatchEvent): void;
  /** Waits for a shard's Identify turn; absent: identify at once. */
  beforeIdentify?: ((shardId: number, signal: AbortSignal) => Promise<void>) | undefined;
  /** A shard's session changed (a dispatch, READY, a dropped session): save it. */
  changed(shardId: number): void;
}

/** The connection host of shard `id`. */
export function connectionHost(host: ShardHost, id: number, plan: ShardPlan): ConnectionHost {
  const wait = host.beforeIdentify;
  return {
    token: () => host.token(),
    now: () => host.now(),
    allowInsecure: host.allowInsecure,
    emit: (event, ...args) => {
      // The one place the event name and its payload are paired: TypeScript does not correlate a generic key with its tuple.
      host.emit({ event, payload: args[0] } as ConnectionReport, id);
      if (event === 'ready' || event === 'resumed' || event === 'reconnecting') host.changed(id);
    },
    dispatch: (event) => {
      // The connection builds a fresh event for each dispatch, so the shard id is added to it rather than copied into another.
      (event as GatewayDispatchEvent).shardId = id;
      host.dispatch(event as GatewayDispatchEvent);
      host.changed(id);
    },
    shard: plan.sharded ? [id, plan.count] : undefined,
    beforeIdentify: wait && ((signal) => wait(id, signal)),
  };
}

/** A shard running in this thread. */
export function localShard(id: number, connection: GatewayConnection): ShardHandle {
  return {
    id,
    get status() {
      return connection.status;
    },
    get sessionId() {
      return connection.sessionId;
    },
    get sequence() {
      return connection.sequence;
    },
    get latency() {
      return connection.latency;
    },
    get lastAckAt() {
      return connection.lastAckAt;
    },
    get resumeUrl() {
      return connection.resumeUrl;
    },
    restore: (record) => connection.restore(record),
    connect: (signal) => connection.connect(signal),
    destroy: (options) => connection.destroy({ resumable: options?.handOff === true }),
  };
}

/** What holds a shard's saved sequence back: dispatches not yet published, interactions still being handled. */
export interface SequenceWatermark {
  /** The sequence a successor of the shard may resume from, given the last one it received. */
  resumableSequence(shardId: number, received: number | null): number | null;
  /** The last sequence emitted, given the last one received (events of a fleet's switch still waiting for their claim are not). @default received */
  emittedSequence?(shardId: number, received: number | null): number | null;
}

/**
 * The session record of a shard, or `undefined` when it has none to resume. A successor resumes after the last dispatch `published`
 * and below the oldest interaction still `handled`, not after the last received; when the interaction holds it lower than what was
 * published (and emitted), the record says what was `dispatched` (the successor emits the events in between no more).
 */
export function sessionRecordOf(
  shard: ShardHandle,
  published: SequenceWatermark | undefined,
  handled: SequenceWatermark | undefined,
): GatewaySessionRecord | undefined {
  if (shard.sessionId === undefined) return undefined;
  const below = (sequence: number | null, held: number | null | undefined) =>
    held !== undefined && held !== null && sequence !== null && held < sequence ? held : sequence;
  const { id, sequence: received } = shard;
  // Never above an event not emitted yet (one waiting for its switch claim): a successor emits it.
  const dispatched = below(below(received, published?.resumableSequence(id, received)), handled?.emittedSequence?.(id, received));
  const sequence = below(dispatched, handled?.resumableSequence(id, received));
  return {
    sessionId: shard.sessionId,
    sequence,
    ...(shard.resumeUrl === undefined ? {} : { resumeUrl: shard.resumeUrl }),
    ...(dispatched !== null && sequence !== null && dispatched > sequence ? { dispatched } : {}),
  };
}

const PROGRESS: readonly GatewayStatus[] = ['reconnecting', 'connecting', 'identifying', 'resuming', 'idle'];

/** One status for every shard: `ready` when all are, `idle` when all are, else the least advanced of the others. */
export function overallStatus(shards: readonly ShardInfo[]): GatewayStatus {
  if (shards.length === 0) return 'idle';
  const statuses = new Set(shards.map((shard) => shard.status));
  if (statuses.size === 1) return shards[0]?.status ?? 'idle';
  statuses.delete('ready');
  return PROGRESS.find((status) => statuses.has(status)) ?? 'idle';
}
