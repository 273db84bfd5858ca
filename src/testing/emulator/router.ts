/**
 * The router: matches a request to an operation of the SDK's route table
 * (or to one of the few non-contract routes below), authenticates it,
 * applies the fault knobs and the global limit, and runs its handler.
 *
 * @module
 */

import { API_PREFIX, operationIds, routes, type CredentialKind, type HttpMethod, type OperationId, type RouteDefinition } from '../../core/routes.js';
import { wait } from '../../core/wait.js';
import type { Caller } from './access.js';
import { getGateway, getGatewayBot } from './gateway-info.js';
import { createDriveLink, followUp, handlers, respondWithToken, type Context, type Handler, type RouteContext } from './handlers/index.js';
import { takeGlobal, takeRoute, webhookBucketHeaders } from './limits.js';
import type { EmulatorFaults } from './faults.js';
import { HttpError, errorResponse, json } from './responses.js';
import type { EmulatorState } from './state.js';
import type { EmulatorRequest, EmulatorResponse } from './types.js';

/** Fault knobs: added latency and a rate of 503 answers on REST calls. */
/** What the router needs of a route: a contract route or one of the extra ones. */
interface ServedRoute {
  readonly method: HttpMethod;
  readonly path: string;
  readonly auth: readonly CredentialKind[];
}

/** Routes that are not contract operations: Discord's Gateway discovery and interaction callback, and the escape hatch's example. Kept out of src/routes.ts. */
const extraRoutes = {
  'gateway.get': { method: 'GET', path: '/gateway', auth: ['none'] },
  'gateway.getBot': { method: 'GET', path: '/gateway/bot', auth: ['bot'] },
  'channels.createDriveLink': { method: 'POST', path: '/channels/{channel_id}/drive-links', auth: ['bot', 'user'] },
  'interactions.respondWithToken': { method: 'POST', path: '/interactions/{interaction_id}/{interaction_token}/callback', auth: ['none'] },
  'interactions.followUp': { method: 'POST', path: '/webhooks/{application_id}/{interaction_token}', auth: ['none'] },
  'interactions.editOriginal': { method: 'PATCH', path: '/webhooks/{application_id}/{interaction_token}/messages/@original', auth: ['none'] },
} as const satisfies Record<string, ServedRoute>;

type ExtraId = keyof typeof extraRoutes;

const extraHandlers: { readonly [Id in ExtraId]: (ctx: RouteContext<(typeof extraRoutes)[Id]>) => EmulatorResponse } = {
  'gateway.get': ({ state }) => getGateway(state),
  'gateway.getBot': ({ state, caller }) => getGatewayBot(state, caller.app.id),
  'channels.createDriveLink': ({ state, request, params, caller }) => createDriveLink(state, request, caller, params.channel_id),
  'interactions.respondWithToken': ({ state, request, params }) => respondWithToken(state, request, params.interaction_id, params.interaction_token),
  'interactions.followUp': ({ state, request, params }) => followUp(state, request, params.application_id, params.interaction_token),
  'interactions.editOriginal': ({ state, request, params }) => followUp(state, request, params.application_id, params.interaction_token, true),
};

type RouteId = { contract: true; id: OperationId } | { contract: false; id: ExtraId };

