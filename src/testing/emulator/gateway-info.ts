/**
 * What the emulator tells bots about its Gateway: `GET /gateway`,
 * `GET /gateway/bot` (with Discord's session start limit) and the identity a
 * READY carries. These are Discord's routes, not contract operations.
 *
 * @module
 */

import { snowflakeTimestamp } from '../../core/constants.js';
import { GATEWAY_PATH } from '../gateway-server.js';
import { json } from './responses.js';
import type { Application, EmulatorState, Guild } from './state.js';
import type { EmulatorResponse } from './types.js';
import type { BotIdentity } from '../gateway-server-options.js';
import { BOT_CHANNEL_PERMISSIONS, EMULATED_LOCALE, botUserView, channelView } from './views.js';

/** Discord's daily session start limit (per bot token). */
const SESSION_START_LIMIT = { total: 1000, windowMs: 24 * 60 * 60 * 1000, maxConcurrency: 1 } as const;

/** The Gateway's ws:// URL for an emulator at `baseUrl`. */
export function gatewayUrlOf(baseUrl: string): string {
  return `${baseUrl.replace(/^http/, 'ws')}${GATEWAY_PATH}`;
}

/** Session starts per bot per window: the emulator's option, else Discord's. */
function startLimit(state: EmulatorState): number {
  return state.options.gateway?.sessionStartLimit ?? SESSION_START_LIMIT.total;
}

function recentStarts(state: EmulatorState, appId: string): number[] {
  const now = state.now();
  const starts = (state.sessionStarts.get(appId) ?? []).filter((at) => at > now - SESSION_START_LIMIT.windowMs);
  state.sessionStarts.set(appId, starts);
  return starts;
}

/** GET /gateway: where to connect (no credentials). */
export function getGateway(state: EmulatorState): EmulatorResponse {
  return json(200, { url: gatewayUrlOf(state.baseUrl) });
}

/** GET /gateway/bot: where to connect, how many shards, and the session start limit of the bot. */
export function getGatewayBot(state: EmulatorState, appId: string): EmulatorResponse {
  const starts = recentStarts(state, appId);
  const oldest = starts[0];
  return json(200, {
    url: gatewayUrlOf(state.baseUrl),
    shards: state.recommendedShards ?? state.options.gateway?.shards ?? 1,
    session_start_limit: {
      total: startLimit(state),
      remaining: Math.max(0, startLimit(state) - starts.length),
      reset_after: oldest === undefined ? 0 : Math.max(0, oldest + SESSION_START_LIMIT.windowMs - state.now()),
      max_concurrency: state.options.gateway?.maxConcurrency ?? SESSION_START_LIMIT.maxConcurrency,
    },
  });
}

/** A community as GUILD_CREATE carries it (Discord's fields; the emulator has no roles beyond @everyone, no emojis, no voice). */
export function guildCreate(state: EmulatorState, guild: Guild, app: Application): Record<string, unknown> {
  const joinedAt = new Date(snowflakeTimestamp(guild.id) ?? state.now()).toISOString();
  const channels = [...state.channels.values()]
    .filter((channel) => channel.guildId === guild.id)
    .map((channel, position) => ({ ...channelView(channel), position }));
  const everyone = {
    id: guild.id,
    name: '@everyone',
    permissions: BOT_CHANNEL_PERMISSIONS.toString(),
    position: 0,
    color: 0,
    hoist: false,
    managed: false,
    mentionable: false,
    flags: 0,
  };
  return {
    id: guild.id,
    name: guild.name,
    owner_id: guild.ownerId,
    unavailable: false,
    joined_at: joinedAt,
    large: false,
    member_count: guild.members.size + guild.botApplications.size,
    members: [{ user: botUserView(app), roles: [], joined_at: joinedAt, deaf: false, mute: false, flags: 0 }],
    channels,
    threads: [],
    roles: [everyone],
    emojis: [],
    stickers: [],
    features: [],
    presences: [],
    voice_states: [],
    stage_instances: [],
    guild_scheduled_events: [],
    soundboard_sounds: [],
    icon: null,
    preferred_locale: EMULATED_LOCALE,
  };
}

/**
 * Records a new Gateway session of a bot and returns what its READY says
 * about it, or `undefined` for an unknown token, or for a bot past its
 * session start limit (counted in `state.refusedSessionStarts`).
 */
export function startGatewaySession(state: EmulatorState, token: string): BotIdentity | undefined {
  const app = state.appOfBotToken(token);
  if (!app) return undefined;
  const starts = recentStarts(state, app.id);
  if (starts.length >= startLimit(state)) {
    state.refusedSessionStarts++;
    return undefined;
  }
  starts.push(state.now());
  const guilds = [...state.guilds.values()].filter((guild) => guild.botApplications.has(app.id));
  return {
    user: botUserView(app),
    guilds: guilds.map((guild) => ({ id: guild.id, unavailable: true as const })),
    application: { id: app.id, flags: 0 },
    guildCreates: guilds.map((guild) => guildCreate(state, guild, app)),
  };
}
