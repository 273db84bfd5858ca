/**
 * The Redis rate-limit store: every process sharing one Redis (and prefix)
 * shares route buckets, their bucket ids, global and route pauses, the
 * per-webhook rolling windows and the proactive global cap.
 *
 * Each check-and-take is one atomic Lua step ({@link STEP_SCRIPT}) that
 * also carries what this process finished since its last step (releases,
 * learned headers, pauses, webhook completions), so a request whose bucket
 * has room costs one round trip. Finished work not carried by a step within
 * the same turn of the event loop is sent on its own.
 *
 * @module
 */

import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'eventemitter3';
import { MemoryRateLimitStore } from '../rest/rate-limiter.js';
import {
  attachSettings,
  RouteHashes,
  type Lane,
  type RateLimitHeaders,
  type RateLimitSettings,
  type RateLimitStore,
  type WaitGuard,
  type WebhookWindowOptions,
} from '../rest/rate-limit-store.js';
import { wait } from '../core/wait.js';
import { RedisScript, checkStoreOptions, withinTime, type RedisClientLike, DEFAULT_COMMAND_TIMEOUT_MS } from './connection.js';
import { clampNumber, optionNames } from '../core/bounds.js';
import { RateLimitKeys, stepArguments, type Op } from './rate-limit-keys.js';
import { taggedKey } from './keys.js';
import { toError } from '../errors/base.js';
import type { StoreErrorEvent, StoreRecoveredEvent } from '../observe/events.js';
import { OutageReporter, SETTLE_MS } from '../gateway/outages.js';
import { STEP_SCRIPT } from './scripts.js';

/** Options of {@link createRedisRateLimitStore}. */
export interface RedisRateLimitStoreOptions {
  /** A connected node-redis v6 client (`await createClient({ url }).connect()`), or anything with `isReady` and `sendCommand`. */
  client: RedisClientLike;
  /**
   * Prefix of every key; processes share limits when they share Redis and
   * prefix. It becomes the keys' hash tag (`{ccsdk:rl:}b:...`), so that every
   * key of the store is in one Redis Cluster slot (see the slot plan in
   * docs/architecture.md). A prefix holding `{` or `}`, empty, blank or over
   * 200 characters is refused: `bot` and `{bot}` would share keys. @default "ccsdk:rl:"
   */
  prefix?: string | undefined;
  /**
   * How long a reservation (a request in flight, or a bucket's discovery)
   * holds its place when its process never releases it (it died): keep it
   * at least the client's `timeoutMs`. @default 30000
   */
  reservationMs?: number | undefined;
  /** How often a request polls while its bucket is being discovered elsewhere or every place is in flight. @default 50 */
  pollMs?: number | undefined;
  /** How long a Redis command may take before the call fails (or falls back). @default 2000 */
  commandTimeoutMs?: number | undefined;
  /** How long an idle learned bucket and a bucket id are kept. @default 600000 */
  keepMs?: number | undefined;
  /**
   * When Redis cannot answer: `"throw"` rejects the call with
   * `RateLimitStoreError` (nothing is sent); `"local"` goes on with an
   * in-memory store of this process, until the client is ready again and
   * Redis answers. Either way the outage is one `storeError` (its first
   * failure) and one `storeRecovered` (the answer that ended it). @default "throw"
   */
  onStoreError?: 'throw' | 'local' | undefined;
}

/** The names of every {@link RedisRateLimitStoreOptions} option. */
const RATE_LIMIT_STORE_OPTIONS = optionNames<RedisRateLimitStoreOptions>({
  ...{ client: true, prefix: true, reservationMs: true, pollMs: true, commandTimeoutMs: true, keepMs: true, onStoreError: true },
});

/** A place this process holds: a reservation in Redis, or one in the local fallback store. */
interface Held {
  id: string;
  /** The bucket the key resolved to in Redis; `undefined` for a place held locally. */
  resolved: string | undefined;
  discovering: boolean;
  countsGlobally: boolean;
  /** The signal the place (a bucket place or a webhook turn) was taken with, which names it when it is given back. */
  turn?: AbortSignal | undefined;
}

