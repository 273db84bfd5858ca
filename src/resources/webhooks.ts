import { ValidationError } from '../errors/index.js';
import { validate, validateWebhookMessage } from '../schemas/validate.js';
import { withId, withIds } from './response-ids.js';
import type { CallOptions } from '../rest/options.js';
import type { RestClient } from '../rest/rest-client.js';
import type { CreateGuildWebhookRequest, UpdateWebhookRequest, WebhookMessage } from '../schemas/request-types.js';
import type { ApiObject, GuildWebhook } from '../schemas/responses.js';

/**
 * Which webhook to address on a path-token route: its id (the client must
 * hold its token, from `auth.webhookTokens` or `client.webhookTokens.set()`),
 * or an id and token together.
 */
export type WebhookTarget =
  | string
  | {
      /** The webhook's id. */
      id: string;
      /** The webhook's path token (a secret). */
      token: string;
    };

function targetParams(operation: string, target: WebhookTarget): Record<string, string> {
  if (typeof target === 'string') return { webhook_id: target };
  if (typeof target === 'object' && target !== null) return { webhook_id: target.id, webhook_token: target.token };
  throw new ValidationError(operation, [{ path: 'webhook', message: 'must be a webhook id or { id, token }' }]);
}

/** Incoming webhooks: community management (user with MANAGE_WEBHOOKS or owner) and path-token execution. */
export class WebhooksManager {
  constructor(
    private readonly rest: RestClient,
    /** Whether responses must carry a string `id` (the client option `requireResponseIds`). @default true */
    private readonly requireIds: boolean = true,
  ) {}

  /** `GET /guilds/{guild_id}/webhooks`. */
  async list(guildId: string, options?: CallOptions): Promise<GuildWebhook[]> {
    return withIds('webhooks.list', await this.rest.request('webhooks.list', { ...options, params: { guild_id: guildId } }), this.requireIds);
  }

  /** `POST /guilds/{guild_id}/webhooks`: creates a webhook limited to one channel. The result holds its secret token. */
  async create(guildId: string, webhook: CreateGuildWebhookRequest, options?: CallOptions): Promise<GuildWebhook> {
    const body = await validate('webhooks.create', 'createGuildWebhookSchema', webhook);
    return withId('webhooks.create', await this.rest.request('webhooks.create', { ...options, params: { guild_id: guildId }, body }), this.requireIds);
  }

  /** `DELETE /guilds/{guild_id}/webhooks/{webhook_id}`. */
  delete(guildId: string, webhookId: string, options?: CallOptions): Promise<void> {
    return this.rest.request('webhooks.delete', { ...options, params: { guild_id: guildId, webhook_id: webhookId } });
  }

  /** `POST /guilds/{guild_id}/webhooks/{webhook_id}/reset-token`: replaces the path token; the old one stops working. */
  async resetToken(guildId: string, webhookId: string, options?: CallOptions): Promise<GuildWebhook> {
    return withId(
      'webhooks.resetToken',
      await this.rest.request('webhooks.resetToken', { ...options, params: { guild_id: guildId, webhook_id: webhookId } }),
      this.requireIds,
    );
  }

  /** `POST /webhooks/{webhook_id}/{webhook_token}`: publishes a message (content 1 to 2000 characters). */
  async execute(webhook: WebhookTarget, message: WebhookMessage, options?: CallOptions): Promise<ApiObject | undefined> {
    const params = targetParams('webhooks.execute', webhook);
    const body = await validateWebhookMessage('webhooks.execute', message);
    return this.rest.request('webhooks.execute', { ...options, params, body });
  }

  /** `PATCH /webhooks/{webhook_id}/{token}`: updates the webhook with its path token. */
  async updateWithToken(webhook: WebhookTarget, changes: UpdateWebhookRequest, options?: CallOptions): Promise<GuildWebhook> {
    const params = targetParams('webhooks.updateWithToken', webhook);
    const body = await validate('webhooks.updateWithToken', 'updateWebhookSchema', changes);
    return withId('webhooks.updateWithToken', await this.rest.request('webhooks.updateWithToken', { ...options, params, body }), this.requireIds);
  }

  /** `DELETE /webhooks/{webhook_id}/{token}`: deletes the webhook with its path token. */
  async deleteWithToken(webhook: WebhookTarget, options?: CallOptions): Promise<void> {
    const params = targetParams('webhooks.deleteWithToken', webhook);
    return this.rest.request('webhooks.deleteWithToken', { ...options, params });
  }
}
