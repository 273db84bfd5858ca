/**
 * The one place interaction handlers are registered and run, whatever brought
 * the interaction: the Gateway (`client.gateway.use(router)`) or an HTTP
 * delivery (`createWebhookReceiver({ router })`). A bot's handlers are written
 * once and run over either.
 *
 * @module
 */

import { EventEmitter } from 'eventemitter3';
import { sdkTracer } from '../observe/diagnostics.js';
import { checkOptions, type CommandOptionValues, type TypedCommandDefinition } from './options.js';
import {
  bindWaitRegistry,
  type CommandInteraction,
  type ComponentInteraction,
  type Interaction,
  type InteractionByKind,
  type ModalSubmitInteraction,
} from './interaction.js';
import type { InteractionKind } from './types.js';
import { ValidationError } from '../errors/index.js';
import { toError } from '../errors/base.js';
import { checkDuration, optionNames, refuseUnknownOptions } from '../core/bounds.js';
import { answeredInteractionId, DEFAULT_MAX_WAITERS, InteractionWaiters, taken } from './waiters.js';

/** A handler of interactions of one kind. */
export type InteractionHandler<I> = (interaction: I) => unknown;

/** Emitted when an interaction handler throws or rejects. */
export interface InteractionErrorEvent {
  /** What the handler threw: an `Error` (a thrown non-Error value is wrapped in one, as its `cause`). */
  error: Error;
  /** The interaction it was handling. */
  interaction: Interaction;
}

/**
 * A component click or modal submit that no wait, handler or listener took,
 * even after being held briefly for a wait about to register: nothing
 * answers it, so the user sees "This interaction failed".
 */
export interface InteractionUnhandledEvent {
  /** The click or submit. */
  interaction: ComponentInteraction | ModalSubmitInteraction;
  /** Its `custom_id`. */
  customId: string;
  /** The interaction whose answer carried the component (`message.interaction_metadata.id`), when the message says. */
  answers: string | undefined;
  /** A sentence saying so, for a log (no token). */
  message: string;
}

/** Describes an interaction nothing took. */
function unhandledInteraction(interaction: ComponentInteraction | ModalSubmitInteraction): InteractionUnhandledEvent {
  const answers = interaction.kind === 'component' ? answeredInteractionId(interaction.message) : undefined;
  const what = interaction.kind === 'component' ? 'component click' : 'modal submit';
  const message = `a ${what} with custom_id ${JSON.stringify(interaction.customId)} (interaction ${interaction.id}${answers === undefined ? '' : `, on the answer to interaction ${answers}`}) was taken by no awaitComponent/awaitModalSubmit, handler or listener; nothing answers it`;
  return { interaction, customId: interaction.customId, answers, message };
}

/** Every event an {@link InteractionRouter} emits. */
export interface InteractionRouterEvents {
  /** A typed interaction arrived (before its handlers run). */
  interactionCreate: [interaction: Interaction];
  /** An interaction handler (or an `interactionCreate` listener) threw or rejected. */
  interactionError: [event: InteractionErrorEvent];
}

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
export const DEFAULT_HOLD_UNCLAIMED_MS = 1500;

/**
 * Typed interaction handlers: by kind (`onInteraction`) and by command name
 * (`onCommand`). Nothing a handler throws escapes: it becomes an
 * `interactionError` event, on the router and on whatever delivered it.
 *
 * The router also holds the waits of `interaction.awaitComponent()` and
 * `awaitModalSubmit()`: an interaction waits on the first router that
 * dispatched it (for the Gateway, its own router, which runs before those of
 * `use()`), and every dispatch offers the new interaction to those waits
 * before anything else. An interaction a wait takes goes to that wait only.
 */
