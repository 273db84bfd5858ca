/**
 * Which routers use which (`router.use()`), kept so that no router is reached twice from any router: no cycle and no
 * diamond (a router used by two routers that one router both reaches). Each router then runs each handler once per
 * interaction, and the walks of `handle()` over the routers it uses visit each router once (linear, not exponential in
 * the number of shared routers). The check runs at `use()`, never per interaction.
 *
 * @module
 */

import { ValidationError } from '../errors/index.js';

/** What a router tells of its links (its `@internal` members, so a router of the other build, ESM or CommonJS, works too). */
interface LinkedRouter {
  /** The routers it uses. */
  usedRouters(): ReadonlySet<LinkedRouter>;
  /** The routers that use it. */
  userRouters(): ReadonlySet<LinkedRouter>;
  /** The keys of its handlers (`command:ping`, `component`), to name it in an error. */
  handlerKeys(): Iterable<string>;
}

/** Every router reached from `starts` (included) by following `next`, each once; iterative, so a long chain cannot overflow the stack. */
function reach(starts: Iterable<LinkedRouter>, next: (router: LinkedRouter) => ReadonlySet<LinkedRouter>): Set<LinkedRouter> {
  const seen = new Set<LinkedRouter>(starts);
  const stack = [...seen];
  for (let router = stack.pop(); router !== undefined; router = stack.pop())
    for (const other of next(router))
      if (!seen.has(other)) {
        seen.add(other);
        stack.push(other);
      }
  return seen;
}

/** Names a router by the handlers it has (routers have no name), at most three of them. */
function describe(router: LinkedRouter, used: LinkedRouter): string {
  const keys: string[] = [];
  for (const key of router.handlerKeys()) if (keys.push(JSON.stringify(key)) === 4) break;
  const handlers = keys.length === 0 ? 'no handlers' : `handlers for ${keys.slice(0, 3).join(', ')}${keys.length > 3 ? ' and more' : ''}`;
  return `${router === used ? 'the router given' : 'a router it uses'} (with ${handlers})`;
}

/**
 * Refuses, with a `ValidationError` naming the router, `user.use(used)` when it would reach some router twice from
 * some router: `used` is `user` or uses it (a cycle), or a router `used` reaches (itself included) is already reached
 * from `user` or from a router that uses `user` (a diamond), whatever the order of the `use()` calls.
 */
export function refuseSecondPath(user: LinkedRouter, used: LinkedRouter): void {
  const above = reach([user], (router) => router.userRouters());
  const below = reach([used], (router) => router.usedRouters());
  for (const router of below)
    if (above.has(router))
      throw new ValidationError('router.use', [{ path: 'router', message: 'must not be this router, nor one that uses it: its handlers would run twice' }]);
  const reached = reach(above, (router) => router.usedRouters());
  for (const router of below)
    if (reached.has(router))
      throw new ValidationError('router.use', [
        {
          path: 'router',
          message: `${describe(router, used)} is already used by this router, by a router it uses or by one that uses it: its handlers would run twice for one interaction (use a router from one place only)`,
        },
      ]);
}
