/**
 * What the emulator tells bots about its Gateway: `GET /gateway`,
 * `GET /gateway/bot` (with Discord's session start limit) and the identity a
 * READY carries. These are Discord's routes, not contract operations.
 *
 * @module
 */

import { GATEWAY_PATH } from '../gateway-server.js';
import { json } from './responses.js';
import type { EmulatorState } from './state.js';
import type { BotIdentity, EmulatorResponse } from './types.js';
import { botUserView } from './views.js';

/** Discord's daily session start limit (per bot token). */
export const SESSION_START_LIMIT = { total: 1000, windowMs: 24 * 60 * 60 * 1000, maxConcurrency: 1 } as const;

/** The Gateway's ws:// URL for an emulator at `baseUrl`. */
export function gatewayUrlOf(baseUrl: string): string {
  return `${baseUrl.replace(/^http/, 'ws')}${GATEWAY_PATH}`;
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
    shards: 1,
    session_start_limit: {
      total: SESSION_START_LIMIT.total,
      remaining: Math.max(0, SESSION_START_LIMIT.total - starts.length),
      reset_after: oldest === undefined ? 0 : Math.max(0, oldest + SESSION_START_LIMIT.windowMs - state.now()),
      max_concurrency: SESSION_START_LIMIT.maxConcurrency,
    },
  });
}

/** Records a new Gateway session of a bot and returns what its READY says about it, or `undefined` for an unknown token. */
export function startGatewaySession(state: EmulatorState, token: string): BotIdentity | undefined {
  const app = state.appOfBotToken(token);
  if (!app) return undefined;
  recentStarts(state, app.id).push(state.now());
  const guilds = [...state.guilds.values()].filter((guild) => guild.botApplications.has(app.id)).map((guild) => ({ id: guild.id, unavailable: true as const }));
  return {
    user: botUserView(app),
    guilds,
    application: { id: app.id, flags: 0 },
  };
}
