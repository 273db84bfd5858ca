/**
 * A worker thread that runs some shards of a Gateway: their sockets,
 * heartbeats and frame parsing. Every event and dispatch goes to the main
 * thread, which builds the interactions, runs the handlers and answers
 * through its client; each Identify waits for a turn from the main thread's
 * throttle, which also brings the current bot token.
 *
 * @module
 */

import { parentPort, workerData } from 'node:worker_threads';
import { GatewayConnection } from './connection.js';
import { connectionHost, localShard, type ShardHandle, type ShardHost } from './shards.js';
import { receiveError, sendDispatch, sendError, type FromWorker, type ShardState, type ShardWorkerData, type ToWorker } from './worker-messages.js';

const port = parentPort;
if (port === null) throw new Error('shard-worker.ts runs in a worker thread (started by the Gateway with shardsPerWorker)');
const data = workerData as ShardWorkerData;
const post = (message: FromWorker) => port.postMessage(message);

let token = data.token;
let nextRequest = 0;
const turns = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();
const shards = new Map<number, ShardHandle>();
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
    if (shard) post({ type: 'state', shardId, state: stateOf(shard) });
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
for (const id of data.ids) shards.set(id, localShard(id, new GatewayConnection(options, connectionHost(host, id, data.plan))));

port.on('message', (message: ToWorker) => {
  switch (message.type) {
    case 'restore':
      shards.get(message.shardId)?.restore(message.record);
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
      const shard = shards.get(message.shardId);
      if (!shard) return;
      shard.connect(undefined).then(
        () => post({ type: 'connected', requestId: message.requestId, shardId: shard.id, state: stateOf(shard) }),
        (error: unknown) => post({ type: 'connected', requestId: message.requestId, shardId: shard.id, state: stateOf(shard), error: sendError(error) }),
      );
      return;
    }
    case 'destroy':
      void Promise.all([...shards.values()].map((shard) => shard.destroy({ handOff: message.handOff }))).then(() => {
        post({ type: 'destroyed' });
        port.close();
      });
      return;
    default:
  }
});
