/**
 * The one check the SDK makes on response bodies: a resource the contract
 * identifies by an id (application, command, webhook, channel, activity)
 * comes back with a string `id`, so its type can promise one. Nothing else
 * in the body is checked, and unknown fields are kept.
 *
 * @module
 */

import { UnexpectedResponseError } from '../errors/index.js';
import { routes, type OperationId, type RouteDefinition } from '../core/routes.js';

const HINT = 'set the client option requireResponseIds: false to accept responses without one';

function describe(value: unknown): string {
  if (value === undefined) return 'empty';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value;
}

/** Why `value` has no usable id, or `undefined` when it has one. */
function problem(value: unknown, where: string): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return `${where} is ${describe(value)}, not an object with a string "id"`;
  const id = (value as { id?: unknown }).id;
  if (id === undefined) return `${where} has no "id" field`;
  if (typeof id !== 'string') return `${where} has an "id" that is ${describe(id)}, not a string`;
  return undefined;
}

function fail(operation: OperationId, message: string): never {
  const route: RouteDefinition = routes[operation];
  throw new UnexpectedResponseError(operation, route.success ?? 200, `${message} (${HINT})`);
}

/** Returns `body` as a resource with an `id`, or throws an `UnexpectedResponseError` naming the missing field (unless `required` is false). */
export function withId<T extends { id: string }>(operation: OperationId, body: unknown, required: boolean): T {
  if (required) {
    const why = problem(body, 'the response');
    if (why !== undefined) fail(operation, why);
  }
  return body as T;
}

/** Returns a list `body` whose every item has an `id`, or throws naming the first item without one (unless `required` is false). A body that is not an array is left as is. */
export function withIds<T extends { id: string }>(operation: OperationId, body: unknown, required: boolean): T[] {
  if (required && Array.isArray(body)) {
    body.forEach((item, index) => {
      const why = problem(item, `item ${index} of the response`);
      if (why !== undefined) fail(operation, why);
    });
  }
  return body as T[];
}
