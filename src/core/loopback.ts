/**
 * Which hosts count as loopback, where credentials may travel over plain
 * HTTP or ws (localhost, 127.0.0.0/8, [::1]).
 *
 * @module
 */

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\]|::1)$/i;

/** Whether a URL hostname is a loopback address. */
export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK.test(hostname);
}

/**
 * The one transport rule for credentials: whether a URL would carry them in
 * plain text (`http:` or `ws:`) to a host that is not loopback.
 */
export function isInsecureRemoteUrl(url: URL): boolean {
  return (url.protocol === 'http:' || url.protocol === 'ws:') && !isLoopbackHost(url.hostname);
}
