/**
 * A secret-free picture of the emulator's state, for the playground page:
 * communities, channels, recent messages, interactions in flight, the
 * application's commands, webhooks and deliveries, and channel activities.
 * Every token and secret is left out or redacted with the SDK's own rules.
 *
 * @module
 */

import { InteractionCallbackType } from '../../core/constants.js';
import { redactValue } from '../../core/redact.js';
import type { EmulatorState } from './state.js';

/** How many messages and interactions per channel the picture keeps. */
const RECENT = 200;

/** The picture {@link EmulatorCore.snapshot} draws: plain JSON, no secrets. */
export interface EmulatorSnapshot {
  /** The emulator clock, epoch milliseconds. */
  now: number;
  /** Seeded users a person can act as (ids and names only). */
  users: {
    /** The user's id. */
    id: string;
    /** The user's name. */
    username: string;
  }[];
  /** Communities and their text channels. */
  guilds: {
    /** The community's id. */
    id: string;
    /** The community's name. */
    name: string;
    /** Its text channels. */
    channels: {
      /** The channel's id. */
      id: string;
      /** The channel's name. */
      name: string;
    }[];
  }[];
  /** Recent messages by channel id. */
  messages: Record<string, Record<string, unknown>[]>;
  /** Recent interactions (newest last): kind, label, status, modal form when one is open. */
  interactions: Record<string, unknown>[];
  /** Applications with their commands, webhooks (secrets redacted), deliveries and bot. */
  applications: Record<string, unknown>[];
  /** Community (incoming) webhooks: id, name, channel; never their tokens. */
  webhooks: {
    /** The webhook's id. */
    id: string;
    /** The webhook's name. */
    name: string;
    /** The channel it posts to. */
    channelId: string;
  }[];
  /** Activities by channel id (the latest, ended or not). */
  activities: Record<string, Record<string, unknown>>;
}

/** Every secret the state holds, to scrub from anything shown. */
export function secretsOf(state: EmulatorState): string[] {
  const secrets: string[] = [];
  for (const app of state.apps.values()) {
    secrets.push(app.bot.token);
    for (const hook of app.webhooks.values()) secrets.push(hook.secret);
  }
  for (const hook of state.webhooks.values()) secrets.push(hook.token);
  for (const interaction of state.interactions.values()) secrets.push(interaction.token);
  for (const session of state.sessions) secrets.push(session.accessToken, session.refreshToken);
  for (const user of state.users.values()) secrets.push(user.password);
  return secrets.filter((secret) => secret.length > 0);
}

function status(acknowledgedWith: number | undefined, followedUp: boolean): string {
  if (acknowledgedWith === undefined) return 'pending';
  if (acknowledgedWith === InteractionCallbackType.DeferredChannelMessageWithSource) return followedUp ? 'answered' : 'thinking';
  if (acknowledgedWith === InteractionCallbackType.Modal) return 'modal';
  return 'answered';
}

/** Draws the picture; `secrets` (from {@link secretsOf}) are scrubbed from every text in it. */
export function inspectState(state: EmulatorState, secrets: readonly string[] = secretsOf(state)): EmulatorSnapshot {
  const usernames = new Map([
    ...[...state.users.values()].map((user) => [user.id, user.username] as const),
    ...[...state.apps.values()].map((app) => [app.bot.id, app.bot.username] as const),
  ]);
  const messages: Record<string, Record<string, unknown>[]> = {};
  for (const [channelId, list] of state.messages) messages[channelId] = list.slice(-RECENT).map((message) => ({ ...message }));
  const interactions = [...state.interactions.values()].slice(-RECENT).map((interaction) => {
    const modal = interaction.callbacks.find((callback) => callback.interaction_type === InteractionCallbackType.Modal);
    return {
      id: interaction.id,
      type: interaction.type,
      label: interaction.label,
      user: usernames.get(interaction.userId ?? '') ?? null,
      channelId: interaction.channelId,
      applicationId: interaction.applicationId,
      createdAt: interaction.createdAt,
      status: status(interaction.acknowledgedWith, interaction.followedUp === true),
      acknowledgedWith: interaction.acknowledgedWith ?? null,
      ...(modal ? { modal: modal.data } : {}),
    };
  });
  const applications = [...state.apps.values()].map((app) => ({
    id: app.id,
    name: app.name,
    bot: { id: app.bot.id, username: app.bot.username },
    commands: [...app.commands, ...[...app.guildCommands.values()].flat()].map((command) => ({
      id: command.id,
      name: command.name,
      description: command.description,
      options: command.options,
      guild_id: command.guild_id ?? null,
    })),
    webhooks: [...app.webhooks.values()].map((hook) => ({ id: hook.id, url: hook.url, events: hook.events, active: hook.active })),
    deliveries: app.deliveries.slice(0, 50),
  }));
  const activities: Record<string, Record<string, unknown>> = {};
  for (const activity of state.activities.values()) {
    activities[activity.channelId] = {
      ...activity.fields,
      id: activity.id,
      paused: activity.paused,
      position_ms: activity.positionMs,
      state: activity.state,
      participants: [...activity.participants].map((id) => usernames.get(id) ?? id),
      ended: activity.ended,
      last_snapshot: activity.lastSnapshot ?? null,
    };
  }
  const guilds = [...state.guilds.values()].map((guild) => ({
    id: guild.id,
    name: guild.name,
    channels: [...state.channels.values()].filter((channel) => channel.guildId === guild.id).map((channel) => ({ id: channel.id, name: channel.name })),
  }));
  const webhookChannels = [...state.webhooks.values()].map((hook) => ({ id: hook.id, name: hook.name, channelId: hook.channelId }));
  const picture = {
    now: state.now(),
    users: [...state.users.values()].map((user) => ({ id: user.id, username: user.username })),
    guilds,
    messages,
    interactions,
    applications,
    activities,
    webhooks: webhookChannels,
  };
  return redactValue(picture, secrets) as EmulatorSnapshot;
}
