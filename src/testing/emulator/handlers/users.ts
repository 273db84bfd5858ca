/**
 * `/users/@me`: the user or the bot behind the credentials.
 *
 * @module
 */

import { json } from '../responses.js';
import { publicUser } from '../views.js';
import type { HandlersOf } from './types.js';

export const userHandlers = {
  'users.getMe': ({ caller }) => (caller.kind === 'bot' ? json(200, { id: caller.app.bot.id, username: caller.app.bot.username, bot: true }) : json(200, publicUser(caller.user))),
} satisfies HandlersOf<'users'>;
