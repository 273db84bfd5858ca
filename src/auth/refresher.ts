/**
 * Keeps a user session usable: refreshes the access token before it expires
 * and once after a 401, single-flight, and persists the session through an
 * optional store.
 *
 * @module
 */

import { UnexpectedResponseError, isCommunityChatError } from '../errors/index.js';
import { redactValue } from '../core/redact.js';
import { wait } from '../core/wait.js';
import { ACCESS_TOKEN_LIFETIME_MS } from '../core/constants.js';
import type { SessionSnapshot, UserSession } from './session.js';

/** What an access-token reader finds in a login or refresh response. */
export interface AccessTokenGrant {
  /** The access token. */
  accessToken: string;
  /** Its lifetime in milliseconds, if the response says. */
  expiresInMs?: number | undefined;
}

/**
 * Reads the access token from a login or refresh response body. The field
 * names are not shown in the contract; the default accepts `access_token`,
 * `accessToken` or `token` (at the top level or under `data`, `session`,
 * `tokens` or `result`), and `expires_in` / `expiresIn` in seconds.
 */
export type AccessTokenReader = (body: unknown) => AccessTokenGrant | undefined;

/** The default {@link AccessTokenReader}. */
export const defaultAccessTokenReader: AccessTokenReader = (body) => readTokenFrom(body, 0);

function readTokenFrom(body: unknown, depth: number): AccessTokenGrant | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const record = body as Record<string, unknown>;
  // Also look one level down, for envelopes such as { data: { access_token } }.
  if (depth === 0 && record['access_token'] === undefined && record['accessToken'] === undefined && record['token'] === undefined) {
    for (const key of ['data', 'session', 'tokens', 'result']) {
      const nested = readTokenFrom(record[key], 1);
      if (nested) return nested;
    }
  }
  const token = [record['access_token'], record['accessToken'], record['token']].find((value) => typeof value === 'string' && value !== '');
  if (typeof token !== 'string') return undefined;
  const expiresIn = [record['expires_in'], record['expiresIn']].find((value) => typeof value === 'number' && value > 0);
  return typeof expiresIn === 'number' ? { accessToken: token, expiresInMs: expiresIn * 1000 } : { accessToken: token };
}

/** Says what was missing from a login or refresh body: where the default reader looked, and the body's top-level field names (never values). */
function missingTokenMessage(body: unknown, defaultReader: boolean): string {
  const fields = typeof body === 'object' && body !== null && !Array.isArray(body) ? Object.keys(body).slice(0, 10) : [];
  const seen =
    fields.length > 0
      ? `; the body's top-level fields: ${fields.join(', ')}`
      : typeof body === 'object' && body !== null
        ? '; the body is empty'
        : `; the body is ${body === undefined ? 'empty' : typeof body}`;
  const where = defaultReader
    ? 'no access token in the body (looked for access_token, accessToken, token at the top level and under data, session, tokens, result)'
    : 'the readAccessToken option found no access token in the body';
  return `${where}${seen}; set readAccessToken (see docs/assumptions.md). The session was left as it was before the call`;
}

/**
 * Persists a session across restarts. Every method may be async.
 *
 * A store shared by several processes also implements `lockRefresh` and
 * `unlockRefresh`: the refresh cookie rotates on every refresh, so only the
 * process holding the lock refreshes; the others wait for the session it
 * saves, and read it with `load`.
 */
export interface UserSessionStore {
  /** Returns the saved session, if any. Called before the first call that needs the session (and, with a lock, while waiting for another process's refresh). */
  load?(): SessionSnapshot | undefined | Promise<SessionSnapshot | undefined>;
  /** Saves the session after login and refresh, or `undefined` after logout or expiry. The snapshot holds secrets. */
  save?(snapshot: SessionSnapshot | undefined): void | Promise<void>;
  /** Takes the refresh lock shared by every process, with an expiry; resolves whether this process now holds it. @default undefined (refresh is single-flight in this process only) */
  lockRefresh?(): boolean | Promise<boolean>;
  /** Releases the refresh lock this process holds. @default undefined */
  unlockRefresh?(): void | Promise<void>;
}

