/**
 * Who may talk to the playground: only the page itself. The `Host` must name
 * this machine (a loopback name, an IP literal or the address the emulator
 * was told to listen on), which defeats DNS rebinding; the `Origin`, when the
 * browser sends one, must be the page's own; the page's API also needs a
 * custom header and JSON, so a cross-site form or `no-cors` fetch never gets
 * through.
 *
 * @module
 */

import { isIP } from 'node:net';

/** The header the page's API calls carry; another site cannot send it without a CORS preflight, which is refused. */
export const PLAYGROUND_HEADER = 'x-playground';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1']);

/** The hostname and port of a `Host` header (`[::1]:8080` included), or `undefined`. */
function parseHost(host: string | undefined): { hostname: string; port: string } | undefined {
  if (!host) return undefined;
  const found = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::(\d+))?$/.exec(host.trim());
  if (!found) return undefined;
  return { hostname: (found[1] ?? '').replace(/^\[|\]$/g, '').toLowerCase(), port: found[2] ?? '80' };
}

/**
 * The emulator's doors, for every route and the Gateway's upgrade: the `Host`
 * must name this machine (a loopback name, an IP literal, or the address it
 * listens on) on its port, which defeats DNS rebinding, and an `Origin`, when
 * a browser sends one, must be the emulator's own. Tools that send no Origin
 * (the SDK, Discord libraries) pass. Why a request is refused, or `undefined`.
 */
export function doorRefusal(headers: Record<string, string | string[] | undefined>, listen: { host: string; port: number }): string | undefined {
  const hostHeader = typeof headers['host'] === 'string' ? headers['host'] : undefined;
  const host = parseHost(hostHeader);
  if (!host || host.port !== String(listen.port)) return 'unexpected Host';
  const allowed = LOOPBACK_NAMES.has(host.hostname) || isIP(host.hostname) !== 0 || host.hostname === listen.host.toLowerCase();
  if (!allowed) return "unexpected Host (the emulator answers only to this machine's addresses)";
  const origin = typeof headers['origin'] === 'string' ? headers['origin'] : undefined;
  if (origin !== undefined && origin !== `http://${hostHeader}`) return 'foreign Origin';
  return undefined;
}

/** Why a request to the playground is refused, or `undefined` when it may go on. */
export function refusal(
  headers: Record<string, string | string[] | undefined>,
  listen: { host: string; port: number },
  kind: 'page' | 'events' | 'api',
  method: string,
): string | undefined {
  const door = doorRefusal(headers, listen);
  if (door !== undefined) return door;
  const origin = typeof headers['origin'] === 'string' ? headers['origin'] : undefined;
  if (kind === 'page') return undefined;
  const site = headers['sec-fetch-site'];
  if (typeof site === 'string' && site !== 'same-origin' && site !== 'none') return 'cross-site request';
  if (kind === 'events') return method === 'GET' ? undefined : 'method not allowed';
  if (method !== 'POST') return 'method not allowed';
  if (origin === undefined) return 'missing Origin';
  if (headers[PLAYGROUND_HEADER] !== '1') return 'missing X-Playground header';
  if (!String(headers['content-type'] ?? '').startsWith('application/json')) return 'JSON only';
  return undefined;
}
