/**
 * Shards in `worker_threads` (`gateway.shardsPerWorker`), seen from the main
 * thread: a pool per shard set that places each shard it is asked to start
 * in a worker with room (at most `shardsPerWorker` each; a new worker when
 * all are full) and ends a worker once its last shard stops; one handle per
 * shard mirroring its state, events and dispatches passed on to the
 * `Gateway`, and Identify turns taken from the main thread's throttle for
 * the workers. A fixed shard list and a fleet's leases start shards the
 * same way: {@link workerShards}.
 * *
 * @module
 */

import type { Worker } from 'node:worker_threads';
import { describeThrown } from '../errors/base.js';
import { GatewayError } from '../errors/index.js';
import type { ResolvedGatewayOptions } from './options.js';
import type { GatewaySessionRecord } from './gateway-session-store.js';
import type { ShardPlan } from './shard-plan.js';
import type { ShardHandle, ShardHost } from './shards.js';
import { connectWhileHeld, reportedAlready, stopAttempts } from './shard-start.js';
import { WorkerRestart } from './worker-restart.js';
import { runningShardWorkers, startWorker } from './worker-thread.js';
import {
  idleState,
  receiveDispatch,
  receiveError,
  sendError,
  type FromWorker,
  type ShardState,
  type ShardWorkerData,
  type ToWorker,
} from './worker-messages.js';

/** A shard placed in a worker: its state as the main thread mirrors it (kept after it stopped, for its last saved session). */
interface WorkerEntry {
  readonly id: number;
  state: ShardState;
  /** Its stop, once asked for: nothing it dispatches from then on is handled. */
  removing: Promise<void> | undefined;
  /** Settles the stop (the worker said `removed`, or it exited). */
  removed: () => void;
}

/**
 * One worker and the shards it runs now. A worker that dies (it exits, throws uncaught, runs out of heap) is reported (`error`
 * and `reconnecting` for each of its shards, which are no longer `ready`) and replaced after the reconnect backoff by a new one
 * that runs the same shards and resumes each one's session from the last state the main thread saw (its sequence taken from the
 * dispatches themselves, so nothing is handled twice); a death is one report, what the worker threw included. A replacement whose
 * thread cannot start is reported and tried again while the worker is wanted (`worker-restart.ts`). Once its last shard stopped
 * it is ended (`closing`), and takes no other.
 */
class ShardWorker {
  #worker: Worker;
  readonly #data: ShardWorkerData;
  readonly #host: ShardHost;
  readonly #perWorker: number;
  readonly #emptied: (worker: ShardWorker) => void;
  readonly #connects = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();
  readonly #turns = new Map<number, AbortController>();
  readonly #entries = new Map<number, WorkerEntry>();
  #nextRequest = 0;
  #exited = false;
  #closing: Promise<void> | undefined;
  readonly #restart: WorkerRestart;
  /** What the worker threw uncaught, reported with its exit (Node emits `error`, then `exit`): one report per death. */
  #thrown: Error | undefined;
  #gone: Promise<void>;

