/**
 * Shards in `worker_threads` (`gateway.shardsPerWorker`), seen from the main
 * thread: one handle per shard mirroring its state, events and dispatches
 * passed on to the `Gateway`, and Identify turns taken from the main
 * thread's throttle for the workers.
 *
 * The worker script is `shard-worker.js` next to this module (the package
 * build must emit it there); run from the TypeScript sources it is
 * `shard-worker.ts`, loaded through `tsx`.
 *
 * @module
 */

import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { backoffDelay } from '../core/backoff.js';
import { GatewayError } from '../errors/index.js';
import type { ResolvedGatewayOptions } from './options.js';
import type { GatewaySessionRecord } from './gateway-session-store.js';
import type { ShardPlan } from './shard-plan.js';
import type { ShardHandle, ShardHost } from './shards.js';
import { receiveDispatch, receiveError, sendError, type FromWorker, type ShardState, type ShardWorkerData, type ToWorker } from './worker-messages.js';

/**
 * Starts the worker script: `shard-worker.js` next to this module, or from
 * the TypeScript sources `shard-worker.ts` through tsx's loader (registered
 * in the worker before the script loads).
 */
function startWorker(data: ShardWorkerData): Worker {
  const here: unknown = import.meta.url;
  if (typeof here !== 'string') throw new GatewayError('shardsPerWorker needs the ES module build of the SDK (import, not require)');
  if (!here.endsWith('.ts')) return new Worker(new URL('./shard-worker.js', here), { workerData: data });
  let tsx: string;
  try {
    // tsx's ES module build of its register API (its CommonJS one cannot register from an eval worker).
    tsx = pathToFileURL(
      createRequire(here)
        .resolve('tsx/esm/api')
        .replace(/\.cjs$/, '.mjs'),
    ).href;
  } catch (error) {
    throw new GatewayError('shardsPerWorker from the TypeScript sources needs tsx installed', undefined, { cause: error });
  }
  const script = new URL('./shard-worker.ts', here).href;
  return new Worker(`import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(script)}); });`, {
    eval: true,
    workerData: data,
    execArgv: [],
  });
}

/** The workers running now, for tests that make one die as a crash would (`terminate()`). @internal */
export const runningShardWorkers = new Set<Worker>();

/**
 * One worker and the shards it runs. A worker that dies (it exits, throws
 * uncaught, runs out of heap) is reported (`error` and `reconnecting` for
 * each of its shards, which are no longer `ready`) and replaced after the
 * reconnect backoff by a new one that resumes each shard's session from the
 * last state the main thread saw (its sequence taken from the dispatches
 * themselves, so nothing is handled twice).
 */
class ShardWorker {
  #worker: Worker;
  readonly #data: ShardWorkerData;
  readonly #host: ShardHost;
  readonly #options: ResolvedGatewayOptions;
  readonly #connects = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();
  readonly #turns = new Map<number, AbortController>();
  readonly states = new Map<number, ShardState>();
  #nextRequest = 0;
  #exited = false;
  #destroyed = false;
  #crashes = 0;
  #restartTimer: ReturnType<typeof setTimeout> | undefined;
  #gone: Promise<void>;

