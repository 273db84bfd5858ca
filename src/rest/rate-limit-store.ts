/**
 * The one interface through which the request pipeline learns and enforces
 * rate limits: route buckets learned from `X-RateLimit-*` headers and their
 * shared bucket ids, global and route pauses after 429s, the per-webhook
 * rolling window, and the optional proactive global cap.
 *
 * The in-memory store (`MemoryRateLimitStore`, the default) keeps everything in one
 * process; `community-chat-sdk/redis` shares it between processes.
 *
 * @module
 */

import { ValidationError, type ValidationIssue } from '../errors/local.js';
import { checkCount, checkDuration, optionNames, refuseUnknownOptions } from '../core/bounds.js';

/** Called before each wait with its length; throw to refuse waiting that long. */
export type WaitGuard = (delayMs: number, reason: 'global' | 'bucket' | 'webhook') => void;

/** What a lane may skip. `priority` lanes (interaction callbacks, session refresh) never wait behind other traffic. */
export type Lane = 'normal' | 'priority';

/** Rolling-window settings of incoming-webhook executions. */
export interface WebhookWindowOptions {
  /** Executions allowed per window, per webhook. @default 30 */
  limit: number;
  /** Window length in milliseconds. @default 60000 */
  windowMs: number;
}

/** A proactive cap on every request of the client (or, with a shared store, of every process sharing it). */
export interface GlobalRateLimitOptions {
  /** Requests allowed per window. */
  limit: number;
  /** Window length in milliseconds. */
  windowMs: number;
}

/** Rate-limit headers read from a response. */
export interface RateLimitHeaders {
  /** `X-RateLimit-Limit`. */
  limit: number | undefined;
  /** `X-RateLimit-Remaining`. */
  remaining: number | undefined;
  /** `X-RateLimit-Reset-After`, in milliseconds. */
  resetAfterMs: number | undefined;
  /** `X-RateLimit-Bucket`. */
  bucket: string | undefined;
  /**
   * `X-RateLimit-Reset`, in the server's epoch milliseconds: the same on every
   * response of one window, so it tells a later response of the same window
   * (whose `remaining` may be the higher one, when answers overtake each
   * other) from one of a new window. @default undefined (not sent)
   */
  resetAtMs?: number | undefined;
}

const WINDOW_OPTIONS = optionNames<WebhookWindowOptions>({ limit: true, windowMs: true });

/** Refuses a rolling window (`webhookRateLimit`, `globalRateLimit`) with an unknown name, a limit that is not a whole number from 1, or a `windowMs` out of a timer's range; `undefined` or `false` passes. */
export function checkWindow(operation: string, name: string, window: WebhookWindowOptions | GlobalRateLimitOptions | false | undefined): void {
  if (typeof window !== 'object' || window === null) return;
  refuseUnknownOptions(`${operation} (${name})`, window, WINDOW_OPTIONS);
  checkCount(operation, `${name}.limit`, window.limit, { min: 1 });
  checkDuration(operation, `${name}.windowMs`, window.windowMs, { min: 1 });
}

const SETTINGS = optionNames<RateLimitSettings>({ now: true, webhookWindow: true, maxPauseMs: true, globalRateLimit: true });

/** Refuses settings a rate-limit store cannot honour (`new MemoryRateLimitStore(settings)`), each named in a `ValidationError`. */
export function checkRateLimitSettings(operation: string, settings: Partial<RateLimitSettings> | undefined): void {
  if (settings === undefined) return;
  refuseUnknownOptions(operation, settings, SETTINGS);
  checkDuration(operation, 'maxPauseMs', settings.maxPauseMs);
  checkWindow(operation, 'webhookWindow', settings.webhookWindow);
  checkWindow(operation, 'globalRateLimit', settings.globalRateLimit);
}

/** What a client tells the store it uses, once, when it is created. */
export interface RateLimitSettings {
  /** The clock, epoch milliseconds (the in-memory store's; a shared store keeps its own clock). @default Date.now */
  now: () => number;
  /** The per-webhook rolling window, or `undefined` when off. @default { limit: 30, windowMs: 60000 } */
  webhookWindow: WebhookWindowOptions | undefined;
  /** The longest pause or reset accepted from any server value. @default 600000 */
  maxPauseMs: number;
  /** The proactive global cap, or `undefined` when off. @default undefined */
  globalRateLimit: GlobalRateLimitOptions | undefined;
}

/**
 * Where rate-limit state lives. The pipeline calls, for each attempt:
 * `bucketKey`, then `acquire`, sends, then `release` and `learn` (with the
 * response's headers, or `undefined` when it had none), and `pause` after a
 * 429. An execution of an incoming webhook (when the client limits them)
 * also calls `webhookTurn` before and `webhookDone` after each attempt; the
 * pipeline itself runs one webhook's executions in order in each process.
 *
 * A store must let exactly one request discover a bucket it does not know
 * yet: the others of that bucket wait until `learn` (or until the
 * discovering request is released without a response, when the next one
 * discovers).
 *
 * Several clients may share one store (that is how they share limits); each
 * calls `attach` with its settings, and a store never takes a client's
 * settings in place of another's: it refuses a client whose settings differ
 * from those it already serves.
 */
