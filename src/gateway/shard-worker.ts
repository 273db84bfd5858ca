/**
 * A worker thread that runs some shards of a Gateway: their sockets,
 * heartbeats and frame parsing. It starts with none: the main thread adds
 * a shard (`add`) and removes it (`remove`: closed, resumable on a
 * hand-off; `removed` once its socket is closed) as it places them. Every event and dispatch goes to the main
 * thread, which builds the interactions, runs the handlers and answers
 * through its client; each Identify waits for a turn from the main thread's
 * throttle, which also brings the current bot token.
 *
 * @module
 */

import { parentPort, workerData } from 'node:worker_threads';
import { GatewayConnection } from './connection.js';
import { connectionHost, localShard, type ShardHandle, type ShardHost } from './shards.js';
import { idleState, receiveError, sendDispatch, sendError, type FromWorker, type ShardState, type ShardWorkerData, type ToWorker } from './worker-messages.js';

const port = parentPort;
if (port === null) throw new Error('shard-worker.ts runs in a worker thread (started by the Gateway with shardsPerWorker)');
const data = workerData as ShardWorkerData;
const post = (message: FromWorker) => port.postMessage(message);

let token = data.token;
let nextRequest = 0;
const turns = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();
/** A shard run here, and once its removal began, that removal. */
interface Running {
  readonly handle: ShardHandle;
  removing: Promise<void> | undefined;
}
const shards = new Map<number, Running>();
const pendingState = new Set<number>();

const stateOf = (shard: ShardHandle): ShardState => ({
  status: shard.status,
  sessionId: shard.sessionId,
  sequence: shard.sequence,
  latency: shard.latency,
  lastAckAt: shard.lastAckAt,
  resumeUrl: shard.resumeUrl,
});

/** Tells the main thread a shard's state, once per turn of the event loop (after the connection acted on what changed it). */
function reportState(shardId: number): void {
  if (pendingState.has(shardId)) return;
  pendingState.add(shardId);
  setImmediate(() => {
    pendingState.delete(shardId);
    const shard = shards.get(shardId);
    if (shard?.removing === undefined && shard) post({ type: 'state', shardId, state: stateOf(shard.handle) });
  });
}

const host: ShardHost = {
  token: () => token,
  now: () => Date.now(),
  allowInsecure: data.allowInsecure,
  emit: (report, shardId) => {
    post({ type: 'event', shardId, report: report.event === 'error' ? { event: 'error', payload: sendError(report.payload) } : report });
    reportState(shardId);
  },
  dispatch: (event) => post({ type: 'dispatch', event: sendDispatch(event) }),
  beforeIdentify: data.throttled
    ? (shardId, signal) =>
        new Promise<void>((resolve, reject) => {
          const requestId = nextRequest++;
          turns.set(requestId, { resolve, reject });
          signal.addEventListener('abort', () => {
            if (!turns.delete(requestId)) return;
            post({ type: 'cancel-turn', requestId });
            reject(new Error('aborted'));
          });
          post({ type: 'turn', requestId, shardId });
        })
    : undefined,
  changed: (shardId) => reportState(shardId),
};

const options = { ...data.options, random: Math.random };

/**
 * Starts running shard `id`. What its connection reports goes to the main thread only while it is this shard's current run; once
 * its removal began, its dispatches and state do not (the main thread resumes a successor from the last dispatch it handled).
 */
function add(id: number): void {
  if (shards.has(id)) return; // the main thread never adds a shard it has here (removing included)
  const live = () => shards.get(id) === running;
  const own: ShardHost = {
    ...host,
    emit: (report, shardId) => {
      if (live()) host.emit(report, shardId);
    },
    dispatch: (event) => {
      if (live() && running.removing === undefined) host.dispatch(event);
    },
    changed: (shardId) => {
      if (live() && running.removing === undefined) host.changed(shardId);
    },
  };
  const running: Running = { handle: localShard(id, new GatewayConnection(options, connectionHost(own, id, data.plan))), removing: undefined };
  shards.set(id, running);
}

/** Closes shard `id` (4000 on a hand-off), then tells the main thread. */
function remove(id: number, handOff: boolean): void {
  const running = shards.get(id);
  if (running === undefined) return void post({ type: 'removed', shardId: id });
  running.removing ??= running.handle.destroy({ handOff }).finally(() => {
    if (shards.get(id) === running) shards.delete(id);
    post({ type: 'removed', shardId: id });
  });
}

port.on('message', (message: ToWorker) => {
  switch (message.type) {
    case 'add':
      add(message.shardId);
      return;
    case 'remove':
      remove(message.shardId, message.handOff);
      return;
    case 'restore':
      shards.get(message.shardId)?.handle.restore(message.record);
      return;
    case 'turn': {
      const turn = turns.get(message.requestId);
      turns.delete(message.requestId);
      if (message.token !== undefined) token = message.token;
      if (message.error) turn?.reject(receiveError(message.error));
      else turn?.resolve();
      return;
    }
    case 'connect': {
      const shard = shards.get(message.shardId)?.handle;
      if (!shard) {
        const error = sendError(new Error(`shard ${message.shardId} does not run in this worker`));
        return void post({ type: 'connected', requestId: message.requestId, shardId: message.shardId, state: idleState(), error });
      }
      shard.connect(undefined).then(
        () => post({ type: 'connected', requestId: message.requestId, shardId: shard.id, state: stateOf(shard) }),
        (error: unknown) => post({ type: 'connected', requestId: message.requestId, shardId: shard.id, state: stateOf(shard), error: sendError(error) }),
      );
      return;
    }
    case 'destroy':
      void Promise.all([...shards.values()].map((shard) => shard.removing ?? shard.handle.destroy())).then(() => {
        post({ type: 'destroyed' });
        port.close();
      });
      return;
    default:
  }
});