/** How often a process polls the store while another one refreshes. */
const SHARED_REFRESH_POLL_MS = 50;
/** The longest a process waits for another one's refresh before giving up. */
const SHARED_REFRESH_WAIT_MS = 60_000;
/** The longest one call into the session store may take during a refresh before the refresh gives up (a hung store must not wedge the session). */
const STORE_CALL_TIMEOUT_MS = 5_000;

/** Settles with `pending`, or rejects once `ms` have passed. */
function within<T>(pending: Promise<T> | T, ms: number, what: string): Promise<T> {
  return wait(Promise.resolve(pending), {
    timeoutMs: ms,
    onTimeout: () => new UnexpectedResponseError('auth.refresh', 0, `the session store did not answer ${what} within ${ms} ms`),
  });
}

/** The result of login or refresh. Token fields are redacted: the session holds them. */
export interface SessionGrant {
  /** When the new access token expires, epoch milliseconds. */
  accessTokenExpiresAt: number;
  /** The response body with every secret field redacted. */
  body: Record<string, unknown>;
}

/**
 * The per-call options of a manual refresh, as the refresher sees them: it
 * only carries them to `performRefresh` (the REST layer gives them meaning).
 */
type RefreshCallOptions = object;

/** Wiring of a {@link SessionRefresher}. */
interface SessionRefresherOptions {
  /** The session to keep fresh. */
  session: UserSession;
  /**
   * Sends `POST /auth/refresh` and returns the parsed body. `call` is what the
   * manual `auth.refresh(options)` that started the refresh passed (headers,
   * timeout, retries, signal); automatic refreshes pass nothing.
   */
  performRefresh: (call: RefreshCallOptions | undefined) => Promise<unknown>;
  /** Reads the token from responses. */
  readAccessToken: AccessTokenReader;
  /** Refresh when the access token expires within this many milliseconds. */
  refreshMarginMs: number;
  /** Optional persistence. */
  store: UserSessionStore | undefined;
  /** The clock. */
  now: () => number;
  /** Reports a refresh. */
  onRefreshed: (accessTokenExpiresAt: number, trigger: 'expiry' | 'unauthorized' | 'manual') => void;
  /** Reports the end of the session. */
  onExpired: (reason: 'refreshRejected' | 'loggedOut') => void;
  /** Reports a persistence failure (the session itself still works). */
  onStoreError: (error: unknown) => void;
}

/** Single-flight refresh and persistence of a user session. */
export class SessionRefresher {
  readonly #options: SessionRefresherOptions;
  #inflight: Promise<SessionGrant> | undefined;
  #loading: Promise<void> | undefined;
  #loaded: boolean;
  /** The lifetime of the last access token received; the refresh margin never exceeds half of it. */
  #lifetimeMs = ACCESS_TOKEN_LIFETIME_MS;

  constructor(options: SessionRefresherOptions) {
    this.#options = options;
    this.#loaded = !options.store?.load;
  }

  /** Loads the stored session once; `undefined` when that is already done. */
  ensureLoaded(): Promise<void> | undefined {
    return this.#loaded ? undefined : this.load();
  }

