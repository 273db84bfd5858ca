/**
 * The contract's route table: one row per REST operation.
 *
 * This table is the single source of truth for methods, path templates, the
 * credentials each operation accepts, its documented success status and the
 * path parameter that keys its rate-limit bucket. The SDK's resource managers,
 * the contract-coverage test and the emulator all read it.
 *
 * @module
 */

/**
 * A kind of credential an operation can accept.
 *
 * - `bot`: `Authorization: Bot <token>`.
 * - `user`: `Authorization: Bearer <access token>` from a logged-in session.
 * - `webhook`: the webhook token carried as a path segment.
 * - `refreshCookie`: the session's HTTP-only refresh cookie.
 * - `none`: no credentials at all.
 */
export type CredentialKind = 'bot' | 'user' | 'webhook' | 'refreshCookie' | 'none';

/** HTTP methods used by the contract. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** One row of the route table. */
export interface RouteDefinition {
  /** HTTP method. */
  readonly method: HttpMethod;
  /** Path template relative to the API prefix, with `{param}` placeholders. */
  readonly path: string;
  /** Credentials the contract's Auth column allows, in the SDK's order of preference. */
  readonly auth: readonly CredentialKind[];
  /** The documented success status, when the contract fixes one. */
  readonly success?: number;
  /** The path parameter whose value keys the rate-limit bucket (the "major parameter"). */
  readonly majorParameter?: string;
  /** Path parameters that are secrets and must never appear in errors, events or logs. */
  readonly secretParameters?: readonly string[];
  /** Whether the request body carries a secret (a password or reset token). */
  readonly secretBody?: boolean;
  /** Required query parameters. */
  readonly query?: readonly string[];
  /** Which API prefix the path hangs under: the normal one, or the auth-flow prefix. */
  readonly prefix?: 'api' | 'auth';
  /** `priority`: never waits behind other traffic (it still honours its own 429s). */
  readonly lane?: 'priority';
  /** Whether this executes an incoming webhook (limited per webhook in a rolling window). */
  readonly webhookExecution?: boolean;
}

/** The contract's path prefix of every operation (`{base_url}/api/v1`). */
export const API_PREFIX = '/api/v1';

const USER_OR_BOT = ['bot', 'user'] as const;
/** Community commands: credentials not shown; a user session is tried first (see docs/assumptions.md #6). */
const USER_THEN_BOT = ['user', 'bot'] as const;
const USER = ['user'] as const;
const NONE = ['none'] as const;
const WEBHOOK = ['webhook'] as const;

