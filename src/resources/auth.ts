import { UnexpectedResponseError, isAuthenticationError } from '../errors.js';
import { validate } from '../schemas/validate.js';
import { ACCESS_TOKEN_LIFETIME_MS, type UserSession } from '../auth/session.js';
import { redactValue } from '../redact.js';
import type { CallOptions, RestClient } from '../rest/rest-client.js';
import type { ForgotPasswordRequest, LoginCredentials, ResetPasswordRequest } from '../schemas/requests.js';
import type { ApiObject } from '../schemas/responses.js';

/** What an access-token reader finds in a login or refresh response. */
export interface AccessTokenGrant {
  /** The access token. */
  accessToken: string;
  /** Its lifetime in milliseconds, if the response says. */
  expiresInMs?: number;
}

/**
 * Reads the access token from a login or refresh response body. The field
 * names are not shown in the contract; the default accepts `access_token`,
 * `accessToken` or `token`, and `expires_in` / `expiresIn` in seconds.
 */
export type AccessTokenReader = (body: unknown) => AccessTokenGrant | undefined;

/** The default {@link AccessTokenReader}. */
export const defaultAccessTokenReader: AccessTokenReader = (body) => {
  if (typeof body !== 'object' || body === null) return undefined;
  const record = body as Record<string, unknown>;
  const token = [record['access_token'], record['accessToken'], record['token']].find((value) => typeof value === 'string' && value !== '');
  if (typeof token !== 'string') return undefined;
  const expiresIn = [record['expires_in'], record['expiresIn']].find((value) => typeof value === 'number' && value > 0);
  return typeof expiresIn === 'number' ? { accessToken: token, expiresInMs: expiresIn * 1000 } : { accessToken: token };
};

/** The result of login or refresh. Token fields are redacted: the session holds them. */
export interface SessionGrant {
  /** When the new access token expires, epoch milliseconds. */
  accessTokenExpiresAt: number;
  /** The response body with every secret field redacted. */
  body: ApiObject;
}

/** Login, refresh, logout, and the password-reset and e-mail-verification flows. */
export class AuthManager {
  constructor(
    private readonly rest: RestClient,
    private readonly session: UserSession,
    private readonly readAccessToken: AccessTokenReader,
  ) {}

  /**
   * `POST /auth/login`: logs in with e-mail and password. The client keeps the
   * access token and the refresh cookie, and uses them for user-credential calls.
   */
  async login(credentials: LoginCredentials, options?: CallOptions): Promise<SessionGrant> {
    const body = await validate('auth.login', 'loginSchema', credentials);
    const response = await this.rest.request<unknown>('auth.login', { ...options, body });
    return this.#adopt('auth.login', response);
  }

  /** `POST /auth/refresh`: renews the access token and the refresh cookie. */
  async refresh(options?: CallOptions): Promise<SessionGrant> {
    const response = await this.rest.request<unknown>('auth.refresh', { ...options });
    return this.#adopt('auth.refresh', response);
  }

  /** `POST /auth/logout`: revokes the refresh token and clears the local session. */
  async logout(options?: CallOptions): Promise<void> {
    try {
      await this.rest.request<unknown>('auth.logout', { ...options });
    } catch (error) {
      // A rejected refresh cookie means the session is already over: forget it, and still report the error.
      if (isAuthenticationError(error)) this.session.clear();
      throw error;
    }
    this.session.clear();
  }

  /** `POST /auth/forgot-password`: starts the password-reset flow. */
  async forgotPassword(request: ForgotPasswordRequest, options?: CallOptions): Promise<void> {
    const body = await validate('auth.forgotPassword', 'forgotPasswordSchema', request);
    return this.rest.request('auth.forgotPassword', { ...options, body });
  }

  /** `POST /auth/reset-password`: completes the password-reset flow. */
  async resetPassword(request: ResetPasswordRequest, options?: CallOptions): Promise<void> {
    const body = await validate('auth.resetPassword', 'resetPasswordSchema', request);
    return this.rest.request('auth.resetPassword', { ...options, body });
  }

  /** `POST /auth/verify-email/{token}`: confirms an e-mail address. The token never appears in errors. */
  async verifyEmail(token: string, options?: CallOptions): Promise<ApiObject | undefined> {
    return this.rest.request('auth.verifyEmail', { ...options, params: { token } });
  }

  #adopt(operation: string, response: unknown): SessionGrant {
    const grant = this.readAccessToken(response);
    if (grant === undefined) {
      throw new UnexpectedResponseError(operation, 200, 'no access token found in the body; set the client option readAccessToken (see docs/assumptions.md)');
    }
    this.session.setAccessToken(grant.accessToken, grant.expiresInMs ?? ACCESS_TOKEN_LIFETIME_MS);
    const redacted = redactValue(response, [grant.accessToken]);
    return {
      accessTokenExpiresAt: this.session.accessTokenExpiresAt ?? Date.now() + ACCESS_TOKEN_LIFETIME_MS,
      body: (typeof redacted === 'object' && redacted !== null ? redacted : {}) as ApiObject,
    };
  }
}
