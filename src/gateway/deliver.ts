/**
 * Running an interaction's handlers: the pending waits first, then the
 * `interactionCreate` listeners and the routers, with nothing a handler
 * throws escaping.
 *
 * @module
 */

import type { EventEmitter } from 'eventemitter3';
import { toError } from '../errors/base.js';
import type { Interaction } from '../interactions/interaction.js';
import type { InteractionErrorEvent, InteractionRouter, InteractionUnhandledEvent } from '../interactions/router.js';
import type { GatewayEvents } from './options.js';

/** Emits `interactionError` on `emitter`; a listener that throws must not crash the connection either. Build it once per Gateway. */
export function handlerErrorReporter(emitter: EventEmitter<GatewayEvents>): (event: InteractionErrorEvent) => void {
  return (event) => {
    try {
      emitter.emit('interactionError', event);
    } catch {
      // Swallowed: there is nowhere safer to report it.
    }
  };
}

/**
 * Runs the handlers of an interaction (see `Gateway.deliver`): `routers[0]` is the Gateway's own, whose waits are offered the
 * interaction first and which holds a click or submit nothing took before `unhandled` reports it. Resolves once every handler has
 * settled; never rejects.
 */
export function deliverInteraction(
  interaction: Interaction,
  shardId: number,
  emitter: EventEmitter<GatewayEvents>,
  routers: readonly [InteractionRouter, ...InteractionRouter[]],
  unhandled: (event: InteractionUnhandledEvent, shardId: number) => void,
  reportError: (event: InteractionErrorEvent) => void,
): Promise<void> {
  const [own] = routers;
  // A click or submit a pending wait takes goes to that wait only: no interactionCreate listener or handler sees it.
  if (own.offerToWaits(interaction)) return Promise.resolve();
  const listened = emitter.listenerCount('interactionCreate') > 0;
  try {
    emitter.emit('interactionCreate', interaction, shardId);
  } catch (error) {
    reportError({ error: toError(error), interaction });
  }
  const handled = listened || routers.some((router) => router.wouldHandle(interaction));
  const running = routers.map((router) => router.dispatch(interaction, reportError));
  // Nothing took a click or submit: held briefly for a wait about to register, then reported.
  own.holdUnclaimed(interaction, handled, (event) => unhandled(event, shardId));
  // One router (no use()): its promise already settles with undefined and never rejects; no Promise.all per interaction.
  return running.length === 1 ? (running[0] as Promise<void>) : Promise.all(running).then(() => undefined);
}