type StepReply = [number, number, string, string];

/** The most buckets remembered as unlimited; past it the memory starts over. */
const MAX_UNLIMITED = 4096;

/** How long the local fallback lasts before Redis is tried again (when the client says it is ready). */
const LOCAL_RETRY_MS = 5000;

/** The events of a {@link RedisRateLimitStore}: an outage of Redis is one `storeError` and one `storeRecovered`, its failed steps counted. */
export interface RedisRateLimitStoreEvents {
  /** Redis failed, the first time in an outage: the call rejected (`onStoreError: "throw"`), fell back (`"local"`), or finished work was dropped. */
  storeError: [event: StoreErrorEvent];
  /** Redis answers again, 5 s or more after the outage's last failure (a Redis that flaps is one outage): limits are shared again. */
  storeRecovered: [event: StoreRecoveredEvent];
}

/** The Redis rate-limit store, an event emitter (`on`, `off`, `once`) of {@link RedisRateLimitStoreEvents}. Create it with {@link createRedisRateLimitStore}. */
export class RedisRateLimitStore extends EventEmitter<RedisRateLimitStoreEvents> implements RateLimitStore {
  readonly #client: RedisClientLike;
  readonly #keys: RateLimitKeys;
  readonly #reservationMs: number;
  readonly #pollMs: number;
  readonly #timeoutMs: number;
  readonly #keepMs: number;
  readonly #onStoreError: 'throw' | 'local';
  readonly #script = new RedisScript(STEP_SCRIPT);
  readonly #routes = new RouteHashes();
  readonly #held = new Map<string, Held[]>();
  readonly #webhookHeld = new Map<string, Held[]>();
  readonly #tag = randomBytes(6).toString('hex');
  /** The settings of the clients it serves, once one attached. */
  #attached: RateLimitSettings | undefined;
  #settings: RateLimitSettings = { now: Date.now, webhookWindow: undefined, maxPauseMs: 600_000, globalRateLimit: undefined };
  #local = new MemoryRateLimitStore();
  #onLocal = false;
  /** Redis's outages: the first failed step a `storeError`, the answer that ends it a `storeRecovered` (this host's clock, as the pacing). */
  readonly #outage = new OutageReporter(
    'rateLimit',
    (error) => this.#emitSafely('storeError', { store: 'rateLimit', error: toError(error) }),
    (event) => this.#emitSafely('storeRecovered', event),
    () => Date.now(),
    SETTLE_MS,
  );
  /** When the store last fell back (epoch ms of this host: only to pace retries of Redis). */
  #localSince = 0;
  #ops: Op[] = [];

  #flushScheduled = false;
  /** Settles when the operations queued so far have been carried to Redis (or their step failed). */
  #flushing: Promise<unknown> = Promise.resolve();
  #sequence = 0;
  #head: string[] = [];
  /** Buckets this process told Redis are unlimited (no headers), until when it need not tell again (this host's clock: only paces repeats). */
  readonly #unlimited = new Map<string, number>();

  constructor(options: RedisRateLimitStoreOptions) {
    super();
    checkStoreOptions('createRedisRateLimitStore', options, RATE_LIMIT_STORE_OPTIONS, { reservationMs: { min: 1 }, pollMs: { min: 1 }, keepMs: { min: 1 } });
    this.#client = options.client;
    this.#keys = new RateLimitKeys(taggedKey('createRedisRateLimitStore', 'prefix', options.prefix ?? 'ccsdk:rl:'));
    this.#reservationMs = options.reservationMs ?? 30_000;
    this.#pollMs = options.pollMs ?? 50;
    this.#timeoutMs = options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
    this.#keepMs = options.keepMs ?? 600_000;
    this.#onStoreError = options.onStoreError ?? 'throw';
    this.#head = this.#settingsArgs();
  }

  /** Whether calls currently use the in-memory fallback. */
  get usingLocalFallback(): boolean {
    return this.#onLocal;
  }

  /**
   * Takes the settings of a client it is given to (the webhook window and
   * global cap then hold across every process sharing the store); a client
   * with other settings than the first's is refused (see {@link RateLimitStore.attach}).
   */
  attach(settings: RateLimitSettings): void {
    const served = attachSettings(this.#attached, settings, 'the Redis store');
    if (served === this.#attached) return;
    this.#attached = served;
    this.#settings = served;
    this.#head = this.#settingsArgs();
    this.#local = new MemoryRateLimitStore(served);
  }

  /** The bucket key of a request; bucket ids learned by other processes are resolved in Redis. */
  bucketKey(routeKey: string, major: string): string {
    return this.#routes.key(routeKey, major);
  }

  /** Takes a place in the shared bucket in one atomic step, waiting (and polling) while there is none. */
  async acquire(key: string, lane: Lane, signal: AbortSignal | undefined, guard: WaitGuard): Promise<void> {
    for (;;) {
      if (this.#useLocal()) {
        await this.#local.acquire(key, lane, signal, guard);
        this.#hold(this.#held, key, { id: '', resolved: undefined, discovering: false, countsGlobally: false, turn: signal });
        return;
      }
      const id = this.#nextId();
      const reply = await this.#step('b', key, id, lane);
      if (reply === undefined) continue;
      const [ok, value, reason, resolved] = reply;
      if (ok === 2) {
        // Another process learned that this key is a bucket of the server's: ask again on that bucket, at once.
        this.#keys.setAlias(key, resolved);
        continue;
      }
      if (ok === 1) {
        const countsGlobally = this.#settings.globalRateLimit !== undefined;
        this.#hold(this.#held, key, { id, resolved, discovering: value === 1, countsGlobally, turn: signal });
        return;
      }
      // What Redis answers is bounded: at most the longest pause the client accepts (a planted 3e9 would be a 1 ms timer).
      const ms = clampNumber(value, 1, this.#settings.maxPauseMs, 1);
      // Waiting for another request's discovery is bounded by that request's reservation, not a rate limit to refuse.
      if (reason !== 'discovery') guard(ms, reason === 'global' ? 'global' : 'bucket');
      await wait(ms, { signal });
    }
  }

  /** Releases the place taken with `signal` (the oldest without one); sent with this process's next step. */
  release(key: string, signal?: AbortSignal): void {
    const held = this.#unhold(this.#held, key, signal);
    if (held === undefined) return;
    if (held.resolved === undefined) return this.#local.release(key);
    // This request discovered the bucket (Redis had forgotten it): what its response says must reach Redis.
    if (held.discovering) this.#unlimited.delete(key);
    // The reservations, discovery lock and global cap the acquiring step named (cached with its keys).
    const taken = this.#keys.actionKeys('b', held.resolved, held.resolved).slice(3);
    this.#op('r', held.id, held.discovering ? '1' : '0', held.countsGlobally ? '1' : '0', '', taken);
  }

  /**
   * Learns from a response; sent with this process's next step. The same rule
   * as the in-memory store: `X-RateLimit-Reset` names the window, an answer
   * of an older window teaches nothing, one of the same window only narrows
   * it, one of a new window replaces it, whichever process learns it.
   */
  learn(routeKey: string, major: string, headers: RateLimitHeaders | undefined): void {
    // On the fallback, what is learned stays local: it is not queued for a Redis that cannot take it.
    if (this.#onLocal) return this.#local.learn(routeKey, major, headers);
    const used = this.#keys.resolve(this.#routes.key(routeKey, major));
    if (headers === undefined) {
      // A bucket already known to be unlimited need not be told again on every response (only now and then, to keep it alive).
      const now = Date.now();
      if ((this.#unlimited.get(used) ?? 0) > now) return;
      if (this.#unlimited.size >= MAX_UNLIMITED) this.#unlimited.clear();
      this.#unlimited.set(used, now + this.#keepMs / 2);
    } else this.#unlimited.delete(used);
    if (headers?.bucket !== undefined) this.#routes.set(routeKey, headers.bucket);
    const learned = this.#keys.resolve(this.#routes.key(routeKey, major));
    const field = (value: number | undefined) => (value === undefined ? '' : String(Math.ceil(value)));
    // The reset-after and the window (X-RateLimit-Reset) share one field: `resetAfter;window`.
    const window = headers?.resetAtMs === undefined ? '' : `;${Math.round(headers.resetAtMs)}`;
    const keys = learned === used ? [this.#keys.name('b:', learned)] : [this.#keys.name('b:', learned), this.#keys.name('a:', used)];
    this.#op('l', learned, field(headers?.limit), field(headers?.remaining), `${field(headers?.resetAfterMs)}${window}`, keys);
  }

  /** Pauses a bucket, or every bucket when `global`, in every process. */
  pause(key: string, ms: number, global: boolean): void {
    if (this.#onLocal) return this.#local.pause(key, ms, global);
    this.#op('p', '', String(Math.ceil(ms)), global ? '1' : '0', '', [global ? this.#keys.name('gp') : this.#keys.name('b:', this.#keys.resolve(key))]);
  }

  /** Takes a place in the webhook's rolling window shared by every process, waiting while it is full. */
  async webhookTurn(webhookId: string, signal: AbortSignal | undefined, guard: WaitGuard): Promise<void> {
    const window: WebhookWindowOptions | undefined = this.#settings.webhookWindow;
    if (window === undefined) return;
    for (;;) {
      if (this.#useLocal()) {
        await this.#local.webhookTurn(webhookId, signal, guard);
        this.#hold(this.#webhookHeld, webhookId, { id: '', resolved: undefined, discovering: false, countsGlobally: false, turn: signal });
        return;
      }
      const id = this.#nextId();
      const reply = await this.#step('w', webhookId, id, 'normal');
      if (reply === undefined) continue;
      if (reply[0] === 1) {
        this.#hold(this.#webhookHeld, webhookId, { id, resolved: webhookId, discovering: false, countsGlobally: false, turn: signal });
        return;
      }
      const ms = clampNumber(reply[1], 1, this.#settings.maxPauseMs, 1);
      guard(ms, 'webhook');
      await wait(ms, { signal });
    }
  }

  /** Gives back a turn (the one taken with `signal`, else the oldest): it counts in the window from now on. */
  webhookDone(webhookId: string, signal?: AbortSignal): void {
    const held = this.#unhold(this.#webhookHeld, webhookId, signal);
    if (held === undefined) return;
    if (held.resolved === undefined) return this.#local.webhookDone(webhookId);
    this.#op('w', held.id, '', '', '', [this.#keys.name('w:', webhookId)]);
  }

  /** The first arguments of every step: the settings, as the script reads them. */
  #settingsArgs(): string[] {
    const { globalRateLimit, webhookWindow, maxPauseMs } = this.#settings;
    const numbers = [
      this.#keepMs,
      maxPauseMs,
      this.#reservationMs,
      this.#pollMs,
      globalRateLimit?.limit ?? 0,
      globalRateLimit?.windowMs ?? 0,
      webhookWindow?.limit ?? 0,
      webhookWindow?.windowMs ?? 0,
    ];
    return [numbers.map((value) => String(Math.ceil(value))).join(',')];
  }

  #nextId(): string {
    return `${this.#tag}:${(this.#sequence++).toString(36)}`;
  }

  #hold(map: Map<string, Held[]>, key: string, held: Held): void {
    const list = map.get(key);
    if (list === undefined) map.set(key, [held]);
    else list.push(held);
  }

  /** The place held under `key` taken with `turn` (`undefined`: the oldest taken without a signal), if any. */
  #unhold(map: Map<string, Held[]>, key: string, turn?: AbortSignal): Held | undefined {
    const list = map.get(key);
    if (list === undefined) return undefined;
    const at = list.findIndex((held) => held.turn === turn);
    if (at < 0) return undefined;
    const held = at === 0 ? list.shift() : list.splice(at, 1)[0];
    if (list.length === 0) map.delete(key);
    return held;
  }

  /** Queues finished work for the next step, and makes sure a step carries it within this turn of the event loop. */
  #op(type: Op['type'], id: string, a: string, b: string, c: string, keys: string[]): void {
    this.#ops.push({ type, id, a, b, c, keys });
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    this.#flushing = new Promise((resolve) => {
      setImmediate(() => {
        this.#flushScheduled = false;
        resolve(this.#ops.length > 0 ? this.#step('n', '', '', 'normal').catch(() => undefined) : undefined);
      });
    });
  }

  /**
   * Resolves once what was learned and released so far has reached Redis
   * (those writes ride on the next step, at the latest on the next turn of
   * the event loop), or the step carrying them failed. For a graceful
   * shutdown, and for tests; calls never need it.
   */
  async flushed(): Promise<void> {
    await this.#flushing;
  }

  /** Whether to use the in-memory fallback now; leaves it once the client is ready again (trying Redis again at most every few seconds). */
  #useLocal(): boolean {
    // The outage ends at the next answer (`storeRecovered`), or goes on at the next failure.
    if (this.#onLocal && this.#client.isReady && Date.now() - this.#localSince >= LOCAL_RETRY_MS) this.#onLocal = false;
    return this.#onLocal;
  }

  #emitSafely<E extends keyof RedisRateLimitStoreEvents>(
    event: E,
    ...args: EventEmitter.ArgumentMap<RedisRateLimitStoreEvents>[Extract<E, keyof RedisRateLimitStoreEvents>]
  ): void {
    try {
      this.emit(event, ...args);
    } catch {
      // A throwing listener must not break the request that reported.
    }
  }

  /**
   * Runs one atomic step carrying every queued operation. Resolves
   * `undefined` when it failed and the store fell back to local limits;
   * rejects with `RateLimitStoreError` when it failed otherwise.
   */
  async #step(action: 'b' | 'w' | 'n', key: string, id: string, lane: Lane): Promise<StepReply | undefined> {
    const ops = this.#ops;
    this.#ops = [];
    const bucket = action === 'b' ? this.#keys.resolve(key) : key;
    const actionKeys = action === 'n' ? [] : this.#keys.actionKeys(action, key, bucket);
    const { keys, args } = stepArguments(this.#head, ops, actionKeys, [action, bucket, id, lane]);
    const taken = action === 'b' ? actionKeys.slice(3) : actionKeys;
    let reply: StepReply;
    try {
      reply = (await withinTime(this.#client, this.#timeoutMs, () => this.#script.run(this.#client, keys, args))) as StepReply;
    } catch (error) {
      this.#outage.failed(error);
      // Given up on here, the step may still run when Redis answers (a stalled server): queue its undo, which rides on the next
      // step, sent behind it on the same connection, so no reservation or discovery lock is left that nobody holds.
      if ((action === 'b' || action === 'w') && id !== '') this.#op('x', id, '', '', '', [...taken]);
      // Finished work that could not be sent is dropped: its reservations expire by themselves.
      if (action === 'n') return undefined;
      if (this.#onStoreError !== 'local') throw error;
      this.#onLocal = true;
      this.#localSince = Date.now();
      return undefined;
    }
    // On the fallback, an answer to finished work sent alone ends nothing: the outage ends when the calls' limits are Redis's again.
    if (!this.#onLocal) this.#outage.answered();
    return reply;
  }
}

/**
 * Creates a rate-limit store shared through Redis. Pass it as the client's
 * `rateLimitStore`, one store per client.
 *
 * @example
 * ```ts
 * import { createClient } from 'redis';
 * import { Client } from 'community-chat-sdk';
 * import { createRedisRateLimitStore } from 'community-chat-sdk/redis';
 *
 * const redis = await createClient({ url: process.env.REDIS_URL }).connect();
 * const client = new Client({ auth: { botToken }, rateLimitStore: createRedisRateLimitStore({ client: redis }) });
 * ```
 */
export function createRedisRateLimitStore(options: RedisRateLimitStoreOptions): RedisRateLimitStore {
  return new RedisRateLimitStore(options);
}