  /** Loads the stored session once, if a store is configured and nothing is held yet. */
  load(): Promise<void> {
    this.#loading ??= (async () => {
      const { session, store } = this.#options;
      if (session.accessToken !== undefined || session.canRefresh) return;
      try {
        const snapshot = await store?.load?.();
        if (snapshot) session.restore(snapshot);
      } catch (error) {
        this.#options.onStoreError(error);
      } finally {
        this.#loaded = true;
      }
    })();
    return this.#loading;
  }

  /**
   * Called before a request with user credentials: refreshes the access
   * token when it expires soon (or waits for a refresh under way). Returns `undefined`
   * when there is nothing to wait for.
   */
  prepare(): Promise<void> | undefined {
    const { session, now } = this.#options;
    // A token that lives shorter than the margin would be refreshed before every call: refresh at half its life instead.
    const refreshMarginMs = Math.min(this.#options.refreshMarginMs, this.#lifetimeMs / 2);
    const expiresAt = session.accessTokenExpiresAt;
    const due = expiresAt !== undefined && expiresAt - now() <= refreshMarginMs && session.canRefresh;
    if (!due && this.#inflight === undefined) return undefined;
    return (async () => {
      if (this.#inflight) await this.#inflight.catch(() => undefined);
      const current = session.accessTokenExpiresAt;
      if (current !== undefined && current - now() <= refreshMarginMs && session.canRefresh) await this.refresh('expiry').catch(() => undefined);
    })();
  }

  /**
   * Called after a 401 on a request that used `tokenUsed`. Refreshes once
   * (joining a refresh already under way) and says whether to retry.
   */
  async onUnauthorized(tokenUsed: string | undefined): Promise<boolean> {
    const { session } = this.#options;
    if (this.#inflight) await this.#inflight.catch(() => undefined);
    if (session.accessToken !== undefined && session.accessToken !== tokenUsed) return true;
    if (!session.canRefresh) return false;
    try {
      await this.refresh('unauthorized');
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Refreshes the access token; concurrent callers share one request, sent
   * with the `call` options of the caller that started it (they travel as
   * parameters, through the shared lock's wait, to the request).
   */
  refresh(trigger: 'expiry' | 'unauthorized' | 'manual', call?: RefreshCallOptions): Promise<SessionGrant> {
    this.#inflight ??= (async () => {
      try {
        const grant = this.#options.store?.lockRefresh ? await this.#refreshShared(this.#options.store, call) : await this.#refreshHere(call);
        this.#options.onRefreshed(grant.accessTokenExpiresAt, trigger);
        return grant;
      } catch (error) {
        if (isCommunityChatError(error, 'AuthenticationError')) await this.expire('refreshRejected');
        throw error;
      } finally {
        this.#inflight = undefined;
      }
    })();
    return this.#inflight;
  }

  /**
   * Refreshes under the lock shared by every process, or waits for the
   * process that holds it and takes the session it saved. The session is
   * saved before the lock is released, so the next process never refreshes
   * with a revoked cookie.
   */
  async #refreshShared(store: UserSessionStore, call: RefreshCallOptions | undefined): Promise<SessionGrant> {
    const { session, now } = this.#options;
    const before = session.accessToken;
    const started = now();
    for (;;) {
      if (await within(store.lockRefresh?.(), STORE_CALL_TIMEOUT_MS, 'lockRefresh')) {
        try {
          const newer = await this.#adoptNewer(store, before);
          if (newer !== undefined) return newer;
          const grant = await this.#refreshHere(call);
          await within(store.save?.(session.export()), STORE_CALL_TIMEOUT_MS, 'save');
          return grant;
        } finally {
          await within(store.unlockRefresh?.(), STORE_CALL_TIMEOUT_MS, 'unlockRefresh').catch((error: unknown) => this.#options.onStoreError(error));
        }
      }
      await wait(SHARED_REFRESH_POLL_MS);
      const newer = await this.#adoptNewer(store, before);
      if (newer !== undefined) return newer;
      if (now() - started > SHARED_REFRESH_WAIT_MS)
        throw new UnexpectedResponseError('auth.refresh', 0, 'another process held the shared refresh lock and saved no new session in time');
    }
  }

  /** Takes the stored session when another process saved a fresh access token (not the one this process had). */
  async #adoptNewer(store: UserSessionStore, before: string | undefined): Promise<SessionGrant | undefined> {
    const { session, now, refreshMarginMs } = this.#options;
    const snapshot = await within(store.load?.(), STORE_CALL_TIMEOUT_MS, 'load');
    if (snapshot?.accessToken === undefined || snapshot.accessToken === before) return undefined;
    if (snapshot.accessTokenExpiresAt !== undefined && snapshot.accessTokenExpiresAt - now() <= refreshMarginMs) return undefined;
    session.restore(snapshot);
    return { accessTokenExpiresAt: session.accessTokenExpiresAt ?? now() + ACCESS_TOKEN_LIFETIME_MS, body: {} };
  }

  /**
   * Sends the refresh and adopts its token; the cookies it sent are scrubbed
   * from what it returns, like the new ones. An answer without a usable
   * token leaves the session as it was (the cookies it set are discarded).
   */
  async #refreshHere(call: RefreshCallOptions | undefined): Promise<SessionGrant> {
    const before = this.#options.session.export();
    const sent = before.cookies.map((cookie) => cookie.value);
    const body = await this.#options.performRefresh(call);
    return this.adoptOrRestore('auth.refresh', body, sent, before);
  }

  /**
   * Sends a login (`send`) and adopts its token. When the call fails, or
   * answers without a usable token, the session is put back as it was
   * before the call: the cookies that answer set are discarded.
   */
  async exchange(operation: string, send: () => Promise<unknown>, sent: readonly string[] = []): Promise<SessionGrant> {
    const before = this.#options.session.export();
    let body: unknown;
    try {
      body = await send();
    } catch (error) {
      this.#options.session.restore(before);
      throw error;
    }
    return this.adoptOrRestore(operation, body, sent, before);
  }

  /**
   * {@link SessionRefresher.adopt}, but when the body holds no usable token
   * the session is put back to `before` (what it was before the call), so the
   * cookies that answer set are discarded; then the error is thrown.
   */
  adoptOrRestore(operation: string, body: unknown, sent: readonly string[], before: SessionSnapshot): SessionGrant {
    try {
      return this.adopt(operation, body, sent);
    } catch (error) {
      this.#options.session.restore(before);
      throw error;
    }
  }

  /** The values of the cookies held (the refresh cookie among them), to scrub from what a refresh returns. */
  #cookieValues(): string[] {
    return this.#options.session.cookies.export().map((cookie) => cookie.value);
  }

  /**
   * Stores the token of a login or refresh response, persists the session,
   * and returns a view of the body with every secret redacted: the new access
   * token, secret-named fields, and `sent` (the password or cookies the call
   * sent), wherever the server echoed them.
   */
  adopt(operation: string, body: unknown, sent: readonly string[] = []): SessionGrant {
    const { session, readAccessToken } = this.#options;
    const grant = readAccessToken(body);
    if (grant === undefined) throw new UnexpectedResponseError(operation, 200, missingTokenMessage(body, readAccessToken === defaultAccessTokenReader));
    const lifetimeMs = grant.expiresInMs ?? ACCESS_TOKEN_LIFETIME_MS;
    session.setAccessToken(grant.accessToken, lifetimeMs);
    this.#lifetimeMs = lifetimeMs;
    this.#persist(session.export());
    const redacted = redactValue(body, [grant.accessToken, ...sent, ...this.#cookieValues()]);
    return {
      accessTokenExpiresAt: session.accessTokenExpiresAt ?? this.#options.now() + ACCESS_TOKEN_LIFETIME_MS,
      body: typeof redacted === 'object' && redacted !== null ? (redacted as Record<string, unknown>) : {},
    };
  }

  /** Ends the session locally, forgets it in the store, and reports it. */
  async expire(reason: 'refreshRejected' | 'loggedOut'): Promise<void> {
    this.#options.session.clear();
    this.#persist(undefined);
    this.#options.onExpired(reason);
  }

  #persist(snapshot: SessionSnapshot | undefined): void {
    const save = this.#options.store?.save;
    if (!save) return;
    try {
      const result = save.call(this.#options.store, snapshot);
      if (result && typeof (result as Promise<void>).catch === 'function')
        (result as Promise<void>).catch((error: unknown) => this.#options.onStoreError(error));
    } catch (error) {
      this.#options.onStoreError(error);
    }
  }
}
