/**
 * Incoming webhooks: managed in a community (MANAGE_WEBHOOKS or owner), and
 * executed, updated or deleted with the token in the path.
 *
 * @module
 */

import * as schemas from '../../../schemas/requests.js';
import { managedGuild, managedWebhook } from '../access.js';
import { takeWebhookExecution, webhookBucketHeaders } from '../limits.js';
import { HttpError, json, noContent, validate } from '../responses.js';
import type { GuildWebhook } from '../state.js';
import { webhookView, webhookWithToken } from '../views.js';
import type { HandlersOf } from './types.js';

export const webhookHandlers = {
  'webhooks.list': ({ state, params, caller }) => {
    const guild = managedGuild(state, caller, params.guild_id);
    return json(200, [...state.webhooks.values()].filter((w) => w.guildId === guild.id).map(webhookView));
  },
  'webhooks.create': ({ state, request, params, caller }) => {
    const guild = managedGuild(state, caller, params.guild_id);
    const body = validate(schemas.createGuildWebhookSchema, request.body);
    const channel = state.channels.get(body.channel_id);
    if (!channel || channel.guildId !== guild.id) throw new HttpError(400, 'channel_id is not a channel of this community', 50035);
    const webhook: GuildWebhook = { id: state.id(), guildId: guild.id, channelId: channel.id, name: body.name, token: state.token(), executions: [] };
    state.webhooks.set(webhook.id, webhook);
    return json(200, webhookWithToken(state, webhook));
  },
  'webhooks.delete': ({ state, params, caller }) => {
    state.webhooks.delete(managedWebhook(state, caller, params.guild_id, params.webhook_id).id);
    return noContent();
  },
  'webhooks.resetToken': ({ state, params, caller }) => {
    const webhook = managedWebhook(state, caller, params.guild_id, params.webhook_id);
    webhook.token = state.token();
    return json(200, webhookWithToken(state, webhook));
  },
  'webhooks.execute': ({ state, request, caller: { webhook } }) => {
    const body = validate(schemas.webhookMessageSchema, request.body);
    takeWebhookExecution(state, webhook);
    const name = typeof body.username === 'string' && body.username !== '' ? body.username : webhook.name;
    state.post(webhook.channelId, body.content, { kind: 'webhook', id: webhook.id, name }, 'webhook');
    return noContent(webhookBucketHeaders(state, webhook));
  },
  'webhooks.updateWithToken': ({ request, caller: { webhook } }) => {
    const body = validate(schemas.updateWebhookSchema, request.body);
    if (typeof body['name'] === 'string' && body['name'] !== '') webhook.name = body['name'];
    return json(200, webhookView(webhook));
  },
  'webhooks.deleteWithToken': ({ state, caller: { webhook } }) => {
    state.webhooks.delete(webhook.id);
    return noContent();
  },
} satisfies HandlersOf<'webhooks'>;
