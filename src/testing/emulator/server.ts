/**
 * `createEmulator()`: the emulator core served over node:http, with the
 * Gateway on the same port.
 *
 * @module
 */

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { GATEWAY_PATH, GatewayServer, type BotGatewayStats } from '../gateway-server.js';
import type { IdentifyRecord } from '../gateway-server-options.js';
import { EmulatorError, EmulatorNotFoundError } from '../errors.js';
import { doorRefusal } from '../playground/guard.js';
import { createPlayground, type Playground } from '../playground/server.js';
import type { EmulatorFaults } from './faults.js';
import { EmulatorCore } from './core.js';
import { gatewayUrlOf } from './gateway-info.js';
import { checkSimulation } from './inputs.js';
import { failed, safely } from './request-safety.js';
import { checkBaseUrl, checkCoreOptions, checkHostNames, checkWaitTimeout, coreOptionsOf, SERVER_OPTIONS } from './options.js';
import { checkCount, checkDuration } from '../../core/bounds.js';
import { wait } from '../../core/wait.js';
import type {
  EmulatedCallback,
  EmulatedMessage,
  EmulatorCoreOptions,
  InvokeCommandInput,
  InvokedInteraction,
  SeedData,
  UserClickInput,
  UserModalSubmitInput,
} from './types.js';

/** Options of {@link createEmulator}. */
export interface EmulatorOptions extends EmulatorCoreOptions {
  /** Port to listen on; 0 picks a free one. @default 0 */
  port?: number | undefined;
  /** Address to listen on. @default "127.0.0.1" */
  host?: string | undefined;
  /**
   * Host names the emulator answers to besides this machine's (loopback
   * names, IP literals, `host`): a container's or a proxy's name
   * (`['emulator']` in a Compose network). Any port is accepted, so a proxy or
   * a port mapping (`docker run -p 9000:8080`) works; checking the name alone
   * defeats DNS rebinding. Exact names only (no wildcard, port or path;
   * compared without case); `baseUrl`'s host name is added. `ValidationError`
   * otherwise. @default []
   */
  allowedHosts?: readonly string[] | undefined;
  /** Heartbeat interval the Gateway announces, milliseconds. @default 41250 */
  heartbeatIntervalMs?: number | undefined;
  /** Serve the playground, a web page to chat with your bot, at the root URL (`/`). The CLI turns it on. @default false */
  playground?: boolean | undefined;
  /** The largest request body read, bytes; a larger one is answered 413 and its connection closed, on every route. @default 26214400 (25 MiB) */
  maxBodyBytes?: number | undefined;
}

/** The default largest request body the emulator reads: 25 MiB (Discord's attachment size for a bot without boosts). */
const DEFAULT_EMULATOR_MAX_BODY_BYTES = 25 * 1024 * 1024;

/** How long a disconnected Gateway session stays resumable unless `gateway.resumeWindowMs` says otherwise (assumption 80). */
const DEFAULT_RESUME_WINDOW_MS = 180_000;

/** Content types a request body may have: JSON everywhere, multipart on the upload route. */
const BODY_TYPES = /^(application\/json|multipart\/form-data)\s*(;|$)/i;

/** Answers a refused request with a small JSON error, then lets the connection go. */
function refuse(request: http.IncomingMessage, response: http.ServerResponse, status: number, message: string): void {
  const body = JSON.stringify({ message, code: 0 });
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), connection: 'close' });
  response.end(body, () => request.socket.destroy());
}

