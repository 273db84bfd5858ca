/**
 * `community-chat-sdk/testing/msw`: MSW handlers backed by the emulator's
 * in-memory state, for unit tests of bots that mock HTTP with MSW.
 *
 * @packageDocumentation
 */

import { checkCoreOptions } from './emulator/options.js';
import { http, HttpResponse, type HttpHandler } from 'msw';
import { EmulatorCore, type DeliveryTransport, type EmulatorCoreOptions } from './emulator/index.js';
import { API_PREFIX } from '../core/routes.js';

/** Options of {@link createMswHandlers}. */
export interface MswHandlersOptions extends EmulatorCoreOptions {
  /** The base URL your client uses. @default "http://localhost:8080" */
  baseUrl?: string | undefined;
  /** Share state with an existing core (e.g. to inspect it). @default a new core */
  core?: EmulatorCore | undefined;
  /**
   * Hands every application-webhook delivery to this fetch-style handler
   * instead of the network, e.g. your receiver's `receiver.fetch`: the
   * request carries the signed body and headers; its answer's status decides
   * success or a retry. Ignored when `core` is given. @default deliveries go over
   * the network (loopback URLs only, unless `allowExternalDeliveries`)
   */
  deliverTo?: ((request: Request) => Response | Promise<Response>) | undefined;
}

/**
 * MSW handlers serving the whole contract from an in-memory emulator. Use the
 * client with `transport: 'fetch'` so MSW sees its requests.
 *
 * @example
 * ```ts
 * const { handlers, core } = createMswHandlers({ baseUrl: 'https://chat.test' });
 * const server = setupServer(...handlers);
 * const client = new Client({ baseUrl: 'https://chat.test', transport: 'fetch', auth: { botToken: core.seed.botToken } });
 * ```
 */
export function createMswHandlers(options: MswHandlersOptions = {}): {
  /** The request handlers to give MSW (`setupServer(...handlers)`): every request under `{baseUrl}/api/v1`. */
  handlers: HttpHandler[];
  /** The emulator core serving them: `options.core`, or a new one. */
  core: EmulatorCore;
} {
  checkCoreOptions('createMswHandlers', options, ['core', 'deliverTo']);
  const baseUrl = (options.baseUrl ?? 'http://localhost:8080').replace(/\/+$/, '');
  const { deliverTo, core: given, ...coreOptions } = options;
  const deliveryTransport: DeliveryTransport | undefined = deliverTo
    ? async ({ url, headers, body, signal }) => ({ status: (await deliverTo(new Request(url, { method: 'POST', headers, body, signal }))).status })
    : options.deliveryTransport;
  const core = given ?? new EmulatorCore({ ...coreOptions, baseUrl, deliveryTransport });
  const handler = http.all(`${baseUrl}${API_PREFIX}/*`, async ({ request }) => {
    const url = new URL(request.url);
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });
    const answer = await core.handle({ method: request.method, url: url.pathname + url.search, headers, body: await request.text() });
    // An injected fault resets the connection: the client sees a network failure.
    if (answer.reset === true) return HttpResponse.error();
    const responseHeaders = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) for (const item of Array.isArray(value) ? value : [value]) responseHeaders.append(name, item);
    return new HttpResponse(answer.status === 204 ? null : answer.body, { status: answer.status, headers: responseHeaders });
  });
  return { handlers: [handler], core };
}
