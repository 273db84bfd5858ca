/**
 * Rate limits: per-route buckets learned from `X-RateLimit-*` headers, the
 * global pause, and the per-webhook rolling window.
 *
 * Requests pass straight through while nothing is known or limited (a
 * synchronous check, no allocation). When a bucket must wait, its requests
 * queue in order (the lane of `core/wait.ts`, as webhook windows do) and can
 * be aborted while waiting.
 *
 * @module
 */

import {
  attachSettings,
  checkRateLimitSettings,
  RouteHashes,
  type Lane,
  type RateLimitHeaders,
  type RateLimitSettings,
  type RateLimitStore,
  type WaitGuard,
} from './rate-limit-store.js';
import { RESOLVED, runInTurn, type Turns, wait } from '../core/wait.js';
import { GlobalCap } from './global-cap.js';
import { IncrementalSweep } from './sweep.js';
import { type WebhookLane, WebhookWindows } from './webhook-windows.js';

/** Whether a bucket's limits are known: not yet, one request is finding out, or learned (limits, or no headers at all). */
const Discovery = { Unknown: 0, Discovering: 1, Known: 2 } as const;
type Discovery = (typeof Discovery)[keyof typeof Discovery];

interface Bucket {
  limit: number | undefined;
  remaining: number | undefined;
  resetAt: number;
  /** The server's id of the window `remaining` belongs to (`X-RateLimit-Reset`), when it sends one. */
  window: number | undefined;
  pausedUntil: number;
  inFlight: number;
  waiting: number;
  /** The bucket's waiters in turn (one at a time, in order); made when the first one waits. */
  turns: Turns | undefined;
  discovery: Discovery;
  /** Wakes the requests waiting for the discovering one; set while someone waits. */
  discovered: { promise: Promise<void>; resolve: () => void } | undefined;
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
/** Below this many buckets the incremental sweep does not run: so few are bounded already, and a sweep step costs a new bucket eight visits. */
const SWEEP_FROM = 2 * KEEP_BLANK_BUCKETS;
/**
 * The most buckets kept. A server that answers every id with a long reset
 * would otherwise keep one per id for `maxRateLimitPauseMs`; past this the
 * oldest buckets nothing is using are forgotten (at worst, one of them draws
 * a 429 again later).
 */
const MAX_BUCKETS = 10_000;
/** How often a request polls a bucket whose new window is full of requests in flight, until one of them answers with its reset. */
const NEW_WINDOW_POLL_MS = 10;

/** A client's defaults, which a store created with some settings takes for the others. */
const DEFAULT_SETTINGS: RateLimitSettings = {
  now: Date.now,
  webhookWindow: { limit: 30, windowMs: 60_000 },
  maxPauseMs: 600_000,
  globalRateLimit: undefined,
};

/**
 * The in-memory rate-limit store, the default: tracks every rate limit one
 * client knows of, in its own process.
 */
export class MemoryRateLimitStore implements RateLimitStore {
  #globalUntil = 0;
  readonly #buckets = new Map<string, Bucket>();
  readonly #routeHashes = new RouteHashes();
  readonly #webhooks: WebhookWindows;
  /** The settings this store serves: given when created, or by the first client attached. */
  #settings: RateLimitSettings | undefined;
  #now: () => number = Date.now;
  #maxPauseMs = DEFAULT_SETTINGS.maxPauseMs;
  /** The proactive global cap. */
  readonly #cap = new GlobalCap();
  /** Buckets not yet known: while there are none, a response without headers costs nothing. */
  #unknown = 0;
  /** Each new bucket checks a few held ones: idle ones go, and past {@link MAX_BUCKETS} any that nothing is using. */
  readonly #sweep = new IncrementalSweep(this.#buckets, (key: string, bucket: Bucket, now: number) => {
    if (isIdle(bucket, now) || (this.#buckets.size > MAX_BUCKETS && bucket.inFlight === 0 && bucket.waiting === 0)) this.#drop(key, bucket);
  });

