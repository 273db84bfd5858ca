/**
 * Who a request is from, and the membership, ownership and permission checks
 * the handlers share.
 *
 * @module
 */

import type { CredentialKind } from '../../core/routes.js';
import { HttpError } from './responses.js';
import type { Activity, Application, ApplicationWebhook, Channel, EmulatorState, Guild, GuildWebhook, Session, User } from './state.js';

/** Who a request is from, one variant per credential kind of the route table. */
export type Caller =
  | { kind: 'user'; user: User }
  | { kind: 'bot'; app: Application }
  | { kind: 'webhook'; webhook: GuildWebhook }
  | { kind: 'refreshCookie'; session: Session }
  | { kind: 'none' };

/** The callers a route accepting `K` credentials can see. */
export type CallerOf<K extends CredentialKind> = Extract<Caller, { kind: K }>;

/** A caller that is a user or a bot. */
export type Member = CallerOf<'user' | 'bot'>;

/** The user behind a caller, or 403 for a bot. */
export function userOf(caller: Member): User {
  if (caller.kind !== 'user') throw new HttpError(403, 'This route needs user credentials', 50001);
  return caller.user;
}

/** The user id acting: the bot's user for a bot. */
export function actorId(caller: Member): string {
  return caller.kind === 'bot' ? caller.app.bot.id : caller.user.id;
}

/** An application the calling user owns (404 if unknown, 403 if not theirs). */
export function ownedApp(state: EmulatorState, caller: Member, appId: string): Application {
  const app = state.apps.get(appId);
  if (!app) throw new HttpError(404, 'Unknown Application', 10002);
  if (app.ownerId !== userOf(caller).id) throw new HttpError(403, 'Missing Access: you do not own this application', 50001);
  return app;
}

/** The application of a command route: the bot's own, or one the user owns. */
export function appForCommandRoute(state: EmulatorState, caller: Member, appId: string): Application {
  if (caller.kind === 'bot') {
    if (caller.app.id !== appId) throw new HttpError(403, 'A bot may only manage its own commands', 50001);
    return caller.app;
  }
  return ownedApp(state, caller, appId);
}

/** A webhook of an application the user owns. */
export function appWebhook(state: EmulatorState, caller: Member, appId: string, webhookId: string): ApplicationWebhook {
  const hook = ownedApp(state, caller, appId).webhooks.get(webhookId);
  if (!hook) throw new HttpError(404, 'Unknown Webhook', 10015);
  return hook;
}

/** A community the caller is a member of (a bot: its application was added). */
export function guildFor(state: EmulatorState, caller: Member, guildId: string): Guild {
  const guild = state.guilds.get(guildId);
  if (!guild) throw new HttpError(404, 'Unknown Guild', 10004);
  const member = caller.kind === 'bot' ? guild.botApplications.has(caller.app.id) : guild.members.has(caller.user.id);
  if (!member) throw new HttpError(403, 'Missing Access: not a member of this community', 50001);
  return guild;
}

/** A community the user owns or holds MANAGE_WEBHOOKS in. */
export function managedGuild(state: EmulatorState, caller: Member, guildId: string): Guild {
  const guild = guildFor(state, caller, guildId);
  const user = userOf(caller);
  if (guild.ownerId !== user.id && !guild.members.get(user.id)?.manageWebhooks)
    throw new HttpError(403, 'Missing Permissions: MANAGE_WEBHOOKS or community ownership is required', 50013);
  return guild;
}

/** A community webhook of a managed community. */
export function managedWebhook(state: EmulatorState, caller: Member, guildId: string, webhookId: string): GuildWebhook {
  const guild = managedGuild(state, caller, guildId);
  const webhook = state.webhooks.get(webhookId);
  if (!webhook || webhook.guildId !== guild.id) throw new HttpError(404, 'Unknown Webhook', 10015);
  return webhook;
}

/** A channel in a community of the caller. */
export function channelFor(state: EmulatorState, caller: Member, channelId: string): Channel {
  const channel = state.channels.get(channelId);
  if (!channel) throw new HttpError(404, 'Unknown Channel', 10003);
  guildFor(state, caller, channel.guildId);
  return channel;
}

/** A live activity in a channel of the caller. */
export function activityFor(state: EmulatorState, caller: Member, activityId: string): Activity {
  const activity = state.activities.get(activityId);
  if (!activity || activity.ended) throw new HttpError(404, 'Unknown Activity', 10071);
  channelFor(state, caller, activity.channelId);
  return activity;
}
