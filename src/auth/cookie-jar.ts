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

import { getSetCookies, Headers as UndiciHeaders } from 'undici';
import { REDACTED, inspectSymbol } from '../redact.js';

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

/** Holds cookies set by one origin. */
export class CookieJar {
  #cookies = new Map<string, StoredCookie>();
  readonly #now: () => number;

  /** @param now Clock used for expiry. @default Date.now */
  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** Stores the cookies of every `Set-Cookie` header value. An expired or empty cookie deletes the stored one. */
  storeSetCookieHeaders(values: readonly string[]): void {
    if (values.length === 0) return;
    const headers = new UndiciHeaders();
    for (const value of values) headers.append('set-cookie', value);
    for (const cookie of getSetCookies(headers)) {
      let expiresAt: number | undefined;
      if (cookie.maxAge !== undefined) expiresAt = this.#now() + cookie.maxAge * 1000;
      else if (cookie.expires instanceof Date) expiresAt = cookie.expires.getTime();
      else if (typeof cookie.expires === 'number') expiresAt = cookie.expires;
      const path = cookie.path && cookie.path.startsWith('/') ? cookie.path : '/';
      const key = `${cookie.name};${path}`;
      if (cookie.value === '' || (expiresAt !== undefined && expiresAt <= this.#now())) this.#cookies.delete(key);
      else this.#cookies.set(key, { name: cookie.name, value: cookie.value, path, expiresAt });
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
      if (pathMatches(requestPath, cookie.path)) parts.push(`${cookie.name}=${cookie.value}`);
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
  toJSON(): { cookies: string[] } {
    return { cookies: [...this.#cookies.values()].map((cookie) => `${cookie.name}=${REDACTED}`) };
  }

  /** Redacted view for `util.inspect`. */
  [inspectSymbol](): string {
    return `CookieJar { ${[...this.#cookies.values()].map((cookie) => `${cookie.name}=${REDACTED}`).join(', ')} }`;
  }
}

function pathMatches(requestPath: string, cookiePath: string): boolean {
  if (cookiePath === '/' || requestPath === cookiePath) return true;
  if (!requestPath.startsWith(cookiePath)) return false;
  return cookiePath.endsWith('/') || requestPath.charAt(cookiePath.length) === '/';
}
