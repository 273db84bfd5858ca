/**
 * Starting a shard worker thread: the script is `shard-worker.js` next to
 * this module (the package build must emit it there); run from the
 * TypeScript sources it is `shard-worker.ts`, loaded through `tsx`.
 *
 * @module
 */

import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { GatewayError } from '../errors/index.js';
import type { ShardWorkerData } from './worker-messages.js';

/**
 * Starts the worker script: `shard-worker.js` next to this module, or from
 * the TypeScript sources `shard-worker.ts` through tsx's loader (registered
 * in the worker before the script loads).
 */
export function startWorker(data: ShardWorkerData): Worker {
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
