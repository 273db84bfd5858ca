/**
 * The one place interaction handlers are registered and run, whatever brought
 * the interaction: the Gateway, an HTTP delivery (the webhook receiver) or a
 * stream worker each own a router (`host.router`) and hand every interaction
 * to its `handle()`, the one delivery path: waits first, then the handlers of
 * the router and of the routers it `use()`s, then a click or submit nothing
 * took held and reported. A bot's handlers are written once and run over any.
 *
 * @module
 */

import { EventEmitter } from 'eventemitter3';
import { sdkTracer } from '../observe/diagnostics.js';
import { checkOptions, type CommandOptionValues, type TypedCommandDefinition } from './options.js';
import { bindWaitRegistry, type CommandInteraction, type Interaction, type InteractionByKind } from './interaction.js';
import type { InteractionKind } from './types.js';
import { ValidationError } from '../errors/index.js';
import { toError } from '../errors/base.js';
import { checkDuration, optionNames, refuseUnknownOptions } from '../core/bounds.js';
import { DEFAULT_MAX_WAITERS, InteractionWaiters, taken } from './waiters.js';
import { emitQuietly, type InteractionErrorEvent, type InteractionRouterEvents, type RouterHost, unhandledInteraction } from './router-events.js';
import { refuseSecondPath } from './router-links.js';

/** A handler of interactions of one kind. */
export type InteractionHandler<I> = (interaction: I) => unknown;

/** Options of {@link createInteractionRouter}. */
export interface InteractionRouterOptions {
  /**
   * The most `awaitComponent` / `awaitModalSubmit` calls waiting at once on
   * this router; one more is refused with a `ValidationError`.
   * @default 1000
   */
  maxWaiters?: number | undefined;
  /**
   * How long a component click or modal submit that nothing took is held for
   * an `awaitComponent` / `awaitModalSubmit` about to register (the click
   * can arrive before the wait when the bot replies, then awaits), before it
   * is reported as unhandled. @default 1500
   */
  holdUnclaimedMs?: number | undefined;
}

/** The names of every {@link InteractionRouterOptions} option. */
const ROUTER_OPTIONS = optionNames<InteractionRouterOptions>({ maxWaiters: true, holdUnclaimedMs: true });

/** The promise of a dispatch that ran nothing asynchronous: one, shared, already settled. */
const SETTLED: Promise<void> = Promise.resolve();
const nothing = (): void => undefined;

/** How long an unclaimed click or modal submit is held for a wait about to register, unless told otherwise. */
const DEFAULT_HOLD_UNCLAIMED_MS = 1500;

/**
 * Typed interaction handlers: by kind (`onInteraction`) and by command name
 * (`onCommand`), and other routers run after them (`use`). `handle()` is the
 * one delivery path: the Gateway, the webhook receiver and the event worker
 * each own a router (their `router`) and hand it every interaction. Nothing a
 * handler throws escapes: it becomes an `interactionError` event, on the
 * router and on whatever delivered it.
 *
 * The router also holds the waits of `interaction.awaitComponent()` and
 * `awaitModalSubmit()`: an interaction waits on the router that handled it,
 * and every `handle()` offers the new interaction to those waits before
 * anything else. An interaction a wait takes goes to that wait only.
 */
export class InteractionRouter extends EventEmitter<InteractionRouterEvents> {
  readonly #handlers = new Map<string, Set<InteractionHandler<Interaction>>>();
  /** Routers added with `use()`, run after this one's handlers, in the order added. */
  readonly #used = new Set<InteractionRouter>();
  /** Routers that use this one, so that `use()` anywhere sees every router above it (see `router-links.ts`). */
  readonly #users = new Set<InteractionRouter>();
  #closed = false;
  readonly #waiters: InteractionWaiters;
  readonly #holdMs: number;
  /** The host that owns this router, which hears its events too; `undefined` for a router of `createInteractionRouter()`. */
  #host: RouterHost | undefined;

  /** @param options Router options. @default {} */
  constructor(options: InteractionRouterOptions = {}) {
    super();
    refuseUnknownOptions('createInteractionRouter', options, ROUTER_OPTIONS);
    this.#waiters = new InteractionWaiters(options.maxWaiters ?? DEFAULT_MAX_WAITERS);
    this.#holdMs = checkDuration('createInteractionRouter', 'holdUnclaimedMs', options.holdUnclaimedMs) ?? DEFAULT_HOLD_UNCLAIMED_MS;
  }

