/**
 * The Client: options, wiring, and the resource managers.
 *
 * @module
 */

import type { Dispatcher } from 'undici';
import { UserSession, type SessionSnapshot } from './auth/session.js';
import { BotTokenStrategy, RefreshCookieStrategy, UserBearerStrategy, WebhookTokenStrategy, type CredentialStrategy } from './auth/strategies.js';
import { ValidationError } from './errors.js';
import { REDACTED, inspectSymbol } from './redact.js';
import { RestClient, type CustomRoute, type RequestInput, type RouteOverrides } from './rest/rest-client.js';
import { FetchTransport, UndiciTransport, type Transport } from './rest/transport.js';
import type { CredentialKind } from './routes.js';
import { ActivitiesManager } from './resources/activities.js';
import { ApplicationWebhooksManager } from './resources/application-webhooks.js';
import { ApplicationsManager } from './resources/applications.js';
import { AuthManager, defaultAccessTokenReader, type AccessTokenReader } from './resources/auth.js';
import { BotsManager } from './resources/bots.js';
import { ChannelsManager } from './resources/channels.js';
import { CommandsManager } from './resources/commands.js';
import { InteractionsManager } from './resources/interactions.js';
import { UsersManager } from './resources/users.js';
import { WebhooksManager } from './resources/webhooks.js';

/** Credentials a client starts with. All are optional; add more later. */
export interface ClientAuth {
  /** A bot token, sent as `Authorization: Bot <token>`. */
  botToken?: string | undefined;
  /** A user session exported earlier with `client.session.export()`. Use `client.auth.login()` to start a new one. */
  session?: SessionSnapshot | undefined;
  /** Webhook path tokens, by webhook id. */
  webhookTokens?: Record<string, string> | undefined;
}

/** Options of {@link Client}. */
export interface ClientOptions {
  /** Where the service runs, without the `/api/v1` prefix. @default "http://localhost:8080" */
  baseUrl?: string | undefined;
  /** Path prefix of every operation. @default "/api/v1" */
  apiPrefix?: string | undefined;
  /** Path prefix of login, refresh and logout (not shown in the contract). @default "/api/v1" */
  authPrefix?: string | undefined;
  /** Credentials. */
  auth?: ClientAuth | undefined;
  /** Default application id for command calls. @default undefined */
  applicationId?: string | undefined;
  /** Which credential to use when an operation accepts both bot and user. @default "bot" */
  preferredCredential?: 'bot' | 'user' | undefined;
  /**
   * The HTTP stack: `"undici"` (fast, the Node default), `"fetch"` (uses
   * `globalThis.fetch` at each request, so MSW intercepts it in tests), or
   * your own {@link Transport}.
   * @default "undici" on Node, "fetch" elsewhere
   */
  transport?: 'undici' | 'fetch' | Transport | undefined;
  /** An undici dispatcher (e.g. a ProxyAgent) for the undici transport. @default a keep-alive Pool per origin */
  dispatcher?: Dispatcher | undefined;
  /** Per-attempt timeout in milliseconds. @default 30000 */
  timeoutMs?: number | undefined;
  /** Allow credentials over plain `http://` to a host that is not loopback. @default false */
  allowInsecureHttp?: boolean | undefined;
  /** Overrides of route-table rows (method, path or accepted credentials) by operation id. @default {} */
  routeOverrides?: RouteOverrides | undefined;
  /** Form field name of uploaded attachment files. @default "file" */
  attachmentFieldName?: string | undefined;
  /** Reads the access token from login and refresh responses. @default access_token, accessToken or token */
  readAccessToken?: AccessTokenReader | undefined;
  /** The clock, in epoch milliseconds. @default Date.now */
  now?: (() => number) | undefined;
}

/** Resolved, non-secret view of a client's configuration. */
export interface ClientSummary {
  /** Base URL. */
  baseUrl: string;
  /** Credentials held, by kind (values are always redacted). */
  credentials: Partial<Record<CredentialKind, string>>;
}