export interface RateLimitStore {
  /**
   * Called by each client that uses the store, once, with the client's
   * settings. The first sets them (unless the store was created with its
   * own); a later client with other settings is refused with a
   * `ValidationError` naming what differs.
   */
  attach(settings: RateLimitSettings): void;
  /** The bucket key of a request: the server's bucket id when learned, else method and route, plus the major parameter. Synchronous. */
  bucketKey(routeKey: string, major: string): string;
  /**
   * Optional: the synchronous try made before {@link RateLimitStore.acquire}. Returns `true` when the bucket may send at once,
   * and then counts the request as in flight (as a resolved `acquire` would); `false` when it may not or the store cannot say
   * without waiting (the request then calls `acquire`). A store that always needs a round trip (Redis) leaves it out.
   */
  tryAcquire?(key: string, lane: Lane): boolean;
  /** Waits until the bucket may send (calling `guard` before each wait), then counts the request as in flight. Rejects when the store cannot answer. */
  acquire(key: string, lane: Lane, signal: AbortSignal | undefined, guard: WaitGuard): Promise<void>;
  /**
   * Marks a request of the bucket as finished (sent or failed). `signal` is the one its place was taken with in
   * {@link RateLimitStore.acquire} (`undefined` for a place of {@link RateLimitStore.tryAcquire}): a store holding several places
   * of one bucket releases the one taken with it, not the oldest.
   */
  release(key: string, signal?: AbortSignal): void;
  /** Learns from a response: its rate-limit headers, or `undefined` when it had none (the bucket is then known to be unlimited). */
  learn(routeKey: string, major: string, headers: RateLimitHeaders | undefined): void;
  /** Pauses a bucket, or every bucket when `global`, for `ms` milliseconds. */
  pause(key: string, ms: number, global: boolean): void;
  /**
   * Optional: the synchronous try made before {@link RateLimitStore.webhookTurn}. Returns `true` when one more execution fits in
   * the webhook's window now, and then holds that place (as a resolved `webhookTurn` would); `false` otherwise (the request
   * then calls `webhookTurn`).
   */
  tryWebhookTurn?(webhookId: string): boolean;
  /** Waits until one more execution fits in the webhook's rolling window (calling `guard` before each wait), and holds that place. */
  webhookTurn(webhookId: string, signal: AbortSignal | undefined, guard: WaitGuard): Promise<void>;
  /**
   * Gives back a turn of the webhook: its execution attempt has finished, failed, or never reached its send (given up
   * on while waiting, or refused); it counts in the window from now on. The pipeline gives back each turn it took
   * exactly once. `signal` is the one the turn was taken with in {@link RateLimitStore.webhookTurn} (`undefined` for a
   * turn of {@link RateLimitStore.tryWebhookTurn}): a store holding several turns of one webhook gives back the one
   * taken with it, not the oldest.
   */
  webhookDone(webhookId: string, signal?: AbortSignal): void;
}

/**
 * The settings a store serves after a client attaches with `next`: `next`
 * when it has none yet, the same when they are equal; otherwise a
 * `ValidationError` naming each setting that differs.
 */
export function attachSettings(current: RateLimitSettings | undefined, next: RateLimitSettings, store: string): RateLimitSettings {
  if (current === undefined) return next;
  const windowOf = (value: { limit: number; windowMs: number } | undefined) => (value === undefined ? 'off' : `${value.limit} per ${value.windowMs} ms`);
  const issues: ValidationIssue[] = [];
  if (current.now !== next.now) issues.push({ path: 'clock', message: 'a different clock than the client the store already serves' });
  if (windowOf(current.webhookWindow) !== windowOf(next.webhookWindow))
    issues.push({ path: 'webhookRateLimit', message: `${windowOf(next.webhookWindow)}, but the store already serves ${windowOf(current.webhookWindow)}` });
  if (windowOf(current.globalRateLimit) !== windowOf(next.globalRateLimit))
    issues.push({ path: 'globalRateLimit', message: `${windowOf(next.globalRateLimit)}, but the store already serves ${windowOf(current.globalRateLimit)}` });
  if (current.maxPauseMs !== next.maxPauseMs)
    issues.push({ path: 'maxRateLimitPauseMs', message: `${next.maxPauseMs} ms, but the store already serves ${current.maxPauseMs} ms` });
  if (issues.length > 0) throw new ValidationError(`rateLimitStore (${store}: clients sharing a store must share its settings)`, issues);
  return current;
}

/** The most route keys whose server bucket id is remembered. */
const MAX_ROUTE_HASHES = 1024;

/** Server bucket ids by route key (`METHOD template`), bounded: the oldest is forgotten first. */
export class RouteHashes {
  readonly #hashes = new Map<string, string>();

  /** The bucket key of a route and major parameter. */
  key(routeKey: string, major: string): string {
    const hash = this.#hashes.get(routeKey);
    return `${hash ?? routeKey}:${major}`;
  }

  /** Records a route's bucket id; returns whether it changed. */
  set(routeKey: string, hash: string): boolean {
    if (this.#hashes.get(routeKey) === hash) return false;
    if (this.#hashes.size >= MAX_ROUTE_HASHES && !this.#hashes.has(routeKey)) this.#hashes.delete(this.#hashes.keys().next().value as string);
    this.#hashes.set(routeKey, hash);
    return true;
  }

  /** How many are held. */
  get size(): number {
    return this.#hashes.size;
  }
}
