/**
 * Which handlers the bot under test registered on its Gateway, so the kit can
 * tell a missing handler from a slow one: a command or an autocomplete that
 * no handler, `interactionCreate` listener or `use()`d router could take
 * fails its test at once ("no handler for /poll") instead of after
 * `answerTimeoutMs`.
 *
 * @module
 */

import type { Gateway } from '../gateway/gateway.js';
import type { InteractionRouter } from '../interactions/router.js';
import type { Interaction } from '../interactions/interaction.js';

/** The census of one Gateway's handlers. */
interface HandlerCensus {
  /** Why nothing of the bot's would run for a command or an autocomplete of `/name`, or `undefined` when something would (or might). */
  missing(kind: 'command' | 'autocomplete', name: string): string | undefined;
}

/**
 * Starts counting the handlers registered on `gateway` from now on (its
 * `onInteraction`, `onCommand` and `use`, each removal included). Call it
 * before the bot installs its handlers.
 */
export function takeHandlerCensus(gateway: Gateway): HandlerCensus {
  const counts = new Map<string, number>();
  const routers = new Set<InteractionRouter>();
  const counted = (key: string, off: () => void): (() => void) => {
    counts.set(key, (counts.get(key) ?? 0) + 1);
    let removed = false;
    return () => {
      if (!removed) counts.set(key, (counts.get(key) ?? 1) - 1);
      removed = true;
      off();
    };
  };
  const onInteraction = gateway.onInteraction.bind(gateway);
  const onCommand = gateway.onCommand.bind(gateway) as (command: string | { readonly name: string }, handler: never) => () => void;
  const use = gateway.use.bind(gateway);
  Object.assign(gateway, {
    onInteraction: (kind: string, handler: never) => counted(kind, onInteraction(kind as never, handler)),
    onCommand: (command: string | { readonly name: string }, handler: never) => {
      const off = onCommand(command, handler);
      // A name that is not a string is the router's to refuse; nothing is counted for it.
      const name = typeof command === 'string' ? command : command?.name;
      return typeof name === 'string' ? counted(`command:${name.toLowerCase()}`, off) : off;
    },
    use: (router: InteractionRouter) => {
      routers.add(router);
      const off = use(router);
      return () => {
        routers.delete(router);
        off();
      };
    },
  });
  const has = (key: string) => (counts.get(key) ?? 0) > 0;
  return {
    missing(kind, name) {
      if (gateway.listenerCount('interactionCreate') > 0) return undefined;
      // A shared router answers for its own handlers; `wouldHandle` reads only the kind and the command's name.
      const probe = { kind, commandName: name } as unknown as Interaction;
      for (const router of routers) if (router.wouldHandle(probe)) return undefined;
      if (has(kind) || (kind === 'command' && has(`command:${name.toLowerCase()}`))) return undefined;
      return kind === 'command'
        ? `no handler for /${name} (register one with client.gateway.onCommand('${name}', …) or onInteraction('command', …))`
        : `no handler for the autocomplete of /${name} (register one with client.gateway.onInteraction('autocomplete', …))`;
    },
  };
}
