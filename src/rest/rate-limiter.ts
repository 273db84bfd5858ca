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

/** What a lane may skip. `priority` lanes (interaction callbacks, session refresh) never wait behind other traffic. */
export type Lane = 'normal' | 'priority';

/** Tracks every rate limit the client knows of. */
export class RateLimiter {
  #globalUntil = 0;
  readonly #buckets = new Map<string, Bucket>();
  readonly #routeHashes = new Map<string, string>();
  readonly #webhooks = new Map<string, { queue: PQueue; completions: number[] }>();
  readonly #now: () => number;
  readonly #webhookWindow: WebhookWindowOptions | undefined;
  readonly #maxPauseMs: number;

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
      bucket = { limit: undefined, remaining: undefined, resetAt: 0, pausedUntil: 0, inFlight: 0, waiting: 0, queue: undefined };
      this.#buckets.set(key, bucket);
    }
    return bucket;
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
    if (bucket && bucket.inFlight > 0) bucket.inFlight--;
  }

  /** Learns from a response's rate-limit headers. */
  learn(routeKey: string, major: string, headers: RateLimitHeaders): void {
    if (headers.bucket !== undefined) this.#routeHashes.set(routeKey, headers.bucket);
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
      entry = { queue: new PQueue({ concurrency: 1 }), completions: [] };
      this.#webhooks.set(webhookId, entry);
    }
    return entry.queue.add(task, signal ? { signal } : {});
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
    this.#webhooks.get(webhookId)?.completions.push(this.#now());
  }
}