/** The table's rows with their literal types; exported as {@link routes}, typed {@link Routes}. */
const routeTable = {
  // Activities
  'activities.get': { method: 'GET', path: '/activities/{activity_id}', auth: USER_OR_BOT, majorParameter: 'activity_id' },
  'activities.delete': { method: 'DELETE', path: '/activities/{activity_id}', auth: USER_OR_BOT, success: 204, majorParameter: 'activity_id' },
  'activities.join': { method: 'POST', path: '/activities/{activity_id}/join', auth: USER_OR_BOT, success: 204, majorParameter: 'activity_id' },
  'activities.leave': { method: 'POST', path: '/activities/{activity_id}/leave', auth: USER_OR_BOT, success: 204, majorParameter: 'activity_id' },
  'activities.playPause': { method: 'POST', path: '/activities/{activity_id}/play-pause', auth: USER_OR_BOT, success: 204, majorParameter: 'activity_id' },
  'activities.seek': { method: 'POST', path: '/activities/{activity_id}/seek', auth: USER_OR_BOT, success: 204, majorParameter: 'activity_id' },
  'activities.getSnapshot': { method: 'GET', path: '/activities/{activity_id}/snapshot', auth: USER_OR_BOT, majorParameter: 'activity_id' },
  'activities.updateState': { method: 'POST', path: '/activities/{activity_id}/state', auth: USER_OR_BOT, success: 204, majorParameter: 'activity_id' },

  // Applications
  'applications.list': { method: 'GET', path: '/applications', auth: USER },
  'applications.create': { method: 'POST', path: '/applications', auth: USER, success: 201 },
  'applications.get': { method: 'GET', path: '/applications/{app_id}', auth: USER, majorParameter: 'app_id' },
  'applications.update': { method: 'PATCH', path: '/applications/{app_id}', auth: USER, majorParameter: 'app_id' },
  'applications.delete': { method: 'DELETE', path: '/applications/{app_id}', auth: USER, success: 204, majorParameter: 'app_id' },
  'applications.getPublic': { method: 'GET', path: '/applications/{app_id}/public', auth: NONE, majorParameter: 'app_id' },
  'applications.listApiLogs': { method: 'GET', path: '/applications/{app_id}/api-logs', auth: USER, majorParameter: 'app_id', query: ['page', 'per_page'] },
  'applications.getMetrics': { method: 'GET', path: '/applications/{app_id}/metrics', auth: USER, majorParameter: 'app_id' },

  // Application bot
  'bots.get': { method: 'GET', path: '/applications/{app_id}/bot', auth: USER, majorParameter: 'app_id' },
  'bots.update': { method: 'PATCH', path: '/applications/{app_id}/bot', auth: USER, majorParameter: 'app_id' },
  'bots.getInviteUrl': { method: 'GET', path: '/applications/{app_id}/bot/invite-url', auth: USER, majorParameter: 'app_id' },
  'bots.resetToken': { method: 'POST', path: '/applications/{app_id}/bot/reset-token', auth: USER, majorParameter: 'app_id' },

  // Commands (global)
  'commands.list': { method: 'GET', path: '/applications/{app_id}/commands', auth: USER, majorParameter: 'app_id' },
  'commands.create': { method: 'POST', path: '/applications/{app_id}/commands', auth: USER, success: 201, majorParameter: 'app_id' },
  'commands.replace': { method: 'PUT', path: '/applications/{app_id}/commands', auth: USER, majorParameter: 'app_id' },
  'commands.delete': { method: 'DELETE', path: '/applications/{app_id}/commands/{cmd_id}', auth: USER, success: 204, majorParameter: 'app_id' },

  // Commands (community). Auth is not shown in the contract: see docs/assumptions.md.
  'commands.listInGuild': { method: 'GET', path: '/guilds/{guild_id}/commands', auth: USER_THEN_BOT, majorParameter: 'guild_id' },
  'commands.listForGuild': { method: 'GET', path: '/guilds/{guild_id}/commands/{app_id}', auth: USER_THEN_BOT, majorParameter: 'guild_id' },
  'commands.replaceForGuild': { method: 'PUT', path: '/guilds/{guild_id}/commands/{app_id}', auth: USER_THEN_BOT, majorParameter: 'guild_id' },

  // Application webhooks
  'applicationWebhooks.listDeliveries': {
    method: 'GET',
    path: '/applications/{app_id}/webhook-deliveries',
    auth: USER,
    majorParameter: 'app_id',
    query: ['page', 'per_page'],
  },
  'applicationWebhooks.list': { method: 'GET', path: '/applications/{app_id}/webhooks', auth: USER, majorParameter: 'app_id' },
  'applicationWebhooks.create': { method: 'POST', path: '/applications/{app_id}/webhooks', auth: USER, success: 201, majorParameter: 'app_id' },
  'applicationWebhooks.update': { method: 'PATCH', path: '/applications/{app_id}/webhooks/{webhook_id}', auth: USER, majorParameter: 'app_id' },
  'applicationWebhooks.delete': { method: 'DELETE', path: '/applications/{app_id}/webhooks/{webhook_id}', auth: USER, success: 204, majorParameter: 'app_id' },
  'applicationWebhooks.regenerateSecret': {
    method: 'POST',
    path: '/applications/{app_id}/webhooks/{webhook_id}/regenerate-secret',
    auth: USER,
    majorParameter: 'app_id',
  },
  'applicationWebhooks.test': { method: 'POST', path: '/applications/{app_id}/webhooks/{webhook_id}/test', auth: USER, success: 202, majorParameter: 'app_id' },

  // Authentication and account flows
  'auth.login': { method: 'POST', path: '/auth/login', auth: NONE, secretBody: true, prefix: 'auth' },
  'auth.refresh': { method: 'POST', path: '/auth/refresh', auth: ['refreshCookie'], prefix: 'auth', lane: 'priority' },
  'auth.logout': { method: 'POST', path: '/auth/logout', auth: ['refreshCookie'], prefix: 'auth' },
  'auth.forgotPassword': { method: 'POST', path: '/auth/forgot-password', auth: NONE, success: 204 },
  'auth.resetPassword': { method: 'POST', path: '/auth/reset-password', auth: NONE, success: 204, secretBody: true },
  'auth.verifyEmail': { method: 'POST', path: '/auth/verify-email/{token}', auth: NONE, secretParameters: ['token'] },
  'users.getMe': { method: 'GET', path: '/users/@me', auth: USER_OR_BOT },

  // Channels
  'channels.get': { method: 'GET', path: '/channels/{channel_id}', auth: USER_OR_BOT, majorParameter: 'channel_id' },
  'channels.update': { method: 'PATCH', path: '/channels/{channel_id}', auth: USER_OR_BOT, majorParameter: 'channel_id' },
  'channels.delete': { method: 'DELETE', path: '/channels/{channel_id}', auth: USER_OR_BOT, success: 204, majorParameter: 'channel_id' },
  'channels.ack': { method: 'POST', path: '/channels/{channel_id}/ack', auth: USER_OR_BOT, success: 204, majorParameter: 'channel_id' },
  'activities.list': { method: 'GET', path: '/channels/{channel_id}/activities', auth: USER_OR_BOT, majorParameter: 'channel_id' },
  'activities.create': { method: 'POST', path: '/channels/{channel_id}/activities', auth: USER_OR_BOT, success: 201, majorParameter: 'channel_id' },
  'activities.getActive': { method: 'GET', path: '/channels/{channel_id}/activities/active', auth: USER_OR_BOT, majorParameter: 'channel_id' },
  'channels.uploadAttachment': { method: 'POST', path: '/channels/{channel_id}/attachments', auth: USER_OR_BOT, majorParameter: 'channel_id' },
  'channels.listDriveLinks': { method: 'GET', path: '/channels/{channel_id}/drive-links', auth: USER_OR_BOT, majorParameter: 'channel_id' },

  // Interactions
  'interactions.respond': { method: 'POST', path: '/interactions/{interaction_id}/callback', auth: ['bot'], lane: 'priority' },

  // Webhooks (community scope, user with MANAGE_WEBHOOKS or owner)
  'webhooks.list': { method: 'GET', path: '/guilds/{guild_id}/webhooks', auth: USER, majorParameter: 'guild_id' },
  'webhooks.create': { method: 'POST', path: '/guilds/{guild_id}/webhooks', auth: USER, majorParameter: 'guild_id' },
  'webhooks.delete': { method: 'DELETE', path: '/guilds/{guild_id}/webhooks/{webhook_id}', auth: USER, majorParameter: 'guild_id' },
  'webhooks.resetToken': { method: 'POST', path: '/guilds/{guild_id}/webhooks/{webhook_id}/reset-token', auth: USER, majorParameter: 'guild_id' },

  // Webhooks (path token)
  'webhooks.execute': {
    method: 'POST',
    path: '/webhooks/{webhook_id}/{webhook_token}',
    auth: WEBHOOK,
    majorParameter: 'webhook_id',
    secretParameters: ['webhook_token'],
    webhookExecution: true,
  },
  'webhooks.updateWithToken': {
    method: 'PATCH',
    path: '/webhooks/{webhook_id}/{webhook_token}',
    auth: WEBHOOK,
    majorParameter: 'webhook_id',
    secretParameters: ['webhook_token'],
  },
  'webhooks.deleteWithToken': {
    method: 'DELETE',
    path: '/webhooks/{webhook_id}/{webhook_token}',
    auth: WEBHOOK,
    majorParameter: 'webhook_id',
    secretParameters: ['webhook_token'],
  },
} as const satisfies Record<string, RouteDefinition>;

/**
 * The type of {@link routes}: for each {@link OperationId}, its row, a
 * {@link RouteDefinition} whose fields keep their literal types. For example
 * `Routes['channels.get']['path']` is `'/channels/{channel_id}'` and
 * `Routes['webhooks.execute']['auth']` is `readonly ['webhook']`, so types can
 * be derived from a route's path template or its credentials.
 */
export type Routes = typeof routeTable;

/**
 * Every operation of the Community Chat Service REST contract (58 in all).
 *
 * Keys are stable operation ids of the form `group.operation`; each value is
 * that operation's {@link RouteDefinition} (see {@link Routes} for its literal
 * type).
 */
export const routes: Routes = routeTable;

/** The id of one contract operation, e.g. `'channels.get'`. */
export type OperationId = keyof Routes;

/** All operation ids, in table order. */
export const operationIds = Object.keys(routes) as OperationId[];
