/**
 * A minimal cookie jar scoped to one origin.
 *
 * It keeps whatever cookies the service sets (the contract does not name the
 * refresh cookie, so none is assumed), honours `Path`, `Max-Age` and
 * `Expires`, and can be exported and restored so a session survives a
 * restart.
 *
 * @module
 */

import { REDACTED, inspectSymbol } from '../core/redact.js';
import { parseSetCookie } from './set-cookie.js';

/** One stored cookie. */
export interface StoredCookie {
  /** Cookie name. */
  name: string;
  /** Cookie value (a secret). */
  value: string;
  /** Path prefix it applies to. @default "/" */
  path: string;
  /** Expiry as epoch milliseconds, or `undefined` for a session cookie. */
  expiresAt: number | undefined;
}

/** The most cookies a jar holds (RFC 6265's minimum per domain); past it the oldest go first. */
const MAX_COOKIES = 50;
/** The longest cookie (name and value) a jar accepts, in characters (RFC 6265's minimum). */
const MAX_COOKIE_LENGTH = 4096;

/** Holds cookies set by one origin. */
export class CookieJar {
  #cookies = new Map<string, StoredCookie>();
  readonly #now: () => number;

  /** @param now Clock used for expiry. @default Date.now */
  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /**
   * Stores the cookies of every `Set-Cookie` header value. An expired or
   * empty cookie deletes the stored one. A jar holds at most 50 cookies of at
   * most 4096 characters each (RFC 6265's minimums); past that the oldest
   * cookie goes first, and a longer cookie is ignored. No cookie lives
   * longer than 400 days, whatever its `Max-Age` or `Expires` says.
   */
  storeSetCookieHeaders(values: readonly string[]): void {
    for (const header of values) {
      const now = this.#now();
      const cookie = parseSetCookie(header, now);
      if (cookie === undefined) continue;
      let expiresAt: number | undefined;
      if (cookie.maxAge !== undefined) expiresAt = now + cookie.maxAge * 1000;
      else if (cookie.expires !== undefined) expiresAt = cookie.expires;
      const path = cookie.path?.startsWith('/') ? cookie.path : '/';
      const key = `${cookie.name};${path}`;
      if (cookie.value === '' || (expiresAt !== undefined && expiresAt <= now)) this.#cookies.delete(key);
      else if (cookie.name.length + cookie.value.length <= MAX_COOKIE_LENGTH) {
        this.#cookies.delete(key);
        this.#cookies.set(key, { name: cookie.name, value: cookie.value, path, expiresAt });
        while (this.#cookies.size > MAX_COOKIES) this.#cookies.delete(this.#cookies.keys().next().value as string);
      }
    }
  }

  /** The `Cookie` header value for a request path, or `undefined` when no cookie applies. */
  headerFor(requestPath: string): string | undefined {
    const now = this.#now();
    const parts: string[] = [];
    for (const [key, cookie] of this.#cookies) {
      if (cookie.expiresAt !== undefined && cookie.expiresAt <= now) {
        this.#cookies.delete(key);
        continue;
      }
      // A nameless cookie (a Set-Cookie without "=") goes back as its value alone (RFC 6265bis 5.8.3).
      if (pathMatches(requestPath, cookie.path)) parts.push(cookie.name === '' ? cookie.value : `${cookie.name}=${cookie.value}`);
    }
    return parts.length > 0 ? parts.join('; ') : undefined;
  }

  /** Whether any unexpired cookie is held. */
  get size(): number {
    const now = this.#now();
    let count = 0;
    for (const cookie of this.#cookies.values()) if (cookie.expiresAt === undefined || cookie.expiresAt > now) count++;
    return count;
  }

  /** Exports every cookie, for persistence. The result contains secrets: store it safely. */
  export(): StoredCookie[] {
    return [...this.#cookies.values()].map((cookie) => ({ ...cookie }));
  }

  /** Replaces the jar's content with previously exported cookies. */
  restore(cookies: readonly StoredCookie[]): void {
    this.#cookies.clear();
    for (const cookie of cookies) this.#cookies.set(`${cookie.name};${cookie.path}`, { ...cookie });
  }

  /** Forgets every cookie. */
  clear(): void {
    this.#cookies.clear();
  }

  /** Redacted view for `JSON.stringify`. */
  toJSON(): {
    /** One `name=[redacted]` entry per cookie held: names only, never values. */
    cookies: string[];
  } {
    return { cookies: [...this.#cookies.values()].map((cookie) => `${cookie.name}=${REDACTED}`) };
  }

  /** @internal Redacted view for `util.inspect`. (Node finds it by its registered symbol). */
  [inspectSymbol](): string {
    return `CookieJar { ${[...this.#cookies.values()].map((cookie) => `${cookie.name}=${REDACTED}`).join(', ')} }`;
  }
}

function pathMatches(requestPath: string, cookiePath: string): boolean {
  if (cookiePath === '/' || requestPath === cookiePath) return true;
  if (!requestPath.startsWith(cookiePath)) return false;
  return cookiePath.endsWith('/') || requestPath.charAt(cookiePath.length) === '/';
}
