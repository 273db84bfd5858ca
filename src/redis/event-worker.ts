/**
 * A worker of a pool consuming a Redis stream of Gateway dispatches with a consumer group: interactions arrive typed with
 * `reply()` bound to the worker's own client, and the same router as the Gateway and the HTTP receiver runs them.
 *
 * Guarantees: an entry is acknowledged only after its handlers settled; a dead consumer's pending entries are reclaimed
 * by a live one after `claimIdleMs` (`XAUTOCLAIM`, delivery count kept); an interaction is claimed in Redis before it runs
 * (`SET NX`, 15 minutes) and marked answered once the service accepts the answer, so a replayed or republished one runs
 * once; an event whose handlers failed `maxDeliveries` times, an interaction past its 15 minutes and an entry that cannot
 * be read go to the dead letters, moved, acknowledged and deleted in one atomic step.
 *
 * @module
 */

import { EventEmitter } from 'eventemitter3';
import type { Client } from '../clients/client.js';
import { INTERACTION_LIFETIME_MS, snowflakeTimestamp } from '../core/constants.js';
import { scrubText } from '../core/redact.js';
import { KeyedQueue, wait } from '../core/wait.js';
import { publishStreamStep, type StreamStepMessage } from '../observe/diagnostics.js';
import { ValidationError } from '../errors/index.js';
import { interactionFromDispatch } from '../interactions/from-dispatch.js';
import type { CommandInteraction, InteractionByKind, InteractionKind, InteractionResponder } from '../interactions/interaction.js';
import type { CommandOptionValues, TypedCommandDefinition } from '../interactions/options.js';
import { type InteractionHandler, InteractionRouter } from '../interactions/router.js';
import { RedisScript } from './connection.js';
import { type DeadLetter, entriesOf, fieldsOf, idBefore, type RedisEventStream } from './event-stream.js';
import type { EventWorkerEvents, EventWorkerOptions, StreamEvent } from './event-worker-options.js';

export type { DuplicateEvent, EventWorkerEvents, EventWorkerOptions, LostEvent, StreamEvent } from './event-worker-options.js';

interface WorkerSettings {
  concurrency: number;
  claimIdleMs: number;
  maxDeliveries: number;
  pollMs: number;
  trimEveryMs: number;
  startFrom: 'beginning' | 'new';
  clock: () => number;
  orderBy: 'guild' | 'channel' | undefined;
  maxBacklog: number | undefined;
}

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

/** Claims an interaction for one stream entry: 1 taken, 2 already taken for this very entry (a reclaimed delivery not answered yet), 0 taken by another or answered. */
const CLAIM = new RedisScript(`
local held = redis.call('GET', KEYS[1])
if not held then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
if held == ARGV[1] then return 2 end
return 0`);

/** What a claim holds once the service accepted an answer. */
const ANSWERED = 'answered';