  constructor(data: ShardWorkerData, host: ShardHost, options: ResolvedGatewayOptions) {
    this.#data = data;
    this.#host = host;
    this.#options = options;
    for (const id of data.ids)
      this.states.set(id, { status: 'idle', sessionId: undefined, sequence: null, latency: undefined, lastAckAt: undefined, resumeUrl: undefined });
    [this.#worker, this.#gone] = this.#start(data);
  }

  #start(data: ShardWorkerData): [Worker, Promise<void>] {
    const worker = startWorker(data);
    runningShardWorkers.add(worker);
    this.#exited = false;
    worker.on('message', (message: FromWorker) => this.#onMessage(message));
    worker.on('error', (error: Error) =>
      this.#host.emit({ event: 'error', payload: new GatewayError(`a shard worker failed: ${error.message}`, undefined, { cause: error }) }, data.ids[0] ?? 0),
    );
    const gone = new Promise<void>((resolve) =>
      worker.once('exit', (code: number) => {
        runningShardWorkers.delete(worker);
        this.#exited = true;
        for (const waiter of this.#connects.values()) waiter.reject(new GatewayError(`the shard worker exited (code ${code})`));
        this.#connects.clear();
        for (const controller of this.#turns.values()) controller.abort();
        this.#turns.clear();
        if (!this.#destroyed) this.#crashed(code);
        resolve();
      }),
    );
    return [worker, gone];
  }

  /** A worker died on its own: its shards are not ready any more; a new worker resumes them after the backoff. */
  #crashed(code: number): void {
    this.#crashes++;
    const delayMs = backoffDelay(
      { baseDelayMs: this.#options.reconnectBaseDelayMs, maxDelayMs: this.#options.reconnectMaxDelayMs },
      this.#crashes,
      Math.random,
    );
    for (const id of this.#data.ids) {
      const state = this.states.get(id);
      if (state) this.states.set(id, { ...state, status: 'reconnecting' });
      this.#host.emit(
        {
          event: 'error',
          payload: new GatewayError(`the worker running shard ${id} exited (code ${code}); a new worker resumes its session in ${delayMs} ms`),
        },
        id,
      );
      this.#host.emit(
        {
          event: 'reconnecting',
          payload: { attempt: this.#crashes, delayMs, resume: state?.sessionId !== undefined, reason: `the shard worker exited (code ${code})` },
        },
        id,
      );
      this.#host.changed(id);
    }
    this.#restartTimer = setTimeout(() => this.#restart(), delayMs);
  }

  #restart(): void {
    this.#restartTimer = undefined;
    if (this.#destroyed) return;
    [this.#worker, this.#gone] = this.#start({ ...this.#data, token: this.#host.token() });
    for (const id of this.#data.ids) {
      const state = this.states.get(id);
      if (state?.sessionId !== undefined)
        this.#post({
          type: 'restore',
          shardId: id,
          record: { sessionId: state.sessionId, sequence: state.sequence, ...(state.resumeUrl === undefined ? {} : { resumeUrl: state.resumeUrl }) },
        });
      this.connect(id, undefined).then(
        () => {
          this.#crashes = 0;
        },
        () => undefined,
      );
    }
  }

  #post(message: ToWorker): void {
    if (!this.#exited) this.#worker.postMessage(message);
  }

  #onMessage(message: FromWorker): void {
    switch (message.type) {
      case 'event': {
        // READY and RESUMED mean the shard is ready now: its state says so before the listeners run (the worker's state report follows).
        const state = this.states.get(message.shardId);
        const { report } = message;
        if (state && (report.event === 'ready' || report.event === 'resumed')) this.states.set(message.shardId, { ...state, status: 'ready' });
        this.#host.emit(report.event === 'error' ? { event: 'error', payload: receiveError(report.payload) } : report, message.shardId);
        return;
      }
      case 'dispatch': {
        // Closing: what the worker still sends is not handled, so its sequence must not reach the saved session either
        // (a successor resumes from the last sequence handled here, and the service replays the rest).
        if (this.#destroyed) return;
        // The sequence of what reached this thread, from the dispatch itself: a worker that dies before its next state report
        // resumes from here, so what was handled is not replayed.
        const event = receiveDispatch(message.event);
        const state = this.states.get(event.shardId);
        if (state && typeof event.s === 'number' && (state.sequence === null || event.s > state.sequence))
          this.states.set(event.shardId, { ...state, sequence: event.s });
        try {
          this.#host.dispatch(event);
        } catch (error) {
          // A payload the worker handed on unparsed that is not JSON throws where it is read: reported, never escaping this handler.
          const payload = error instanceof GatewayError ? error : new GatewayError(`a dispatch failed: ${String(error)}`, undefined, { cause: error });
          this.#host.emit({ event: 'error', payload }, event.shardId);
        }
        return;
      }
      case 'state': {
        if (this.#destroyed) return;
        const seen = this.states.get(message.shardId)?.sequence ?? null;
        const reported = message.state.sequence;
        this.states.set(
          message.shardId,
          seen !== null && reported !== null && seen > reported && message.state.sessionId === this.states.get(message.shardId)?.sessionId
            ? { ...message.state, sequence: seen }
            : message.state,
        );
        this.#host.changed(message.shardId);
        return;
      }
      case 'connected': {
        this.states.set(message.shardId, message.state);
        const waiter = this.#connects.get(message.requestId);
        this.#connects.delete(message.requestId);
        if (message.error) waiter?.reject(receiveError(message.error));
        else waiter?.resolve();
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

  connect(shardId: number, signal: AbortSignal | undefined): Promise<void> {
    if (this.#exited) return Promise.reject(new GatewayError('the shard worker exited'));
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

  restore(shardId: number, record: GatewaySessionRecord): void {
    const state = this.states.get(shardId);
    if (state) this.states.set(shardId, { ...state, sessionId: record.sessionId, sequence: record.sequence, resumeUrl: record.resumeUrl });
    this.#post({ type: 'restore', shardId, record });
  }

  /** Closes its shards (resumable on hand-off), then the worker; terminates it if it does not finish within 5 s. */
  async destroy(handOff = false): Promise<void> {
    this.#destroyed = true;
    if (this.#restartTimer !== undefined) clearTimeout(this.#restartTimer);
    this.#restartTimer = undefined;
    for (const controller of this.#turns.values()) controller.abort();
    this.#turns.clear();
    if (this.#exited) return;
    this.#post({ type: 'destroy', handOff });
    const timer = setTimeout(() => void this.#worker.terminate(), 5000);
    await this.#gone;
    clearTimeout(timer);
  }
}

/** The handle of a shard run by a worker. */
function workerShard(id: number, worker: ShardWorker): ShardHandle {
  const state = () => worker.states.get(id) as ShardState;
  return {
    id,
    get status() {
      return state().status;
    },
    get sessionId() {
      return state().sessionId;
    },
    get sequence() {
      return state().sequence;
    },
    get latency() {
      return state().latency;
    },
    get lastAckAt() {
      return state().lastAckAt;
    },
    get resumeUrl() {
      return state().resumeUrl;
    },
    restore: (record) => worker.restore(id, record),
    connect: (signal) => worker.connect(id, signal),
    destroy: (options) => worker.destroy(options?.handOff === true),
  };
}

/** Starts `ceil(shards / shardsPerWorker)` workers, each with its run of consecutive shard ids. */
export async function startShardWorkers(plan: ShardPlan, options: ResolvedGatewayOptions, host: ShardHost): Promise<ShardHandle[]> {
  const perWorker = plan.perWorker ?? plan.ids.length;
  const { random: _random, ...cloneable } = options;
  const handles: ShardHandle[] = [];
  for (let start = 0; start < plan.ids.length; start += perWorker) {
    const ids = plan.ids.slice(start, start + perWorker);
    const worker = new ShardWorker(
      { ids, plan, options: cloneable, token: host.token(), throttled: host.beforeIdentify !== undefined, allowInsecure: host.allowInsecure },
      host,
      options,
    );
    for (const id of ids) handles.push(workerShard(id, worker));
  }
  return handles;
}
