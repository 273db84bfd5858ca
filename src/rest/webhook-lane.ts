/**
 * One webhook's executions in one process, run in order: a promise chain
 * that any rate-limit store can use for `serializeWebhook`.
 *
 * @module
 */

/**
 * One webhook's executions, in order: a promise chain rather than a queue
 * object, so that an idle webhook costs a few fields.
 */
export interface WebhookLane {
  /** Settles when the last execution queued so far has finished. */
  tail: Promise<void>;
  /** Executions queued or running. */
  queued: number;
  /** When the latest attempts finished (the newest `limit` of them). */
  completions: number[];
}

/** An already settled promise: the tail of an idle lane. */
export const RESOLVED: Promise<void> = Promise.resolve();

/**
 * Runs `task` once every earlier task of the lane has finished. A task whose
 * signal aborts while it waits rejects at once, and hands its turn on when
 * the task before it finishes, so the order of the others holds.
 */
export function runInTurn<T>(lane: WebhookLane, task: () => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (lane.queued === 0) {
    // Nothing queued: every earlier task has finished, so this one starts now, and the lane's tail
    // is its settling (no promise or closure of the lane's own: this is every webhook's usual case).
    if (signal?.aborted) return Promise.reject(signal.reason);
    lane.queued = 1;
    const result = task();
    const settled = (): void => {
      // The last one out leaves the shared settled promise, so an idle lane holds nothing of its run.
      if (--lane.queued === 0) lane.tail = RESOLVED;
    };
    lane.tail = result.then(settled, settled);
    return result;
  }
  const previous = lane.tail;
  let finish!: () => void;
  lane.tail = new Promise<void>((resolve) => {
    finish = resolve;
  });
  lane.queued++;
  const done = (): void => {
    if (--lane.queued === 0) lane.tail = RESOLVED;
    finish();
  };
  const run = (): Promise<T> => {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return task();
  };
  if (signal === undefined) {
    const result = previous.then(run);
    result.then(done, done);
    return result;
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => {
      reject(signal.reason);
      // Hand the turn on only after the task before this one has finished.
      void previous.then(done);
    };
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    void previous.then(() => {
      if (signal.aborted) return;
      signal.removeEventListener('abort', onAbort);
      const result = task();
      result.then(done, done);
      result.then(resolve, reject);
    });
  });
}
