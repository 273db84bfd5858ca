/**
 * A client built from nothing but an incoming webhook's URL. It can only
 * execute, update or delete that one webhook.
 *
 * @module
 */

import { EventEmitter } from 'eventemitter3';
import { WebhookTokenStrategy } from '../auth/strategies.js';
import { ValidationError } from '../errors/index.js';
import { inspectSymbol } from '../core/redact.js';
import { validate, validateWebhookMessage } from '../schemas/validate.js';
import { withId } from '../resources/response-ids.js';
import { checkPipelineOptions, createRestClient } from '../rest/create-rest-client.js';
import type { ClientEvents, EventSink } from '../observe/events.js';
import { PIPELINE_OPTIONS, type CallOptions, type PipelineOptions } from '../rest/options.js';
import { optionNames, refuseUnknownOptions } from '../core/bounds.js';
import type { RestClient } from '../rest/rest-client.js';
import type { UpdateWebhookRequest, WebhookMessage } from '../schemas/request-types.js';
import type { ApiObject, GuildWebhook } from '../schemas/responses.js';

/** Options of {@link WebhookClient}: the request pipeline's options (transport, timeouts, retries, rate limits, logger). */
export interface WebhookClientOptions extends PipelineOptions {
  /** Whether the webhook returned by `update()` must carry a string `id` (else the call rejects with `UnexpectedResponseError`). @default true */
  requireResponseIds?: boolean | undefined;
}

/** The names of every `WebhookClient` option: any other is refused. */
const WEBHOOK_CLIENT_OPTIONS: readonly string[] = [
  ...PIPELINE_OPTIONS,
  ...optionNames<Omit<WebhookClientOptions, keyof PipelineOptions>>({ requireResponseIds: true }),
];

/** Events of a {@link WebhookClient}: the Client's call events (`request`, `response`, `requestHeld`, `rateLimited`, `retry`, `debug`), without the session ones. */
export type WebhookClientEvents = Omit<ClientEvents, 'sessionRefreshed' | 'sessionExpired'>;

const WEBHOOK_PATH = /^(.*)\/webhooks\/([^/]+)\/([^/]+)\/?$/;

/**
 * Executes, updates or deletes one incoming webhook, given its URL
 * (`{base_url}/api/v1/webhooks/{webhook_id}/{webhook_token}`).
 *
 * @example
 * ```ts
 * const hook = new WebhookClient(process.env.WEBHOOK_URL!);
 * await hook.execute({ content: 'Deploy finished', username: 'CI' });
 * // Executions beyond the webhook's window wait; say so instead of waiting in silence.
 * hook.on('requestHeld', ({ reason, waitMs }) => console.log(`held by the ${reason} window for ${waitMs} ms`));
 * ```
 */
export class WebhookClient extends EventEmitter<WebhookClientEvents> {
  /** The webhook's id. */
  readonly id: string;
  readonly #rest: RestClient;
  readonly #origin: string;
  readonly #requireIds: boolean;

  constructor(url: string, options: WebhookClientOptions = {}) {
    super();
    refuseUnknownOptions('WebhookClient', options, WEBHOOK_CLIENT_OPTIONS, { now: 'clock' });
    checkPipelineOptions('WebhookClient', options);
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new ValidationError('WebhookClient', [{ path: 'url', message: 'must be an absolute webhook URL' }]);
    }
    const match = WEBHOOK_PATH.exec(parsed.pathname);
    if ((parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || !match) {
      throw new ValidationError('WebhookClient', [{ path: 'url', message: 'must look like https://host/api/v1/webhooks/{webhook_id}/{webhook_token}' }]);
    }
    const [, prefix = '', id = '', token = ''] = match;
    this.id = decodeURIComponent(id);
    this.#origin = parsed.origin;
    this.#requireIds = options.requireResponseIds ?? true;
    this.#rest = createRestClient(options, {
      origin: parsed.origin,
      apiPrefix: prefix,
      authPrefix: prefix,
      credentials: { webhook: new WebhookTokenStrategy({ [this.id]: decodeURIComponent(token) }) },
      preferredCredential: undefined,
      routeOverrides: {},
      onSetCookie: undefined,
      session: undefined,
      // The pipeline emits no session event for a client without a session.
      events: this as EventSink,
    });
  }

  /** Publishes a message (content 1 to 2000 characters; `username` overrides the author name). */
  async execute(message: WebhookMessage, options?: CallOptions): Promise<ApiObject | undefined> {
    const body = await validateWebhookMessage('webhooks.execute', message);
    return this.#rest.request('webhooks.execute', { ...options, params: { webhook_id: this.id }, body });
  }

  /** Updates the webhook. */
  async update(changes: UpdateWebhookRequest, options?: CallOptions): Promise<GuildWebhook> {
    const body = await validate('webhooks.updateWithToken', 'updateWebhookSchema', changes);
    return withId(
      'webhooks.updateWithToken',
      await this.#rest.request('webhooks.updateWithToken', { ...options, params: { webhook_id: this.id }, body }),
      this.#requireIds,
    );
  }

  /** Deletes the webhook. */
  delete(options?: CallOptions): Promise<void> {
    return this.#rest.request('webhooks.deleteWithToken', { ...options, params: { webhook_id: this.id } });
  }

  /**
   * Closes idle connections, so the process can exit. Safe to call more than
   * once; calls still work afterwards (they open new connections).
   *
   * @example
   * ```ts
   * await using hook = new WebhookClient(process.env.WEBHOOK_URL!); // closed when the scope ends
   * ```
   */
  close(): Promise<void> {
    return this.#rest.close();
  }

  /** Closes the client at the end of an `await using` scope: the same as {@link WebhookClient.close}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /** A summary without the token. */
  toJSON(): {
    /** The webhook's id. */
    id: string;
    /** Scheme, host and port of the webhook URL, e.g. `https://chat.example.com`. */
    origin: string;
  } {
    return { id: this.id, origin: this.#origin };
  }

  /** @internal Redacted view for `util.inspect`. (Node finds it by its registered symbol). */
  [inspectSymbol](): string {
    return `WebhookClient { id: ${JSON.stringify(this.id)}, origin: ${JSON.stringify(this.#origin)}, token: [redacted] }`;
  }
}
