/**
 * Authentication and account flows: login, refresh, logout, password reset
 * and e-mail verification.
 *
 * @module
 */

import { ACCESS_TOKEN_LIFETIME_MS } from '../../../core/constants.js';
import { API_PREFIX } from '../../../core/routes.js';
import * as schemas from '../../../schemas/requests.js';
import { HttpError, json, noContent, validate } from '../responses.js';
import type { EmulatorState, Session, User } from '../state.js';
import type { EmulatorResponse } from '../types.js';
import { publicUser } from '../views.js';
import type { HandlersOf } from './types.js';

/** Where the refresh cookie is sent back. */
const COOKIE_PATH = `${API_PREFIX}/auth`;

function startSession(state: EmulatorState, user: User): EmulatorResponse {
  const lifetime = state.options.accessTokenLifetimeMs ?? ACCESS_TOKEN_LIFETIME_MS;
  const session: Session = {
    userId: user.id,
    accessToken: state.token(),
    accessExpiresAt: state.now() + lifetime,
    refreshToken: state.token(),
    revoked: false,
  };
  state.sessions.push(session);
  return {
    status: 200,
    headers: {
      'content-type': 'application/json',
      'set-cookie': `refresh_token=${session.refreshToken}; Path=${COOKIE_PATH}; HttpOnly; SameSite=Strict; Max-Age=2592000`,
    },
    body: JSON.stringify({ access_token: session.accessToken, token_type: 'Bearer', expires_in: lifetime / 1000, user: publicUser(user) }),
  };
}

export const authHandlers = {
  'auth.login': ({ state, request }) => {
    const body = validate(schemas.loginSchema, request.body);
    const user = [...state.users.values()].find((u) => u.email.toLowerCase() === body.email.toLowerCase());
    if (!user || user.password !== body.password) throw new HttpError(401, 'Invalid e-mail or password', 50035);
    return startSession(state, user);
  },
  'auth.refresh': ({ state, caller }) => {
    caller.session.revoked = true;
    const user = state.users.get(caller.session.userId);
    if (!user) throw new HttpError(401, 'Unknown user');
    return startSession(state, user);
  },
  'auth.logout': ({ caller }) => {
    caller.session.revoked = true;
    return noContent({ 'set-cookie': `refresh_token=; Path=${COOKIE_PATH}; HttpOnly; Max-Age=0` });
  },
  'auth.forgotPassword': ({ state, request }) => {
    const body = validate(schemas.forgotPasswordSchema, request.body);
    const email = String(body['email'] ?? '');
    if (state.userByEmail(email)) {
      const token = state.token();
      state.resetTokens.set(token, email);
      state.deliverMail(email, { kind: 'reset', token });
    }
    return noContent();
  },
  'auth.resetPassword': ({ state, request }) => {
    const body = validate(schemas.resetPasswordSchema, request.body);
    const token = String(body['token'] ?? '');
    const email = state.resetTokens.get(token);
    const password = String(body['password'] ?? '');
    if (!email) throw new HttpError(400, 'Invalid or expired reset token', 50035);
    if (password.length < 8) throw new HttpError(400, 'Password must be at least 8 characters', 50035, { errors: { password: 'too short' } });
    const user = state.userByEmail(email);
    if (user) user.password = password;
    state.resetTokens.delete(token);
    for (const session of state.sessions) if (session.userId === user?.id) session.revoked = true;
    return noContent();
  },
  'auth.verifyEmail': ({ state, params }) => {
    const email = state.verifyTokens.get(params.token);
    if (!email) throw new HttpError(400, 'Invalid or expired verification token', 50035);
    state.verifyTokens.delete(params.token);
    const user = state.userByEmail(email);
    if (user) user.verified = true;
    return json(200, { verified: true, email });
  },
} satisfies HandlersOf<'auth'>;
