/**
 * The Client: options, wiring, and the resource managers.
 *
 * @module
 */

import { EventEmitter } from 'eventemitter3';
import { SessionRefresher, defaultAccessTokenReader, type AccessTokenReader, type UserSessionStore } from '../auth/refresher.js';
import { UserSession, type SessionSnapshot } from '../auth/session.js';
import { BotTokenStrategy, RefreshCookieStrategy, UserBearerStrategy, WebhookTokenStrategy, type CredentialStrategy } from '../auth/strategies.js';
import { ValidationError } from '../errors/index.js';
import { REDACTED, inspectSymbol } from '../core/redact.js';
import { Gateway } from '../gateway/gateway.js';
import type { GatewayCloseOptions } from '../gateway/options.js';
import type { GatewayOptions } from '../gateway/options.js';
import { storeErrorOf, type ClientEvents } from '../observe/events.js';
import { checkPipelineOptions, createRestClient } from '../rest/create-rest-client.js';
import type { RequestHooks } from '../observe/hooks.js';
import { PIPELINE_OPTIONS, type CallOptions, type CustomRoute, type PipelineOptions, type RequestInput, type RouteOverrides } from '../rest/options.js';
import { checkDuration, optionNames, refuseUnknownOptions } from '../core/bounds.js';
import { checkCloseOptions, checkGatewayOptions } from '../gateway/options.js';
import type { RestClient } from '../rest/rest-client.js';
import { API_PREFIX, type CredentialKind } from '../core/routes.js';
import { ActivitiesManager } from '../resources/activities.js';
import { ApplicationWebhooksManager } from '../resources/application-webhooks.js';
import { ApplicationsManager } from '../resources/applications.js';
import { AuthManager } from '../resources/auth.js';
import { BotsManager } from '../resources/bots.js';
import { ChannelsManager } from '../resources/channels.js';
import { CommandsManager } from '../resources/commands.js';
import { InteractionsManager } from '../resources/interactions.js';
import { UsersManager } from '../resources/users.js';
import { WebhooksManager } from '../resources/webhooks.js';

/** Credentials a client starts with. All are optional; add more later. */
export interface ClientAuth {
  /** A bot token, sent as `Authorization: Bot <token>`. @default undefined (no bot token; `client.setBotToken()` sets one later) */
  botToken?: string | undefined;
  /** A user session exported earlier with `client.session.export()`. Use `client.auth.login()` to start a new one. @default undefined (no session) */
  session?: SessionSnapshot | undefined;
  /** Webhook path tokens, by webhook id. @default undefined (none; `client.webhookTokens.set()` adds them) */
  webhookTokens?: Record<string, string> | undefined;
}

/** Options of {@link Client}. */
export interface ClientOptions extends PipelineOptions {
  /** Where the service runs, without the `/api/v1` prefix. @default "http://localhost:8080" */
  baseUrl?: string | undefined;
  /** Path prefix of every operation. @default "/api/v1" */
  apiPrefix?: string | undefined;
  /** Path prefix of login, refresh and logout (not shown in the contract). @default "/api/v1" */
  authPrefix?: string | undefined;
  /** Credentials. @default undefined (none: until a login or `setBotToken()`, only the operations that need no credentials can succeed) */
  auth?: ClientAuth | undefined;
  /**
   * Which credential to use when an operation accepts both bot and user.
   * @default undefined: the route table's order, which tries the bot token first, except on the community-command routes (user first; docs/assumptions.md #6)
   */
  preferredCredential?: 'bot' | 'user' | undefined;
  /** Overrides of route-table rows (method, path or accepted credentials) by operation id. @default {} */
  routeOverrides?: RouteOverrides | undefined;
  /** Form field name of uploaded attachment files. @default "file" */
  attachmentFieldName?: string | undefined;
  /** Reads the access token from login and refresh responses. @default access_token, accessToken or token */
  readAccessToken?: AccessTokenReader | undefined;
  /** Persists the user session (access token and refresh cookie) across restarts. @default undefined */
  sessionStore?: UserSessionStore | undefined;
  /** Refresh the access token when it expires within this many milliseconds. @default 60000 */
  refreshMarginMs?: number | undefined;
  /** Options of `client.gateway`. @default {} */
  gateway?: GatewayOptions | undefined;
  /**
   * Whether an application, command, webhook, channel or activity in a
   * response must carry a string `id`: when one does not, the call rejects
   * with `UnexpectedResponseError` naming the field, so the types can promise
   * `id: string`. Set `false` to accept such responses as they are (their
   * `id` may then be missing despite its type). Nothing else in a response is
   * checked. @default true
   */
  requireResponseIds?: boolean | undefined;
}