  constructor(data: ShardWorkerData, host: ShardHost, options: ResolvedGatewayOptions, perWorker: number, emptied: (worker: ShardWorker) => void) {
    this.#data = data;
    this.#host = host;
    this.#perWorker = perWorker;
    this.#emptied = emptied;
    this.#restart = new WorkerRestart(
      { baseDelayMs: options.reconnectBaseDelayMs, maxDelayMs: options.reconnectMaxDelayMs },
      {
        shards: () => [...this.#entries.keys()],
        start: () => this.#resume(),
        open: () => this.#closing === undefined,
        report: (report) => this.#host.emit(report, this.#entries.keys().next().value ?? 0),
      },
    );
    [this.#worker, this.#gone] = this.#start(data);
  }

  /** Whether shard `id` may be placed here: room, not ending, and no run of that id still stopping here. */
  hasRoom(id: number): boolean {
    return this.#closing === undefined && this.#entries.size < this.#perWorker && !this.#entries.has(id);
  }

  /** Starts running shard `id` here (idle until connected). */
  add(id: number): WorkerEntry {
    const entry: WorkerEntry = { id, state: idleState(), removing: undefined, removed: () => undefined };
    this.#entries.set(id, entry);
    this.#post({ type: 'add', shardId: id });
    return entry;
  }

  #start(data: ShardWorkerData): [Worker, Promise<void>] {
    const worker = startWorker(data);
    runningShardWorkers.add(worker);
    this.#exited = false;
    this.#thrown = undefined;
    worker.on('message', (message: FromWorker) => this.#onMessage(message));
    worker.on('error', (error: Error) => void (this.#thrown = error));
    const gone = new Promise<void>((resolve) =>
      worker.once('exit', (code: number) => {
        runningShardWorkers.delete(worker);
        this.#exited = true;
        const thrown = this.#thrown;
        const how = `code ${code}${thrown === undefined ? '' : `: ${thrown.message}`}`;
        const why = `the shard worker exited (${how})`;
        // Its crash is reported with its restart (below): a held shard's connect retry counts the rejection, not reporting it again.
        for (const waiter of this.#connects.values()) waiter.reject(reportedAlready(new GatewayError(why, undefined, { cause: thrown })));
        this.#connects.clear();
        for (const controller of this.#turns.values()) controller.abort();
        this.#turns.clear();
        // The shards being stopped are stopped: their sockets went with the worker.
        for (const entry of [...this.#entries.values()]) if (entry.removing !== undefined) this.#finishRemoval(entry);
        if (this.#closing === undefined) this.#crashed(how, thrown);
        else if (thrown !== undefined)
          this.#host.emit({ event: 'error', payload: new GatewayError(`a shard worker failed: ${how}`, undefined, { cause: thrown }) }, 0);
        resolve();
      }),
    );
    return [worker, gone];
  }

  /** A worker died on its own (`how`: its exit code and what it threw, if it did): its shards are not ready any more; a new worker resumes them after the backoff. */
  #crashed(how: string, thrown: Error | undefined): void {
    const { attempt, delayMs } = this.#restart.crashed();
    for (const entry of this.#entries.values()) {
      const { id, state } = entry;
      entry.state = { ...state, status: 'reconnecting' };
      const message = `the worker running shard ${id} exited (${how}); a new worker resumes its session in ${delayMs} ms`;
      this.#host.emit({ event: 'error', payload: new GatewayError(message, undefined, { cause: thrown }) }, id);
      const reason = `the shard worker exited (${how})`;
      this.#host.emit({ event: 'reconnecting', payload: { attempt, delayMs, resume: state.sessionId !== undefined, reason } }, id);
      this.#host.changed(id);
    }
  }

  /** A new worker, running the shards the dead one held (those stopped meanwhile not); throws when its thread cannot start. */
  #resume(): void {
    [this.#worker, this.#gone] = this.#start({ ...this.#data, token: this.#host.token() });
    for (const entry of this.#entries.values()) {
      const { id, state } = entry;
      this.#post({ type: 'add', shardId: id });
      if (state.sessionId !== undefined)
        this.#post({
          type: 'restore',
          shardId: id,
          record: { sessionId: state.sessionId, sequence: state.sequence, ...(state.resumeUrl === undefined ? {} : { resumeUrl: state.resumeUrl }) },
        });
      // Connected like a held shard (before its first READY a connection does not retry on its own): a failed connect is
      // reported and tried again while this worker runs the shard, so a restarted shard never stays dark unreported.
      const worker = this.#worker;
      const held = () => this.#worker === worker && !this.#exited && this.#closing === undefined && this.#running(id) === entry;
      connectWhileHeld(
        () => this.connect(entry, undefined),
        held,
        (report) => held() && this.#host.emit(report, id),
        () => this.#restart.connected(),
        this,
        id,
      );
    }
  }

  #post(message: ToWorker): void {
    if (!this.#exited) this.#worker.postMessage(message);
  }

  /** The entry a message of the worker is about, while it runs (not once its stop began). */
  #running(shardId: number): WorkerEntry | undefined {
    const entry = this.#entries.get(shardId);
    return entry?.removing === undefined ? entry : undefined;
  }

  #onMessage(message: FromWorker): void {
    switch (message.type) {
      case 'event': {
        // A shard being stopped still reports (its close); one that stopped does not.
        const entry = this.#entries.get(message.shardId);
        if (entry === undefined) return;
        // READY and RESUMED mean the shard is ready now: its state says so before the listeners run (the worker's state report follows).
        const { report } = message;
        if (entry.removing === undefined && (report.event === 'ready' || report.event === 'resumed')) entry.state = { ...entry.state, status: 'ready' };
        this.#host.emit(report.event === 'error' ? { event: 'error', payload: receiveError(report.payload) } : report, message.shardId);
        return;
      }
      case 'dispatch': {
        // Stopping: what the worker still sends is not handled, so its sequence must not reach the saved session either
        // (a successor resumes from the last sequence handled here, and the service replays the rest).
        const event = receiveDispatch(message.event);
        const entry = this.#running(event.shardId);
        if (entry === undefined) return;
        // The sequence of what reached this thread, from the dispatch itself: a worker that dies before its next state report
        // resumes from here, so what was handled is not replayed.
        const { state } = entry;
        if (typeof event.s === 'number' && (state.sequence === null || event.s > state.sequence)) entry.state = { ...state, sequence: event.s };
        try {
          this.#host.dispatch(event);
        } catch (error) {
          // A payload the worker handed on unparsed that is not JSON throws where it is read: reported, never escaping this handler.
          const payload = error instanceof GatewayError ? error : new GatewayError(`a dispatch failed: ${describeThrown(error)}`, undefined, { cause: error });
          this.#host.emit({ event: 'error', payload }, event.shardId);
        }
        return;
      }
      case 'state': {
        const entry = this.#running(message.shardId);
        if (entry === undefined) return;
        const seen = entry.state.sequence;
        const reported = message.state.sequence;
        entry.state =
          seen !== null && reported !== null && seen > reported && message.state.sessionId === entry.state.sessionId
            ? { ...message.state, sequence: seen }
            : message.state;
        this.#host.changed(message.shardId);
        return;
      }
      case 'connected': {
        const entry = this.#running(message.shardId);
        if (entry !== undefined) entry.state = message.state;
        const waiter = this.#connects.get(message.requestId);
        this.#connects.delete(message.requestId);
        if (message.error) waiter?.reject(receiveError(message.error));
        else waiter?.resolve();
        return;
      }
      case 'removed': {
        const entry = this.#entries.get(message.shardId);
        if (entry?.removing !== undefined) this.#finishRemoval(entry);
        return;
      }
      case 'turn':
        this.#giveTurn(message.requestId, message.shardId);
        return;
      case 'cancel-turn':
        this.#turns.get(message.requestId)?.abort();
        this.#turns.delete(message.requestId);
        return;
      default:
    }
  }

  /** Waits for the shard's turn in the main thread's throttle, then sends it with the current token. */
  #giveTurn(requestId: number, shardId: number): void {
    const controller = new AbortController();
    this.#turns.set(requestId, controller);
    const wait = this.#host.beforeIdentify?.(shardId, controller.signal) ?? Promise.resolve();
    wait.then(
      () => {
        if (this.#turns.delete(requestId)) this.#post({ type: 'turn', requestId, token: this.#host.token() });
      },
      (error: unknown) => {
        if (this.#turns.delete(requestId)) this.#post({ type: 'turn', requestId, token: undefined, error: sendError(error) });
      },
    );
  }

  /** Connects the shard's run `entry` (not another run of its id placed here after it stopped). */
  connect(entry: WorkerEntry, signal: AbortSignal | undefined): Promise<void> {
    const shardId = entry.id;
    if (this.#exited) return Promise.reject(reportedAlready(new GatewayError('the shard worker exited'))); // reported with its restart
    if (this.#running(shardId) !== entry) return Promise.reject(new GatewayError(`shard ${shardId} was stopped`));
    if (signal?.aborted) return Promise.reject(new GatewayError('connect() was aborted', undefined, { cause: signal.reason }));
    const requestId = this.#nextRequest++;
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        this.#connects.delete(requestId);
        reject(new GatewayError('connect() was aborted', undefined, { cause: signal?.reason }));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const settle = () => signal?.removeEventListener('abort', onAbort);
      this.#connects.set(requestId, {
        resolve: () => {
          settle();
          resolve();
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      });
      this.#post({ type: 'connect', shardId, requestId });
    });
  }

  restore(entry: WorkerEntry, record: GatewaySessionRecord): void {
    if (entry.removing !== undefined) return;
    entry.state = { ...entry.state, sessionId: record.sessionId, sequence: record.sequence, resumeUrl: record.resumeUrl };
    this.#post({ type: 'restore', shardId: entry.id, record });
  }

  /**
   * Stops one shard (closed with 4000 on a hand-off, else 1000); the others here run on. The worker left with no shard is
   * ended (the stop resolves once it exited), so a pool holds at most one worker per `shardsPerWorker` shards it runs, rounded up.
   */
  remove(entry: WorkerEntry, handOff: boolean): Promise<void> {
    if (entry.removing !== undefined) return entry.removing;
    const stopped = new Promise<void>((resolve) => {
      entry.removed = resolve;
    });
    entry.removing = stopped.then(() => (this.#entries.size === 0 ? this.#closing : undefined));
    if (this.#exited) this.#finishRemoval(entry);
    else this.#post({ type: 'remove', shardId: entry.id, handOff });
    return entry.removing;
  }

  #finishRemoval(entry: WorkerEntry): void {
    if (this.#entries.get(entry.id) === entry) this.#entries.delete(entry.id);
    if (this.#entries.size === 0 && this.#closing === undefined) {
      this.#closing = this.#close();
      this.#emptied(this);
    }
    entry.removed();
  }

  /** Ends the worker (it holds no shard); terminates it if it does not finish within 5 s. */
  async #close(): Promise<void> {
    this.#restart.stop();
    stopAttempts(this); // a restarted shard's connect retry waiting: none once the worker ends
    for (const controller of this.#turns.values()) controller.abort();
    this.#turns.clear();
    if (this.#exited) return;
    this.#post({ type: 'destroy' });
    const timer = setTimeout(() => void this.#worker.terminate(), 5000);
    await this.#gone;
    clearTimeout(timer);
  }
}

/** The handle of a shard run by a worker. */
function workerShard(entry: WorkerEntry, worker: ShardWorker): ShardHandle {
  const { id } = entry;
  return {
    id,
    get status() {
      return entry.state.status;
    },
    get sessionId() {
      return entry.state.sessionId;
    },
    get sequence() {
      return entry.state.sequence;
    },
    get latency() {
      return entry.state.latency;
    },
    get lastAckAt() {
      return entry.state.lastAckAt;
    },
    get resumeUrl() {
      return entry.state.resumeUrl;
    },
    restore: (record) => worker.restore(entry, record),
    connect: (signal) => worker.connect(entry, signal),
    destroy: (options) => worker.remove(entry, options?.handOff === true),
  };
}

/** The workers of one shard set: each shard placed where there is room, a worker ended once its last shard stopped. */
class ShardWorkerPool {
  readonly #workers: ShardWorker[] = [];
  readonly #plan: ShardPlan;
  readonly #options: ResolvedGatewayOptions;
  readonly #host: ShardHost;

  constructor(plan: ShardPlan, options: ResolvedGatewayOptions, host: ShardHost) {
    this.#plan = plan;
    this.#options = options;
    this.#host = host;
  }

  create(id: number): ShardHandle {
    let worker = this.#workers.find((candidate) => candidate.hasRoom(id));
    if (worker === undefined) {
      const { random: _random, ...cloneable } = this.#options;
      const host = this.#host;
      const data = {
        plan: this.#plan,
        options: cloneable,
        token: host.token(),
        throttled: host.beforeIdentify !== undefined,
        allowInsecure: host.allowInsecure,
      };
      worker = new ShardWorker(data, host, this.#options, this.#plan.perWorker ?? 1, (emptied) => {
        this.#workers.splice(this.#workers.indexOf(emptied), 1);
      });
      this.#workers.push(worker);
    }
    return workerShard(worker.add(id), worker);
  }
}

/**
 * How shards start in worker threads: `(id, plan, set)` places shard `id` of `set` (its plan says `shardsPerWorker`) in one of
 * that set's workers, started with the set's host. A fixed shard list creates each of its ids in turn (consecutive ids share a
 * worker); a fleet creates and stops shards as its leases come and go.
 */
export function workerShards<K extends object>(
  options: ResolvedGatewayOptions,
  hostOf: (plan: ShardPlan, set: K) => ShardHost,
): (id: number, plan: ShardPlan, set: K) => ShardHandle {
  const pools = new WeakMap<K, ShardWorkerPool>();
  return (id, plan, set) => {
    let pool = pools.get(set);
    if (pool === undefined) pools.set(set, (pool = new ShardWorkerPool(plan, options, hostOf(plan, set))));
    return pool.create(id);
  };
}
