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