function createTransport(option: ClientOptions['transport'], dispatcher: Dispatcher | undefined): Transport {
  if (typeof option === 'object') return option;
  const choice = option ?? (typeof process !== 'undefined' && process.versions?.node ? 'undici' : 'fetch');
  return choice === 'fetch' ? new FetchTransport() : new UndiciTransport(dispatcher ? { dispatcher } : {});
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
export class Client {
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

  readonly #rest: RestClient;
  readonly #credentials: Partial<Record<CredentialKind, CredentialStrategy>>;
  #applicationId: string | undefined;

  constructor(options: ClientOptions = {}) {
    const url = parseBaseUrl(options.baseUrl ?? 'http://localhost:8080');
    const basePath = url.pathname.replace(/\/+$/, '');
    this.baseUrl = url.origin + basePath;
    this.session = new UserSession(options.now);
    if (options.auth?.session) this.session.restore(options.auth.session);
    this.webhookTokens = new WebhookTokenStrategy(options.auth?.webhookTokens);
    this.#credentials = {
      user: new UserBearerStrategy(this.session),
      refreshCookie: new RefreshCookieStrategy(this.session),
      webhook: this.webhookTokens,
    };
    if (options.auth?.botToken !== undefined) this.setBotToken(options.auth.botToken);
    this.#applicationId = options.applicationId;
    this.#rest = new RestClient({
      origin: url.origin,
      apiPrefix: basePath + normalizePrefix(options.apiPrefix ?? '/api/v1'),
      authPrefix: basePath + normalizePrefix(options.authPrefix ?? '/api/v1'),
      transport: createTransport(options.transport, options.dispatcher),
      credentials: this.#credentials,
      preferredCredential: options.preferredCredential ?? 'bot',
      allowInsecureHttp: options.allowInsecureHttp ?? false,
      timeoutMs: options.timeoutMs ?? 30_000,
      routeOverrides: options.routeOverrides ?? {},
      onSetCookie: (values) => this.session.cookies.storeSetCookieHeaders(values),
    });
    const rest = this.#rest;
    this.applications = new ApplicationsManager(rest);
    this.bots = new BotsManager(rest);
    this.applicationWebhooks = new ApplicationWebhooksManager(rest);
    this.commands = new CommandsManager(rest, () => this.#applicationId);
    this.activities = new ActivitiesManager(rest);
    this.channels = new ChannelsManager(rest, options.attachmentFieldName ?? 'file');
    this.webhooks = new WebhooksManager(rest);
    this.interactions = new InteractionsManager(rest);
    this.auth = new AuthManager(rest, this.session, options.readAccessToken ?? defaultAccessTokenReader);
    this.users = new UsersManager(rest);
  }

  /** Sets or replaces the bot token (e.g. after `bots.resetToken()`). */
  setBotToken(token: string): void {
    if (typeof token !== 'string' || token.trim() === '' || /\s/.test(token)) {
      throw new ValidationError('Client', [{ path: 'auth.botToken', message: 'must be a non-empty string without spaces (pass the token only, without "Bot ")' }]);
    }
    const current = this.#credentials.bot;
    if (current instanceof BotTokenStrategy) current.setToken(token);
    else this.#credentials.bot = new BotTokenStrategy(token);
  }

  /** Forgets the bot token. */
  clearBotToken(): void {
    delete this.#credentials.bot;
  }

  /** The default application id for command calls. */
  get applicationId(): string | undefined {
    return this.#applicationId;
  }

  set applicationId(id: string | undefined) {
    this.#applicationId = id;
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

  /** Closes idle connections. The client can still be used afterwards. */
  close(): Promise<void> {
    return this.#rest.close();
  }

  /** A summary that never contains secrets. */
  toJSON(): ClientSummary {
    const credentials: Partial<Record<CredentialKind, string>> = {};
    if (this.#credentials.bot) credentials.bot = REDACTED;
    if (this.session.accessToken !== undefined) credentials.user = REDACTED;
    if (this.session.canRefresh) credentials.refreshCookie = REDACTED;
    return { baseUrl: this.baseUrl, credentials };
  }

  /** Redacted view for `util.inspect`. */
  [inspectSymbol](): string {
    return `Client ${JSON.stringify(this.toJSON())}`;
  }
}