  /**
   * @param settings The settings it serves, each defaulting to a client's
   * default (`Date.now`, 30 webhook executions a minute, pauses cut to
   * 600000 ms, no global cap). Without them, the first client it is given to
   * sets them. @default undefined (the first client's)
   */
  /** Refuses settings it cannot honour (an unknown name, a duration past 2^31 - 1 ms) with a `ValidationError` naming each. */
  constructor(settings?: Partial<RateLimitSettings>) {
    checkRateLimitSettings('MemoryRateLimitStore', settings);
    this.#webhooks = new WebhookWindows(() => this.#now(), DEFAULT_SETTINGS.webhookWindow);
    if (settings !== undefined) this.#use({ ...DEFAULT_SETTINGS, ...settings });
  }

  /** Takes the settings of a client it is given to: the first client's, when created without any; a client with other settings is refused (see {@link RateLimitStore.attach}). */
  attach(settings: RateLimitSettings): void {
    const served = attachSettings(this.#settings, settings, 'the in-memory store');
    if (served !== this.#settings) this.#use(served);
  }

  #use(settings: RateLimitSettings): void {
    this.#settings = settings;
    this.#now = settings.now;
    this.#webhooks.window = settings.webhookWindow;
    this.#maxPauseMs = settings.maxPauseMs;
    this.#cap.options = settings.globalRateLimit;
  }

  /** The bucket key of a request: the server's bucket id when learned, else method and route, plus the major parameter. */
  bucketKey(routeKey: string, major: string): string {
    return this.#routeHashes.key(routeKey, major);
  }

  /** Milliseconds the global pause still lasts. */
  get globalDelay(): number {
    return Math.max(0, this.#globalUntil - this.#now());
  }

  #bucket(key: string): Bucket {
    let bucket = this.#buckets.get(key);
    if (!bucket) {
      // Swept before the new bucket joins, so the sweep cannot drop it.
      if (this.#buckets.size >= SWEEP_FROM) this.#sweep.step(this.#now());
      bucket = {
        limit: undefined,
        remaining: undefined,
        resetAt: 0,
        window: undefined,
        pausedUntil: 0,
        inFlight: 0,
        waiting: 0,
        turns: undefined,
        discovery: Discovery.Unknown,
        discovered: undefined,
      };
      this.#buckets.set(key, bucket);
      this.#unknown++;
    }
    return bucket;
  }

  /** How many buckets and webhook windows are held (for leak checks). */
  get size(): {
    /** Rate-limit buckets held. */
    buckets: number;
    /** Webhook execution windows held. */
    webhooks: number;
    /** Learned route-to-bucket mappings (the server's bucket ids) held. */
    routeHashes: number;
  } {
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
    for (const [key, bucket] of this.#buckets) if (isIdle(bucket, now)) this.#drop(key, bucket);
    if (this.#buckets.size > MAX_BUCKETS) {
      for (const [key, bucket] of this.#buckets) {
        if (this.#buckets.size <= MAX_BUCKETS) break;
        if (bucket.inFlight === 0 && bucket.waiting === 0) this.#drop(key, bucket);
      }
    }
    this.#webhooks.sweep();
  }

  #drop(key: string, bucket: Bucket): void {
    this.#buckets.delete(key);
    if (bucket.discovery !== Discovery.Known) this.#unknown--;
  }

  /** Marks a bucket known and wakes whoever waited for its discovery. */
  #known(bucket: Bucket): void {
    if (bucket.discovery === Discovery.Known) return;
    bucket.discovery = Discovery.Known;
    this.#unknown--;
    this.#wake(bucket);
  }

  #wake(bucket: Bucket): void {
    const discovered = bucket.discovered;
    bucket.discovered = undefined;
    discovered?.resolve();
  }

  /** Counts a request as in flight in its bucket (and under the global cap); the first of an unknown bucket discovers it. */
  #take(bucket: Bucket, lane: Lane): void {
    bucket.inFlight++;
    this.#cap.take();
    if (lane === 'normal' && bucket.discovery === Discovery.Unknown) bucket.discovery = Discovery.Discovering;
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
      if (now >= bucket.resetAt) {
        // The window rolled over: a whole bucket again, but the new window's reset is known only from its first answer.
        // Once the requests in flight fill it, the next waits for that answer (polled) rather than going over.
        bucket.remaining = bucket.limit;
        if (bucket.limit - bucket.inFlight <= 0 && now + NEW_WINDOW_POLL_MS > until) {
          until = now + NEW_WINDOW_POLL_MS;
          reason = 'bucket';
        }
      } else if (bucket.remaining - bucket.inFlight <= 0 && bucket.resetAt > until) {
        until = bucket.resetAt;
        reason = 'bucket';
      }
    }
    const ms = Math.max(0, until - now);
    if (lane === 'normal') {
      const cap = this.#cap.delay(now);
      if (cap > ms) return { ms: cap, reason: 'global' };
    }
    return { ms, reason };
  }

