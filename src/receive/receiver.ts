/**
 * The webhook receiver: verifies each delivery, refuses replays, answers
 * before the handlers run, de-duplicates retries, and runs typed handlers by
 * event type. An INTERACTION_CREATE delivery becomes the same typed
 * interaction the Gateway builds, run through the shared interaction router,
 * with `reply()` bound to the callback endpoint through the client.
 *
 * @module
 */

import type { EventEmitter } from 'eventemitter3';
import { ValidationError, WebhookVerificationError, isCommunityChatError } from '../errors/index.js';
import { inspectSymbol, scrubText } from '../core/redact.js';
import { INTERACTION_LIFETIME_MS } from '../core/constants.js';
import type { InteractionResponder } from '../interactions/types.js';
import type { InteractionRouterEvents } from '../interactions/router-events.js';
import { type DuplicateEvent, InteractionHost } from '../interactions/host.js';
import type { WebhookDelivery, WebhookEventMap } from './delivery.js';
import { createExpressMiddleware, type ExpressMiddleware } from './express.js';
import { createFetchHandler, type FetchHandler } from './fetch.js';
import { bodyBytes, type RawBody, type WebhookHeaders } from './input.js';
import { ReceiverSecrets } from './receiver-secrets.js';

import { createNodeHandler, type NodeRequestHandler } from './node.js';
import type { ReceiveOutcome, ReceiverCore } from './outcome.js';
import { MemoryReplayStore, type ReplayStore } from './replay-store.js';
import { resolveScheme, type ResolvedWebhookScheme, type WebhookSecret } from './scheme.js';
import { verifyWebhookDelivery } from './verify.js';
import { toError } from '../errors/base.js';
import { PendingBodies } from './pending-bodies.js';
import { resolveReceiverLimits, type WebhookReceiverOptions } from './receiver-options.js';

/** Emitted when a handler (or the receiver itself) fails; never a crash, never a 500 after the 2xx. */
export interface WebhookErrorEvent {
  /** What was thrown: an `Error` (a thrown non-Error value is wrapped in one, as its `cause`). */
  error: Error;
  /** The delivery being handled, if any. */
  delivery: WebhookDelivery | undefined;
}

/**
 * The receiver's own events, listened to with `on`, `off` and `once` (deliveries of one type are handled with
 * `onDelivery`), and those of its router (`interactionCreate`, `interactionError`, `interactionUnhandled`).
 */
export interface WebhookReceiverEvents extends InteractionRouterEvents {
  /** Every new verified delivery, whatever its type: the catch-all. */
  delivery: [delivery: WebhookDelivery];
  /**
   * A retry of a delivery already handled (same id, new signature), or an interaction another delivery carried: answered
   * 200, not handled again.
   */
  duplicate: [event: DuplicateEvent];
  /** A request that failed verification (answered 401). */
  rejected: [error: WebhookVerificationError];
  /** A handler threw or rejected, or the receiver could not do its job (the replay store failed, a body parser ran first). */
  error: [event: WebhookErrorEvent];
}

type DeliveryHandler = (delivery: WebhookDelivery) => unknown;

/**
 * Receives signed deliveries over HTTP. Mount one of its adapters:
 * `receiver.node` (`node:http`), `receiver.fetch` (edge and serverless),
 * `receiver.express` (Express-compatible middleware).
 */
export class WebhookReceiver<Events extends object = WebhookEventMap> extends InteractionHost<WebhookReceiverEvents> {
  /** `http.createServer(receiver.node)`. */
  readonly node: NodeRequestHandler;
  /** `export default { fetch: (request, env, ctx) => receiver.fetch(request, ctx) }`. */
  readonly fetch: FetchHandler;
  /** `app.post('/webhooks', receiver.express)`. */
  readonly express: ExpressMiddleware;
  readonly #handlers = new Map<string, Set<DeliveryHandler>>();
  readonly #secrets: ReceiverSecrets;
  readonly #store: ReplayStore;
  readonly #scheme: ResolvedWebhookScheme;
  readonly #toleranceMs: number;
  readonly #dedupeTtlMs: number;
  readonly #interactionType: string;
  readonly #respond: InteractionResponder | undefined;
  readonly #now: () => number;
  /** Whether `close()` was called: new requests are answered 503. */
  #closed = false;
  /** Deliveries whose handlers are running, for `close()` to wait for. */
  readonly #running = new Set<Promise<void>>();
  /** Bodies the adapters are reading now. */
  readonly #bodies: PendingBodies;
  /** Builds interactions; loaded on the first INTERACTION_CREATE (it pulls in zod). */
  #fromDispatch: Promise<typeof import('../interactions/from-dispatch.js')> | undefined;