  /**
   * Handles interactions of one kind; the handler's parameter is narrowed to
   * that kind. Exceptions and rejections become `interactionError` events.
   * Returns a function that removes the handler.
   */
  onInteraction<K extends InteractionKind>(kind: K, handler: InteractionHandler<InteractionByKind[K]>): () => void {
    return this.#addHandler('router.onInteraction', kind, handler as InteractionHandler<Interaction>);
  }

  /** Handles one slash command by name. Returns a function that removes the handler. */
  onCommand(name: string, handler: InteractionHandler<CommandInteraction>): () => void;
  /** Handles one slash command by its definition (from `defineCommand`), which types `interaction.options`. */
  onCommand<D extends TypedCommandDefinition>(command: D, handler: InteractionHandler<CommandInteraction<CommandOptionValues<D>>>): () => void;
  onCommand(command: TypedCommandDefinition | string, handler: InteractionHandler<CommandInteraction<never>>): () => void {
    const name = (typeof command === 'string' ? command : command.name).toLowerCase();
    if (typeof command === 'string') return this.#addHandler('router.onCommand', `command:${name}`, handler as InteractionHandler<Interaction>);
    // A typed handler runs only with options that fit the definition its types come from; otherwise a ValidationError naming the option goes to interactionError.
    const defined = command.options;
    const checked: InteractionHandler<Interaction> = (interaction) => {
      const problems = checkOptions(defined, interaction.data['options']);
      if (problems.length > 0)
        throw new ValidationError(
          `command /${name}`,
          problems.map((problem) => ({ path: `options.${problem.path}`, message: problem.message })),
        );
      return (handler as InteractionHandler<Interaction>)(interaction);
    };
    return this.#addHandler('router.onCommand', `command:${name}`, checked);
  }

