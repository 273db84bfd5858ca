/**
 * The options and events of an event worker (`event-worker.ts`).
 *
 * @module
 */

import type { Client } from '../clients/client.js';
import type { InteractionErrorEvent, InteractionUnhandledEvent } from '../interactions/router.js';
import type { DeadLetter, RedisEventStream, StreamBacklog } from './event-stream.js';

/** Options of {@link createEventWorker}. */
export interface EventWorkerOptions {
  /** The stream (`createRedisEventStream()`). */
  stream: RedisEventStream;
  /** The consumer group: workers of one group share the events, each handled by one of them. */
  group: string;
  /** This worker's name in the group, unique and stable across its restarts (a restarted worker takes back its own pending entries). */
  consumer: string;
  /** The client interactions are answered through (its bot token). */
  client: Pick<Client, 'interactions'>;
  /** How many events run at once. @default 16 */
  concurrency?: number | undefined;
  /** How long an entry stays pending with a silent consumer before another reclaims it, milliseconds. @default 30000 */
  claimIdleMs?: number | undefined;
  /** How many deliveries an event gets before it goes to the dead letters. @default 5 */
  maxDeliveries?: number | undefined;
  /** How long to wait before reading again when the stream had nothing new, milliseconds. @default 25 */
  pollMs?: number | undefined;
  /** How often the worker trims what every group acknowledged, milliseconds (`0`: never). @default 5000 */
  trimEveryMs?: number | undefined;
  /**
   * Warns (`backlog` event, checked with each trim) when more entries than this wait in this worker's group: pending with a
   * consumer or not delivered yet. @default undefined (no warning)
   */
  maxBacklog?: number | undefined;
  /** Where a new group starts: every entry in the stream, or only those added from now on. @default 'beginning' */
  startFrom?: 'beginning' | 'new' | undefined;
  /** The clock, epoch milliseconds (interaction expiry). @default Date.now */
  clock?: (() => number) | undefined;
  /**
   * Handles the events of one community (`'guild'`: by `guild_id`) or one channel (`'channel'`: by `channel_id`) one at a
   * time, in stream order, in this worker; others run concurrently. Across the workers of a group there is no order: for
   * one per community, give each stream one worker. An event delivered again (after a failure or a crash) comes after
   * later ones. @default undefined (no order: up to `concurrency` at once)
   */
  orderBy?: 'guild' | 'channel' | undefined;
}

/** An event the worker handled, for `dispatch` handlers. */
export interface StreamEvent {
  /** The dispatch's type. */
  type: string;
  /** Its payload. */
  data: unknown;
  /** The shard it arrived on. */
  shardId: number;
  /** Its stream id. */
  id: string;
  /** How many times it was delivered (1: the first). */
  deliveries: number;
}

/** An interaction acknowledged without running: another entry claimed it first. */
export interface DuplicateEvent {
  /** The stream entry acknowledged. */
  id: string;
  /** The interaction. */
  interactionId: string;
}

/** Stream entries a worker lost or took over. */
export interface LostEvent {
  /** Their stream ids. */
  ids: string[];
}

/** Events of an {@link EventWorker}. */
export interface EventWorkerEvents {
  /** Redis failed (the worker tries again on its next turn). */
  error: [error: Error];
  /** An interaction handler threw. */
  interactionError: [event: InteractionErrorEvent];
  /** A click or submit nothing handled. */
  interactionUnhandled: [event: InteractionUnhandledEvent];
  /** An event went to the dead letters (no payload: it may hold a token). */
  deadLetter: [event: Pick<DeadLetter, 'originalId' | 'type' | 'reason' | 'deliveries' | 'error'>];
  /** An interaction already claimed (a replay, or a second publisher) was acknowledged without running. */
  duplicate: [event: DuplicateEvent];
  /** Entries another consumer left pending past `claimIdleMs` (it died, or is stuck) were taken over by this worker. */
  reclaimed: [event: LostEvent];
  /** More than `maxBacklog` entries wait in the group (checked with each trim). */
  backlog: [event: StreamBacklog];
  /** Entries Redis no longer holds (deleted or lost, e.g. by a restart without persistence) were found pending and dropped from the group. */
  lost: [event: LostEvent];
}