  /** Prefer {@link createWebhookReceiver}. Refuses an empty secret and unusable limits with a `ValidationError`. */
  constructor(options: WebhookReceiverOptions) {
    super();
    const { toleranceMs, dedupeTtlMs, maxBodyBytes, bodyTimeoutMs, maxPendingBodies } = resolveReceiverLimits(options);
    this.#secrets = new ReceiverSecrets(options.secret);
    this.#toleranceMs = toleranceMs;
    this.#dedupeTtlMs = dedupeTtlMs;
    this.#scheme = resolveScheme(options.scheme);
    this.#store = options.replayStore ?? new MemoryReplayStore(options.clock ? { clock: options.clock } : {});
    this.#interactionType = options.interactionEventType ?? 'INTERACTION_CREATE';
    const client = options.client;
    this.#respond = client ? (interactionId, body, options) => client.interactions.respond(interactionId, body, options) : undefined;
    this.#now = options.clock ?? Date.now;
    // Eviction ages on a steady clock, not on `clock`: a frozen or shifted signature clock must not disable it.
    this.#bodies = new PendingBodies(maxPendingBodies);
    const core: ReceiverCore = {
      receive: (rawBody, headers) => this.#receive(rawBody, headers),
      fail: (error) => this.#emitError(error, undefined),
      maxBodyBytes,
      bodyTimeoutMs,
      bodyStarted: (source) => this.#bodies.start(source),
    };
    this.node = createNodeHandler(core);
    this.fetch = createFetchHandler(core);
    this.express = createExpressMiddleware(core);
  }

  /**
   * Handles deliveries of one type: `delivery.data` is typed by the event
   * map for a known type, `unknown` otherwise. The receiver's own events
   * (`delivery`, `error`, ...) are listened to with `on`, so a delivery type
   * may have any name, `error` included. Returns a function that removes the
   * handler.
   */
  onDelivery<T extends keyof Events & string>(type: T, handler: (delivery: WebhookDelivery<T, Events[T]>) => unknown): () => void;
  onDelivery(type: string, handler: (delivery: WebhookDelivery) => unknown): () => void;
  onDelivery(type: string, handler: (delivery: WebhookDelivery<string, never>) => unknown): () => void {
    let set = this.#handlers.get(type);
    if (!set) this.#handlers.set(type, (set = new Set()));
    const added = handler as DeliveryHandler;
    set.add(added);
    return () => {
      const current = this.#handlers.get(type);
      current?.delete(added);
      if (current?.size === 0) this.#handlers.delete(type);
    };
  }