export class InteractionRouter extends EventEmitter<InteractionRouterEvents> {
  readonly #handlers = new Map<string, Set<InteractionHandler<Interaction>>>();
  readonly #waiters: InteractionWaiters;
  readonly #holdMs: number;

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
    return this.#addHandler(kind, handler as InteractionHandler<Interaction>);
  }

  /** Handles one slash command by name. Returns a function that removes the handler. */
  onCommand(name: string, handler: InteractionHandler<CommandInteraction>): () => void;
  /** Handles one slash command by its definition (from `defineCommand`), which types `interaction.options`. */
  onCommand<D extends TypedCommandDefinition>(command: D, handler: InteractionHandler<CommandInteraction<CommandOptionValues<D>>>): () => void;
  onCommand(command: TypedCommandDefinition | string, handler: InteractionHandler<CommandInteraction<never>>): () => void {
    const name = (typeof command === 'string' ? command : command.name).toLowerCase();
    if (typeof command === 'string') return this.#addHandler(`command:${name}`, handler as InteractionHandler<Interaction>);
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
    return this.#addHandler(`command:${name}`, checked);
  }

  #addHandler(key: string, handler: InteractionHandler<Interaction>): () => void {
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

  /** How many `awaitComponent` / `awaitModalSubmit` calls are waiting on this router. */
  get waiterCount(): number {
    return this.#waiters.size;
  }

  /** How many handlers are registered (kind and command handlers together). */
  get handlerCount(): number {
    let count = 0;
    for (const set of this.#handlers.values()) count += set.size;
    return count;
  }

  /**
   * Runs the handlers of an interaction: `interactionCreate` listeners, the
   * handlers of its kind, and for commands those of its name. Nothing a
   * handler throws escapes: it is emitted as `interactionError` on this
   * router and passed to `onError` (the Gateway or receiver re-emits it).
   * The promise resolves once every handler has settled; it never rejects.
   *
   * First, the interaction is offered to the pending `awaitComponent` /
   * `awaitModalSubmit` waits: one that matches takes it, and then no
   * listener or handler (of this router or any other) runs for it.
   */
  dispatch(interaction: Interaction, onError?: (event: InteractionErrorEvent) => void): Promise<void> {
    // With a tracer installed (community-chat-sdk/otel), the handlers run inside its span, so their calls become its children.
    const tracer = sdkTracer();
    if (tracer === undefined) return this.#dispatch(interaction, onError);
    const info = { id: interaction.id, kind: interaction.kind, ...(interaction.kind === 'command' ? { commandName: interaction.commandName } : {}) };
    return tracer.runInteraction(info, (failed) => this.#dispatch(interaction, (event) => (failed(event.error), onError?.(event))));
  }

  /**
   * @internal Offers an interaction to this router's pending waits first (binding it to
   * them, as `dispatch` does); whether one took it. What delivers interactions
   * (the Gateway, the receiver) asks this before anything else runs for it.
   */
  offerToWaits(interaction: Interaction): boolean {
    bindWaitRegistry(interaction, this.#waiters);
    return this.#waiters.offer(interaction);
  }

  /** @internal Whether `dispatch` would run anything for the interaction: an `interactionCreate` listener, or a handler of its kind or command. */
  wouldHandle(interaction: Interaction): boolean {
    if (this.listenerCount('interactionCreate') > 0 || (this.#handlers.get(interaction.kind)?.size ?? 0) > 0) return true;
    return interaction.kind === 'command' && (this.#handlers.get(`command:${interaction.commandName.toLowerCase()}`)?.size ?? 0) > 0;
  }

  /**
   * @internal After the routers ran: a component click or modal submit that no wait,
   * handler or listener took (`handled` says whether anything else did) is
   * held briefly for an `awaitComponent` / `awaitModalSubmit` about to
   * register on this router (reply, then await: the click may arrive first),
   * and `unhandled` runs if none takes it within `holdUnclaimedMs`.
   */
  holdUnclaimed(interaction: Interaction, handled: boolean, unhandled: (event: InteractionUnhandledEvent) => void): void {
    if (handled || taken(interaction) || (interaction.kind !== 'component' && interaction.kind !== 'modalSubmit')) return;
    this.#waiters.hold(interaction, this.#holdMs, () => unhandled(unhandledInteraction(interaction)));
  }

  #dispatch(interaction: Interaction, onError?: (event: InteractionErrorEvent) => void): Promise<void> {
    if (this.offerToWaits(interaction)) return SETTLED;
    try {
      this.emit('interactionCreate', interaction);
    } catch (error) {
      this.#report(error, interaction, onError);
    }
    // No closure, array or promise per interaction unless a handler is registered for it, or returns a promise.
    if (this.#handlers.size === 0) return SETTLED;
    let pending = this.#run(this.#handlers.get(interaction.kind), interaction, onError, undefined);
    if (interaction.kind === 'command')
      pending = this.#run(this.#handlers.get(`command:${interaction.commandName.toLowerCase()}`), interaction, onError, pending);
    return pending === undefined ? SETTLED : Promise.all(pending).then(nothing);
  }

  /** Runs a set of handlers (a copy: one removed or added meanwhile does not change this run); adds what each returns that is a promise to `pending`. */
  #run(
    set: Set<InteractionHandler<Interaction>> | undefined,
    interaction: Interaction,
    onError: ((event: InteractionErrorEvent) => void) | undefined,
    pending: Promise<void>[] | undefined,
  ): Promise<void>[] | undefined {
    if (set === undefined || set.size === 0) return pending;
    let list = pending;
    for (const handler of [...set]) {
      try {
        const result = handler(interaction);
        if (result && typeof (result as Promise<unknown>).then === 'function') {
          list ??= [];
          list.push(Promise.resolve(result).then(nothing, (error: unknown) => this.#report(error, interaction, onError)));
        }
      } catch (error) {
        this.#report(error, interaction, onError);
      }
    }
    return list;
  }

  /** Emits a handler's error as `interactionError` and passes it to `onError`; a throwing sink breaks neither the other nor the caller. */
  #report(error: unknown, interaction: Interaction, onError: ((event: InteractionErrorEvent) => void) | undefined): void {
    const event: InteractionErrorEvent = { error: toError(error), interaction };
    try {
      this.emit('interactionError', event);
    } catch {
      // A throwing error listener must not break the others, nor whatever delivered the interaction.
    }
    try {
      onError?.(event);
    } catch {
      // Nor a throwing onError.
    }
  }

  /**
   * Removes every handler and listener, and ends every wait with
   * `InteractionWaitAbortedError`. Safe to call more than once. The Gateway
   * closes its own router on `close()`; a router shared with `use()` or a
   * receiver is closed by whoever created it.
   */
  close(): Promise<void> {
    this.#waiters.abortAll('the router was closed');
    this.#handlers.clear();
    this.removeAllListeners();
    return Promise.resolve();
  }

  /** `await using router = createInteractionRouter()` closes it at the end of the scope. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/**
 * Creates a router for interaction handlers, to be used by the Gateway
 * (`client.gateway.use(router)`), by an HTTP receiver
 * (`createWebhookReceiver({ router })`), or both.
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
