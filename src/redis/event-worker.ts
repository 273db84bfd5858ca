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

import { EventEmitter } from 'eventemitter3';
import type { Client } from '../clients/client.js';
import { INTERACTION_LIFETIME_MS } from '../core/constants.js';
import { scrubText } from '../core/redact.js';
import { KeyedQueue, wait } from '../core/wait.js';
import { publishStreamStep, type StreamStepMessage } from '../observe/diagnostics.js';
import { EventStreamError } from '../errors/index.js';
import { interactionFromDispatch } from '../interactions/from-dispatch.js';
import type { CommandInteraction, InteractionByKind, InteractionKind, InteractionResponder } from '../interactions/interaction.js';
import type { CommandOptionValues, TypedCommandDefinition } from '../interactions/options.js';
import { type InteractionHandler, InteractionRouter } from '../interactions/router.js';
import type { RedisClientLike } from './connection.js';
import { type DeadLetter, entriesOf, failureText, fieldsOf, idBefore, type RedisEventStream, shardIdOf } from './event-stream.js';
import { type EventWorkerEvents, type EventWorkerOptions, type StreamEvent, type WorkerSettings, workerSettings } from './event-worker-options.js';
import { acquireClaim, type ClaimKeys, HeldClaim, markAnsweredUntilTaken } from './interaction-claim.js';
import { WorkerLeases } from './worker-leases.js';

export type { DuplicateEvent, EventWorkerEvents, EventWorkerOptions, LostEvent, RecreatedEvent, StreamEvent } from './event-worker-options.js';

/** Marks an entry whose payload is not JSON. */
const MALFORMED: unique symbol = Symbol('malformed');

/** An entry's payload, or {@link MALFORMED}. */
function parsePayload(text: string | undefined): unknown {
  try {
    return JSON.parse(text ?? '');
  } catch {
    return MALFORMED;
  }
}

/** A worker consuming the stream of Gateway dispatches. */
export class EventWorker extends EventEmitter<EventWorkerEvents> {
  /** The router its interactions run through (the same as the Gateway's and the receiver's). */
  readonly router: InteractionRouter;
  readonly #options: WorkerSettings;
  readonly #stream: RedisEventStream;
  readonly #group: string;
  readonly #consumer: string;
  readonly #client: Pick<Client, 'interactions'>;
  readonly #dispatchHandlers = new Map<string, Set<(event: StreamEvent) => unknown>>();
  readonly #running = new Set<Promise<void>>();
  /** The entries handled here and their claims: a slow handler's entry reclaimed by this same worker is not started twice. */
  readonly #leases: WorkerLeases;
  /** Events of one community or channel, in order (with `orderBy`). */
  readonly #ordered = new KeyedQueue<string>();
  readonly #stop = new AbortController();
  readonly #givenReadClient: RedisClientLike | undefined;
  /** The connection the blocking reads use (`undefined`: reads poll). */
  #readClient: RedisClientLike | undefined;
  /** The read connection this worker opened, closed with it. */
  #ownReadClient: (RedisClientLike & { destroy(): void }) | undefined;
  #loop: Promise<void> | undefined;
  #lastClaimAt = 0;
  #lastTrimAt = 0;