  /**
   * Stops receiving: from now on the adapters answer 503 (the sender retries
   * later, elsewhere), the handlers still running settle, then every handler
   * and listener is removed, and its router is closed (a router it `use()`s
   * is left to its owner). Safe to call more than once.
   */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#running]);
    this.#handlers.clear();
    this.removeAllListeners();
    await this.router.close();
  }

  /** `await using receiver = createWebhookReceiver(...)` closes it at the end of the scope. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /**
   * Verifies and claims one request, and says what to answer; the handlers
   * start only when the outcome's `dispatch()` is called (the adapters call
   * it after answering). For frameworks without an adapter. Rejects only
   * with a `ValidationError` when `rawBody` is not the raw body (a parsed
   * object); every verification failure is an outcome (401), not a rejection.
   */
  async receive(rawBody: RawBody, headers: WebhookHeaders): Promise<ReceiveOutcome> {
    return this.#receive(bodyBytes('WebhookReceiver.receive', rawBody), headers);
  }

  async #receive(rawBody: Uint8Array, headers: WebhookHeaders): Promise<ReceiveOutcome> {
    if (this.#closed) return { status: 503, body: { ok: false, reason: 'closing' }, dispatch: () => Promise.resolve() };
    let secrets: WebhookSecret[] | undefined;
    try {
      secrets = this.#secrets.current();
    } catch (error) {
      this.#emitError(error, undefined);
    }
    // No secret yet (a provider that gives none, or an unusable one): the sender retries later.
    if (secrets === undefined) return { status: 503, body: { ok: false, reason: 'no-secret' }, dispatch: () => Promise.resolve() };
    let delivery: WebhookDelivery;
    try {
      delivery = verifyWebhookDelivery({ rawBody, headers, secret: secrets, toleranceMs: this.#toleranceMs, clock: this.#now, scheme: this.#scheme });
      // A signature is accepted until its signing time plus the tolerance: everything remembered about it lives at least that long.
      const acceptedForMs = Math.max(1, delivery.signedAt + this.#toleranceMs - this.#now() + 1);
      // The delivery id first, then the signed request (its id and signing time: one key however the signature is spelled).
      // A claim that fails (503) leaves nothing behind, so the sender's retry, even byte for byte the same, is handled.
      const fresh = await this.#store.claim(`delivery:${delivery.id}`, Math.max(this.#dedupeTtlMs, acceptedForMs));
      const requestFresh = await this.#claimOr(fresh, delivery, `signed:${delivery.id}:${delivery.signedAt}`, acceptedForMs);
      // The same signed request twice is a replay (401); a retry of a handled delivery (same id, new signature) is a duplicate.
      if (!requestFresh) throw new WebhookVerificationError('replayed', 'this exact signed request was already received');
      // One interaction delivered by two subscriptions (two deliveries) runs once: claimed by its id for the token's lifetime.
      const interactionId = delivery.type === this.#interactionType ? (delivery.data as { id?: unknown } | null)?.id : undefined;
      const interactionFresh =
        fresh && typeof interactionId === 'string'
          ? await this.#claimOr(true, delivery, `interaction:${interactionId}`, INTERACTION_LIFETIME_MS + acceptedForMs)
          : fresh;
      if (!interactionFresh) {
        this.#emit('duplicate', { id: delivery.id, type: delivery.type, interactionId: typeof interactionId === 'string' ? interactionId : undefined });
        return { status: 200, body: { ok: true, duplicate: true }, dispatch: () => Promise.resolve() };
      }
    } catch (error) {
      if (isCommunityChatError(error, 'WebhookVerificationError')) {
        this.#emit('rejected', error);
        return { status: 401, body: { ok: false, reason: error.reason }, dispatch: () => Promise.resolve() };
      }
      this.#emitError(error, undefined);
      // A replay store that cannot answer is worth a retry later; anything else is a bug on this side.
      const failed = isCommunityChatError(error, 'ValidationError') ? { status: 500, reason: 'internal-error' } : { status: 503, reason: 'unavailable' };
      return { status: failed.status, body: { ok: false, reason: failed.reason }, dispatch: () => Promise.resolve() };
    }
    let started: Promise<void> | undefined;
    const dispatch = () => {
      if (started) return started;
      const running = this.#dispatch(delivery).finally(() => this.#running.delete(running));
      this.#running.add(running);
      started = running;
      return running;
    };
    return { status: 200, body: { ok: true }, dispatch };
  }

  /**
   * Claims a second key of a delivery whose id claim said `deliveryFresh`. When the store fails here and the
   * delivery is new (its id is signed), it is handled rather than answered 503 with its id claimed, which would
   * turn the sender's retry into a "duplicate" and the delivery into one never handled.
   */
  async #claimOr(deliveryFresh: boolean, delivery: WebhookDelivery, key: string, ttlMs: number): Promise<boolean> {
    try {
      return await this.#store.claim(key, ttlMs);
    } catch (error) {
      if (!deliveryFresh) throw error;
      this.#emitError(error, delivery);
      return true;
    }
  }

  /** Runs every handler of a verified delivery; never rejects. */
  async #dispatch(delivery: WebhookDelivery): Promise<void> {
    const pending: Promise<unknown>[] = [];
    const handlers: DeliveryHandler[] = [...this.listeners('delivery'), ...(this.#handlers.get(delivery.type) ?? [])];
    for (const handler of handlers) {
      try {
        const result = handler(delivery);
        if (result && typeof (result as Promise<unknown>).then === 'function')
          pending.push(Promise.resolve(result).then(undefined, (error: unknown) => this.#emitError(error, delivery)));
      } catch (error) {
        this.#emitError(error, delivery);
      }
    }
    if (delivery.type === this.#interactionType) pending.push(this.#interaction(delivery));
    await Promise.all(pending);
  }

  /** Builds the typed interaction of an INTERACTION_CREATE delivery and runs the router; never rejects. */
  async #interaction(delivery: WebhookDelivery): Promise<void> {
    try {
      const respond = this.#respond;
      if (respond === undefined) {
        throw new ValidationError('createWebhookReceiver', [
          {
            path: 'client',
            message: `a ${this.#interactionType} delivery arrived, but the receiver has no client to answer it: pass createWebhookReceiver({ client })`,
          },
        ]);
      }
      this.#fromDispatch ??= import('../interactions/from-dispatch.js');
      const { interactionFromDispatch } = await this.#fromDispatch;
      // The interaction keeps the payload it is built from: a copy, so `delivery` listeners cannot change it under the handler.
      const built = interactionFromDispatch(structuredClone(delivery.data), respond, this.#now);
      if (!built.ok) throw built.error;
      await this.router.handle(built.interaction);
    } catch (error) {
      this.#emitError(error, delivery);
    }
  }

  #emitError(error: unknown, delivery: WebhookDelivery | undefined): void {
    if (isCommunityChatError(error)) {
      // The SDK's own errors never hold a secret; scrub anyway, as the Gateway does.
      error.message = scrubText(error.message, this.#secrets.texts);
      if (error.stack !== undefined) error.stack = scrubText(error.stack, this.#secrets.texts);
    }
    this.#emit('error', { error: toError(error), delivery });
  }

  /** Emits; a listener that throws is swallowed (an `error` listener) or reported as `error`. */
  #emit<K extends keyof WebhookReceiverEvents>(event: K, ...args: EventEmitter.EventArgs<WebhookReceiverEvents, K>): void {
    try {
      this.emit(event, ...args);
    } catch (error) {
      if (event !== 'error') this.#emitError(error, undefined);
    }
  }

  /** @internal Redacted view for `util.inspect`: never a secret. (Node finds it by its registered symbol). */
  [inspectSymbol](): string {
    return `WebhookReceiver { secrets: ${this.#secrets.count} [redacted], types: [${[...this.#handlers.keys()].join(', ')}], interactionHandlers: ${this.router.handlerCount} }`;
  }

  /** Redacted view for `JSON.stringify`. */
  toJSON(): Record<string, unknown> {
    return {
      secrets: `${this.#secrets.count} [redacted]`,
      types: [...this.#handlers.keys()],
      interactionHandlers: this.router.handlerCount,
      pendingBodies: this.#bodies.size,
    };
  }
}

/**
 * Creates a receiver of signed application-webhook deliveries (and of
 * interactions over HTTP, without a Gateway).
 *
 * @example
 * const receiver = createWebhookReceiver({ secret: process.env.WEBHOOK_SECRET, client });
 * receiver.onCommand('ping', (interaction) => interaction.reply('pong'));
 * http.createServer(receiver.node).listen(3000);
 */
export function createWebhookReceiver<Events extends object = WebhookEventMap>(options: WebhookReceiverOptions): WebhookReceiver<Events> {
  return new WebhookReceiver<Events>(options);
}