/** The names of every `Client` option: any other is refused. */
const CLIENT_OPTIONS: readonly string[] = [
  ...PIPELINE_OPTIONS,
  ...optionNames<Omit<ClientOptions, keyof PipelineOptions>>({
    ...{ baseUrl: true, apiPrefix: true, authPrefix: true, auth: true, preferredCredential: true, routeOverrides: true },
    ...{ attachmentFieldName: true, readAccessToken: true, sessionStore: true, refreshMarginMs: true, gateway: true, requireResponseIds: true },
  }),
];

/** Options of earlier shapes, with what replaced them. */
const CLIENT_RENAMED = {
  applicationId: 'the application id as the first argument of client.commands methods (the option was removed)',
  now: 'clock',
} as const;

const AUTH_OPTIONS = optionNames<ClientAuth>({ botToken: true, session: true, webhookTokens: true });

/** Refuses `Client` options it cannot honour, naming each: unknown or renamed names, durations and counts out of bounds. */
function checkClientOptions(options: ClientOptions): void {
  refuseUnknownOptions('Client', options, CLIENT_OPTIONS, CLIENT_RENAMED);
  refuseUnknownOptions('Client (auth)', options.auth, AUTH_OPTIONS);
  checkPipelineOptions('Client', options);
  checkDuration('Client', 'refreshMarginMs', options.refreshMarginMs);
  checkGatewayOptions('Client', options.gateway);
}

/** Resolved, non-secret view of a client's configuration. */
export interface ClientSummary {
  /** Base URL. */
  baseUrl: string;
  /** Credentials held, by kind (values are always redacted). */
  credentials: Partial<Record<CredentialKind, string>>;
}

function parseBaseUrl(baseUrl: string): URL {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new ValidationError('Client', [{ path: 'baseUrl', message: 'must be an absolute http(s) URL' }]);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ValidationError('Client', [{ path: 'baseUrl', message: 'must use http: or https:' }]);
  }
  if (url.username || url.password) {
    throw new ValidationError('Client', [{ path: 'baseUrl', message: 'must not contain credentials' }]);
  }
  return url;
}

function normalizePrefix(prefix: string): string {
  const trimmed = prefix.replace(/\/+$/, '');
  return trimmed === '' || trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}

/**
 * The Community Chat Service client.
 *
 * @example
 * ```ts
 * const client = new Client({ baseUrl: 'https://chat.example.com', auth: { botToken: process.env.BOT_TOKEN } });
 * const channel = await client.channels.get('123');
 * ```
 */
export class Client extends EventEmitter<ClientEvents> {
  /** Applications, their public view, api-logs and metrics. */
  readonly applications: ApplicationsManager;
  /** Each application's bot, its token and invite URL. */
  readonly bots: BotsManager;
  /** Application-level webhooks, secrets, test deliveries and delivery history. */
  readonly applicationWebhooks: ApplicationWebhooksManager;
  /** Slash commands, global and per community. */
  readonly commands: CommandsManager;
  /** Channel activities. */
  readonly activities: ActivitiesManager;
  /** Channels, attachments and drive links. */
  readonly channels: ChannelsManager;
  /** Incoming webhooks: community management and execution. */
  readonly webhooks: WebhooksManager;
  /** The interaction callback. */
  readonly interactions: InteractionsManager;
  /** Login, refresh, logout and account flows. */
  readonly auth: AuthManager;
  /** `/users/@me`. */
  readonly users: UsersManager;
  /** The user session (access token and refresh cookie). */
  readonly session: UserSession;
  /** Webhook path tokens held by this client, by webhook id. */
  readonly webhookTokens: WebhookTokenStrategy;
  /** The base URL, without the API prefix. */
  readonly baseUrl: string;
  /**
   * Request hooks, read at each call: set `client.hooks.beforeRequest`,
   * `afterResponse` or `onError` at any time. The same object as the `hooks`
   * option when one was given. @default {}
   */
  readonly hooks: RequestHooks;