  constructor(options: EventWorkerOptions) {
    super();
    this.#options = workerSettings(options);
    this.#stream = options.stream;
    this.#group = options.group;
    this.#consumer = options.consumer;
    this.#client = options.client;
    this.#givenReadClient = options.readClient;
    this.#leases = new WorkerLeases(this.#stream, this.#group, this.#consumer, this.#options.claimIdleMs, (error) => this.#report(error));
    this.router = new InteractionRouter();
    this.router.on('interactionError', (event) => this.#emitSafely('interactionError', event));
  }

  /** Handles interactions of one kind. Returns a function that removes the handler. */
  onInteraction<K extends InteractionKind>(kind: K, handler: InteractionHandler<InteractionByKind[K]>): () => void {
    return this.router.onInteraction(kind, handler);
  }

  /** Handles one slash command by name. Returns a function that removes the handler. */
  onCommand(name: string, handler: InteractionHandler<CommandInteraction>): () => void;
  /** Handles one slash command by its definition (from `defineCommand`), which types `interaction.options`. */
  onCommand<D extends TypedCommandDefinition>(command: D, handler: InteractionHandler<CommandInteraction<CommandOptionValues<D>>>): () => void;
  onCommand(command: TypedCommandDefinition | string, handler: InteractionHandler<CommandInteraction<never>>): () => void {
    return this.router.onCommand(command as string, handler as InteractionHandler<CommandInteraction>);
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
  async start(): Promise<void> {
    if (this.#loop !== undefined) return;
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
   * acknowledged as usual, answered marks stored), and closes the connection
   * of its blocking reads. What it had not read stays for the others. Safe to
   * call more than once.
   */
  async close(): Promise<void> {
    this.#stop.abort();
    // Ends a blocking read at once.
    this.#ownReadClient?.destroy();
    this.#ownReadClient = undefined;
    await this.#loop;
    await Promise.all(this.#running);
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
        const now = Date.now();
        let read = 0;
        if (now - this.#lastClaimAt >= this.#options.claimIdleMs / 2) {
          this.#lastClaimAt = now;
          read += await this.#reclaim(free);
        }
        if (this.#options.trimEveryMs > 0 && now - this.#lastTrimAt >= this.#options.trimEveryMs) {
          this.#lastTrimAt = now;
          await this.#stream.trim();
          await this.#checkBacklog();
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
   * from the first entry the stream still holds, so nothing published meanwhile is lost (what the old group had acknowledged
   * and the trim had not removed yet comes again; interactions answered stay answered through their claims).
   */
  async #recreateGroup(): Promise<boolean> {
    try {
      if (!(await this.#stream.createGroup(this.#group, '0'))) return false;
    } catch (error) {
      this.#report(error);
      return false;
    }
    this.#emitSafely('recreated', { group: this.#group, from: '0-0' });
    return true;
  }

  /** Emits `backlog` when more than `maxBacklog` entries wait in this worker's group. */
  async #checkBacklog(): Promise<void> {
    const bound = this.#options.maxBacklog;
    if (bound === undefined) return;
    const backlog = await this.#stream.backlog();
    const group = backlog.groups.find((candidate) => candidate.name === this.#group);
    if (group !== undefined && group.pending + group.undelivered > bound) this.#emitSafely('backlog', backlog);
  }

  /** Reads entries never delivered to the group, waiting on Redis for some (on the read connection) when it can block. */
  async #readNew(count: number): Promise<number> {
    const client = this.#readClient;
    const block = client === undefined ? 0 : Math.max(1, Math.min(this.#options.blockMs, Math.floor(this.#options.claimIdleMs / 2)));
    const sentAt = this.#leases.now();
    const reply = await this.#stream.readGroup(client ?? this.#stream.client, this.#group, this.#consumer, count, block);
    const entries = entriesOf(reply, this.#stream.key);
    for (const entry of entries) this.#start(entry, 1, sentAt);
    return entries.length;
  }

  /** Takes over entries pending longer than `claimIdleMs` with another consumer (or this one, before a restart). */
  async #reclaim(count: number): Promise<number> {
    const idle = String(this.#options.claimIdleMs);
    const sentAt = this.#leases.now();
    const reply = await this.#stream.command(['XAUTOCLAIM', this.#stream.key, this.#group, this.#consumer, idle, '0-0', 'COUNT', String(count)]);
    const [, entries = [], deleted = []] = Array.isArray(reply) ? (reply as [unknown, unknown[], unknown[]]) : [];
    // Entries pending but gone from the stream (trimmed by someone else's XTRIM MAXLEN, or lost with Redis): acknowledged, reported.
    const gone = (deleted as unknown[]).map(String);
    if (gone.length > 0) {
      await this.#stream.command(['XACK', this.#stream.key, this.#group, ...gone]);
      this.#emitSafely('lost', { ids: gone });
    }
    const live = (entries as unknown[]).filter((entry) => Array.isArray(entry) && entry[1] !== null);
    if (live.length === 0) return 0;
    const ids = live.map((entry) => String((entry as unknown[])[0]));
    const counts = await this.#deliveries(ids);
    const taken = ids.filter((id) => !this.#leases.has(id));
    if (taken.length > 0) {
      this.#emitSafely('reclaimed', { ids: taken });
      this.#step({ step: 'reclaim', count: taken.length });
    }
    for (const entry of live) this.#start(entry, counts.get(String((entry as unknown[])[0])) ?? 2, sentAt);
    return live.length;
  }

  /** How many times each of these entries (pending with this consumer) was delivered. */
  async #deliveries(ids: string[]): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    // Stream ids sort by their numbers (`ms-seq`), not as text: `5-10` comes after `5-9`.
    const sorted = [...ids].sort((a, b) => (idBefore(a, b) ? -1 : idBefore(b, a) ? 1 : 0));
    const reply = await this.#stream.command([
      'XPENDING',
      this.#stream.key,
      this.#group,
      sorted[0] ?? '-',
      sorted.at(-1) ?? '+',
      String(ids.length * 2),
      this.#consumer,
    ]);
    for (const row of Array.isArray(reply) ? reply : []) {
      const [id, , , times] = row as [string, string, number, number];
      counts.set(String(id), Number(times));
    }
    return counts;
  }

  /** Starts handling an entry read by a command sent at `sentAt` (monotonic), unless it is handled here already. */
  #start(entry: unknown, deliveries: number, sentAt: number): void {
    const [raw, fields] = entry as [unknown, unknown];
    const id = String(raw);
    if (!this.#leases.hold(id, sentAt)) return;
    const record = fieldsOf(fields);
    const data = parsePayload(record['d']);
    const key = this.#orderKey(data);
    const run = () => this.#handle(id, record, data, deliveries);
    const task = (key === undefined ? run() : this.#ordered.run(key, run)).catch((error: unknown) => this.#report(error));
    this.#running.add(task);
    void task.finally(() => {
      this.#running.delete(task);
      this.#leases.release(id);
    });
  }

  /** The community or channel whose events run in order (`orderBy`), or `undefined`. */
  #orderKey(data: unknown): string | undefined {
    const by = this.#options.orderBy;
    if (by === undefined || typeof data !== 'object' || data === null) return undefined;
    const value = (data as Record<string, unknown>)[`${by}_id`];
    return typeof value === 'string' ? value : undefined;
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
    if (type === 'INTERACTION_CREATE') return this.#interaction(id, fields, data, deliveries);
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
    const summary = failed.reason instanceof Error ? failed.reason.message : String(failed.reason);
    // The last delivery allowed failed too: to the dead letters now, rather than after one more idle wait.
    if (deliveries >= this.#options.maxDeliveries) return this.#deadLetter(id, fields, 'max-deliveries', summary, deliveries);
    // Left pending: delivered again after claimIdleMs (to this worker or another).
  }

  async #interaction(id: string, fields: Record<string, string>, data: unknown, deliveries: number): Promise<void> {
    const payload = typeof data === 'object' && data !== null ? (data as { id?: unknown; token?: unknown }) : {};
    const interactionId = typeof payload.id === 'string' ? payload.id : '';
    const token = typeof payload.token === 'string' ? [payload.token] : [];
    const keys: ClaimKeys = { claim: this.#stream.claimKey(interactionId) };
    const run = this.#stream.script.bind(this.#stream);
    let claim: HeldClaim | undefined;
    let marking: Promise<boolean> | undefined;
    // Refused before any request once the claim lapsed (this worker was paused or cut off past claimIdleMs): the worker that
    // reclaimed the entry answers. Once the service accepted an answer, the claim says so (tried until Redis takes it), so
    // a delivery reclaimed after that is acknowledged without running again.
    const respond: InteractionResponder = async (target, body, options) => {
      if (claim === undefined || !this.#leases.valid(id)) {
        throw new EventStreamError(
          `not answering interaction ${target}: this worker's claim on it lapsed (paused or cut off from Redis past claimIdleMs); the worker that holds it now answers it`,
        );
      }
      const result = await this.#client.interactions.respond(target, body, options);
      const until = this.#leases.now() + INTERACTION_LIFETIME_MS;
      marking = markAnsweredUntilTaken(run, keys, { until, failed: (error) => this.#report(error) });
      return result;
    };
    const built = interactionFromDispatch(data, respond, this.#options.clock);
    if (!built.ok) return this.#deadLetter(id, fields, 'malformed', scrubText(built.error.message, token), deliveries);
    // The interaction's own expiry (its creation time as `interactions/base.ts` reads it) is the one rule: a handler never runs on an expired one.
    if (built.interaction.expired) {
      return this.#deadLetter(id, fields, 'expired', 'the interaction was older than 15 minutes when a worker got it', deliveries);
    }
    const holder = `${id}@${this.#consumer}`;
    const sentAt = this.#leases.now();
    const acquired = await acquireClaim(run, keys, holder, this.#options.claimIdleMs);
    if (acquired.status === 'held' && acquired.holder.startsWith(`${id}@`)) return; // This entry, live with another worker: left to it.
    if (acquired.status !== 'taken') {
      await this.#ack(id);
      this.#emitSafely('duplicate', { id, interactionId });
      this.#step({ step: 'duplicate', id, type: 'INTERACTION_CREATE' });
      return;
    }
    const held = new HeldClaim(acquired.fence, this.#options.claimIdleMs, sentAt, () => this.#leases.now());
    // A claim whose answer came too late to be known valid now is dropped: the entry stays pending, delivered again.
    if (!held.valid) return this.#leases.giveBack(keys, holder, held);
    claim = held;
    this.#leases.claimed(id, keys, holder, held);
    this.#step({ step: 'claim', id, type: 'INTERACTION_CREATE', deliveries });
    const started = performance.now();
    const interaction = built.interaction;
    const handled = this.router.offerToWaits(interaction) || this.router.wouldHandle(interaction);
    const running = this.router.dispatch(interaction);
    this.router.holdUnclaimed(interaction, handled, (event) => this.#emitSafely('interactionUnhandled', event));
    await running;
    this.#step({ step: 'handle', id, type: 'INTERACTION_CREATE', deliveries, durationMs: performance.now() - started });
    const answered = (await marking) === true;
    // Handler errors were reported (interactionError). Not acknowledged once the claim lapsed unanswered: the entry may be
    // another worker's now, and if not it comes again.
    if (answered || this.#leases.valid(id)) await this.#ack(id);
  }

  async #ack(id: string): Promise<void> {
    await this.#stream.command(['XACK', this.#stream.key, this.#group, id]);
    this.#step({ step: 'ack', id });
  }

  /** Publishes a step on the diagnostics channel (built only when someone listens). */
  #step(step: Omit<StreamStepMessage, 'stream' | 'group' | 'consumer'>): void {
    publishStreamStep(() => ({ ...step, stream: this.#stream.key, group: this.#group, consumer: this.#consumer }));
  }

  async #deadLetter(id: string, fields: Record<string, string>, reason: DeadLetter['reason'], error: string, deliveries: number): Promise<void> {
    let token: string[] = [];
    try {
      const parsed = JSON.parse(fields['d'] ?? 'null') as { token?: unknown } | null;
      if (typeof parsed?.token === 'string') token = [parsed.token];
    } catch {
      token = [];
    }
    const summary = scrubText(error, token).slice(0, 500);
    await this.#stream.deadLetter(this.#group, id, fields, reason, summary, deliveries);
    this.#step({ step: 'deadLetter', id, type: fields['t'] ?? '', reason, deliveries });
    this.#emitSafely('deadLetter', { originalId: id, type: fields['t'] ?? '', reason, deliveries, error: summary });
  }

  /** Reports a failure as an `error` event. */
  #report(error: unknown): void {
    this.#emitSafely('error', error instanceof Error ? error : new Error(String(error)));
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
