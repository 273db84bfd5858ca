/**
 * When a shard worker that died is replaced (`worker-pool.ts`): after the
 * reconnect backoff, growing with each crash until a restarted shard connects;
 * a replacement whose thread cannot start (a thread limit: `new Worker`
 * throws) is reported once per run of failures, naming the shards, and tried
 * again (1 s doubling to 30 s, {@link HeldAttempts}) while the worker is not
 * being ended.
 *
 * @module
 */

import { backoffDelay, type BackoffPolicy } from '../core/backoff.js';
import { describeThrown } from '../errors/base.js';
import { GatewayError } from '../errors/index.js';
import type { ConnectionReport } from './connection-host.js';
import { HeldAttempts } from './shard-start.js';

/** What a restart works on: the worker's shards, how to start its replacement, whether it is still wanted, where to report. */
interface RestartHost {
  /** The ids of the shards the worker runs (named in a failure's report). */
  shards(): readonly number[];
  /** Starts the replacement and resumes its shards; throws when no thread can start. */
  start(): void;
  /** Whether a replacement is still wanted (the worker is not being ended). */
  open(): boolean;
  /** Reports an `error` or a debug line. */
  report(report: ConnectionReport): void;
}

/** The restarts of one shard worker: one pending at a time, cleared by {@link WorkerRestart.stop}. */
export class WorkerRestart {
  readonly #policy: BackoffPolicy;
  readonly #host: RestartHost;
  readonly #tries: HeldAttempts;
  #crashes = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(policy: BackoffPolicy, host: RestartHost) {
    this.#policy = policy;
    this.#host = host;
    this.#tries = new HeldAttempts(host.open, host.report);
  }

  /** The worker died: its replacement starts after the backoff returned (crashes in a row counted in `attempt`). */
  crashed(): { attempt: number; delayMs: number } {
    this.#crashes++;
    const delayMs = backoffDelay(this.#policy, this.#crashes, Math.random);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#attempt();
    }, delayMs);
    return { attempt: this.#crashes, delayMs };
  }

  /** A restarted shard connected: the next crash waits the base delay again. */
  connected(): void {
    this.#crashes = 0;
  }

  /** The worker is being ended: no replacement. */
  stop(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#tries.stop();
  }

  #attempt(): void {
    if (!this.#host.open()) return;
    const shards = this.#host.shards().join(', ');
    try {
      this.#host.start();
    } catch (error) {
      const why = `a new shard worker for shard(s) ${shards} could not start (${describeThrown(error)}); tried again while they run here`;
      this.#tries.failed(new GatewayError(why, undefined, { cause: error }));
      this.#tries.later(() => this.#attempt());
      return;
    }
    this.#tries.succeeded(`a new shard worker for shard(s) ${shards} started`);
  }
}
