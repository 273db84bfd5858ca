/**
 * An application's bot: read, rename, invite URL and token reset.
 *
 * @module
 */

import * as schemas from '../../../schemas/requests.js';
import { ownedApp } from '../access.js';
import { json, validate } from '../responses.js';
import { botView } from '../views.js';
import { AUTHENTICATION_FAILED } from './applications.js';
import type { HandlersOf } from './types.js';

export const botHandlers = {
  'bots.get': ({ state, params, caller }) => json(200, botView(ownedApp(state, caller, params.app_id))),
  'bots.update': ({ state, request, params, caller }) => {
    const app = ownedApp(state, caller, params.app_id);
    const body = validate(schemas.updateBotSchema, request.body);
    if (typeof body['username'] === 'string' && body['username'] !== '') app.bot.username = body['username'];
    return json(200, botView(app));
  },
  'bots.getInviteUrl': ({ state, params, caller }) => {
    const app = ownedApp(state, caller, params.app_id);
    return json(200, { url: `${state.baseUrl}/oauth2/authorize?client_id=${app.id}&scope=bot%20applications.commands` });
  },
  'bots.resetToken': ({ state, params, caller }) => {
    const app = ownedApp(state, caller, params.app_id);
    const old = app.bot.token;
    app.bot.token = state.token();
    state.gateway?.closeSessionsOfToken(old, AUTHENTICATION_FAILED);
    return json(200, { token: app.bot.token });
  },
} satisfies HandlersOf<'bots'>;
