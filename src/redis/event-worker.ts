/**
 * A worker of a pool consuming a Redis stream of Gateway dispatches with a consumer group: interactions arrive typed with
 * `reply()` bound to the worker's own client, and the same router as the Gateway and the HTTP receiver runs them.
 *
 * Guarantees: an entry is acknowledged only after its handlers settled; a dead consumer's pending entries are reclaimed
 * by a live one after `claimIdleMs` (`XAUTOCLAIM`, delivery count kept), while a live one's are touched every third of it
 * (`worker-leases.ts`); an interaction is claimed in Redis before it runs (`interaction-claim.ts`: a lease of
 * `claimIdleMs` with a fence, renewed while its handler runs, known valid on the monotonic clock right before the handler
 * starts) and marked answered once the service accepts the answer (tried again until Redis takes it), so a replayed or
 * republished one runs once and an answer after the claim lapsed is refused before it is sent; an event whose handlers
 * failed `maxDeliveries` times, an interaction past its 15 minutes and an entry that cannot be read go to the dead
 * letters, moved, acknowledged and deleted in one atomic step. Reads block on Redis (`XREADGROUP BLOCK`) on a connection
 * of their own; a consumer group that vanished (destroyed, flushed, Redis restarted empty) is created again.
 *
 * @module
 */

import { randomUUID } from 'node:crypto';
import type { EventEmitter } from 'eventemitter3';
import type { Client } from '../clients/client.js';
import { INTERACTION_LIFETIME_MS } from '../core/constants.js';
import { scrubText } from '../core/redact.js';
import { KeyedQueue, wait } from '../core/wait.js';
import { publishStreamStep, type StreamStepMessage } from '../observe/diagnostics.js';
import { EventStreamError, ValidationError } from '../errors/index.js';
import { describeThrown } from '../errors/base.js';
import { interactionFromDispatch } from '../interactions/from-dispatch.js';
import type { InteractionResponder } from '../interactions/types.js';
import { InteractionHost } from '../interactions/host.js';
import type { RedisClientLike } from './connection.js';
import { type DeadLetter, entriesOf, failureText, fieldsOf, type RedisEventStream, shardIdOf } from './event-stream.js';
import { type EventWorkerEvents, type EventWorkerOptions, orderKeyOf, type StreamEvent, type WorkerSettings, workerSettings } from './event-worker-options.js';
import { AnsweredMarks } from './event-worker-marks.js';
import { ANSWERED_RETRY_MAX_PAUSE_MS, acquireClaim, type ClaimKeys, HeldClaim, renewClaim } from './interaction-claim.js';
import { entryId, MALFORMED, parsePayload, reclaimEntries, tokenOf } from './event-worker-reads.js';
import { WorkerLeases } from './worker-leases.js';
import type { StreamBacklog } from './stream-backlog.js';
import { type ConsumersRemovedEvent, upkeep } from './stream-upkeep.js';

/** A worker consuming the stream of Gateway dispatches. */
export class EventWorker extends InteractionHost<EventWorkerEvents> {
  readonly #options: WorkerSettings;
  readonly #stream: RedisEventStream;
  readonly #group: string;
  readonly #consumer: string;
  /** This worker's name on the claims it takes: unique to this instance (and its group), never shared by two workers. */
  readonly #holderName: string;
  readonly #client: Pick<Client, 'interactions'>;
  readonly #dispatchHandlers = new Map<string, Set<(event: StreamEvent) => unknown>>();
  readonly #running = new Set<Promise<void>>();
  /** The entries handled here and their claims: a slow handler's entry reclaimed by this same worker is not started twice. */
  readonly #leases: WorkerLeases;
  /** Events of one order key (a community, a channel, what `orderBy` says), in order. */
  readonly #ordered = new KeyedQueue<string>();
  readonly #stop = new AbortController();
  readonly #givenReadClient: RedisClientLike | undefined;
  /** The connection the blocking reads use (`undefined`: reads poll). */
  #readClient: RedisClientLike | undefined;
  /** The read connection this worker opened, closed with it. */
  #ownReadClient: (RedisClientLike & { destroy(): void }) | undefined;
  readonly #marks: AnsweredMarks;
  #starting: Promise<void> | undefined;
  #loop: Promise<void> | undefined;
  #lastClaimAt = Number.NEGATIVE_INFINITY;
  #lastTrimAt = Number.NEGATIVE_INFINITY;

