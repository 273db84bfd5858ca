/**
 * What the Gateway's WebSocket may connect to, and with which headers: the
 * transport rule for the configured URL and for a READY's
 * `resume_gateway_url` alike, and the upgrade request's headers.
 *
 * @module
 */

import { GatewayError, InsecureTransportError, ValidationError } from '../errors/index.js';
import { isInsecureRemoteUrl } from '../core/loopback.js';
import { SDK_VERSION } from '../core/version.js';

/** The SDK's product token, sent as the upgrade's `User-Agent` (as REST sends it). */
export const GATEWAY_USER_AGENT = `community-chat-sdk/${SDK_VERSION}`;

/** Headers the WebSocket handshake owns; `gateway.headers` may not set them. */
const HANDSHAKE_HEADERS = /^(host|connection|upgrade|sec-websocket-.*)$/i;

/**
 * Checks a Gateway URL: absolute, ws: or wss:, and plain ws: only to a
 * loopback host unless insecure transport is allowed (the token travels in
 * Identify and Resume). Throws `ValidationError` or `InsecureTransportError`.
 */
export function checkGatewayUrl(url: string, allowInsecure: boolean, operation = 'gateway.connect', path = 'gateway.url'): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ValidationError(operation, [{ path, message: 'must be an absolute ws:// or wss:// URL' }]);
  }
  if (parsed.protocol !== 'ws:' && parsed.protocol !== 'wss:') {
    throw new ValidationError(operation, [{ path, message: 'must use ws: or wss:' }]);
  }
  if (!allowInsecure && isInsecureRemoteUrl(parsed)) {
    throw new InsecureTransportError(operation, parsed.origin);
  }
  return parsed;
}

/**
 * The upgrade request's headers: `gateway.headers`, then `User-Agent`, which
 * always starts with the SDK's product token; a `User-Agent` the caller gave
 * is appended after it. Throws `ValidationError` for handshake headers or
 * values that are not strings.
 */
export function upgradeHeaders(extra: Readonly<Record<string, string>>): Record<string, string> {
  const headers: Record<string, string> = {};
  let userAgent = GATEWAY_USER_AGENT;
  for (const [name, value] of Object.entries(extra)) {
    if (typeof value !== 'string' || /[\r\n]/.test(value)) {
      throw new ValidationError('gateway.connect', [{ path: `gateway.headers.${name}`, message: 'must be a string without line breaks' }]);
    }
    if (HANDSHAKE_HEADERS.test(name)) {
      throw new ValidationError('gateway.connect', [
        { path: `gateway.headers.${name}`, message: 'is set by the WebSocket handshake and cannot be overridden' },
      ]);
    }
    if (name.toLowerCase() === 'user-agent') {
      if (value.trim() !== '') userAgent = `${GATEWAY_USER_AGENT} ${value.trim()}`;
    } else headers[name] = value;
  }
  headers['User-Agent'] = userAgent;
  return headers;
}

/**
 * The READY's `resume_gateway_url` when `options.trustResumeUrl` holds and it
 * passes the rule of {@link acceptResumeUrl}; otherwise `undefined` (resume on
 * the configured URL), with what was wrong given to `report`.
 */
export function trustedResumeUrl(
  value: unknown,
  options: { trustResumeUrl: boolean; url: string },
  allowInsecure: boolean,
  report: (error: GatewayError) => void,
): string | undefined {
  if (!options.trustResumeUrl) return undefined;
  try {
    return acceptResumeUrl(value, options.url, allowInsecure);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    report(new GatewayError(`ignored the READY resume_gateway_url (${why}); resuming on the configured URL`));
    return undefined;
  }
}

/**
 * A READY's `resume_gateway_url`, checked like the configured URL (the token
 * travels in Resume); without a query of its own it takes the configured
 * URL's (e.g. `?v=10&encoding=json`). Any other host is accepted (Discord
 * gives a different one), but not credentials in the URL nor a fragment.
 * `undefined` when absent; throws when unusable.
 */
export function acceptResumeUrl(value: unknown, configuredUrl: string, allowInsecure: boolean): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new ValidationError('READY', [{ path: 'resume_gateway_url', message: 'must be a string' }]);
  const url = checkGatewayUrl(value, allowInsecure, 'READY', 'resume_gateway_url');
  // Another host is Discord's design; credentials in the URL are not (and would travel in the upgrade's Authorization).
  if (url.username !== '' || url.password !== '')
    throw new ValidationError('READY', [{ path: 'resume_gateway_url', message: 'must not carry credentials (user:password@)' }]);
  if (url.hash !== '') throw new ValidationError('READY', [{ path: 'resume_gateway_url', message: 'must not carry a fragment' }]);
  if (url.search === '') url.search = new URL(configuredUrl).search;
  return url.href;
}
