/**
 * Types of response bodies.
 *
 * The contract does not show most response structures, so each type names
 * the fields we know or assume (docs/assumptions.md) as optional, and keeps
 * every other field through an index signature. Responses are never rejected
 * for carrying more than we know.
 *
 * One field is promised: the `id` of a resource the contract identifies by
 * one (application, command, application and community webhooks, channel,
 * activity). The SDK checks that it is a string before it resolves (client
 * option `requireResponseIds`, on by default), so `const id: string = app.id` compiles.
 *
 * @module
 */

/** Any JSON object the service returns; unknown fields are kept. */
export interface ApiObject {
  [field: string]: unknown;
}

/** An application record (fields not shown in the contract). */
export interface Application extends ApiObject {
  /** Id (the `app_id` of the contract's paths); checked to be a string unless `requireResponseIds` is false. */
  id: string;
  /** Display name. */
  name?: string;
}

/** An application's public view, readable without credentials. */
export interface PublicApplication extends ApiObject {
  /** Application id. */
  id?: string;
  /** Display name. */
  name?: string;
}

/** An application's bot account. */
export interface Bot extends ApiObject {
  /** Bot user id. */
  id?: string;
  /** Bot user name. */
  username?: string;
}

/** Response of `GET /applications/{app_id}/bot/invite-url`. */
export interface BotInviteUrl extends ApiObject {
  /** The invite URL (field name assumed; see docs/assumptions.md). */
  url?: string;
}

/** Response of `POST /applications/{app_id}/bot/reset-token`: the new bot token. */
export interface BotTokenReset extends ApiObject {
  /** The new bot token (field name assumed). Treat as a secret. */
  token?: string;
}

/** A registered slash command as the service returns it. */
export interface Command extends ApiObject {
  /** Id (the `cmd_id` of the contract's paths); checked to be a string unless `requireResponseIds` is false. */
  id: string;
  /** Lowercased name. */
  name: string;
  /** Description. */
  description?: string;
  /** Option descriptors. */
  options?: ApiObject[];
  /** Whether usable in DMs. */
  dm_permission?: boolean;
}

/** An activity in a channel (fields not shown). */
export interface Activity extends ApiObject {
  /** Id (the `activity_id` of the contract's paths); checked to be a string unless `requireResponseIds` is false. */
  id: string;
  /** The channel it belongs to. */
  channel_id?: string;
}

/** A snapshot of an activity's state (fields not shown). */
export type ActivitySnapshot = ApiObject;

/** A channel (fields not shown). */
export interface Channel extends ApiObject {
  /** Id (the `channel_id` of the contract's paths); checked to be a string unless `requireResponseIds` is false. */
  id: string;
  /** Channel name. */
  name?: string;
}

/** An uploaded attachment (fields not shown). */
export interface Attachment extends ApiObject {
  /** Attachment id. */
  id?: string;
  /** Where the file can be fetched. */
  url?: string;
}

/** One item of `GET /channels/{channel_id}/drive-links` (DriveLinkResponse; fields not shown). */
export interface DriveLink extends ApiObject {
  /** Link URL. */
  url?: string;
}

/** A community (incoming) webhook. */
export interface GuildWebhook extends ApiObject {
  /** Id (the `webhook_id` of the contract's paths); checked to be a string unless `requireResponseIds` is false. */
  id: string;
  /** Webhook name. */
  name?: string;
  /** The one channel it posts to. */
  channel_id?: string;
  /** The secret path token (returned on create and reset). Treat as a secret. */
  token?: string;
}

/** An application-level (outgoing) webhook. */
export interface ApplicationWebhook extends ApiObject {
  /** Id (the `webhook_id` of the contract's paths); checked to be a string unless `requireResponseIds` is false. */
  id: string;
  /** Delivery URL. */
  url?: string;
  /** Signing secret (returned on create and regenerate). Treat as a secret. */
  secret?: string;
}

/** Response of regenerate-secret: the new signing secret. */
export interface ApplicationWebhookSecret extends ApiObject {
  /** The new secret (field name assumed). Treat as a secret. */
  secret?: string;
}

/** Response of a test delivery (202). */
export type WebhookTestDelivery = ApiObject;

/** One past delivery of an application webhook. */
export type WebhookDeliveryLogEntry = ApiObject;

/** One API-log entry of an application. */
export type ApiLogEntry = ApiObject;

/** Application metrics (fields not shown). */
export type ApplicationMetrics = ApiObject;

/** A page of a paginated list. */
export interface Page<T> {
  /** The items on this page. */
  items: T[];
  /** The page number that was asked for. */
  page: number;
  /** The page size that was asked for. */
  perPage: number;
  /** The body exactly as the service sent it (an array or an object). */
  raw: unknown;
}

/** The current user or bot (`GET /users/@me`). */
export interface User extends ApiObject {
  /** User id. */
  id?: string;
  /** User name. */
  username?: string;
}

/** Response of login and refresh. */
export interface SessionTokens extends ApiObject {
  /** The access token (field name assumed: access_token, accessToken or token). Treat as a secret. */
  access_token?: string;
}
