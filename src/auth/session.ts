/**
 * The user session: the access token, its expiry, and the refresh cookie.
 *
 * @module
 */

import { CookieJar, type StoredCookie } from './cookie-jar.js';
import { REDACTED, inspectSymbol } from '../core/redact.js';
import { ValidationError } from '../errors/index.js';

import { ACCESS_TOKEN_LIFETIME_MS } from '../core/constants.js';

/** A session's state, for persistence. It contains secrets: store it safely. */
export interface SessionSnapshot {
  /** The access token, if one is held. */
  accessToken?: string;
  /** When the access token expires, epoch milliseconds. */
  accessTokenExpiresAt?: number;
  /** The cookies the service set (among them the refresh cookie). */
  cookies: StoredCookie[];
}

/** Holds a logged-in user's credentials. Secrets never appear in `toJSON` or `util.inspect`. */
export class UserSession {
  #accessToken: string | undefined;
  #expiresAt: number | undefined;
  /** Cookies set by the service, including the HTTP-only refresh cookie. */
  readonly cookies: CookieJar;
  readonly #now: () => number;

  /** @param now Clock used for expiry. @default Date.now */
  constructor(now: () => number = Date.now) {
    this.#now = now;
    this.cookies = new CookieJar(now);
  }

  /** The current access token, or `undefined` when logged out. */
  get accessToken(): string | undefined {
    return this.#accessToken;
  }

  /** When the access token expires (epoch milliseconds), or `undefined`. */
  get accessTokenExpiresAt(): number | undefined {
    return this.#expiresAt;
  }

  /** Whether an access token is held and not yet expired. */
  get isActive(): boolean {
    return this.#accessToken !== undefined && (this.#expiresAt === undefined || this.#expiresAt > this.#now());
  }

  /** Whether a refresh cookie (any cookie) is held. */
  get canRefresh(): boolean {
    return this.cookies.size > 0;
  }

  /**
   * Stores a new access token.
   * @param lifetimeMs How long it is valid. @default 900000 (15 minutes)
   */
  setAccessToken(token: string, lifetimeMs: number = ACCESS_TOKEN_LIFETIME_MS): void {
    this.#accessToken = token;
    this.#expiresAt = this.#now() + lifetimeMs;
  }

  /** Forgets the access token and every cookie. */
  clear(): void {
    this.#accessToken = undefined;
    this.#expiresAt = undefined;
    this.cookies.clear();
  }

  /** Exports the session for persistence. The result contains secrets. */
  export(): SessionSnapshot {
    const snapshot: SessionSnapshot = { cookies: this.cookies.export() };
    if (this.#accessToken !== undefined) snapshot.accessToken = this.#accessToken;
    if (this.#expiresAt !== undefined) snapshot.accessTokenExpiresAt = this.#expiresAt;
    return snapshot;
  }

  /** Restores a session exported by {@link UserSession.export}. */
  restore(snapshot: SessionSnapshot): void {
    // Checked whole before anything changes: a bad snapshot never costs the session it would replace (its refresh cookie above all).
    const problem = snapshotProblem(snapshot);
    if (problem !== undefined) throw new ValidationError('session.restore', [{ path: 'snapshot', message: problem }]);
    this.#accessToken = snapshot.accessToken;
    this.#expiresAt = snapshot.accessTokenExpiresAt;
    this.cookies.restore(snapshot.cookies);
  }

  /** Redacted view for `JSON.stringify`. */
  toJSON(): Record<string, unknown> {
    return {
      accessToken: this.#accessToken === undefined ? undefined : REDACTED,
      accessTokenExpiresAt: this.#expiresAt,
      cookies: this.cookies.toJSON().cookies,
    };
  }

  /** @internal Redacted view for `util.inspect`. (Node finds it by its registered symbol). */
  [inspectSymbol](): string {
    return `UserSession { accessToken: ${this.#accessToken === undefined ? 'none' : REDACTED}, expiresAt: ${this.#expiresAt ?? 'none'}, cookies: ${this.cookies.size} }`;
  }
}

/**
 * Why a value is not a {@link SessionSnapshot} (`accessToken` a string if
 * present, `accessTokenExpiresAt` a finite number if present, `cookies` an
 * array of cookies with string `name`, `value` and `path`), or `undefined`.
 * The reason never quotes the value: it holds secrets.
 */
export function snapshotProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'is not an object';
  const snapshot = value as Record<string, unknown>;
  if (snapshot['accessToken'] !== undefined && typeof snapshot['accessToken'] !== 'string') return 'accessToken is not a string';
  const expiresAt = snapshot['accessTokenExpiresAt'];
  if (expiresAt !== undefined && (typeof expiresAt !== 'number' || !Number.isFinite(expiresAt))) return 'accessTokenExpiresAt is not a finite number';
  const cookies = snapshot['cookies'];
  if (!Array.isArray(cookies)) return 'cookies is not a list';
  for (const cookie of cookies as unknown[]) {
    const fields = cookie as Record<string, unknown> | null;
    if (
      typeof fields !== 'object' ||
      fields === null ||
      typeof fields['name'] !== 'string' ||
      typeof fields['value'] !== 'string' ||
      typeof fields['path'] !== 'string'
    )
      return 'a cookie lacks a string name, value or path';
    if (fields['expiresAt'] !== undefined && fields['expiresAt'] !== null && (typeof fields['expiresAt'] !== 'number' || !Number.isFinite(fields['expiresAt'])))
      return 'a cookie expiry is not a finite number';
  }
  return undefined;
}