  /**
   * Counts the request as in flight and returns `true` when the bucket may
   * send at once (a synchronous check that allocates nothing). Otherwise
   * returns `false`: call {@link MemoryRateLimitStore.acquire}. Every successful
   * acquire must be followed by one {@link MemoryRateLimitStore.release}.
   */
  tryAcquire(key: string, lane: Lane): boolean {
    const bucket = this.#bucket(key);
    if (
      lane === 'priority'
        ? bucket.pausedUntil <= this.#now()
        : bucket.waiting === 0 && bucket.discovery !== Discovery.Discovering && this.#delay(bucket, lane).ms === 0
    ) {
      this.#take(bucket, lane);
      return true;
    }
    return false;
  }

  /**
   * Waits, in order behind earlier waiters of the bucket, until it may send;
   * then counts the request as in flight. While another request discovers
   * the bucket, waits for its response (bounded by that request's own
   * timeout: if it fails, the next waiter discovers).
   */
  acquire(key: string, lane: Lane, signal: AbortSignal | undefined, guard: WaitGuard): Promise<void> {
    return this.tryAcquire(key, lane) ? RESOLVED : this.#acquireSlow(key, lane, signal, guard);
  }

  async #acquireSlow(key: string, lane: Lane, signal: AbortSignal | undefined, guard: WaitGuard): Promise<void> {
    const bucket = this.#bucket(key);
    const turn = async () => {
      for (;;) {
        if (lane === 'normal' && bucket.discovery === Discovery.Discovering) {
          if (bucket.discovered === undefined) {
            let resolve!: () => void;
            const promise = new Promise<void>((done) => (resolve = done));
            bucket.discovered = { promise, resolve };
          }
          await wait(bucket.discovered.promise, { signal });
          continue;
        }
        const { ms, reason } =
          lane === 'priority' ? { ms: Math.max(0, bucket.pausedUntil - this.#now()), reason: 'bucket' as const } : this.#delay(bucket, lane);
        if (ms === 0) break;
        guard(ms, reason);
        // Timers can fire a millisecond early against the wall clock; one more avoids a second lap.
        await wait(ms + 1, { signal });
      }
      this.#take(bucket, lane);
    };
    if (lane === 'priority') return turn();
    bucket.turns ??= { tail: RESOLVED, queued: 0 };
    if (bucket.waiting > 0 && bucket.discovery !== Discovery.Discovering) {
      // Queued behind earlier waiters of a bucket that holds them: announced (and refused when it cannot end in time) now, not when its turn comes.
      const { ms, reason } = this.#delay(bucket, lane);
      if (ms > 0) guard(ms, reason);
    }
    bucket.waiting++;
    try {
      await runInTurn(bucket.turns, turn, signal);
    } finally {
      bucket.waiting--;
    }
  }

  /** Marks a request of the bucket as finished. */
  release(key: string): void {
    const bucket = this.#buckets.get(key);
    if (bucket === undefined) return;
    if (bucket.inFlight > 0) bucket.inFlight--;
    this.#cap.done(this.#now());
    // The discovering request ended: a response calls `learn` right after (before any waiter runs), else the next waiter discovers.
    if (bucket.discovery === Discovery.Discovering) {
      bucket.discovery = Discovery.Unknown;
      this.#wake(bucket);
    }
    // A bucket that learned nothing is only an in-flight counter: past a few, drop it when it empties.
    if (bucket.limit === undefined && this.#buckets.size > KEEP_BLANK_BUCKETS && isIdle(bucket, this.#now())) this.#drop(key, bucket);
  }

  /**
   * @internal `learn` of a response without rate-limit headers, by the bucket key its request used (the pipeline has it:
   * the key is not built again): the bucket is known to be unlimited.
   */
  learnNone(key: string): void {
    if (this.#unknown === 0) return;
    const used = this.#buckets.get(key);
    if (used !== undefined) this.#known(used);
  }

  /** Learns from a response: its rate-limit headers, or `undefined` when it had none (the bucket is then known to be unlimited). */
  learn(routeKey: string, major: string, headers: RateLimitHeaders | undefined): void {
    if (headers === undefined) return this.learnNone(this.bucketKey(routeKey, major));
    // The bucket the request used: when the bucket id is new, the requests that waited on it learn the same limits.
    const used = this.#buckets.get(this.bucketKey(routeKey, major));
    if (headers.bucket !== undefined) this.#routeHashes.set(routeKey, headers.bucket);
    const bucket = this.#bucket(this.bucketKey(routeKey, major));
    const window = headers.resetAtMs;
    for (const target of used === undefined || used === bucket ? [bucket] : [bucket, used]) {
      // Answers overtake each other: one of a window already over, or of this window but sent earlier, must not widen it.
      // Without X-RateLimit-Reset, an answer while the window is open is taken to be of that window (the Redis store's rule too).
      const sameWindow = window !== undefined ? window === target.window : this.#now() < target.resetAt;
      if (window !== undefined && target.window !== undefined && (window < target.window || (sameWindow && this.#now() >= target.resetAt))) continue;
      if (headers.limit !== undefined) target.limit = headers.limit;
      if (headers.remaining !== undefined) {
        target.remaining = sameWindow && target.remaining !== undefined ? Math.min(target.remaining, headers.remaining) : headers.remaining;
        target.limit ??= headers.remaining + 1;
      }
      if (window !== undefined) target.window = window;
      if (headers.resetAfterMs !== undefined) target.resetAt = this.#now() + Math.min(headers.resetAfterMs, this.#maxPauseMs) + RESET_MARGIN_MS;
      this.#known(target);
    }
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

  /** @internal The webhook's lane, looked up once per execution and carried by it: its queue, and its turns in its window. */
  webhookLane(webhookId: string): WebhookLane {
    return this.#webhooks.lane(webhookId);
  }

  /** @internal Runs `task` after every earlier one of the webhook. */
  serializeWebhook<T>(webhookId: string, task: () => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
    return runInTurn(this.#webhooks.lane(webhookId), task, signal);
  }

  /** `true` when one more execution fits in the webhook's window now, its place then held (else call `webhookTurn`). */
  tryWebhookTurn(webhookId: string): boolean {
    return this.#webhooks.lane(webhookId).tryTurn();
  }

  /**
   * Waits until one more execution fits in the webhook's rolling window. The
   * window counts attempts by the time each one finished, which is never
   * earlier than its arrival at the server, so the server never sees more
   * than `limit` executions in any window.
   */
  webhookTurn(webhookId: string, signal: AbortSignal | undefined, guard: WaitGuard): Promise<void> {
    return this.#webhooks.lane(webhookId).turn(signal, guard);
  }

  /** Records that an execution attempt of the webhook has finished (or failed). */
  webhookDone(webhookId: string): void {
    this.#webhooks.lane(webhookId).done();
  }
}

/** Whether a bucket holds nothing that still matters: no request in flight or waiting, no pause or reset ahead. */
function isIdle(bucket: Bucket, now: number): boolean {
  return (
    bucket.inFlight === 0 &&
    bucket.waiting === 0 &&
    bucket.pausedUntil <= now &&
    bucket.resetAt <= now &&
    (bucket.turns === undefined || bucket.turns.queued === 0)
  );
}
