import type { CallOptions } from '../rest/options.js';
import type { RestClient } from '../rest/rest-client.js';
import { validate } from '../schemas/validate.js';
import { withId, withIds } from './response-ids.js';
import type { CreateApplicationWebhookRequest, UpdateApplicationWebhookRequest } from '../schemas/request-types.js';
import type { ApplicationWebhook, ApplicationWebhookSecret, WebhookDeliveryLogEntry, WebhookTestDelivery } from '../schemas/responses.js';
import { PageList, type ListOptions } from './pagination.js';

/** Application-level webhooks: their secrets, test deliveries and delivery history. User credentials. */
export class ApplicationWebhooksManager {
  constructor(
    private readonly rest: RestClient,
    /** Whether responses must carry a string `id` (the client option `requireResponseIds`). @default true */
    private readonly requireIds: boolean = true,
  ) {}

  /** `GET /applications/{app_id}/webhooks`. */
  async list(applicationId: string, options?: CallOptions): Promise<ApplicationWebhook[]> {
    return withIds(
      'applicationWebhooks.list',
      await this.rest.request('applicationWebhooks.list', { ...options, params: { app_id: applicationId } }),
      this.requireIds,
    );
  }

  /** `POST /applications/{app_id}/webhooks`. */
  async create(applicationId: string, webhook: CreateApplicationWebhookRequest, options?: CallOptions): Promise<ApplicationWebhook> {
    const body = await validate('applicationWebhooks.create', 'createApplicationWebhookSchema', webhook);
    return withId(
      'applicationWebhooks.create',
      await this.rest.request('applicationWebhooks.create', { ...options, params: { app_id: applicationId }, body }),
      this.requireIds,
    );
  }

  /** `PATCH /applications/{app_id}/webhooks/{webhook_id}`. */
  async update(applicationId: string, webhookId: string, changes: UpdateApplicationWebhookRequest, options?: CallOptions): Promise<ApplicationWebhook> {
    const body = await validate('applicationWebhooks.update', 'updateApplicationWebhookSchema', changes);
    const updated = await this.rest.request('applicationWebhooks.update', { ...options, params: { app_id: applicationId, webhook_id: webhookId }, body });
    return withId('applicationWebhooks.update', updated, this.requireIds);
  }

  /** `DELETE /applications/{app_id}/webhooks/{webhook_id}`. */
  delete(applicationId: string, webhookId: string, options?: CallOptions): Promise<void> {
    return this.rest.request('applicationWebhooks.delete', { ...options, params: { app_id: applicationId, webhook_id: webhookId } });
  }

  /** `POST .../regenerate-secret`: replaces the signing secret; the old one stops working. The result holds the new secret. */
  regenerateSecret(applicationId: string, webhookId: string, options?: CallOptions): Promise<ApplicationWebhookSecret> {
    return this.rest.request('applicationWebhooks.regenerateSecret', { ...options, params: { app_id: applicationId, webhook_id: webhookId } });
  }

  /** `POST .../test`: queues a test delivery (202). */
  test(applicationId: string, webhookId: string, options?: CallOptions): Promise<WebhookTestDelivery> {
    return this.rest.request('applicationWebhooks.test', { ...options, params: { app_id: applicationId, webhook_id: webhookId } });
  }

  /** `GET /applications/{app_id}/webhook-deliveries`: `await` it for one page of past deliveries (`page` @default 1, `perPage` @default 50), or walk every delivery with `for await`. */
  listDeliveries(applicationId: string, options?: ListOptions): PageList<WebhookDeliveryLogEntry> {
    return new PageList(this.rest, 'applicationWebhooks.listDeliveries', { app_id: applicationId }, options);
  }
}
