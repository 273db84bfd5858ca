/**
 * The events of an `InteractionRouter` and of the hosts that own one, and how the router emits them there: a
 * listener that throws breaks neither the others nor the delivery.
 *
 * @module
 */

import type { EventEmitter } from 'eventemitter3';
import type { ComponentInteraction, Interaction, ModalSubmitInteraction } from './interaction.js';
import { answeredInteractionId } from './waiters.js';

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
  /** The shard it arrived on (as the `interactionCreate` listeners were told); `undefined` over HTTP. */
  shardId: number | undefined;
}

/** Describes an interaction nothing took. */
export function unhandledInteraction(interaction: ComponentInteraction | ModalSubmitInteraction, shardId: number | undefined): InteractionUnhandledEvent {
  const answers = interaction.kind === 'component' ? answeredInteractionId(interaction.message) : undefined;
  const what = interaction.kind === 'component' ? 'component click' : 'modal submit';
  const message = `a ${what} with custom_id ${JSON.stringify(interaction.customId)} (interaction ${interaction.id}${answers === undefined ? '' : `, on the answer to interaction ${answers}`}) was taken by no awaitComponent/awaitModalSubmit, handler or listener; nothing answers it`;
  return { interaction, customId: interaction.customId, answers, message, shardId };
}

/**
 * Every event an `InteractionRouter` emits; the hosts that own one (the Gateway, the webhook receiver, the event
 * worker) emit the same three with the same arguments, so a listener written for one works on any.
 */
export interface InteractionRouterEvents {
  /**
   * A typed interaction arrived (before its handlers run), on shard `shardId`: the shard the Gateway received it on, or
   * the stream entry's shard; `undefined` over HTTP and when `handle()` was given none.
   */
  interactionCreate: [interaction: Interaction, shardId: number | undefined];
  /** An interaction handler (or an `interactionCreate` listener) threw or rejected. */
  interactionError: [event: InteractionErrorEvent];
  /** A component click or modal submit no wait, handler or listener took, even after being held briefly for a wait about to register: nothing answers it. */
  interactionUnhandled: [event: InteractionUnhandledEvent];
}

/** What a router tells the host that owns it (the Gateway, the webhook receiver, the event worker): the same events, emitted there too. */
export type RouterHost = Pick<EventEmitter<InteractionRouterEvents>, 'emit' | 'listenerCount' | 'listeners' | 'removeListener'>;

/** Emits on `emitter`; a listener that throws is ignored (it must not break the handlers, nor whatever delivered the interaction). */
export function emitQuietly<K extends 'interactionError' | 'interactionUnhandled'>(
  emitter: RouterHost | undefined,
  event: K,
  ...args: EventEmitter.EventArgs<InteractionRouterEvents, K>
): void {
  try {
    emitter?.emit(event, ...args);
  } catch {
    // Nowhere safer to report it.
  }
}
