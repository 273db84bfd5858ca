/**
 * The playground: a web page, served by the emulator at its root URL, where a
 * person chats with their bot. This module serves the page, its live channel
 * (`/_playground/events`, server-sent events) and its small API
 * (`POST /_playground/api/{action}`), every request checked by `guard.ts`.
 *
 * @module
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EmulatorCore } from '../emulator/core.js';
import type { GatewayTraffic } from '../gateway-server-options.js';
import { pageScript } from './assets/page-script.js';
import { PAGE_HTML, PAGE_STYLE } from './assets/page.js';
import { type DoorAddress, refusal } from './guard.js';
import { PlaygroundHub } from './hub.js';
import { runAction } from './actions.js';

/** Where the page's files, live channel and API live. */
const PLAYGROUND_PREFIX = '/_playground';

/** What the playground needs of the running emulator. */
interface PlaygroundHost {
  /** The emulator's core. */
  core: EmulatorCore;
  /** Where the server listens (for the `Host` check). */
  listen: () => DoorAddress;
  /** Open Gateway sessions of any bot. */
  botSessions: () => number;
  /** Drops every Gateway connection. */
  dropGateway: () => void;
}

/** The playground attached to an emulator's HTTP server. */
export interface Playground {
  /** Serves `request` if it is the playground's (answers and returns `true`). */
  serve(request: IncomingMessage, response: ServerResponse, body: string): boolean;
  /** Feeds Gateway traffic to the log. */
  onGateway(event: GatewayTraffic): void;
  /** Stops the live channel. */
  close(): void;
}

const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; form-action 'none'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  'cross-origin-resource-policy': 'same-origin',
};

/** The page and its assets; the script is bundled when first asked for (from source) or was at build time. */
const FILES: Record<string, { type: string; body: () => string }> = {
  '/': { type: 'text/html; charset=utf-8', body: () => PAGE_HTML },
  [`${PLAYGROUND_PREFIX}/app.js`]: { type: 'text/javascript; charset=utf-8', body: pageScript },
  [`${PLAYGROUND_PREFIX}/app.css`]: { type: 'text/css; charset=utf-8', body: () => PAGE_STYLE },
};

/** Creates the playground of an emulator. */
export function createPlayground(host: PlaygroundHost): Playground {
  const { core } = host;
  const hub = new PlaygroundHub({
    picture: () => ({
      ...core.snapshot(),
      bot: { sessions: host.botSessions() },
      faults: { ...core.faults.toJSON(), globalLimit: core.globalRateLimit ?? null },
      seed: { guildId: core.seed.guildId, channelId: core.seed.channelId, userId: core.seed.user.id, applicationId: core.seed.applicationId },
    }),
    secrets: () => core.secrets(),
  });
  const unobserve = core.observe((event) => hub.onEmulator(event));

  const refuse = (response: ServerResponse, status: number, reason: string) => {
    response.writeHead(status, { 'content-type': 'application/json', ...SECURITY_HEADERS });
    response.end(JSON.stringify({ error: reason }));
  };

  return {
    serve(request, response, body) {
      const path = (request.url ?? '/').split('?')[0] ?? '/';
      const method = request.method ?? 'GET';
      const file = FILES[path];
      const kind = file ? 'page' : path === `${PLAYGROUND_PREFIX}/events` ? 'events' : path.startsWith(`${PLAYGROUND_PREFIX}/api/`) ? 'api' : undefined;
      if (kind === undefined) {
        if (!path.startsWith(`${PLAYGROUND_PREFIX}/`)) return false;
        refuse(response, 404, 'not found');
        return true;
      }
      const why = refusal(request.headers, host.listen(), kind, method);
      if (why !== undefined) {
        refuse(response, 403, why);
        return true;
      }
      if (file) {
        if (method !== 'GET' && method !== 'HEAD') refuse(response, 405, 'method not allowed');
        else {
          response.writeHead(200, { 'content-type': file.type, ...SECURITY_HEADERS });
          response.end(method === 'HEAD' ? undefined : file.body());
        }
        return true;
      }
      if (kind === 'events') {
        hub.attach(response);
        return true;
      }
      const action = path.slice(`${PLAYGROUND_PREFIX}/api/`.length);
      runAction(action, body, { core, dropGateway: host.dropGateway, changed: () => hub.changed() }).then(
        (answer) => {
          response.writeHead(answer.status, { 'content-type': 'application/json', ...SECURITY_HEADERS });
          response.end(JSON.stringify(answer.body));
        },
        (error: unknown) => refuse(response, 500, error instanceof Error ? error.message : String(error)),
      );
      return true;
    },
    onGateway: (event) => hub.onGateway(event),
    close() {
      unobserve();
      hub.close();
    },
  };
}