  #addHandler(operation: string, key: string, handler: InteractionHandler<Interaction>): () => void {
    this.#refuseClosed(operation);
    let set = this.#handlers.get(key);
    if (!set) {
      set = new Set();
      this.#handlers.set(key, set);
    }
    set.add(handler);
    return () => {
      set?.delete(handler);
    };
  }

  /**
   * Runs the handlers of `router` (a shared one, from `createInteractionRouter()`) for every interaction this router
   * handles, after its own and those of the routers used before it. Their errors are emitted as `interactionError` on
   * `router` and on this router's host. One interaction runs each handler once, so it refuses (`ValidationError`) a
   * router that would be reached twice: this router itself, one that uses it (directly or further down), and one
   * already reached (it, or a router it uses) from this router or from a router that uses this one, whatever the order
   * of the `use()` calls; using the same router again changes nothing. A closed router refuses it too. Returns a
   * function that stops using it.
   */
  use(router: InteractionRouter): () => void {
    // By shape, not instanceof: a router of the other build (ESM and CommonJS) is as good.
    if (typeof (router as Partial<InteractionRouter> | null)?.runHandlers !== 'function')
      throw new ValidationError('router.use', [{ path: 'router', message: 'must be a router from createInteractionRouter()' }]);
    this.#refuseClosed('router.use');
    if (!this.#used.has(router)) {
      refuseSecondPath(this, router);
      this.#used.add(router);
      router.linkUser(this, true);
    }
    return () => {
      if (this.#used.delete(router)) router.linkUser(this, false);
    };
  }

  /** A closed router takes no handler nor router: they would never run as the caller expects. */
  #refuseClosed(operation: string): void {
    if (this.#closed) throw new ValidationError(operation, [{ path: 'router', message: 'was closed: a closed router takes no handler nor router' }]);
  }

  /** @internal The routers this one uses (for `router-links.ts`). */
  usedRouters(): ReadonlySet<InteractionRouter> {
    return this.#used;
  }

  /** @internal The routers that use this one (for `router-links.ts`). */
  userRouters(): ReadonlySet<InteractionRouter> {
    return this.#users;
  }

  /** @internal The keys of this router's handlers, naming it in an error of `use()`. */
  handlerKeys(): Iterable<string> {
    return this.#handlers.keys();
  }

  /** @internal Told by `user.use(this)` (`linked`) and when it stops using this router. */
  linkUser(user: InteractionRouter, linked: boolean): void {
    if (linked) this.#users.add(user);
    else this.#users.delete(user);
  }

  /** How many `awaitComponent` / `awaitModalSubmit` calls are waiting on this router. */
  get waiterCount(): number {
    return this.#waiters.size;
  }

  /** How many handlers are registered on this router (kind and command handlers together; not those of the routers it uses). */
  get handlerCount(): number {
    let count = 0;
    for (const set of this.#handlers.values()) count += set.size;
    return count;
  }

  /**
   * Delivers an interaction: the one path of every host. First it is offered to the pending `awaitComponent` /
   * `awaitModalSubmit` waits (of this router, then of the routers it uses): one that takes it is the only one to see it,
   * no listener or handler runs. Then the host's `interactionCreate` listeners (when a host owns this router), and for
   * this router and then each router it uses, its `interactionCreate` listeners, the handlers of the interaction's kind
   * and, for a command, those of its name. A component click or modal submit nothing took is held `holdUnclaimedMs`
   * for a wait about to register, then reported as `interactionUnhandled` (on this router and its host). Nothing a
   * handler or listener throws escapes: it is emitted as `interactionError` on the router whose handler threw (this
   * router for a listener of the host) and on the host. Resolves once every handler has settled; never rejects.
   *
   * @param interaction The interaction (the hosts build it from what they receive; `createInteraction()` in tests).
   * @param shardId The shard it arrived on, passed to the `interactionCreate` listeners. @default undefined
   */
  handle(interaction: Interaction, shardId?: number): Promise<void> {
    // With a tracer installed (community-chat-sdk/otel), the handlers run inside its span, so their calls become its children.
    const tracer = sdkTracer();
    if (tracer === undefined) return this.#handle(interaction, shardId, undefined);
    const info = { id: interaction.id, kind: interaction.kind, ...(interaction.kind === 'command' ? { commandName: interaction.commandName } : {}) };
    return tracer.runInteraction(info, (failed) => this.#handle(interaction, shardId, failed));
  }

  #handle(interaction: Interaction, shardId: number | undefined, failed: ((error: unknown) => void) | undefined): Promise<void> {
    // A click or submit a pending wait takes goes to that wait only: no interactionCreate listener or handler sees it.
    if (this.offerToWaits(interaction)) return SETTLED;
    const host = this.#host;
    let handled = false;
    if (host !== undefined && host.listenerCount('interactionCreate') > 0) {
      handled = true;
      this.#emitCreate(host, interaction, shardId, host, failed);
    }
    handled ||= this.wouldHandle(interaction);
    const pending = this.runHandlers(interaction, shardId, host, failed, undefined);
    // Nothing took a click or submit: held briefly for a wait about to register (reply, then await: the click may come first), then reported.
    if (!handled) this.#holdUnclaimed(interaction, shardId);
    // No array, closure or Promise.all per interaction unless a handler returned a promise.
    return pending === undefined ? SETTLED : Promise.all(pending).then(nothing);
  }

  /**
   * @internal The waits step of `handle()`: binds the interaction to this router's waits (its own `awaitComponent`
   * waits here), offers it to them, then to those of the routers it uses; whether one took it.
   */
  offerToWaits(interaction: Interaction): boolean {
    bindWaitRegistry(interaction, this.#waiters);
    if (this.#waiters.offer(interaction)) return true;
    if (this.#used.size > 0) for (const router of this.#used) if (router.offerToWaits(interaction)) return true;
    return false;
  }

  /** @internal Whether `handle()` would run anything for the interaction here: an `interactionCreate` listener, or a handler of its kind or command, of this router or one it uses. */
  wouldHandle(interaction: Pick<Interaction, 'kind'> & { readonly commandName?: string }): boolean {
    if (this.listenerCount('interactionCreate') > 0 || (this.#handlers.get(interaction.kind)?.size ?? 0) > 0) return true;
    if (interaction.kind === 'command' && (this.#handlers.get(`command:${(interaction.commandName ?? '').toLowerCase()}`)?.size ?? 0) > 0) return true;
    if (this.#used.size > 0) for (const router of this.#used) if (router.wouldHandle(interaction)) return true;
    return false;
  }

  /**
   * @internal The handlers step of `handle()`: this router's `interactionCreate` listeners and handlers, then those of
   * the routers it uses; what each handler returned that is a promise is added to `pending`.
   */
  runHandlers(
    interaction: Interaction,
    shardId: number | undefined,
    host: RouterHost | undefined,
    failed: ((error: unknown) => void) | undefined,
    pending: Promise<void>[] | undefined,
  ): Promise<void>[] | undefined {
    this.#emitCreate(this, interaction, shardId, host, failed);
    let list = pending;
    if (this.#handlers.size > 0) {
      list = this.#run(this.#handlers.get(interaction.kind), interaction, host, failed, list);
      if (interaction.kind === 'command')
        list = this.#run(this.#handlers.get(`command:${interaction.commandName.toLowerCase()}`), interaction, host, failed, list);
    }
    if (this.#used.size > 0) for (const router of this.#used) list = router.runHandlers(interaction, shardId, host, failed, list);
    return list;
  }

  /** @internal Called once by the host that owns this router (`InteractionHost`): its listeners hear this router's events too. */
  bindHost(host: RouterHost): void {
    this.#host ??= host;
  }

  /** Holds a click or submit nothing took for a wait about to register on this router; reported if none takes it within `holdUnclaimedMs`. */
  #holdUnclaimed(interaction: Interaction, shardId: number | undefined): void {
    if (taken(interaction) || (interaction.kind !== 'component' && interaction.kind !== 'modalSubmit')) return;
    this.#waiters.hold(interaction, this.#holdMs, () => {
      const event = unhandledInteraction(interaction, shardId);
      emitQuietly(this, 'interactionUnhandled', event);
      emitQuietly(this.#host, 'interactionUnhandled', event);
    });
  }

  /**
   * Tells `emitter`'s `interactionCreate` listeners, each one even when another throws (eventemitter3's `emit()` stops at
   * the first that throws); what one throws is reported as a handler's error. One listener or none: `emit()` itself, no
   * array. Several: a copy of the list, each called with the emitter as `this` (a `once` one removed first, as `emit()` does).
   */
  #emitCreate(
    emitter: RouterHost,
    interaction: Interaction,
    shardId: number | undefined,
    host: RouterHost | undefined,
    failed: ((error: unknown) => void) | undefined,
  ): void {
    const count = emitter.listenerCount('interactionCreate');
    if (count === 0) return;
    if (count === 1) {
      try {
        emitter.emit('interactionCreate', interaction, shardId);
      } catch (error) {
        this.#report(error, interaction, host, failed);
      }
      return;
    }
    for (const listener of emitter.listeners('interactionCreate')) {
      emitter.removeListener('interactionCreate', listener, undefined, true);
      try {
        listener.call(emitter, interaction, shardId);
      } catch (error) {
        this.#report(error, interaction, host, failed);
      }
    }
  }

  /** Runs a set of handlers (a copy: one removed or added meanwhile does not change this run); adds what each returns that is a promise to `pending`. */
  #run(
    set: Set<InteractionHandler<Interaction>> | undefined,
    interaction: Interaction,
    host: RouterHost | undefined,
    failed: ((error: unknown) => void) | undefined,
    pending: Promise<void>[] | undefined,
  ): Promise<void>[] | undefined {
    if (set === undefined || set.size === 0) return pending;
    let list = pending;
    for (const handler of [...set]) {
      try {
        const result = handler(interaction);
        if (result && typeof (result as Promise<unknown>).then === 'function') {
          list ??= [];
          list.push(Promise.resolve(result).then(nothing, (error: unknown) => this.#report(error, interaction, host, failed)));
        }
      } catch (error) {
        this.#report(error, interaction, host, failed);
      }
    }
    return list;
  }

  /** Emits a handler's error as `interactionError` on this router and on the host, and tells the tracer's span; a throwing sink breaks neither the others nor the caller. */
  #report(error: unknown, interaction: Interaction, host: RouterHost | undefined, failed: ((error: unknown) => void) | undefined): void {
    const event: InteractionErrorEvent = { error: toError(error), interaction };
    emitQuietly(this, 'interactionError', event);
    try {
      failed?.(event.error);
    } catch {
      // Nor a throwing tracer.
    }
    emitQuietly(host, 'interactionError', event);
  }

  /**
   * Removes every handler, listener and used router, and ends every wait with
   * `InteractionWaitAbortedError`; from then on `use()`, `onCommand` and
   * `onInteraction` are refused (`ValidationError`). Safe to call more than
   * once. A host closes its own router when it closes; a router shared with
   * `use()` is closed by whoever created it.
   */
  close(): Promise<void> {
    this.#closed = true;
    this.#waiters.abortAll('the router was closed');
    this.#handlers.clear();
    for (const used of this.#used) used.linkUser(this, false);
    this.#used.clear();
    this.removeAllListeners();
    return Promise.resolve();
  }

  /** `await using router = createInteractionRouter()` closes it at the end of the scope. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/**
 * Creates a router for interaction handlers, shared by any of the hosts
 * (`client.gateway.use(router)`, `receiver.use(router)`, `worker.use(router)`)
 * or used by another router.
 *
 * @example
 * const router = createInteractionRouter();
 * router.onCommand('ping', (interaction) => interaction.reply('pong'));
 * client.gateway.use(router);
 *
 * @param options Router options (see {@link InteractionRouterOptions}); none is required.
 */
export function createInteractionRouter(options: InteractionRouterOptions = {}): InteractionRouter {
  return new InteractionRouter(options);
}
