import type { SessionGrant, SessionRefresher } from '../auth/refresher.js';
import { AbortError, TimeoutError, isCommunityChatError } from '../errors/index.js';
import { validate } from '../schemas/validate.js';
import { wait } from '../core/wait.js';
import type { CallOptions } from '../rest/options.js';
import type { RestClient } from '../rest/rest-client.js';
import type { ForgotPasswordRequest, LoginCredentials, ResetPasswordRequest } from '../schemas/request-types.js';
import type { ApiObject } from '../schemas/responses.js';

/** Login, refresh, logout, and the password-reset and e-mail-verification flows. */
export class AuthManager {
  /** @internal Built by the client. */
  constructor(
    private readonly rest: RestClient,
    private readonly refresher: SessionRefresher,
  ) {}

  /**
   * `POST /auth/login`: logs in with e-mail and password. The client keeps the
   * access token and the refresh cookie, and uses them for user-credential calls.
   * A failed login (an error, or a 2xx answer without a usable token, an
   * `UnexpectedResponseError` saying what was missing) leaves the session as
   * it was before the call: the cookies that answer set are discarded.
   */
  async login(credentials: LoginCredentials, options?: CallOptions): Promise<SessionGrant> {
    const body = await validate('auth.login', 'loginSchema', credentials);
    const sent = typeof credentials.password === 'string' ? [credentials.password] : [];
    return this.refresher.exchange('auth.login', () => this.rest.request<unknown>('auth.login', { ...options, body }), sent);
  }

  /**
   * `POST /auth/refresh`: renews the access token and the refresh cookie.
   * Concurrent refreshes share one request: `options` apply when this call
   * starts it, and its `signal` always stops this call's wait (an
   * `AbortError`) without cancelling a refresh others are waiting for.
   */
  async refresh(options?: CallOptions): Promise<SessionGrant> {
    const signal = options?.signal;
    if (signal?.aborted) throw refreshAborted(signal.reason, false);
    const pending = this.refresher.refresh('manual', options);
    const deadlineMs = options?.deadlineMs;
    if (!signal && deadlineMs === undefined) return pending;
    // This caller's wait ends at its signal or deadline; a refresh others wait for goes on.
    return wait(pending, {
      signal,
      onAbort: (reason) => refreshAborted(reason, true),
      timeoutMs: deadlineMs,
      onTimeout: () => refreshTimedOut(deadlineMs ?? 0),
    });
  }

  /** `POST /auth/logout`: revokes the refresh token and clears the local session. */
  async logout(options?: CallOptions): Promise<void> {
    try {
      await this.rest.request<unknown>('auth.logout', { ...options });
    } catch (error) {
      // A rejected refresh cookie means the session is already over: forget it, and still report the error.
      if (isCommunityChatError(error, 'AuthenticationError')) await this.refresher.expire('loggedOut');
      throw error;
    }
    await this.refresher.expire('loggedOut');
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
  verifyEmail(token: string, options?: CallOptions): Promise<ApiObject | undefined> {
    return this.rest.request('auth.verifyEmail', { ...options, params: { token } });
  }
}

/** The error of a manual refresh whose caller stopped waiting at its deadline. */
function refreshTimedOut(deadlineMs: number): TimeoutError {
  return new TimeoutError({ method: 'POST', path: '/auth/refresh', operation: 'auth.refresh', mayHaveReachedServer: true }, deadlineMs);
}

function refreshAborted(reason: unknown, mayHaveReachedServer: boolean): AbortError {
  return new AbortError({ method: 'POST', path: '/auth/refresh', operation: 'auth.refresh', mayHaveReachedServer, cause: reason });
}