  constructor(options: EventWorkerOptions) {
    super();
    this.#options = workerSettings(options);
    this.#stream = options.stream;
    this.#group = options.group;
    this.#consumer = options.consumer;
    this.#client = options.client;
    this.#givenReadClient = options.readClient;
    this.#leases = new WorkerLeases(this.#stream, this.#group, this.#consumer, this.#options.claimIdleMs, (error) => this.#report(error));
    this.#holderName = `${this.#group.length}:${this.#group}/${this.#consumer}/${randomUUID()}`;
    const run = this.#stream.script.bind(this.#stream);
    this.#marks = new AnsweredMarks(
      run,
      () => this.#stream.client.isReady,
      (error) => this.#report(error),
    );
  }

  /**
   * Handles every other dispatch of a type (e.g. `MESSAGE_CREATE`). A handler
   * that throws or rejects leaves the event unacknowledged: it is delivered
   * again after `claimIdleMs`, and goes to the dead letters after
   * `maxDeliveries`. Returns a function that removes the handler.
   */
  onDispatch(type: string, handler: (event: StreamEvent) => unknown): () => void {
    let handlers = this.#dispatchHandlers.get(type);
    if (handlers === undefined) {
      handlers = new Set();
      this.#dispatchHandlers.set(type, handlers);
    }
    handlers.add(handler);
    return () => handlers.delete(handler);
  }

  /** Creates the group if needed, opens the connection of the blocking reads, and starts consuming; resolves once the group exists. */
  start(): Promise<void> {
    // Kept at once, so a second start() (or a close()) waits for this one instead of starting another.
    this.#starting ??= this.#open();
    return this.#starting;
  }

  async #open(): Promise<void> {
    // Closed before it started: opens nothing. Closed while it starts: close() waits for this, then closes what it opened.
    if (this.#stop.signal.aborted) return;
    await this.#stream.createGroup(this.#group, this.#options.startFrom === 'new' ? '$' : '0');
    if (this.#givenReadClient === undefined) {
      const own = await this.#stream.openReadClient();
      this.#ownReadClient = own;
      this.#readClient = own;
    } else this.#readClient = this.#givenReadClient;
    this.#leases.start();
    this.#loop = this.#run();
  }

  /**
   * Stops reading, waits for the events under way to settle (each then
   * acknowledged as usual), stops the answered marks still being retried
   * (the attempt under way settles within the command timeout; those not
   * stored are named in an `unmarked` event), and closes the connection of
   * its blocking reads. What it had not read stays for the others. Safe to
   * call more than once, and during `start()`.
   */
  async close(): Promise<void> {
    this.#stop.abort();
    await this.#starting?.catch(() => undefined);
    // Ends a blocking read at once.
    this.#ownReadClient?.destroy();
    this.#ownReadClient = undefined;
    await this.#loop;
    await Promise.all(this.#running);
    const unmarked = await this.#marks.close();
    if (unmarked.ids.length > 0) this.#emitSafely('unmarked', unmarked);
    this.#leases.stop();
    await this.router.close();
  }

  /** `await using worker = createEventWorker(...)` closes it at the end of the scope. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async #run(): Promise<void> {
    const signal = this.#stop.signal;
    while (!signal.aborted) {
      try {
        const free = this.#options.concurrency - this.#running.size;
        if (free <= 0) {
          await Promise.race(this.#running);
          continue;
        }
        const now = performance.now();
        let read = 0;
        if (now - this.#lastClaimAt >= this.#options.claimIdleMs / 2) {
          this.#lastClaimAt = now;
          read += await this.#reclaim(free);
        }
        if (this.#options.trimEveryMs > 0 && now - this.#lastTrimAt >= this.#options.trimEveryMs) {
          this.#lastTrimAt = now;
          await this.#stream.trim();
          await upkeep(this.#stream, { ...this.#options, group: this.#group, consumer: this.#consumer }, this.#upkeepEvents);
        }
        if (read < free) read += await this.#readNew(free - read);
        if (read === 0 && this.#readClient === undefined) await wait(this.#options.pollMs, { signal }).catch(() => undefined);
      } catch (error) {
        if (signal.aborted) break;
        // Created again at once; a group another worker created first, or a failure, waits like any error.
        if (/NOGROUP/.test(failureText(error)) && (await this.#recreateGroup())) continue;
        this.#report(error);
        await wait(Math.max(this.#options.pollMs, 200), { signal }).catch(() => undefined);
      }
    }
  }

  /**
   * The group (or the whole stream) vanished: destroyed, flushed, or lost with a Redis restarted empty. It is created again
   * from the id through which it had acknowledged everything (recorded with each acknowledgement), so nothing published
   * meanwhile is lost and nothing acknowledged comes again; from `0-0` when that record is gone too (what the old group had
   * acknowledged and the trim had not removed comes again then; interactions answered stay answered through their claims).
   */
  async #recreateGroup(): Promise<boolean> {
    let from: string | undefined;
    try {
      from = await this.#stream.recreateGroup(this.#group);
    } catch (error) {
      this.#report(error);
      return false;
    }
    if (from === undefined) return false;
    this.#emitSafely('recreated', { group: this.#group, from });
    return true;
  }

  /** What the upkeep (with each trim) reports: the backlog warning, consumers removed. */
  readonly #upkeepEvents = {
    backlog: (backlog: StreamBacklog) => this.#emitSafely('backlog', backlog),
    removed: (event: ConsumersRemovedEvent) => this.#emitSafely('consumersRemoved', event),
  };

  /** Reads entries never delivered to the group, waiting on Redis for some (on the read connection) when it can block. */
  async #readNew(count: number): Promise<number> {
    const client = this.#readClient;
    const block = client === undefined ? 0 : Math.max(1, Math.min(this.#options.blockMs, Math.floor(this.#options.claimIdleMs / 2)));
    const sentAt = this.#leases.now();
    const reply = await this.#stream.readGroup(client ?? this.#stream.client, this.#group, this.#consumer, count, block);
    const entries = entriesOf(reply, this.#stream.key);
    for (const entry of entries) this.#start(entry, 1, sentAt);
    void this.#leases.touchIfLate(entries.map(entryId), sentAt);
    return entries.length;
  }

  /** Takes over entries pending longer than `claimIdleMs` with another consumer (or this one, before a restart). */
  async #reclaim(count: number): Promise<number> {
    const sentAt = this.#leases.now();
    const { live, gone, counts, owners } = await reclaimEntries(this.#stream, this.#group, this.#consumer, this.#options.claimIdleMs, count);
    if (gone.length > 0) this.#emitSafely('lost', { ids: gone });
    const retaken = live.map(entryId).filter((id) => !this.#leases.has(id));
    if (retaken.length > 0) this.#step({ step: 'reclaim', count: retaken.length });
    // The event names other consumers' entries only: not this worker's own, taken back (after a restart, a dropped claim).
    const taken = retaken.filter((id) => owners.get(id) !== this.#consumer);
    if (taken.length > 0) this.#emitSafely('reclaimed', { ids: taken, from: [...new Set(taken.map((id) => owners.get(id) ?? 'unknown'))] });
    for (const entry of live) this.#start(entry, counts.get(entryId(entry)) ?? 2, sentAt);
    return live.length;
  }

  /** Starts handling an entry read by a command sent at `sentAt` (monotonic), unless it is handled here already. */
  #start(entry: unknown, deliveries: number, sentAt: number): void {
    const [raw, fields] = entry as [unknown, unknown];
    const id = String(raw);
    if (!this.#leases.hold(id, sentAt)) return;
    const record = fieldsOf(fields);
    const data = parsePayload(record['d']);
    const key = this.#orderKey(id, record, data, deliveries);
    const run = () => this.#handle(id, record, data, deliveries);
    const task = (key === undefined ? run() : this.#ordered.run(key, run)).catch((error: unknown) => this.#report(error));
    this.#running.add(task);
    void task.finally(() => {
      this.#running.delete(task);
      this.#leases.release(id);
    });
  }

  /** The order key of an entry (`orderBy`): a key function that throws or gives an unusable key is reported, and the entry runs unordered. */
  #orderKey(id: string, fields: Record<string, string>, data: unknown, deliveries: number): string | undefined {
    const orderBy = this.#options.orderBy;
    const shardId = shardIdOf(fields);
    // Unreadable entries go to the dead letters, unordered.
    if (orderBy === undefined || data === MALFORMED || shardId === undefined) return undefined;
    const type = fields['t'] ?? '';
    return orderKeyOf(orderBy, { type, data, shardId, id, deliveries }, (why) => {
      const text = scrubText(why, tokenOf(fields)).slice(0, 300);
      this.#report(new ValidationError('orderBy', [{ path: `stream entry ${id} (${type.slice(0, 64)})`, message: `${text}; it runs unordered` }]));
    });
  }

  async #handle(id: string, fields: Record<string, string>, data: unknown, deliveries: number): Promise<void> {
    const type = fields['t'] ?? '';
    if (data === MALFORMED) return this.#deadLetter(id, fields, 'malformed', 'the entry holds no JSON payload', deliveries);
    const shardId = shardIdOf(fields);
    if (shardId === undefined) {
      const problem = `its shard field ${JSON.stringify((fields['sh'] ?? '').slice(0, 40))} is not a shard id`;
      this.#report(new EventStreamError(`stream entry ${id} (${type.slice(0, 64)}) moved to the dead letters: ${problem}`));
      return this.#deadLetter(id, fields, 'malformed', problem, deliveries);
    }
    if (deliveries > this.#options.maxDeliveries) {
      return this.#deadLetter(id, fields, 'max-deliveries', `delivered ${deliveries} times without being handled`, deliveries);
    }
    if (type === 'INTERACTION_CREATE') return this.#interaction(id, fields, data, deliveries, shardId);
    const handlers = [...(this.#dispatchHandlers.get(type) ?? [])];
    const event: StreamEvent = { type, data, shardId, id, deliveries };
    const started = performance.now();
    const results = await Promise.allSettled(handlers.map(async (handler) => handler(event)));
    const failed = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    this.#step({ step: 'handle', id, type, deliveries, durationMs: performance.now() - started, failed: failed !== undefined });
    if (failed === undefined) {
      await this.#ack(id);
      return;
    }
    const summary = describeThrown(failed.reason);
    const error = failed.reason instanceof Error ? failed.reason : new Error(summary);
    this.#emitSafely('handlerFailed', { id, type, shardId, deliveries, error, retried: deliveries < this.#options.maxDeliveries });
    // The last delivery allowed failed too: to the dead letters now, rather than after one more idle wait.
    if (deliveries >= this.#options.maxDeliveries) return this.#deadLetter(id, fields, 'max-deliveries', summary, deliveries);
    // Left pending: delivered again after claimIdleMs (to this worker or another).
  }

  async #interaction(id: string, fields: Record<string, string>, data: unknown, deliveries: number, shardId: number): Promise<void> {
    const payload = typeof data === 'object' && data !== null ? (data as { id?: unknown; token?: unknown }) : {};
    const interactionId = typeof payload.id === 'string' ? payload.id : '';
    const token = typeof payload.token === 'string' ? [payload.token] : [];
    const keys: ClaimKeys = { claim: this.#stream.claimKey(interactionId) };
    let claim: HeldClaim | undefined;
    let marking: Promise<boolean> | undefined;
    let expiresAt = 0;
    // Refused before any request once the claim lapsed (this worker was paused or cut off past claimIdleMs): the worker that
    // reclaimed the entry answers. Once the service accepted an answer, the claim says so (tried until Redis takes it, for as
    // long as the interaction lives), so a delivery reclaimed after that is acknowledged without running again.
    const respond: InteractionResponder = async (target, body, options) => {
      if (claim === undefined || !this.#leases.valid(id)) {
        throw new EventStreamError(
          `not answering interaction ${target}: this worker's claim on it lapsed (paused or cut off from Redis past claimIdleMs); the worker that holds it now answers it`,
        );
      }
      const result = await this.#client.interactions.respond(target, body, options);
      const until = this.#leases.now() + (expiresAt - this.#options.clock());
      marking = this.#marks.mark(id, interactionId, keys, until, () => this.#leases.answered(id));
      return result;
    };
    const built = interactionFromDispatch(data, respond, this.#options.clock);
    if (!built.ok) return this.#deadLetter(id, fields, 'malformed', scrubText(built.error.message, token), deliveries);
    // The interaction's own expiry (its creation time as `interactions/base.ts` reads it) is the one rule: a handler never runs on an expired one.
    if (built.interaction.expired) {
      return this.#deadLetter(id, fields, 'expired', 'the interaction was older than 15 minutes when a worker got it', deliveries);
    }
    expiresAt = built.interaction.createdAt + INTERACTION_LIFETIME_MS;
    const held = await this.#claim(id, interactionId, keys);
    if (held === undefined) return;
    claim = held;
    this.#step({ step: 'claim', id, type: 'INTERACTION_CREATE', deliveries });
    const started = performance.now();
    await this.router.handle(built.interaction, shardId);
    this.#step({ step: 'handle', id, type: 'INTERACTION_CREATE', deliveries, durationMs: performance.now() - started });
    // Answered: acknowledged once the mark is stored, which goes on apart from the tasks under way (close() stops it).
    if (marking !== undefined) return this.#marks.afterStored(id, () => this.#ack(id));
    // Handler errors were reported (interactionError). Not acknowledged once the claim lapsed unanswered: the entry may be
    // another worker's now, and if not it comes again.
    if (this.#leases.valid(id)) await this.#ack(id);
  }

  /**
   * Claims the interaction of entry `id` for this worker; `undefined` when it must not run here (the entry was then
   * acknowledged as a duplicate, or left pending for the worker that holds it).
   */
  async #claim(id: string, interactionId: string, keys: ClaimKeys): Promise<HeldClaim | undefined> {
    const run = this.#stream.script.bind(this.#stream);
    const holder = `${id}@${this.#holderName}`;
    const sentAt = this.#leases.now();
    const acquired = await acquireClaim(run, keys, holder, this.#options.claimIdleMs, { retake: false });
    // This entry, live with another worker of this group (or this one's own claim): left to it.
    if (acquired.status === 'held' && acquired.holder.startsWith(`${id}@${this.#group.length}:${this.#group}/`)) return undefined;
    if (acquired.status !== 'taken') {
      await this.#ack(id);
      this.#emitSafely('duplicate', { id, type: 'INTERACTION_CREATE', interactionId });
      this.#step({ step: 'duplicate', id, type: 'INTERACTION_CREATE' });
      return undefined;
    }
    const held = new HeldClaim(acquired.fence, this.#options.claimIdleMs, sentAt, () => this.#leases.now());
    // A claim whose answer came too late to be known valid now is dropped: the entry stays pending, delivered again.
    if (!held.valid) return void (await this.#leases.giveBack(keys, holder, held));
    this.#leases.claimed(id, keys, holder, held);
    if (!acquired.lapsed) return held;
    // Taken over from a holder whose lease ran out (cut off from Redis, or paused): it may have answered meanwhile and be
    // storing its mark now (tried again as soon as its client is back). Waits longer than that retry, renewing the claim
    // with the heartbeat, then checks it is still this worker's: once marked answered, it is not, and the entry comes again
    // as a duplicate.
    await wait(ANSWERED_RETRY_MAX_PAUSE_MS + this.#stream.timeoutMs, { signal: this.#stop.signal }).catch(() => undefined);
    const renew = () => renewClaim(run, keys, holder, held.fence, this.#options.claimIdleMs);
    if (this.#stop.signal.aborted) return undefined;
    if (await held.renew(renew).catch(() => false)) return held;
    // Lost meanwhile (its old holder's mark landed, or another took it): asked again at once, so an answered one is acknowledged
    // as a duplicate now, not after more deliveries (this worker's own reclaims of it while it waited count as deliveries).
    return held.lost ? this.#claim(id, interactionId, keys) : undefined;
  }

  async #ack(id: string): Promise<void> {
    await this.#stream.ack(this.#group, [id]);
    this.#step({ step: 'ack', id });
  }

  /** Publishes a step on the diagnostics channel (built only when someone listens). */
  #step(step: Omit<StreamStepMessage, 'stream' | 'group' | 'consumer'>): void {
    publishStreamStep(() => ({ ...step, stream: this.#stream.key, group: this.#group, consumer: this.#consumer }));
  }

  async #deadLetter(id: string, fields: Record<string, string>, reason: DeadLetter['reason'], error: string, deliveries: number): Promise<void> {
    const summary = scrubText(error, tokenOf(fields)).slice(0, 500);
    await this.#stream.deadLetter(this.#group, id, fields, reason, summary, deliveries);
    this.#step({ step: 'deadLetter', id, type: fields['t'] ?? '', reason, deliveries });
    this.#emitSafely('deadLetter', { originalId: id, type: fields['t'] ?? '', reason, deliveries, error: summary });
  }

  /** Reports a failure as an `error` event. */
  #report(error: unknown): void {
    this.#emitSafely('error', error instanceof Error ? error : new Error(describeThrown(error)));
  }

  #emitSafely<K extends keyof EventWorkerEvents>(event: K, ...args: EventEmitter.EventArgs<EventWorkerEvents, K>): void {
    try {
      this.emit(event, ...args);
    } catch {
      // A listener that throws cannot stop the worker.
    }
  }
}

/** A worker of a pool consuming the stream: register handlers, then `await worker.start()`. */
export function createEventWorker(options: EventWorkerOptions): EventWorker {
  return new EventWorker(options);
}
