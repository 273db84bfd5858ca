/**
 * Rate limits: per-route buckets learned from `X-RateLimit-*` headers, the
 * global pause, and the per-webhook rolling window.
 *
 * Requests pass straight through while nothing is known or limited (a
 * synchronous check, no allocation). When a bucket must wait, its requests
 * queue in order on a p-queue and can be aborted while waiting.
 *
 * @module
 */

import PQueue from 'p-queue';
import { sleep } from './sleep.js';

/** Called before each wait with its length; throw to refuse waiting that long. */
export type WaitGuard = (delayMs: number, reason: 'global' | 'bucket' | 'webhook') => void;

interface Bucket {
  limit: number | undefined;
  remaining: number | undefined;
  resetAt: number;
  pausedUntil: number;
  inFlight: number;
  waiting: number;
  queue: PQueue | undefined;
}

/** Rolling-window settings of incoming-webhook executions. */
export interface WebhookWindowOptions {
  /** Executions allowed per window, per webhook. @default 30 */
  limit: number;
  /** Window length in milliseconds. @default 60000 */
  windowMs: number;
}

/** Rate-limit headers read from a response. */
export interface RateLimitHeaders {
  limit: number | undefined;
  remaining: number | undefined;
  resetAfterMs: number | undefined;
  bucket: string | undefined;
}

/**
 * Extra wait past a bucket's advertised reset. The reset is measured from when
 * the response arrived here, and timers can fire a few milliseconds early
 * against the wall clock, so without a margin the first request after a
 * reset can reach the server just before its window rolls over.
 */
const RESET_MARGIN_MS = 50;

/** Past this many buckets, a bucket that holds nothing worth keeping is dropped as soon as its last request ends. */
const KEEP_BLANK_BUCKETS = 64;
/** After this many new buckets (or webhook windows), idle ones are swept. */
const SWEEP_EVERY = 256;
/** The most route keys whose server bucket id is remembered. */
const MAX_ROUTE_HASHES = 1024;

/** What a lane may skip. `priority` lanes (interaction callbacks, session refresh) never wait behind other traffic. */
export type Lane = 'normal' | 'priority';

/** Tracks every rate limit the client knows of. */
export class RateLimiter {
  #globalUntil = 0;
  readonly #buckets = new Map<string, Bucket>();
  readonly #routeHashes = new Map<string, string>();
  readonly #webhooks = new Map<string, WebhookLane>();
  readonly #now: () => number;
  readonly #webhookWindow: WebhookWindowOptions | undefined;
  readonly #maxPauseMs: number;
  #created = 0;
  #webhooksCreated = 0;

  /** @param maxPauseMs The longest pause or bucket reset learned from any server value; longer ones are cut to it. */
  constructor(now: () => number, webhookWindow: WebhookWindowOptions | undefined, maxPauseMs: number = Number.MAX_SAFE_INTEGER) {
    this.#now = now;
    this.#webhookWindow = webhookWindow;
    this.#maxPauseMs = maxPauseMs;
  }

  /** The bucket key of a request: the server's bucket id when learned, else method and route, plus the major parameter. */
  bucketKey(routeKey: string, major: string): string {
    const hash = this.#routeHashes.get(routeKey);
    return `${hash ?? routeKey}:${major}`;
  }

