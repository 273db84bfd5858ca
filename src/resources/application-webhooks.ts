import type { CallOptions } from '../rest/options.js';
import type { RestClient } from '../rest/rest-client.js';
import { validate } from '../schemas/validate.js';
import type { CreateApplicationWebhookRequest, PageQuery, UpdateApplicationWebhookRequest } from '../schemas/requests.js';
import type { ApplicationWebhook, ApplicationWebhookSecret, Page, WebhookDelivery, WebhookTestDelivery } from '../schemas/responses.js';
import { fetchPage, iteratePages, type IteratePagesOptions } from './pagination.js';

/** Application-level webhooks: their secrets, test deliveries and delivery history. User credentials. */
export class ApplicationWebhooksManager {
  constructor(private readonly rest: RestClient) {}

  /** `GET /applications/{app_id}/webhooks`. */
  list(applicationId: string, options?: CallOptions): Promise<ApplicationWebhook[]> {
    return this.rest.request('applicationWebhooks.list', { ...options, params: { app_id: applicationId } });
  }

  /** `POST /applications/{app_id}/webhooks`. */
  async create(applicationId: string, webhook: CreateApplicationWebhookRequest, options?: CallOptions): Promise<ApplicationWebhook> {
    const body = await validate('applicationWebhooks.create', 'createApplicationWebhookSchema', webhook);
    return this.rest.request('applicationWebhooks.create', { ...options, params: { app_id: applicationId }, body });
  }

  /** `PATCH /applications/{app_id}/webhooks/{webhook_id}`. */
  async update(applicationId: string, webhookId: string, changes: UpdateApplicationWebhookRequest, options?: CallOptions): Promise<ApplicationWebhook> {
    const body = await validate('applicationWebhooks.update', 'updateApplicationWebhookSchema', changes);
    return this.rest.request('applicationWebhooks.update', { ...options, params: { app_id: applicationId, webhook_id: webhookId }, body });
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
  sendTest(applicationId: string, webhookId: string, options?: CallOptions): Promise<WebhookTestDelivery> {
    return this.rest.request('applicationWebhooks.test', { ...options, params: { app_id: applicationId, webhook_id: webhookId } });
  }

  /** `GET /applications/{app_id}/webhook-deliveries`: one page of past deliveries. */
  listDeliveries(applicationId: string, page: PageQuery, options?: CallOptions): Promise<Page<WebhookDelivery>> {
    return fetchPage(this.rest, 'applicationWebhooks.listDeliveries', { app_id: applicationId }, page, options);
  }

  /** Walks every page of past deliveries, one delivery at a time. */
  iterateDeliveries(applicationId: string, options: IteratePagesOptions): AsyncGenerator<WebhookDelivery, void, undefined> {
    return iteratePages(this.rest, 'applicationWebhooks.listDeliveries', { app_id: applicationId }, options);
  }
}
