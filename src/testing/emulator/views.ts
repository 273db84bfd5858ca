/**
 * How records look on the wire (the shapes recorded in docs/assumptions.md).
 *
 * @module
 */

import { ChannelType, Permission } from '../discord.js';
import type { EmulatedMessage } from './types.js';
import type { Activity, Application, Channel, EmulatorState, GuildWebhook, User } from './state.js';

/** The locale every emulated user and community has. */
export const EMULATED_LOCALE = 'en-US';

/** Discord's attachment size limit without boosts (10 MiB). */
export const ATTACHMENT_SIZE_LIMIT = 10 * 1024 * 1024;

/** What the bot may do in a channel; the emulator has no roles, so every bot gets these. */
export const BOT_CHANNEL_PERMISSIONS =
  Permission.ViewChannel |
  Permission.SendMessages |
  Permission.EmbedLinks |
  Permission.AttachFiles |
  Permission.ReadMessageHistory |
  Permission.UseExternalEmojis;

export function appView(app: Application): Record<string, unknown> {
  return { ...app.extra, id: app.id, name: app.name, description: app.description, owner_id: app.ownerId, bot_id: app.bot.id };
}

/** The bot's user object (READY's `user`, and `/users/@me` with a bot token). */
export function botUserView(app: Application): { id: string; username: string; bot: true; [field: string]: unknown } {
  return { id: app.bot.id, username: app.bot.username, discriminator: '0', global_name: null, avatar: null, bot: true, verified: true, flags: 0 };
}

export function botView(app: Application): Record<string, unknown> {
  return { id: app.bot.id, username: app.bot.username, application_id: app.id, bot: true };
}

export function channelView(channel: Channel): Record<string, unknown> {
  return { ...channel.extra, id: channel.id, guild_id: channel.guildId, name: channel.name, topic: channel.topic, type: ChannelType.GuildText };
}

export function activityView(activity: Activity): Record<string, unknown> {
  return {
    ...activity.fields,
    id: activity.id,
    channel_id: activity.channelId,
    paused: activity.paused,
    position_ms: activity.positionMs,
    participants: [...activity.participants],
    created_at: new Date(activity.createdAt).toISOString(),
  };
}

export function webhookView(webhook: GuildWebhook): Record<string, unknown> {
  return { id: webhook.id, guild_id: webhook.guildId, channel_id: webhook.channelId, name: webhook.name };
}

/** A community webhook with its secret token and URL (create and reset answers). */
export function webhookWithToken(state: EmulatorState, webhook: GuildWebhook): Record<string, unknown> {
  return { ...webhookView(webhook), token: webhook.token, url: state.apiUrl(`/webhooks/${webhook.id}/${webhook.token}`) };
}

export function publicUser(user: User): Record<string, unknown> {
  return { id: user.id, username: user.username, email: user.email, verified: user.verified };
}

/**
 * A bot's message as Discord shows it, with `interaction_metadata` (the
 * interaction it answers: id, type, user) when it answers one, so a click on
 * it says which interaction it belongs to.
 */
export function messageView(state: EmulatorState, message: EmulatedMessage, app: Application): Record<string, unknown> {
  const view: Record<string, unknown> = {
    id: message.id,
    channel_id: message.channelId,
    content: message.content,
    components: message.components ?? [],
    author: { id: app.bot.id, username: app.bot.username, bot: true },
    application_id: app.id,
    timestamp: new Date(message.createdAt).toISOString(),
    flags: message.flags ?? 0,
  };
  const answered = message.interactionId === undefined ? undefined : state.interactions.get(message.interactionId);
  if (answered !== undefined) {
    const user = answered.userId === undefined ? undefined : state.users.get(answered.userId);
    view['interaction_metadata'] = {
      id: answered.id,
      type: answered.type,
      user: user
        ? { id: user.id, username: user.username, discriminator: '0', global_name: user.username, avatar: null, bot: false }
        : { id: answered.userId ?? '0' },
      authorizing_integration_owners: { '0': state.channels.get(answered.channelId)?.guildId ?? '0' },
    };
  }
  return view;
}
