/**
 * What every host of interactions has, written once: the Gateway, the webhook receiver and the event worker each own an
 * {@link InteractionRouter} (`host.router`), register handlers through it the same way (`onCommand`, `onInteraction`,
 * `use`), hand it every interaction (`router.handle()`, the one delivery path), and hear its events
 * (`interactionCreate`, `interactionError`, `interactionUnhandled`) on themselves with the same arguments.
 *
 * @module
 */

import { EventEmitter } from 'eventemitter3';
import type { CommandInteraction, InteractionByKind } from './interaction.js';
import type { CommandOptionValues, TypedCommandDefinition } from './options.js';
import { type InteractionHandler, InteractionRouter } from './router.js';
import type { InteractionRouterEvents } from './router-events.js';
import type { InteractionKind } from './types.js';

/**
 * Something a host received again and did not handle again: the webhook receiver's `duplicate` (a retry of a handled
 * delivery, or an interaction another delivery carried) and the event worker's (an interaction another entry claimed
 * first). One shape on both; no payload (it may hold a token).
 */
export interface DuplicateEvent {
  /** What came again: the delivery's id (the webhook receiver) or the stream entry's (the event worker). */
  id: string;
  /** Its type: the delivery's event type, or the dispatch's (`INTERACTION_CREATE`). */
  type: string;
  /** The interaction it carried, when it carried one. */
  interactionId: string | undefined;
}

/**
 * The part every host of interactions shares (the Gateway, the webhook receiver, the event worker): its router and the
 * three ways to register on it. The host emits the router's events too, with the same arguments.
 */
export abstract class InteractionHost<Events extends EventEmitter.ValidEventTypes> extends EventEmitter<Events> {
  /**
   * This host's interaction handlers: every interaction it receives goes to `router.handle()`. The waits of
   * `awaitComponent` / `awaitModalSubmit` live here. Closed with the host.
   */
  readonly router: InteractionRouter = new InteractionRouter();

  protected constructor() {
    super();
    this.router.bindHost(this as unknown as EventEmitter<InteractionRouterEvents>);
  }

  /**
   * Handles interactions of one kind (`this.router.onInteraction`); the handler's parameter is narrowed to that kind.
   * Exceptions and rejections become `interactionError` events. Returns a function that removes the handler.
   */
  onInteraction<K extends InteractionKind>(kind: K, handler: InteractionHandler<InteractionByKind[K]>): () => void {
    return this.router.onInteraction(kind, handler);
  }

  /** Handles one slash command by name (`this.router.onCommand`). Returns a function that removes the handler. */
  onCommand(name: string, handler: InteractionHandler<CommandInteraction>): () => void;
  /** Handles one slash command by its definition (from `defineCommand`), which types `interaction.options`. */
  onCommand<D extends TypedCommandDefinition>(command: D, handler: InteractionHandler<CommandInteraction<CommandOptionValues<D>>>): () => void;
  onCommand(command: TypedCommandDefinition | string, handler: InteractionHandler<CommandInteraction<never>>): () => void {
    return this.router.onCommand(command as string, handler as InteractionHandler<CommandInteraction>);
  }

  /**
   * Runs the handlers of a shared {@link InteractionRouter} (from `createInteractionRouter()`) for every interaction this
   * host receives, after its own (`this.router.use`). Their errors are emitted as `interactionError` on that router and on
   * this host. Returns a function that stops using it.
   */
  use(router: InteractionRouter): () => void {
    return this.router.use(router);
  }
}
