/**
 * A failed connection attempt in words, and whether retrying can fix it.
 *
 * @module
 */

import { GatewayError, GatewayFatalError } from '../errors/index.js';

/** TLS errors no retry fixes: the certificate is what it is. */
const CERTIFICATE_ERRORS = new Set([
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_NOT_YET_VALID',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
]);

/**
 * A failed connection attempt in words (`ECONNREFUSED (connect ECONNREFUSED
 * 127.0.0.1:9)`, `the upgrade was answered with HTTP 404`), and whether
 * retrying can fix it: a 4xx answer to the upgrade (but 429) or a bad
 * certificate cannot; a refused connection, DNS, a 5xx or a 429 may.
 */
function describeFailure(error: Error): { text: string; fatal: boolean; name: string; status?: number } {
  const code = (error as { code?: unknown }).code;
  const upgrade = /Unexpected server response: (\d{3})/.exec(error.message);
  if (upgrade) {
    const status = Number(upgrade[1]);
    const fatal = status >= 400 && status < 500 && status !== 429;
    return {
      text: `the WebSocket upgrade was answered with HTTP ${status}${fatal ? ' (check the Gateway URL and the bot token)' : ''}`,
      fatal,
      name: 'upgrade refused',
      status,
    };
  }
  if (typeof code === 'string' && CERTIFICATE_ERRORS.has(code))
    return { text: `TLS certificate rejected: ${code} (${error.message})`, fatal: true, name: 'bad certificate' };
  return { text: typeof code === 'string' ? `${code} (${error.message})` : error.message, fatal: false, name: 'connection failed' };
}

/**
 * A socket error of one attempt: the debug line to emit, and, before the
 * session was ready, the words the connect timeout will quote and the fatal
 * error to end with when retrying cannot fix it.
 */
export function failedAttempt(url: string, error: Error, ready: boolean): { debug: string; last?: string; fatal?: GatewayFatalError } {
  const failure = describeFailure(error);
  if (ready) return { debug: `socket error: ${failure.text}` };
  const debug = `connection attempt to ${url} failed: ${failure.text}${failure.fatal ? ' (retrying cannot fix this)' : ''}`;
  return failure.fatal
    ? { debug, last: failure.text, fatal: new GatewayFatalError(failure.status ?? 0, failure.name, failure.text) }
    : { debug, last: failure.text };
}

/** The error of a connect() that saw no ready session in time, with the last connection error. */
export function connectTimeoutError(timeoutMs: number, status: string, lastFailure: string | undefined): GatewayError {
  const last = lastFailure === undefined ? '' : `; last connection error: ${lastFailure}`;
  return new GatewayError(`no Gateway session was ready within ${timeoutMs} ms (connectTimeoutMs); last status: ${status}${last}`);
}