  /** Milliseconds the global pause still lasts. */
  get globalDelay(): number {
    return Math.max(0, this.#globalUntil - this.#now());
  }

  #bucket(key: string): Bucket {
    let bucket = this.#buckets.get(key);
    if (!bucket) {
      // Swept before the new bucket joins, so the sweep cannot drop it.
      if (++this.#created % SWEEP_EVERY === 0) this.sweep();
      bucket = { limit: undefined, remaining: undefined, resetAt: 0, pausedUntil: 0, inFlight: 0, waiting: 0, queue: undefined };
      this.#buckets.set(key, bucket);
    }
    return bucket;
  }

  /** How many buckets and webhook windows are held (for leak checks). */
  get size(): { buckets: number; webhooks: number; routeHashes: number } {
    return { buckets: this.#buckets.size, webhooks: this.#webhooks.size, routeHashes: this.#routeHashes.size };
  }

  /**
   * Drops every bucket nothing waits on whose pause and reset have passed,
   * and every webhook window with nothing queued whose executions have all
   * left the window. Runs by itself as new ones are created, so a bot that
   * touches a new channel or webhook id on every call keeps bounded state.
   */
  sweep(): void {
    const now = this.#now();
    for (const [key, bucket] of this.#buckets) if (isIdle(bucket, now)) this.#buckets.delete(key);
    const window = this.#webhookWindow?.windowMs ?? 0;
    for (const [id, entry] of this.#webhooks) {
      if (entry.queued === 0 && (entry.completions.at(-1) ?? -Infinity) <= now - window) this.#webhooks.delete(id);
    }
  }

  #delay(bucket: Bucket, lane: Lane): { ms: number; reason: 'global' | 'bucket' } {
    const now = this.#now();
    let until = bucket.pausedUntil;
    let reason: 'global' | 'bucket' = 'bucket';
    if (lane === 'normal' && this.#globalUntil > until) {
      until = this.#globalUntil;
      reason = 'global';
    }
    if (bucket.limit !== undefined && bucket.remaining !== undefined) {
      if (now >= bucket.resetAt) bucket.remaining = bucket.limit;
      else if (bucket.remaining - bucket.inFlight <= 0 && bucket.resetAt > until) {
        until = bucket.resetAt;
        reason = 'bucket';
      }
    }
    return { ms: Math.max(0, until - now), reason };
  }

  /**
   * Counts the request as in flight and returns `true` when the bucket may
   * send at once (a synchronous check that allocates nothing). Otherwise
   * returns `false`: call {@link RateLimiter.acquireSlow}. Every successful
   * acquire must be followed by one {@link RateLimiter.release}.
   */
  tryAcquire(key: string, lane: Lane): boolean {
    const bucket = this.#bucket(key);
    if (lane === 'priority' ? bucket.pausedUntil <= this.#now() : bucket.waiting === 0 && this.#delay(bucket, lane).ms === 0) {
      bucket.inFlight++;
      return true;
    }
    return false;
  }

  /** Waits, in order behind earlier waiters of the bucket, until it may send; then counts the request as in flight. */
  async acquireSlow(key: string, lane: Lane, signal: AbortSignal | undefined, guard: WaitGuard): Promise<void> {
    const bucket = this.#bucket(key);
    const wait = async () => {
      for (;;) {
        const { ms, reason } = lane === 'priority' ? { ms: Math.max(0, bucket.pausedUntil - this.#now()), reason: 'bucket' as const } : this.#delay(bucket, lane);
        if (ms === 0) break;
        guard(ms, reason);
        // Timers can fire a millisecond early against the wall clock; one more avoids a second lap.
        await sleep(ms + 1, signal);
      }
      bucket.inFlight++;
    };
    if (lane === 'priority') return wait();
    bucket.queue ??= new PQueue({ concurrency: 1 });
    bucket.waiting++;
    try {
      await bucket.queue.add(wait, signal ? { signal } : {});
    } finally {
      bucket.waiting--;
    }
  }

  /** Marks a request of the bucket as finished. */
  release(key: string): void {
    const bucket = this.#buckets.get(key);
    if (bucket === undefined) return;
    if (bucket.inFlight > 0) bucket.inFlight--;
    // A bucket that learned nothing is only an in-flight counter: past a few, drop it when it empties.
    if (bucket.limit === undefined && this.#buckets.size > KEEP_BLANK_BUCKETS && isIdle(bucket, this.#now())) this.#buckets.delete(key);
  }

  /** Learns from a response's rate-limit headers. */
  learn(routeKey: string, major: string, headers: RateLimitHeaders): void {
    if (headers.bucket !== undefined && this.#routeHashes.get(routeKey) !== headers.bucket) {
      if (this.#routeHashes.size >= MAX_ROUTE_HASHES && !this.#routeHashes.has(routeKey)) this.#routeHashes.delete(this.#routeHashes.keys().next().value as string);
      this.#routeHashes.set(routeKey, headers.bucket);
    }
    if (headers.limit === undefined && headers.remaining === undefined) return;
    const bucket = this.#bucket(this.bucketKey(routeKey, major));
    if (headers.limit !== undefined) bucket.limit = headers.limit;
    if (headers.remaining !== undefined) {
      bucket.remaining = headers.remaining;
      bucket.limit ??= headers.remaining + 1;
    }
    if (headers.resetAfterMs !== undefined) bucket.resetAt = this.#now() + Math.min(headers.resetAfterMs, this.#maxPauseMs) + RESET_MARGIN_MS;
  }

  /** Pauses a bucket, or every bucket when `global`, for `ms` milliseconds. */
  pause(key: string, ms: number, global: boolean): void {
    const until = this.#now() + Math.min(ms, this.#maxPauseMs);
    if (global) this.#globalUntil = Math.max(this.#globalUntil, until);
    else {
      const bucket = this.#bucket(key);
      bucket.pausedUntil = Math.max(bucket.pausedUntil, until);
    }
  }

  /** Whether executions of incoming webhooks are limited. */
  get limitsWebhooks(): boolean {
    return this.#webhookWindow !== undefined;
  }

  /**
   * Runs `task` after every earlier task of the same webhook, in order. Inside
   * it, call {@link RateLimiter.webhookTurn} before each attempt.
   */
  serializeWebhook<T>(webhookId: string, task: () => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
    let entry = this.#webhooks.get(webhookId);
    if (!entry) {
      if (++this.#webhooksCreated % SWEEP_EVERY === 0) this.sweep();
      entry = { tail: RESOLVED, queued: 0, completions: [] };
      this.#webhooks.set(webhookId, entry);
    }
    return runInTurn(entry, task, signal);
  }

  /**
   * Waits until one more execution fits in the webhook's rolling window. The
   * window counts attempts by the time each one finished, which is never
   * earlier than its arrival at the server, so the server never sees more
   * than `limit` executions in any window.
   */
  async webhookTurn(webhookId: string, signal: AbortSignal | undefined, guard: WaitGuard): Promise<void> {
    const window = this.#webhookWindow;
    const entry = this.#webhooks.get(webhookId);
    if (!window || !entry) return;
    for (;;) {
      const now = this.#now();
      const completions = entry.completions;
      while (completions.length > 0 && (completions[0] as number) <= now - window.windowMs) completions.shift();
      if (completions.length < window.limit) return;
      const ms = (completions[0] as number) + window.windowMs - now + 1;
      guard(ms, 'webhook');
      await sleep(ms, signal);
    }
  }

  /** Records that an execution attempt of the webhook has finished (or failed). */
  webhookDone(webhookId: string): void {
    const completions = this.#webhooks.get(webhookId)?.completions;
    if (completions === undefined) return;
    completions.push(this.#now());
    // Only the newest `limit` completions decide the next turn.
    if (completions.length > (this.#webhookWindow?.limit ?? 0)) completions.shift();
  }
}

/**
 * One webhook's executions, in order: a promise chain rather than a queue
 * object, so that an idle webhook costs a few fields.
 */
interface WebhookLane {
  /** Settles when the last execution queued so far has finished. */
  tail: Promise<void>;
  /** Executions queued or running. */
  queued: number;
  /** When the latest attempts finished (the newest `limit` of them). */
  completions: number[];
}

const RESOLVED: Promise<void> = Promise.resolve();

/**
 * Runs `task` once every earlier task of the lane has finished. A task whose
 * signal aborts while it waits rejects at once, and hands its turn on when
 * the task before it finishes, so the order of the others holds.
 */
function runInTurn<T>(lane: WebhookLane, task: () => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  const previous = lane.tail;
  // Nothing queued: every earlier task has finished, so this one may start now.
  const idle = lane.queued === 0;
  let finish!: () => void;
  lane.tail = new Promise<void>((resolve) => {
    finish = resolve;
  });
  lane.queued++;
  const done = (): void => {
    lane.queued--;
    finish();
  };
  const run = (): Promise<T> => {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return task();
  };
  if (idle || signal === undefined) {
    const result = idle ? run() : previous.then(run);
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

/** Whether a bucket holds nothing that still matters: no request in flight or waiting, no pause or reset ahead. */
function isIdle(bucket: Bucket, now: number): boolean {
  return bucket.inFlight === 0 && bucket.waiting === 0 && bucket.pausedUntil <= now && bucket.resetAt <= now && (bucket.queue === undefined || (bucket.queue.size === 0 && bucket.queue.pending === 0));
}
