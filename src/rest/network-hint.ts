/**
 * Hints for connection failures that a test setup causes: the undici
 * transport never calls `fetch`, so MSW (which patches `fetch`) cannot answer it.
 *
 * @module
 */

/** Hosts reserved for tests and documentation (RFC 2606, RFC 6761). */
const TEST_HOST = /(^|\.)(test|example|invalid|localhost)$|^(www\.)?example\.(com|net|org)$/i;

/** Whether MSW (its `@mswjs/interceptors`) is active in this process: applied interceptors register themselves on `globalThis`. */
export function isMswActive(): boolean {
  const scope = globalThis as unknown as Record<symbol, unknown>;
  return scope[Symbol.for('fetch-interceptor')] !== undefined || scope[Symbol.for('client-request-interceptor')] !== undefined;
}

/** A hint for a connection failure of the undici transport that MSW would have answered: it patches `fetch`, which the undici transport never calls. */
export function mswHint(code: string, origin: string): string | undefined {
  const msw = isMswActive();
  let host = '';
  try {
    host = new URL(origin).hostname;
  } catch {
    // No host, no host hint.
  }
  const unresolved = code === 'ENOTFOUND' || code === 'EAI_AGAIN';
  if (unresolved && TEST_HOST.test(host))
    return `${host} looks like a test host: if MSW or another fetch mock serves it, pass the client option transport: 'fetch', since the undici transport bypasses fetch mocks`;
  if (msw && (unresolved || code === 'ECONNREFUSED'))
    return "MSW is active in this process, but the undici transport bypasses it: pass the client option transport: 'fetch' to let MSW answer";
  return undefined;
}