/** A running emulator. `Name`: the command names `invokeCommand` takes (any by default; the kit narrows it to the commands it registered). */
export interface Emulator<Name extends string = string> {
  /** Base URL to give a `Client` (e.g. `http://127.0.0.1:8080`). */
  readonly url: string;
  /** The Gateway URL. */
  readonly gatewayUrl: string;
  /** Demo data: user credentials, application, bot token, community, channel, webhook and its URL (see {@link SeedData}). */
  readonly seed: SeedData;
  /**
   * The emulator's clock, epoch milliseconds (real time plus `advanceTime`).
   * Give it to the SDK, `new Client({ clock: emulator.clock })`, so that its
   * interaction expiry and session refresh follow the emulator's time.
   */
  readonly clock: () => number;
  /**
   * Faults on demand: `faults.next({ operation, status, times })` makes the
   * next calls answer 401, 403, 404, 429 (with `retryAfterMs` and `scope`),
   * 500 or 503 in the service's wording, wait (`latencyMs`) or reset the
   * connection (`reset: true`); `latencyMs` and `errorRate` apply to every
   * call; `clear()` drops them all. The Gateway's faults are
   * `dropGatewayConnections(code)`.
   */
  readonly faults: EmulatorFaults;
  /** The in-memory state and its control API. */
  readonly core: EmulatorCore;
  /** The playground's URL (the root of `baseUrl`, else of `url`), when the `playground` option is on. */
  readonly playgroundUrl: string | undefined;
  /**
   * Simulates a user running a slash command (or typing in it, with
   * `focused`), delivered to the application's webhooks subscribed to
   * INTERACTION_CREATE, else to the bot over the Gateway. Throws
   * `EmulatorUnknownCommandError` for a command not registered there, and
   * `EmulatorInvalidOptionsError` for options that do not fit it (`focused`
   * must name an option defined with `autocomplete: true`).
   */
  invokeCommand(input: InvokeCommandInput<Name>): InvokedInteraction;
  /**
   * Simulates a user clicking a button (or choosing in a select menu) the
   * bot posted: by default on the latest message in the channel carrying a
   * component with that `custom_id`, so a test never looks the message up.
   * `response` settles with what the bot answered. Throws
   * `EmulatorNotFoundError` when no message carries it, and
   * `ValidationError` for what no client could send (values on a button;
   * for a select menu, a value not among its options, a duplicate, a count
   * outside `min_values`/`max_values`).
   */
  clickComponent(input: UserClickInput): InvokedInteraction;
  /**
   * Simulates a user submitting the modal the bot opened: by default the
   * latest interaction the bot answered with a modal. `response` settles with
   * what the bot answered. Throws `EmulatorNotFoundError` when the bot opened
   * no modal, and `ValidationError` for a field the modal does not hold, a
   * required one missing, or a modal already submitted.
   */
  submitModal(input: UserModalSubmitInput): InvokedInteraction;
  /** Messages posted to a channel by webhooks and interaction replies. */
  messages(channelId?: string): EmulatedMessage[];
  /** Changes the shard count `GET /gateway/bot` recommends, as the service does when a bot grows (`gateway.autoReshard` follows it). */
  recommendShards(count: number): void;
  /** Moves the emulator's clock forward (access tokens and interactions expire after 15 minutes); the SDK follows only with `clock: emulator.clock`. */
  advanceTime(ms: number): void;
  /**
   * Drops every Gateway connection: without a code, as a network failure
   * would (no close frame); with one, closes with it (for example 4000 to
   * make the bot resume, 4004 to make it give up).
   * @param code The close code. @default undefined (no close frame)
   */
  dropGatewayConnections(code?: number): void;
  /**
   * Clears what happened, keeping what was set up: messages, interactions
   * (pending ones are ended), webhook deliveries, API logs, rate-limit
   * windows and webhook executions, activities, drive links added, mail,
   * faults and the clock offset go back to how the emulator started; users,
   * applications and their commands and webhooks, communities, channels and
   * Gateway sessions stay. For `beforeEach` with a bot started once per file.
   */
  reset(): void;
  /** Whether the bot (or the seeded bot) has a live Gateway session. */
  isBotConnected(botToken?: string): boolean;
  /** Waits until the bot has a live Gateway session; rejects with {@link EmulatorError} after `timeoutMs` (default 10,000). */
  waitForBot(options?: { botToken?: string; timeoutMs?: number }): Promise<void>;
  /**
   * Dispatches any Gateway event to the bot's sessions (e.g. `MESSAGE_CREATE`), as the service would: a sharded session
   * gets it only when its `guild_id` is on its shard; a disconnected, resumable session gets it on resume. Returns how many
   * connected sessions got it now. Throws `TypeError` for a type that is not an upper-case event name.
   */
  dispatchEvent(type: string, data: Record<string, unknown>, options?: { botToken?: string }): number;
  /**
   * Resolves once the emulator is idle: every interaction it delivered was
   * answered (or expired, or reached nobody), every webhook delivery finished
   * (succeeded or failed, retries included) and no REST request is in
   * flight. Use it instead of a sleep after driving a bot. Rejects with
   * {@link EmulatorError}, saying what is still pending, after `timeoutMs`
   * (default 10,000; from 1 ms to `MAX_TIMER_MS`, else it rejects with
   * `ValidationError`).
   */
  waitForIdle(options?: { timeoutMs?: number }): Promise<void>;
  /** The Gateway's counters (connections, identifies, resumes, heartbeats, tooEarlyIdentifies) and every Identify it received. */
  readonly gatewayStats: {
    /** The Gateway server's counters (see {@link GatewayServer.stats}). */
    readonly counts: GatewayServer['stats'];
    /** Every Identify received, oldest first (at most the last 10,000). */
    readonly identifies: readonly IdentifyRecord[];
    /** Identify refused because the bot was past its session start limit (see `gateway.sessionStartLimit`). */
    readonly sessionStartsRefused: number;
    /** One bot's Identify, Resume and refused Resume counts. @param botToken the bot's token (default: the seed's) */
    forBot(botToken?: string): BotGatewayStats;
  };
  /** Stops the emulator, its delivery retries and every connection. Safe to call twice. */
  close(): Promise<void>;
  /** Stops the emulator at the end of an `await using` scope: the same as {@link Emulator.close}. */
  [Symbol.asyncDispose](): Promise<void>;
}

