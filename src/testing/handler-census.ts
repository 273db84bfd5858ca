/**
 * Whether the bot under test could take a command or an autocomplete, so the
 * kit can tell a missing handler from a slow one: a command or an autocomplete
 * that no handler, `interactionCreate` listener or `use()`d router could take
 * fails its test at once ("no handler for /poll") instead of after
 * `answerTimeoutMs`.
 *
 * @module
 */

import type { Gateway } from '../gateway/gateway.js';

/** The census of one Gateway's handlers. */
interface HandlerCensus {
  /** Why nothing of the bot's would run for a command or an autocomplete of `/name`, or `undefined` when something would (or might). */
  missing(kind: 'command' | 'autocomplete', name: string): string | undefined;
}

/**
 * Asks `gateway` whether anything of its would run: an `interactionCreate` listener of the Gateway, or, through its
 * router (where `onCommand`, `onInteraction` and `use` register), a handler of the kind or the command, or of a router
 * it uses, whenever they were registered.
 */
export function takeHandlerCensus(gateway: Gateway): HandlerCensus {
  return {
    missing(kind, name) {
      if (gateway.listenerCount('interactionCreate') > 0 || gateway.router.wouldHandle({ kind, commandName: name })) return undefined;
      return kind === 'command'
        ? `no handler for /${name} (register one with client.gateway.onCommand('${name}', …) or onInteraction('command', …))`
        : `no handler for the autocomplete of /${name} (register one with client.gateway.onInteraction('autocomplete', …))`;
    },
  };
}
