/**
 * Publishing a Gateway's dispatches to a sink (a Redis stream, for a pool of
 * workers), in order per shard, before the shard's saved session counts them
 * as handled: the sequence a successor resumes from is the last one
 * published, so a crash between receiving and publishing is covered by the
 * service's replay, never by luck.
 *
 * @module
 */

import { wait } from '../core/wait.js';
import { GatewayError } from '../errors/index.js';
import { publishStreamStep } from '../observe/diagnostics.js';
import type { GatewayDispatchEvent } from './options.js';
import type { SequenceWatermark } from './shards.js';

/** One dispatch as it is published. */
export interface PublishedDispatch {
  /** The event name, e.g. `INTERACTION_CREATE`. */
  t: string;
  /** Its sequence number in the shard's session. */
  s: number | null;
  /** Its payload, as the service sent it. */
  d: unknown;
  /** The shard it arrived on. */
  shardId: number;
}

/** Where a Gateway publishes its dispatches (`createRedisEventStream()` of `community-chat-sdk/redis` is one). */
export interface DispatchSink {
  /** Its name on the diagnostics channel (a stream's key). @default undefined */
  readonly key?: string | undefined;
  /** Appends the dispatches, in order; resolves once every one is stored. */
  publish(events: readonly PublishedDispatch[]): Promise<unknown>;
}

/** Options of `gateway.publishTo()`. */
export interface PublishOptions {
  /** Whether this process also handles the interactions it publishes (its own handlers run too). @default false */
  handleLocally?: boolean | undefined;
  /** The dispatch types published. @default every type but READY and RESUMED */
  types?: readonly string[] | undefined;
  /** The most dispatches sent to the sink in one call. @default 64 */
  batchSize?: number | undefined;
}

/** Dispatches the Gateway never publishes by default: the session's own, which a worker has no use for. */
const SESSION_EVENTS: ReadonlySet<string> = new Set(['READY', 'RESUMED']);

interface ShardQueue {
  readonly events: PublishedDispatch[];
  pumping: boolean;
}

/** What the publisher tells its Gateway. */
interface PublisherHost {
  /** A shard's published sequence moved: save its session (of the shard set `set`, see {@link DispatchPublisher.push}). */
  changed(shardId: number, set: number): void;
  /** The sink failed (it is tried again, in order, after a pause). */
  failed(error: unknown, shardId: number): void;
}

/** The error reported when the sink failed (the dispatches are tried again). */
export function publishFailure(error: unknown): GatewayError {
  return new GatewayError(`publishing dispatches failed (tried again): ${error instanceof Error ? error.message : String(error)}`);
}

/** Publishes each shard's dispatches in order, trying again after a failure, and knows how far each shard got. */
export class DispatchPublisher {
  readonly handleLocally: boolean;
  readonly #sink: DispatchSink;
  readonly #host: PublisherHost;
  readonly #types: ReadonlySet<string> | undefined;
  readonly #batchSize: number;
  /** Per shard set and shard (`<set>:<shard id>`): during a reshard, shard 3 of the old set and shard 3 of the new are two sessions. */
  readonly #queues = new Map<string, ShardQueue>();
  readonly #stopped = new AbortController();
  readonly #idle: (() => void)[] = [];

  constructor(sink: DispatchSink, options: PublishOptions, host: PublisherHost) {
    this.#sink = sink;
    this.#host = host;
    this.handleLocally = options.handleLocally === true;
    this.#types = options.types === undefined ? undefined : new Set(options.types);
    this.#batchSize = Math.max(1, options.batchSize ?? 64);
  }

  /** Whether a dispatch of this type is published. */
  publishes(type: string): boolean {
    return this.#types === undefined ? !SESSION_EVENTS.has(type) : this.#types.has(type);
  }

  /** Queues a dispatch of a shard of the shard set `set` (the Gateway's generation of sets; 0 until a reshard) for publishing. */
  push(event: GatewayDispatchEvent, set = 0): void {
    const key = `${set}:${event.shardId}`;
    let queue = this.#queues.get(key);
    if (queue === undefined) {
      queue = { events: [], pumping: false };
      this.#queues.set(key, queue);
    }
    queue.events.push({ t: event.t, s: event.s, d: event.d, shardId: event.shardId });
    if (!queue.pumping) void this.#pump(key, event.shardId, set, queue);
  }

  /**
   * The sequence a successor of this shard may resume from: the shard's own
   * when everything it received was published, else the one before the
   * first dispatch not yet published.
   */
  resumableSequence(shardId: number, received: number | null, set = 0): number | null {
    const first = this.#queues.get(`${set}:${shardId}`)?.events[0];
    if (first === undefined || first.s === null) return received;
    return Math.max(0, first.s - 1);
  }

  /** What holds back the saved sequences of the shard set `set`'s shards. */
  of(set: number): SequenceWatermark {
    return { resumableSequence: (shardId, received) => this.resumableSequence(shardId, received, set) };
  }

  /** How many dispatches wait to be published, over every shard. */
  get pending(): number {
    let count = 0;
    for (const queue of this.#queues.values()) count += queue.events.length;
    return count;
  }

  /** Resolves once nothing waits to be published, or after `timeoutMs`. */
  async flush(timeoutMs: number): Promise<void> {
    if (this.pending === 0) return;
    const drained = new Promise<void>((resolve) => this.#idle.push(resolve));
    await wait(drained, { timeoutMs, onTimeout: () => undefined }).catch(() => undefined);
  }

  /** Stops trying (the Gateway closed); what was not published is left to the successor's resume. */
  stop(): void {
    this.#stopped.abort();
  }

  async #pump(key: string, shardId: number, set: number, queue: ShardQueue): Promise<void> {
    queue.pumping = true;
    let pauseMs = 100;
    try {
      while (queue.events.length > 0 && !this.#stopped.signal.aborted) {
        const batch = queue.events.slice(0, this.#batchSize);
        const started = performance.now();
        try {
          await this.#sink.publish(batch);
        } catch (error) {
          this.#host.failed(error, shardId);
          // Tried again in order after a pause: a duplicate of what may have been stored is harmless (workers claim interactions).
          await wait(pauseMs, { signal: this.#stopped.signal }).catch(() => undefined);
          pauseMs = Math.min(pauseMs * 2, 5000);
          continue;
        }
        pauseMs = 100;
        queue.events.splice(0, batch.length);
        publishStreamStep(() => ({ step: 'publish', stream: this.#sink.key ?? 'sink', count: batch.length, durationMs: performance.now() - started }));
        this.#host.changed(shardId, set);
      }
    } finally {
      queue.pumping = false;
      if (queue.events.length === 0 && this.#queues.get(key) === queue) this.#queues.delete(key); // a set's queues go with it
      if (this.pending === 0) for (const resolve of this.#idle.splice(0)) resolve();
    }
  }
}