export type { EmulatedCallback, EmulatedMessage, InvokeCommandInput, InvokedInteraction, SeedData };

/**
 * Starts a stateful, in-memory Community Chat Service on loopback: the whole
 * REST contract plus the Gateway, with seeded demo data.
 *
 * @example
 * ```ts
 * const emulator = await createEmulator();
 * const client = new Client({ baseUrl: emulator.url, auth: { botToken: emulator.seed.botToken } });
 * ```
 */
export async function createEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  checkCoreOptions('createEmulator', options, SERVER_OPTIONS);
  checkCount('createEmulator', 'port', options.port, { max: 65_535 });
  checkDuration('createEmulator', 'heartbeatIntervalMs', options.heartbeatIntervalMs, { min: 1 });
  checkCount('createEmulator', 'maxBodyBytes', options.maxBodyBytes, { min: 1 });
  const publicBase = checkBaseUrl('createEmulator', options.baseUrl);
  // Lowercased once; the public URL's own name is one of them, so requests through that proxy pass the Host check.
  const allowedHosts = checkHostNames('createEmulator', 'allowedHosts', options.allowedHosts);
  if (publicBase !== undefined) allowedHosts.push(publicBase.hostname.replace(/^\[|\]$/g, '').toLowerCase());
  const core = new EmulatorCore(coreOptionsOf(options));
  let playground: Playground | undefined;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_EMULATOR_MAX_BODY_BYTES;
  const listenAddress = () => {
    const { address, port } = server.address() as AddressInfo;
    return { host: options.host ?? address, port, allowedHosts };
  };
  // REST requests in flight, and the checks of waitForIdle() to run when one ends.
  let requestsInFlight = 0;
  const idleChecks = new Set<() => void>();
  const server = http.createServer((request, response) => safely(response, () => serve(request, response)));
  const serve = (request: http.IncomingMessage, response: http.ServerResponse) => {
    requestsInFlight++;
    let counted = true;
    const ended = () => {
      if (!counted) return;
      counted = false;
      requestsInFlight--;
      for (const check of [...idleChecks]) check();
    };
    response.once('close', ended);
    // The same doors for every route: a Host of this machine (no DNS rebinding), no foreign Origin, JSON (or multipart) bodies only.
    const door = doorRefusal(request.headers, listenAddress());
    if (door !== undefined) return refuse(request, response, 403, `refused: ${door}`);
    const type = request.headers['content-type'];
    const declared = Number(request.headers['content-length'] ?? 0);
    const hasBody = declared > 0 || request.headers['transfer-encoding'] !== undefined;
    if (hasBody && !BODY_TYPES.test(type ?? ''))
      return refuse(request, response, 415, 'request bodies must be application/json (multipart/form-data for uploads)');
    if (declared > maxBodyBytes) return refuse(request, response, 413, `request body over ${maxBodyBytes} bytes`);
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    request.on('data', (chunk: Buffer) => {
      if (tooLarge) return;
      size += chunk.length;
      // Counted as it streams: past the cap, nothing more is kept, and the connection goes after the 413.
      if (size > maxBodyBytes) {
        tooLarge = true;
        chunks.length = 0;
        refuse(request, response, 413, `request body over ${maxBodyBytes} bytes`);
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () =>
      safely(response, () => {
        if (tooLarge) return;
        // The playground's own requests (its page, its event stream) are not the bot's: they never count as in flight.
        if (playground?.serve(request, response, Buffer.concat(chunks).toString('utf8'))) return ended();
        const headers: Record<string, string | undefined> = {};
        for (const [name, value] of Object.entries(request.headers)) headers[name] = Array.isArray(value) ? value.join(', ') : value;
        core
          .handle({ method: request.method ?? 'GET', url: request.url ?? '/', headers, body: Buffer.concat(chunks).toString('utf8') })
          .then((answer) => {
            if (response.destroyed) return;
            // An injected fault: the connection is reset, nothing is answered.
            if (answer.reset === true) return void request.socket.resetAndDestroy();
            response.writeHead(answer.status, answer.headers);
            response.end(answer.body);
          })
          .catch(() => failed(response));
      }),
    );
    request.on('error', () => undefined);
  };
  server.keepAliveTimeout = 5000;
  let gatewayUrl = '';
  const gateway = new GatewayServer({
    server,
    path: GATEWAY_PATH,
    identity: (token) => core.startGatewaySession(token),
    resumeWindowMs: options.gateway?.resumeWindowMs ?? DEFAULT_RESUME_WINDOW_MS,
    resumeGatewayUrl: () => gatewayUrl,
    heartbeatIntervalMs: options.heartbeatIntervalMs,
    onTraffic: (event) => playground?.onGateway(event),
    identifyPacing: options.gateway && {
      maxConcurrency: options.gateway.maxConcurrency ?? 1,
      intervalMs: options.gateway.identifyIntervalMs ?? 5000,
      clock: () => core.now(),
    },
    admit: (request) => doorRefusal(request.headers, listenAddress()),
  });
  if (options.playground === true) {
    playground = createPlayground({
      core,
      listen: listenAddress,
      botSessions: () => gateway.connectedSessions(),
      dropGateway: () => gateway.dropConnections(),
    });
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;
  // Behind a proxy or a port mapping, the URLs in answers (the Gateway's above all) are the public ones.
  const publicUrl = publicBase === undefined ? url : `${publicBase.origin}${publicBase.pathname}`.replace(/\/+$/, '');
  gatewayUrl = gatewayUrlOf(publicUrl);
  core.attachGateway(gateway, publicUrl);
  let closed = false;
  const emulator: Emulator = {
    url,
    gatewayUrl,
    seed: core.seed,
    clock: core.clock,
    faults: core.faults,
    core,
    playgroundUrl: playground ? `${publicUrl}/` : undefined,
    invokeCommand: (input) => core.invokeCommand(input),
    clickComponent: (input) => {
      checkSimulation('clickComponent', input, ['customId']);
      const { customId, messageId, channelId, values, userId } = input;
      const channel = channelId ?? core.seed.channelId;
      const message = messageId ?? core.findMessageWithComponent(channel, customId)?.id;
      if (message === undefined) throw new EmulatorNotFoundError(`no message in channel ${channel} carries a component with custom_id ${customId}`);
      return core.clickComponent({ messageId: message, customId, values, userId });
    },
    submitModal: (input) => {
      checkSimulation('submitModal', input);
      const { fields, interactionId, userId } = input;
      const opener = interactionId ?? core.latestModalOpener();
      if (opener === undefined) throw new EmulatorNotFoundError('the bot opened no modal (no interaction was answered with interaction_type 9)');
      return core.submitModal({ interactionId: opener, fields, userId });
    },
    messages: (channelId) => core.messages(channelId ?? core.seed.channelId),
    advanceTime: (ms) => core.advanceTime(ms),
    recommendShards: (count) => core.recommendShards(count),
    dropGatewayConnections: (code) => gateway.dropConnections(code ?? 'terminate'),
    reset: () => core.reset(),
    gatewayStats: {
      counts: gateway.stats,
      identifies: gateway.identifyLog,
      get sessionStartsRefused() {
        return core.sessionStartsRefused();
      },
      forBot: (botToken) => gateway.statsOf(botToken ?? core.seed.botToken),
    },
    dispatchEvent(type, data, options = {}) {
      if (!/^[A-Z][A-Z0-9_]*$/.test(type)) throw new TypeError(`dispatchEvent: ${JSON.stringify(type)} is not a Gateway event name (e.g. MESSAGE_CREATE)`);
      return gateway.dispatchToToken(options.botToken ?? core.seed.botToken, type, data);
    },
    isBotConnected: (botToken) => gateway.connectedSessions(botToken ?? core.seed.botToken) > 0,
    async waitForIdle(options = {}) {
      const timeoutMs = checkWaitTimeout('waitForIdle', options, ['timeoutMs'], 10_000);
      const pending = () => {
        const work = core.pendingWork();
        const waiting = core.pendingInteractions();
        const named = waiting.slice(0, 5).map((one) => `interaction ${one.id} (${one.what} by user ${one.userId}, delivered ${one.ageMs} ms ago) not answered`);
        if (waiting.length > named.length) named.push(`${waiting.length - named.length} more interaction(s) not answered`);
        const parts = [
          ...named,
          work.deliveries > 0 ? `${work.deliveries} webhook deliveries not finished` : '',
          requestsInFlight > 0 ? `${requestsInFlight} REST request(s) in flight` : '',
        ].filter((part) => part !== '');
        return parts.join(', ');
      };
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (pending() !== '') return;
          done();
          resolve();
        };
        // State changes (an answer, a delivery finishing) and request ends are the events; each is checked once the change is whole.
        const stopObserving = core.observe(() => queueMicrotask(check));
        const timer = setTimeout(() => {
          done();
          reject(new EmulatorError(`the emulator was not idle within ${timeoutMs} ms: ${pending()}`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          stopObserving();
          idleChecks.delete(check);
        };
        idleChecks.add(check);
        check();
      });
    },
    async waitForBot(options = {}) {
      const timeoutMs = checkWaitTimeout('waitForBot', options, ['timeoutMs', 'botToken'], 10_000);
      const { botToken } = options;
      const started = Date.now();
      while (gateway.connectedSessions(botToken ?? core.seed.botToken) === 0) {
        if (Date.now() - started > timeoutMs)
          throw new EmulatorError(
            `no bot connected to the emulator's Gateway within ${timeoutMs} ms (is it connected with client.gateway.connect() to this emulator's URL?)`,
          );
        await wait(10);
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      playground?.close();
      await core.close();
      await gateway.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    [Symbol.asyncDispose]() {
      return emulator.close();
    },
  };
  return emulator;
}
