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
const PLAYGROUND_HEADER = 'x-playground';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1']);

/** The hostname of a `Host` header (`[::1]:8080` included; any port), or `undefined`. */
function parseHost(host: string | undefined): string | undefined {
  if (!host) return undefined;
  const found = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::\d+)?$/.exec(host.trim());
  if (!found) return undefined;
  return (found[1] ?? '').replace(/^\[|\]$/g, '').toLowerCase();
}

/** Where the emulator listens, for the `Host` check. */
export interface DoorAddress {
  /** The address it was told to listen on. */
  readonly host: string;
  /** Its port (not checked: a proxy or a port mapping, `docker -p 9000:8080`, shows another). */
  readonly port: number;
  /** Other host names it answers to (a container's or a proxy's name), lowercased (as `checkHostNames` gives them). @default [] */
  readonly allowedHosts?: readonly string[] | undefined;
}

/**
 * The emulator's doors, for every route and the Gateway's upgrade: the `Host`
 * must name this machine (a loopback name, an IP literal, the address it
 * listens on, or one of `allowedHosts`), which defeats DNS rebinding, on any
 * port (so a proxy or a port mapping works), and an `Origin`, when a browser
 * sends one, must be the emulator's own. Tools that send no Origin (the SDK,
 * Discord libraries) pass. Why a request is refused, or `undefined`.
 */
export function doorRefusal(headers: Record<string, string | string[] | undefined>, listen: DoorAddress): string | undefined {
  const hostHeader = typeof headers['host'] === 'string' ? headers['host'] : undefined;
  const hostname = parseHost(hostHeader);
  if (hostname === undefined) return 'unexpected Host';
  const allowed =
    LOOPBACK_NAMES.has(hostname) || isIP(hostname) !== 0 || hostname === listen.host.toLowerCase() || (listen.allowedHosts ?? []).includes(hostname);
  if (!allowed) return "unexpected Host (the emulator answers only to this machine's addresses and to createEmulator({ allowedHosts }))";
  const origin = typeof headers['origin'] === 'string' ? headers['origin'] : undefined;
  if (origin !== undefined && origin !== `http://${hostHeader}`) return 'foreign Origin';
  return undefined;
}

/** Why a request to the playground is refused, or `undefined` when it may go on. */
export function refusal(
  headers: Record<string, string | string[] | undefined>,
  listen: DoorAddress,
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
