/**
 * What a handler gets and returns. The context is typed per operation from
 * the route table: `params` has exactly the path's `{placeholders}` and
 * `caller` only the credential kinds of the route's `auth`, so handlers need
 * no casts.
 *
 * @module
 */

import type { CredentialKind, OperationId, routes } from '../../../core/routes.js';
import type { CallerOf } from '../access.js';
import type { EmulatorState } from '../state.js';
import type { EmulatorRequest, EmulatorResponse } from '../types.js';

/** The `{name}` placeholders of a path template. */
type PathParams<P extends string> = P extends `${string}{${infer Name}}${infer Rest}` ? Name | PathParams<Rest> : never;

/** What a route must say for a context to be derived from it. */
interface RouteShape {
  readonly path: string;
  readonly auth: readonly CredentialKind[];
}

/** The context of a request matched to `R`. */
export interface RouteContext<R extends RouteShape> {
  /** The emulator's state. */
  readonly state: EmulatorState;
  /** The raw request. */
  readonly request: EmulatorRequest;
  /** Path parameters, decoded. */
  readonly params: { readonly [Name in PathParams<R['path']>]: string };
  /** Query parameters. */
  readonly query: URLSearchParams;
  /** Who sent it, already authenticated against `R['auth']`. */
  readonly caller: CallerOf<R['auth'][number]>;
}

/** The context of operation `Op`. */
export type Context<Op extends OperationId> = RouteContext<(typeof routes)[Op]>;

/** Serves one operation. */
export type Handler<Op extends OperationId = OperationId> = (ctx: Context<Op>) => EmulatorResponse | Promise<EmulatorResponse>;

/** One handler per contract operation (`Record<OperationId, Handler>`, with each handler's context narrowed to its operation). */
export type HandlerTable = { readonly [Op in OperationId]: Handler<Op> };

/** The handlers of one resource: every operation whose id starts with `Group.`. */
export type HandlersOf<Group extends string> = { readonly [Op in Extract<OperationId, `${Group}.${string}`>]: Handler<Op> };