  readonly #rest: RestClient;
  readonly #credentials: Partial<Record<CredentialKind, CredentialStrategy>>;
  #gateway: Gateway | undefined;
  readonly #gatewayOptions: GatewayOptions;
  readonly #gatewayDefaultUrl: string;
  readonly #allowInsecure: boolean;
  readonly #now: () => number;

  constructor(options: ClientOptions = {}) {
    super();
    checkClientOptions(options);
    const url = parseBaseUrl(options.baseUrl ?? 'http://localhost:8080');
    const now = options.clock ?? Date.now;
    const basePath = url.pathname.replace(/\/+$/, '');
    this.baseUrl = url.origin + basePath;
    this.session = new UserSession(now);
    if (options.auth?.session) this.session.restore(options.auth.session);
    this.webhookTokens = new WebhookTokenStrategy(options.auth?.webhookTokens);
    this.#credentials = {
      user: new UserBearerStrategy(this.session),
      refreshCookie: new RefreshCookieStrategy(this.session),
      webhook: this.webhookTokens,
    };
    if (options.auth?.botToken !== undefined) this.setBotToken(options.auth.botToken);
    this.#gatewayOptions = options.gateway ?? {};
    this.#allowInsecure = options.allowInsecureHttp ?? false;
    this.#now = now;
    this.#gatewayDefaultUrl = `${url.protocol === 'https:' ? 'wss:' : 'ws:'}//${url.host}${basePath}${normalizePrefix(options.apiPrefix ?? API_PREFIX)}/gateway`;
    let refresher: SessionRefresher | undefined;
    this.hooks = options.hooks ?? {};
    this.#rest = createRestClient(
      { ...options, clock: now, hooks: this.hooks },
      {
        origin: url.origin,
        apiPrefix: basePath + normalizePrefix(options.apiPrefix ?? API_PREFIX),
        authPrefix: basePath + normalizePrefix(options.authPrefix ?? API_PREFIX),
        credentials: this.#credentials,
        preferredCredential: options.preferredCredential,
        routeOverrides: options.routeOverrides ?? {},
        onSetCookie: (values) => this.session.cookies.storeSetCookieHeaders(values),
        session: {
          ensureLoaded: () => refresher?.ensureLoaded(),
          prepare: () => refresher?.prepare(),
          onUnauthorized: (token) => refresher?.onUnauthorized(token) ?? Promise.resolve(false),
        },
        events: this,
      },
    );
    const rest = this.#rest;
    refresher = new SessionRefresher({
      session: this.session,
      // The options of a manual `auth.refresh(options)` arrive as `call`, through the shared lock's wait if there is one.
      performRefresh: (call) => rest.request('auth.refresh', { ...(call as CallOptions | undefined) }),
      readAccessToken: options.readAccessToken ?? defaultAccessTokenReader,
      refreshMarginMs: options.refreshMarginMs ?? 60_000,
      store: options.sessionStore,
      now,
      onRefreshed: (accessTokenExpiresAt, trigger) => {
        this.emit('sessionRefreshed', { accessTokenExpiresAt, trigger });
      },
      onExpired: (reason) => {
        this.emit('sessionExpired', { reason });
      },
      onStoreError: (error) => {
        const snapshot = this.session.export();
        const secrets = [snapshot.accessToken ?? '', ...snapshot.cookies.map((cookie) => cookie.value)].filter((value) => value !== '');
        const event = { store: 'session' as const, error: storeErrorOf(error, secrets) };
        this.emit('debug', `session store failed: ${event.error.message}`);
        this.emit('storeError', event);
      },
    });
    const requireIds = options.requireResponseIds ?? true;
    this.applications = new ApplicationsManager(rest, requireIds);
    this.bots = new BotsManager(rest);
    this.applicationWebhooks = new ApplicationWebhooksManager(rest, requireIds);
    this.commands = new CommandsManager(rest, requireIds);
    this.activities = new ActivitiesManager(rest, requireIds);
    this.channels = new ChannelsManager(rest, options.attachmentFieldName ?? 'file', requireIds);
    this.webhooks = new WebhooksManager(rest, requireIds);
    this.interactions = new InteractionsManager(rest);
    this.auth = new AuthManager(rest, refresher);
    this.users = new UsersManager(rest);
  }

  /**
   * The Gateway: connect it to receive INTERACTION_CREATE as typed
   * interactions whose `reply()` is bound to the callback endpoint. Its
   * WebSocket code loads on `connect()`. After `close()`, this gives a new one.
   *
   * @example
   * ```ts
   * client.gateway.onInteraction('command', (interaction) => interaction.reply('Hello!'));
   * await client.gateway.connect();
   * ```
   */
  get gateway(): Gateway {
    if (!this.#gateway || this.#gateway.status === 'destroyed') {
      this.#gateway = new Gateway(this.#gatewayOptions, {
        token: () => this.#botToken(),
        respond: (interactionId, body, options) => this.interactions.respond(interactionId, body, options),
        defaultUrl: this.#gatewayDefaultUrl,
        now: this.#now,
        allowInsecure: this.#allowInsecure,
        gatewayBot: () => this.request({ method: 'GET', path: '/gateway/bot', auth: ['bot'] }),
        // Asked before each Identify for the session start budget: once, fast (an unreachable service leaves the last count to decide).
        sessionStartLimit: () => this.request({ method: 'GET', path: '/gateway/bot', auth: ['bot'] }, { retries: 0, timeoutMs: 2000, deadlineMs: 2000 }),
      });
    }
    return this.#gateway;
  }

  #botToken(): string | undefined {
    const bot = this.#credentials.bot;
    return bot instanceof BotTokenStrategy ? bot.gatewayToken() : undefined;
  }

  /** Sets or replaces the bot token (e.g. after `bots.resetToken()`). */
  setBotToken(token: string): void {
    if (typeof token !== 'string' || token.trim() === '' || /\s/.test(token)) {
      throw new ValidationError('Client', [
        { path: 'auth.botToken', message: 'must be a non-empty string without spaces (pass the token only, without "Bot ")' },
      ]);
    }
    const current = this.#credentials.bot;
    if (current instanceof BotTokenStrategy) current.setToken(token);
    else this.#credentials.bot = new BotTokenStrategy(token);
  }

  /** Forgets the bot token. */
  clearBotToken(): void {
    delete this.#credentials.bot;
  }

  /**
   * Low-level escape hatch for routes the contract does not list (such as
   * `POST /channels/{channel_id}/drive-links`). It goes through the same
   * pipeline: credentials, path encoding, timeouts and typed errors.
   *
   * @example
   * ```ts
   * await client.request({ method: 'POST', path: '/channels/{channel_id}/drive-links' }, { params: { channel_id: '1' }, body: { url } });
   * ```
   */
  request<T = unknown>(route: CustomRoute, input?: RequestInput): Promise<T> {
    return this.#rest.requestCustom<T>(route, input);
  }

  /**
   * Closes the Gateway, if one was created, and closes idle HTTP
   * connections, so the process can exit. Safe to call more than once; REST
   * calls still work afterwards (they open new connections). `handOff: true`
   * keeps the Gateway's sessions resumable for a successor (see
   * {@link Gateway.close}): use it on a deploy's SIGTERM.
   *
   * @example
   * ```ts
   * await using client = new Client({ auth: { botToken } }); // closed when the scope ends
   * process.on('SIGTERM', () => void client.close({ handOff: true }).then(() => process.exit(0)));
   * ```
   */
  async close(options: GatewayCloseOptions = {}): Promise<void> {
    await this.#gateway?.close(checkCloseOptions('client.close', options));
    await this.#rest.close();
  }

  /** Closes the client at the end of an `await using` scope: the same as {@link Client.close}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /** A summary that never contains secrets. */
  toJSON(): ClientSummary {
    const credentials: Partial<Record<CredentialKind, string>> = {};
    if (this.#credentials.bot) credentials.bot = REDACTED;
    if (this.session.accessToken !== undefined) credentials.user = REDACTED;
    if (this.session.canRefresh) credentials.refreshCookie = REDACTED;
    return { baseUrl: this.baseUrl, credentials };
  }

  /** @internal Redacted view for `util.inspect`. (Node finds it by its registered symbol). */
  [inspectSymbol](): string {
    return `Client ${JSON.stringify(this.toJSON())}`;
  }
}
