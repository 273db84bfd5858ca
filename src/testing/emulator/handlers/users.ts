/**
 * `/users/@me`: the user or the bot behind the credentials.
 *
 * @module
 */

import { json } from '../responses.js';
import { botUserView, publicUser } from '../views.js';
import type { HandlersOf } from './types.js';

export const userHandlers = {
  'users.getMe': ({ caller }) => json(200, caller.kind === 'bot' ? botUserView(caller.app) : publicUser(caller.user)),
} satisfies HandlersOf<'users'>;
