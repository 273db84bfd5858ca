/**
 * Application-level webhooks: their secrets, test deliveries (really sent,
 * see deliveries.ts) and delivery history. A new secret takes effect at
 * once: every later attempt is signed with it.
 *
 * @module
 */

import { GatewayDispatch } from '../../../gateway/protocol.js';
import * as schemas from '../../../schemas/requests.js';
import { appWebhook, ownedApp } from '../access.js';
import { sendDelivery, TEST_EVENT } from '../deliveries.js';
import { HttpError, json, noContent, page, validate } from '../responses.js';
import type { ApplicationWebhook } from '../state.js';
import type { HandlersOf } from './types.js';

function hookView(hook: ApplicationWebhook): Record<string, unknown> {
  return { ...hook.extra, id: hook.id, url: hook.url, events: hook.events, active: hook.active };
}

export const applicationWebhookHandlers = {
  'applicationWebhooks.list': ({ state, params, caller }) => json(200, [...ownedApp(state, caller, params.app_id).webhooks.values()].map(hookView)),
  'applicationWebhooks.create': ({ state, request, params, caller }) => {
    const app = ownedApp(state, caller, params.app_id);
    const { url, events, ...extra } = validate(schemas.createApplicationWebhookSchema, request.body);
    if (typeof url !== 'string' || !/^https?:\/\//.test(url))
      throw new HttpError(400, 'Invalid Form Body', 50035, { errors: { url: 'must be an http(s) URL' } });
    const hook: ApplicationWebhook = {
      id: state.id(),
      url,
      events: Array.isArray(events) ? events.map(String) : [GatewayDispatch.InteractionCreate],
      secret: state.token(),
      active: true,
      extra,
    };
    app.webhooks.set(hook.id, hook);
    return json(201, { ...hookView(hook), secret: hook.secret });
  },
  'applicationWebhooks.update': ({ state, request, params, caller }) => {
    const hook = appWebhook(state, caller, params.app_id, params.webhook_id);
    const { url, events, active, ...extra } = validate(schemas.updateApplicationWebhookSchema, request.body);
    if (typeof url === 'string') hook.url = url;
    if (Array.isArray(events)) hook.events = events.map(String);
    if (typeof active === 'boolean') hook.active = active;
    Object.assign(hook.extra, extra);
    return json(200, hookView(hook));
  },
  'applicationWebhooks.delete': ({ state, params, caller }) => {
    if (!ownedApp(state, caller, params.app_id).webhooks.delete(params.webhook_id)) throw new HttpError(404, 'Unknown Webhook', 10015);
    return noContent();
  },
  'applicationWebhooks.regenerateSecret': ({ state, params, caller }) => {
    const hook = appWebhook(state, caller, params.app_id, params.webhook_id);
    hook.secret = state.token();
    return json(200, { id: hook.id, secret: hook.secret });
  },
  'applicationWebhooks.test': ({ state, params, caller }) => {
    const app = ownedApp(state, caller, params.app_id);
    const hook = appWebhook(state, caller, params.app_id, params.webhook_id);
    const data = { application_id: app.id, webhook_id: hook.id, message: 'A test delivery from the emulator' };
    return json(202, { ...sendDelivery(state, app, hook, TEST_EVENT, data) });
  },
  'applicationWebhooks.listDeliveries': ({ state, params, query, caller }) => json(200, page(ownedApp(state, caller, params.app_id).deliveries, query)),
} satisfies HandlersOf<'applicationWebhooks'>;