/** How long a claim lives: an interaction's token lasts 15 minutes, a minute more for clocks apart. */
const CLAIM_TTL_MS = INTERACTION_LIFETIME_MS + 60_000;

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
  /** Stream ids being handled here: a slow handler's entry reclaimed by this same worker is not started twice. */
  readonly #handling = new Set<string>();
  /** Events of one community or channel, in order (with `orderBy`). */
  readonly #ordered = new KeyedQueue<string>();
  readonly #stop = new AbortController();
  #loop: Promise<void> | undefined;
  #lastClaimAt = 0;
  #lastTrimAt = 0;

  constructor(options: EventWorkerOptions) {
    super();
    if (options.group === '' || options.consumer === '')
      throw new ValidationError('createEventWorker', [{ path: options.group === '' ? 'group' : 'consumer', message: 'must not be empty' }]);
    this.#stream = options.stream;
    this.#group = options.group;
    this.#consumer = options.consumer;
    this.#client = options.client;
    this.#options = {
      concurrency: Math.max(1, options.concurrency ?? 16),
      claimIdleMs: options.claimIdleMs ?? 30_000,
      maxDeliveries: Math.max(1, options.maxDeliveries ?? 5),
      pollMs: options.pollMs ?? 25,
      trimEveryMs: options.trimEveryMs ?? 5000,
      startFrom: options.startFrom ?? 'beginning',
      clock: options.clock ?? Date.now,
      orderBy: options.orderBy,
      maxBacklog: options.maxBacklog,
    };
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

  /** Creates the group if needed and starts consuming; resolves once the group exists. */
  async start(): Promise<void> {
    if (this.#loop !== undefined) return;
    try {
      await this.#stream.command(['XGROUP', 'CREATE', this.#stream.key, this.#group, this.#options.startFrom === 'new' ? '$' : '0', 'MKSTREAM']);
    } catch (error) {
      if (!(error instanceof Error && /BUSYGROUP/.test(String((error as { cause?: unknown }).cause ?? error.message)))) throw error;
    }
    this.#loop = this.#run();
  }

  /**
   * Stops reading, waits for the events under way to settle (each then
   * acknowledged as usual), and trims. What it had not read stays for the
   * others. Safe to call more than once.
   */
  async close(): Promise<void> {
    this.#stop.abort();
    await this.#loop;
    await Promise.all(this.#running);
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
        if (read < free) read += await this.#readNew(free - read);
        if (this.#options.trimEveryMs > 0 && now - this.#lastTrimAt >= this.#options.trimEveryMs) {
          this.#lastTrimAt = now;
          await this.#stream.trim();
          await this.#checkBacklog();
        }
        if (read === 0) await wait(this.#options.pollMs, { signal }).catch(() => undefined);
      } catch (error) {
        this.#emitSafely('error', error instanceof Error ? error : new Error(String(error)));
        await wait(Math.max(this.#options.pollMs, 200), { signal }).catch(() => undefined);
      }
    }
  }

  /** Emits `backlog` when more than `maxBacklog` entries wait in this worker's group. */
  async #checkBacklog(): Promise<void> {
    const bound = this.#options.maxBacklog;
    if (bound === undefined) return;
    const backlog = await this.#stream.backlog();
    const group = backlog.groups.find((candidate) => candidate.name === this.#group);
    if (group !== undefined && group.pending + (group.undelivered ?? 0) > bound) this.#emitSafely('backlog', backlog);
  }

  /** Reads entries never delivered to the group. */
  async #readNew(count: number): Promise<number> {
    const reply = await this.#stream.command(['XREADGROUP', 'GROUP', this.#group, this.#consumer, 'COUNT', String(count), 'STREAMS', this.#stream.key, '>']);
    const entries = entriesOf(reply, this.#stream.key);
    for (const entry of entries) this.#start(entry, 1);
    return entries.length;
  }

  /** Takes over entries pending longer than `claimIdleMs` with another consumer (or this one, before a restart). */
  async #reclaim(count: number): Promise<number> {
    const idle = String(this.#options.claimIdleMs);
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
    const taken = ids.filter((id) => !this.#handling.has(id));
    if (taken.length > 0) {
      this.#emitSafely('reclaimed', { ids: taken });
      this.#step({ step: 'reclaim', count: taken.length });
    }
    for (const entry of live) this.#start(entry, counts.get(String((entry as unknown[])[0])) ?? 2);
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

  #start(entry: unknown, deliveries: number): void {
    const [raw, fields] = entry as [unknown, unknown];
    const id = String(raw);
    if (this.#handling.has(id)) return;
    this.#handling.add(id);
    const record = fieldsOf(fields);
    const data = parsePayload(record['d']);
    const key = this.#orderKey(data);
    const run = () => this.#handle(id, record, data, deliveries);
    const task = (key === undefined ? run() : this.#ordered.run(key, run)).catch((error: unknown) =>
      this.#emitSafely('error', error instanceof Error ? error : new Error(String(error))),
    );
    this.#running.add(task);
    void task.finally(() => {
      this.#running.delete(task);
      this.#handling.delete(id);
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
    if (deliveries > this.#options.maxDeliveries) {
      return this.#deadLetter(id, fields, 'max-deliveries', `delivered ${deliveries} times without being handled`, deliveries);
    }
    if (type === 'INTERACTION_CREATE') return this.#interaction(id, fields, data, deliveries);
    const handlers = [...(this.#dispatchHandlers.get(type) ?? [])];
    const event: StreamEvent = { type, data, shardId: Number(fields['sh'] ?? 0), id, deliveries };
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
    const created = snowflakeTimestamp(interactionId);
    if (created !== undefined && this.#options.clock() - created >= INTERACTION_LIFETIME_MS) {
      return this.#deadLetter(id, fields, 'expired', 'the interaction was older than 15 minutes when a worker got it', deliveries);
    }
    const claimKey = this.#stream.claimKey(interactionId);
    // Once the service accepted an answer, the claim says so: a delivery reclaimed after that (this worker died before
    // acknowledging) is acknowledged without running again.
    const respond: InteractionResponder = async (target, body, options) => {
      const result = await this.#client.interactions.respond(target, body, options);
      await this.#stream.command(['SET', claimKey, ANSWERED, 'PX', String(CLAIM_TTL_MS)]).catch(() => undefined);
      return result;
    };
    const built = interactionFromDispatch(data, respond, this.#options.clock);
    if (!built.ok) return this.#deadLetter(id, fields, 'malformed', scrubText(built.error.message, token), deliveries);
    const claimed = Number(await this.#stream.script(CLAIM, [claimKey], [id, String(CLAIM_TTL_MS)]));
    if (claimed === 0) {
      await this.#ack(id);
      this.#emitSafely('duplicate', { id, interactionId });
      this.#step({ step: 'duplicate', id, type: 'INTERACTION_CREATE' });
      return;
    }
    this.#step({ step: 'claim', id, type: 'INTERACTION_CREATE', deliveries });
    const started = performance.now();
    const interaction = built.interaction;
    const handled = this.router.offerToWaits(interaction) || this.router.wouldHandle(interaction);
    const running = this.router.dispatch(interaction);
    this.router.holdUnclaimed(interaction, handled, (event) => this.#emitSafely('interactionUnhandled', event));
    await running;
    this.#step({ step: 'handle', id, type: 'INTERACTION_CREATE', deliveries, durationMs: performance.now() - started });
    // Handler errors were reported (interactionError); the claim keeps the interaction from running again.
    await this.#ack(id);
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