function compile(id: RouteId, route: ServedRoute) {
  const names: string[] = [];
  const pattern = route.path.replace(/\{([a-z_]+)\}/g, (_match, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  return { id, route, names, regex: new RegExp(`^${pattern}$`) };
}

/** Contract routes first: an extra route only serves what no contract route does. */
const compiledRoutes = [
  ...operationIds.map((id) => compile({ contract: true, id }, routes[id])),
  ...(Object.keys(extraRoutes) as ExtraId[]).map((id) => compile({ contract: false, id }, extraRoutes[id])),
];

interface Match {
  id: RouteId;
  route: ServedRoute;
  params: Record<string, string>;
}

/** Discord's follow-up shares the path of a webhook execution: it is the follow-up when the id is an application's. */
const followUpRoute = compiledRoutes.find((candidate) => !candidate.id.contract && candidate.id.id === 'interactions.followUp');

function match(method: string, path: string, isApplication: (id: string) => boolean): Match {
  const followUpMatch = method === 'POST' ? followUpRoute?.regex.exec(path) : null;
  if (followUpRoute && followUpMatch && isApplication(decodeURIComponent(followUpMatch[1] ?? ''))) {
    return {
      id: followUpRoute.id,
      route: followUpRoute.route,
      params: { application_id: decodeURIComponent(followUpMatch[1] ?? ''), interaction_token: decodeURIComponent(followUpMatch[2] ?? '') },
    };
  }
  let pathMatched = false;
  for (const candidate of compiledRoutes) {
    const found = candidate.regex.exec(path);
    if (!found) continue;
    pathMatched = true;
    if (candidate.route.method !== method) continue;
    const params: Record<string, string> = {};
    candidate.names.forEach((name, index) => {
      params[name] = decodeURIComponent(found[index + 1] ?? '');
    });
    return { id: candidate.id, route: candidate.route, params };
  }
  throw pathMatched ? new HttpError(405, `Method ${method} not allowed here`, 40500) : new HttpError(404, 'Unknown route', 0);
}

function authenticate(state: EmulatorState, request: EmulatorRequest, route: ServedRoute, params: Record<string, string>): Caller {
  const accepts = route.auth;
  if (accepts.includes('none')) return { kind: 'none' };
  if (accepts.includes('webhook')) {
    const webhook = state.webhooks.get(params['webhook_id'] ?? '');
    if (!webhook) throw new HttpError(404, 'Unknown Webhook', 10015);
    if (webhook.token !== params['webhook_token']) throw new HttpError(401, 'Invalid Webhook Token', 50027);
    return { kind: 'webhook', webhook };
  }
  if (accepts.includes('refreshCookie')) {
    const token = /(?:^|;\s*)refresh_token=([^;]+)/.exec(request.headers['cookie'] ?? '')?.[1];
    const session = state.sessions.find((s) => s.refreshToken === token && !s.revoked);
    if (!session) throw new HttpError(401, 'Refresh token missing, expired or revoked', 40001);
    return { kind: 'refreshCookie', session };
  }
  const header = request.headers['authorization'];
  if (!header) throw new HttpError(401, '401: Unauthorized (no credentials)', 40001);
  const [scheme, token] = header.split(' ', 2);
  let caller: Caller | undefined;
  if (scheme === 'Bearer' && token) {
    const session = state.sessions.find((s) => s.accessToken === token);
    if (!session || session.revoked || session.accessExpiresAt <= state.now())
      throw new HttpError(401, '401: Unauthorized (access token expired or revoked)', 40001);
    const user = state.users.get(session.userId);
    if (user) caller = { kind: 'user', user };
  } else if (scheme === 'Bot' && token) {
    const app = state.appOfBotToken(token);
    if (!app) throw new HttpError(401, '401: Unauthorized (invalid bot token)', 40001);
    caller = { kind: 'bot', app };
    app.apiLogs.push({ id: state.id(), method: request.method, path: request.url.split('?')[0], at: new Date(state.now()).toISOString() });
  }
  if (!caller) throw new HttpError(401, '401: Unauthorized (malformed credentials)', 40001);
  if (!accepts.includes(caller.kind)) throw new HttpError(403, `This route does not accept ${caller.kind} credentials`, 50001);
  return caller;
}

/** The rate-limit headers a route's successes carry (only webhook executions have a bucket). */
function bucketHeadersOf(state: EmulatorState, found: Match | undefined): Record<string, string> {
  if (found?.id.contract !== true) return {};
  const route: RouteDefinition = routes[found.id.id];
  if (route.webhookExecution !== true) return {};
  const webhook = state.webhooks.get(found.params['webhook_id'] ?? '');
  return webhook ? webhookBucketHeaders(state, webhook) : {};
}

/** Counts the request against its caller's per-route window (`routeRateLimit`), returning the bucket headers; webhook executions and public routes have limits of their own or none. */
function routeLimit(state: EmulatorState, route: RouteDefinition, params: Record<string, string>, caller: Caller): Record<string, string> {
  if (route.webhookExecution === true || caller.kind === 'none') return {};
  const who =
    caller.kind === 'user'
      ? `user:${caller.user.id}`
      : caller.kind === 'bot'
        ? `bot:${caller.app.id}`
        : caller.kind === 'webhook'
          ? `webhook:${caller.webhook.id}`
          : `refresh:${caller.session.userId}`;
  return takeRoute(state, who, `${route.method} ${route.path}`, route.majorParameter === undefined ? '' : (params[route.majorParameter] ?? ''));
}

/** The context a handler gets, before its types are narrowed to its route. */
interface RawContext {
  state: EmulatorState;
  request: EmulatorRequest;
  params: Record<string, string>;
  query: URLSearchParams;
  caller: Caller;
}

/**
 * Runs a contract handler. `authenticate` has checked the caller against the
 * route's `auth` and `match` has filled the route's own path parameters, so
 * the raw context is the operation's context: the one place types are
 * asserted rather than inferred.
 */
function runContract<Op extends OperationId>(id: Op, ctx: RawContext): EmulatorResponse | Promise<EmulatorResponse> {
  const handler: Handler<Op> = handlers[id];
  return handler(ctx as unknown as Context<Op>);
}

function runExtra<Id extends ExtraId>(id: Id, ctx: RawContext): EmulatorResponse {
  const handler: (ctx: RouteContext<(typeof extraRoutes)[Id]>) => EmulatorResponse = extraHandlers[id];
  return handler(ctx as unknown as RouteContext<(typeof extraRoutes)[Id]>);
}

/** The route template a request matches (for logs), or `undefined`. */
export function routeOf(state: EmulatorState, method: string, url: string): string | undefined {
  const { pathname } = new URL(url, 'http://emulator');
  if (!pathname.startsWith(`${API_PREFIX}/`)) return undefined;
  try {
    return match(method, pathname.slice(API_PREFIX.length), (id) => state.apps.has(id)).route.path;
  } catch {
    return undefined;
  }
}

/** Handles one REST request against `state`. */
export async function handleRequest(state: EmulatorState, faults: EmulatorFaults, request: EmulatorRequest): Promise<EmulatorResponse> {
  if (faults.latencyMs > 0) await wait(faults.latencyMs);
  let routeHeaders: Record<string, string> = {};
  try {
    const url = new URL(request.url, 'http://emulator');
    const path = url.pathname.startsWith(`${API_PREFIX}/`) ? url.pathname.slice(API_PREFIX.length) : undefined;
    let found: Match | undefined;
    let unmatched: unknown;
    try {
      if (path === undefined) throw new HttpError(404, `Not found: paths live under ${API_PREFIX}`);
      found = match(request.method, path, (id) => state.apps.has(id));
    } catch (error) {
      unmatched = error;
    }
    // A fault injected for this operation (or any) answers before anything is counted or changed.
    const hit = faults.take(found?.id.contract === true ? found.id.id : undefined, found?.route.path);
    if (hit !== undefined) {
      if (hit.latencyMs > 0) await wait(hit.latencyMs);
      if (hit.reset) return { status: 0, headers: {}, body: '', reset: true };
      if (hit.error !== undefined) throw hit.error;
    }
    if (faults.errorRate > 0 && state.random() < faults.errorRate) throw new HttpError(503, '503: Service Unavailable (faults.errorRate)', 0);
    // Every request counts against the global limit, matched or not.
    takeGlobal(state, () => bucketHeadersOf(state, found));
    if (!found) throw unmatched;
    const caller = authenticate(state, request, found.route, found.params);
    routeHeaders = found.id.contract ? routeLimit(state, routes[found.id.id], found.params, caller) : {};
    const ctx: RawContext = { state, request, params: found.params, query: url.searchParams, caller };
    const response = found.id.contract ? await runContract(found.id.id, ctx) : runExtra(found.id.id, ctx);
    return Object.keys(routeHeaders).length === 0 ? response : { ...response, headers: { ...routeHeaders, ...response.headers } };
  } catch (error) {
    if (error instanceof HttpError) {
      const response = errorResponse(error);
      // An answer counted against the caller's window carries its bucket headers, errors included (as Discord's do).
      return Object.keys(routeHeaders).length === 0 ? response : { ...response, headers: { ...routeHeaders, ...response.headers } };
    }
    return json(500, { message: `emulator error: ${error instanceof Error ? error.message : String(error)}`, code: 0 });
  }
}
