/**
 * The emulator's core: a stateful, in-memory implementation of the whole
 * contract, independent of any transport. `createEmulator()` serves it over
 * node:http and ws; `createMswHandlers()` serves it through MSW.
 *
 * It routes with the SDK's own route table and validates with the SDK's own
 * schemas, and it answers with the shapes recorded in docs/assumptions.md.
 *
 * @module
 */

import type { ZodType } from 'zod';
import { routes, type OperationId, type RouteDefinition } from '../routes.js';
import * as schemas from '../schemas/requests.js';
import { countCharacters } from '../schemas/text.js';

/** A request as the core sees it. */
export interface EmulatorRequest {
  /** HTTP method. */
  method: string;
  /** Path and query, e.g. `/api/v1/channels/1?x=y`. */
  url: string;
  /** Headers, lower-case names. */
  headers: Record<string, string | undefined>;
  /** Raw body. */
  body: string;
}

/** A response from the core. */
export interface EmulatorResponse {
  /** HTTP status. */
  status: number;
  /** Headers; `set-cookie` may be an array. */
  headers: Record<string, string | string[]>;
  /** Body text (JSON unless the status is 204). */
  body: string;
}

/** A message posted to a channel by a webhook or an interaction reply. */
export interface EmulatedMessage {
  /** Message id. */
  id: string;
  /** Channel id. */
  channelId: string;
  /** Text. */
  content: string;
  /** Who posted it. */
  author: { kind: 'webhook' | 'bot'; id: string; name: string };
  /** How it was posted. */
  via: 'webhook' | 'interaction';
  /** When, epoch milliseconds (emulator clock). */
  createdAt: number;
}

/** An interaction callback the emulator received. */
export interface EmulatedCallback {
  /** Callback type. */
  interactionType: number;
  /** Callback data. */
  data: Record<string, unknown>;
  /** When, epoch milliseconds (emulator clock). */
  at: number;
}

/** The demo data an emulator starts with. Secrets included: it is a local test service. */
export interface SeedData {
  /** A user who owns the application and the community. */
  user: { id: string; email: string; password: string; username: string };
  /** A member of the community without MANAGE_WEBHOOKS. */
  member: { id: string; email: string; password: string; username: string };
  /** The demo application. */
  applicationId: string;
  /** Its bot's user id. */
  botUserId: string;
  /** Its bot token. */
  botToken: string;
  /** The community. */
  guildId: string;
  /** A text channel in it. */
  channelId: string;
  /** An incoming webhook for the channel. */
  webhook: { id: string; token: string };
}

/** Options of the core. */
export interface EmulatorCoreOptions {
  /** Seed for ids and tokens, so runs are reproducible. @default 1 */
  seed?: number | undefined;
  /** Global rate limit across all requests, or none. @default undefined */
  globalRateLimit?: { limit: number; windowMs: number } | undefined;
  /** Executions allowed per webhook per window. @default { limit: 30, windowMs: 60000 } */
  webhookRateLimit?: { limit: number; windowMs: number } | undefined;
  /** Access-token lifetime. @default 900000 */
  accessTokenLifetimeMs?: number | undefined;
}

/** Something that delivers Gateway dispatches to a bot. */
export interface DispatchTarget {
  /** Dispatches to sessions identified with `token`; returns how many sessions got it. */
  dispatchToToken(token: string, t: string, d: unknown): number;
  /** Closes the sessions of a token (after a reset). */
  closeSessionsOfToken(token: string, code: number): void;
}

interface User {
  id: string;
  email: string;
  password: string;
  username: string;
  verified: boolean;
}
interface Session {
  userId: string;
  accessToken: string;
  accessExpiresAt: number;
  refreshToken: string;
  revoked: boolean;
}
interface Command {
  id: string;
  application_id: string;
  guild_id?: string;
  name: string;
  description: string;
  options: unknown[];
  dm_permission: boolean;
  [field: string]: unknown;
}
interface Application {
  id: string;
  ownerId: string;
  name: string;
  description: string;
  extra: Record<string, unknown>;
  bot: { id: string; username: string; token: string };
  commands: Command[];
  guildCommands: Map<string, Command[]>;
  webhooks: Map<string, { id: string; url: string; events: string[]; secret: string; active: boolean; extra: Record<string, unknown> }>;
  deliveries: Record<string, unknown>[];
  apiLogs: Record<string, unknown>[];
}
interface Guild {
  id: string;
  name: string;
  ownerId: string;
  /** Member user ids with their permission flag. */
  members: Map<string, { manageWebhooks: boolean }>;
  botApplications: Set<string>;
}
interface Channel {
  id: string;
  guildId: string;
  name: string;
  topic: string;
  extra: Record<string, unknown>;
  readBy: Set<string>;
}
interface GuildWebhook {
  id: string;
  guildId: string;
  channelId: string;
  name: string;
  token: string;
  executions: number[];
}
interface Activity {
  id: string;
  channelId: string;
  fields: Record<string, unknown>;
  participants: Set<string>;
  paused: boolean;
  positionMs: number;
  state: Record<string, unknown>;
  ended: boolean;
  createdAt: number;
}
interface Interaction {
  id: string;
  token: string;
  applicationId: string;
  channelId: string;
  createdAt: number;
  acknowledgedWith: number | undefined;
  callbacks: EmulatedCallback[];
  waiters: ((callback: EmulatedCallback) => void)[];
}

/** Who a request is from. */
type Caller = { kind: 'user'; user: User } | { kind: 'bot'; app: Application } | { kind: 'webhook'; webhook: GuildWebhook } | { kind: 'refresh'; session: Session } | { kind: 'none' };

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: number = status * 100,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

const ACCESS_LIFETIME_MS = 15 * 60 * 1000;
const INTERACTION_LIFETIME_MS = 15 * 60 * 1000;
const DISCORD_EPOCH = 1_420_070_400_000n;

/** A small seeded PRNG (mulberry32). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const compiledRoutes = Object.entries(routes as Record<string, RouteDefinition>).map(([id, route]) => {
  const names: string[] = [];
  const pattern = route.path.replace(/\{([a-z_]+)\}/g, (_match, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  return { id: id as OperationId, route, names, regex: new RegExp(`^${pattern}$`) };
});

/** The stateful core. */
export class EmulatorCore {
  /** The seed data. */
  readonly seed: SeedData;
  /** Fault knobs: added latency and a rate of 503 answers on REST calls. */
  readonly faults = { latencyMs: 0, errorRate: 0 };
  /** Messages posted per channel. */
  readonly #messages = new Map<string, EmulatedMessage[]>();
  readonly #random: () => number;
  readonly #options: EmulatorCoreOptions;
  #clockOffset = 0;
  #idCounter = 0;
  #gateway: DispatchTarget | undefined;
  #baseUrl = 'http://localhost:8080';
  readonly #globalHits: number[] = [];
  /** Addresses and their mail (password reset and verification tokens). */
  readonly #mailbox = new Map<string, { kind: 'reset' | 'verify'; token: string }[]>();
  readonly #resetTokens = new Map<string, string>();
  readonly #verifyTokens = new Map<string, string>();

  readonly #users = new Map<string, User>();
  readonly #sessions: Session[] = [];
  readonly #apps = new Map<string, Application>();
  readonly #guilds = new Map<string, Guild>();
  readonly #channels = new Map<string, Channel>();
  readonly #webhooks = new Map<string, GuildWebhook>();
  readonly #activities = new Map<string, Activity>();
  readonly #interactions = new Map<string, Interaction>();
  readonly #driveLinks = new Map<string, Record<string, unknown>[]>();

  constructor(options: EmulatorCoreOptions = {}) {
    this.#options = options;
    this.#random = prng(options.seed ?? 1);
    const owner = this.#addUser('demo@example.com', 'demo-password', 'demo');
    const member = this.#addUser('member@example.com', 'member-password', 'member');
    const app = this.#addApplication(owner.id, 'Demo App', 'The demo application');
    const guild: Guild = { id: this.#id(), name: 'Demo Community', ownerId: owner.id, members: new Map(), botApplications: new Set([app.id]) };
    guild.members.set(owner.id, { manageWebhooks: true });
    guild.members.set(member.id, { manageWebhooks: false });
    this.#guilds.set(guild.id, guild);
    const channel = this.#addChannel(guild.id, 'general');
    this.#driveLinks.set(channel.id, [{ id: this.#id(), url: 'https://drive.example/demo-slides', title: 'Demo slides' }]);
    const webhook: GuildWebhook = { id: this.#id(), guildId: guild.id, channelId: channel.id, name: 'Announcements', token: this.#token(), executions: [] };
    this.#webhooks.set(webhook.id, webhook);
    this.seed = {
      user: { id: owner.id, email: owner.email, password: owner.password, username: owner.username },
      member: { id: member.id, email: member.email, password: member.password, username: member.username },
      applicationId: app.id,
      botUserId: app.bot.id,
      botToken: app.bot.token,
      guildId: guild.id,
      channelId: channel.id,
      webhook: { id: webhook.id, token: webhook.token },
    };
  }

  // ---------------------------------------------------------------- control API

  /** The emulator's clock (real time plus whatever `advanceTime` added). */
  now(): number {
    return Date.now() + this.#clockOffset;
  }

  /** Moves the clock forward, e.g. to expire access tokens (15 min) or interactions (15 min). */
  advanceTime(ms: number): void {
    this.#clockOffset += ms;
  }

  /** Connects the Gateway that delivers dispatches. */
  attachGateway(target: DispatchTarget, baseUrl: string): void {
    this.#gateway = target;
    this.#baseUrl = baseUrl;
  }

  /** Whether a token belongs to a bot (the Gateway's Identify check). */
  isBotToken(token: string): boolean {
    return [...this.#apps.values()].some((app) => app.bot.token === token);
  }

  /** Messages posted to a channel, oldest first. */
  messages(channelId: string): EmulatedMessage[] {
    return [...(this.#messages.get(channelId) ?? [])];
  }

  /** Mail sent to an address (password-reset and verification tokens). */
  mailbox(email: string): { kind: 'reset' | 'verify'; token: string }[] {
    return [...(this.#mailbox.get(email) ?? [])];
  }

  /** Creates a channel in a community (the contract has no route for it). Returns its id. */
  createChannel(name: string, guildId: string = this.seed.guildId): string {
    if (!this.#guilds.has(guildId)) throw new Error(`unknown community ${guildId}`);
    return this.#addChannel(guildId, name).id;
  }

  /** Sends a verification mail to a user, as signing up would. Returns the token. */
  sendVerificationMail(email: string): string {
    const token = this.#token();
    this.#verifyTokens.set(token, email);
    this.#deliverMail(email, { kind: 'verify', token });
    return token;
  }

  /**
   * Simulates a user running a slash command (or typing in one, for
   * autocomplete): creates the interaction, delivers INTERACTION_CREATE to
   * the application's bot over the Gateway, and returns it with a promise of
   * the bot's first answer.
   */
  invokeCommand(input: InvokeCommandInput): InvokedInteraction {
    const guildId = input.guildId ?? this.seed.guildId;
    const channelId = input.channelId ?? this.seed.channelId;
    const user = this.#users.get(input.userId ?? this.seed.user.id);
    if (!user) throw new Error(`unknown user ${String(input.userId)}`);
    const name = input.name.toLowerCase();
    const found = this.#findCommand(guildId, name, input.applicationId);
    if (!found) throw new Error(`no command "${name}" is registered for community ${guildId}`);
    const { app, command } = found;
    const optionTypes = new Map((command.options as { name: string; type: number }[]).map((option) => [option.name, option.type]));
    const options = Object.entries(input.options ?? {}).map(([optionName, value]) => ({
      name: optionName,
      type: optionTypes.get(optionName) ?? (typeof value === 'number' ? 10 : typeof value === 'boolean' ? 5 : 3),
      value,
      ...(input.focused === optionName ? { focused: true } : {}),
    }));
    const interaction: Interaction = {
      id: this.#id(),
      token: this.#token(),
      applicationId: app.id,
      channelId,
      createdAt: this.now(),
      acknowledgedWith: undefined,
      callbacks: [],
      waiters: [],
    };
    this.#interactions.set(interaction.id, interaction);
    const payload = {
      id: interaction.id,
      application_id: app.id,
      type: input.focused !== undefined ? 4 : 2,
      token: interaction.token,
      version: 1,
      guild_id: guildId,
      channel_id: channelId,
      member: { user: { id: user.id, username: user.username }, permissions: '0' },
      data: { id: command.id, name: command.name, type: 1, options },
      created_at: new Date(interaction.createdAt).toISOString(),
    };
    const delivered = this.#gateway?.dispatchToToken(app.bot.token, 'INTERACTION_CREATE', payload) ?? 0;
    const response = new Promise<EmulatedCallback>((resolve) => interaction.waiters.push(resolve));
    return { id: interaction.id, payload, delivered, response, callbacks: () => [...interaction.callbacks] };
  }

  // ---------------------------------------------------------------- request handling

  /** Handles one REST request. */
  async handle(request: EmulatorRequest): Promise<EmulatorResponse> {
    if (this.faults.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, this.faults.latencyMs));
    try {
      const url = new URL(request.url, 'http://emulator');
      if (this.faults.errorRate > 0 && this.#random() < this.faults.errorRate) throw new HttpError(503, 'injected failure (faults.errorRate)');
      this.#checkGlobalLimit();
      const path = url.pathname.startsWith('/api/v1/') ? url.pathname.slice('/api/v1'.length) : undefined;
      if (path === undefined) throw new HttpError(404, 'Not found: paths live under /api/v1');
      const match = this.#match(request.method, path);
      const caller = this.#authenticate(request, match.route, match.params);
      return await this.#dispatch(match.id, { request, params: match.params, query: url.searchParams, caller });
    } catch (error) {
      if (error instanceof HttpError) {
        return json(error.status, { message: error.message, code: error.code, ...error.extra }, error.headers);
      }
      return json(500, { message: `emulator error: ${error instanceof Error ? error.message : String(error)}`, code: 0 });
    }
  }

  #match(method: string, path: string): { id: OperationId; route: RouteDefinition; params: Record<string, string> } {
    let pathMatched = false;
    for (const candidate of compiledRoutes) {
      const found = candidate.regex.exec(path);
      if (!found) continue;
      pathMatched = true;
      if (candidate.route.method !== method) continue;
      const params: Record<string, string> = {};
      candidate.names.forEach((name, index) => {
        params[name] = decodeURIComponent(found[index + 1] ?? '');
      });
      return { id: candidate.id, route: candidate.route, params };
    }
    // The escape hatch's example: POST drive-links, which the contract leaves unshown.
    const drive = /^\/channels\/([^/]+)\/drive-links$/.exec(path);
    if (drive && method === 'POST') return { id: 'channels.createDriveLink' as OperationId, route: { method: 'POST', path: '/channels/{channel_id}/drive-links', auth: ['bot', 'user'] }, params: { channel_id: decodeURIComponent(drive[1] ?? '') } };
    throw new HttpError(pathMatched ? 405 : 404, pathMatched ? `Method ${method} not allowed here` : 'Unknown route', pathMatched ? 40500 : 0);
  }

  #authenticate(request: EmulatorRequest, route: RouteDefinition, params: Record<string, string>): Caller {
    const accepts = route.auth;
    if (accepts.includes('none')) return { kind: 'none' };
    if (accepts.includes('webhook')) {
      const webhook = this.#webhooks.get(params['webhook_id'] ?? '');
      if (!webhook) throw new HttpError(404, 'Unknown Webhook', 10015);
      if (webhook.token !== params['webhook_token']) throw new HttpError(401, 'Invalid Webhook Token', 50027);
      return { kind: 'webhook', webhook };
    }
    if (accepts.includes('refreshCookie')) {
      const cookie = request.headers['cookie'] ?? '';
      const token = /(?:^|;\s*)refresh_token=([^;]+)/.exec(cookie)?.[1];
      const session = this.#sessions.find((s) => s.refreshToken === token && !s.revoked);
      if (!session) throw new HttpError(401, 'Refresh token missing, expired or revoked', 40001);
      return { kind: 'refresh', session };
    }
    const header = request.headers['authorization'];
    if (!header) throw new HttpError(401, '401: Unauthorized (no credentials)', 40001);
    const [scheme, token] = header.split(' ', 2);
    let caller: Caller | undefined;
    if (scheme === 'Bearer' && token) {
      const session = this.#sessions.find((s) => s.accessToken === token);
      if (!session || session.revoked || session.accessExpiresAt <= this.now()) throw new HttpError(401, '401: Unauthorized (access token expired or revoked)', 40001);
      const user = this.#users.get(session.userId);
      if (user) caller = { kind: 'user', user };
    } else if (scheme === 'Bot' && token) {
      const app = [...this.#apps.values()].find((candidate) => candidate.bot.token === token);
      if (!app) throw new HttpError(401, '401: Unauthorized (invalid bot token)', 40001);
      caller = { kind: 'bot', app };
      app.apiLogs.push({ id: this.#id(), method: request.method, path: request.url.split('?')[0], at: new Date(this.now()).toISOString() });
    }
    if (!caller) throw new HttpError(401, '401: Unauthorized (malformed credentials)', 40001);
    if (!accepts.includes(caller.kind === 'user' ? 'user' : 'bot')) throw new HttpError(403, `This route does not accept ${caller.kind} credentials`, 50001);
    return caller;
  }

  #checkGlobalLimit(): void {
    const limit = this.#options.globalRateLimit;
    if (!limit) return;
    const now = this.now();
    while (this.#globalHits.length > 0 && (this.#globalHits[0] as number) <= now - limit.windowMs) this.#globalHits.shift();
    if (this.#globalHits.length >= limit.limit) {
      const retryAfter = ((this.#globalHits[0] as number) + limit.windowMs - now) / 1000;
      throw new HttpError(429, 'You are being rate limited.', 0, { retry_after: retryAfter, global: true }, { 'retry-after': retryAfter.toFixed(3), 'x-ratelimit-global': 'true', 'x-ratelimit-scope': 'global' });
    }
    this.#globalHits.push(now);
  }

  // ---------------------------------------------------------------- operations

  async #dispatch(id: OperationId | 'channels.createDriveLink', ctx: Context): Promise<EmulatorResponse> {
    const { params, caller } = ctx;
    switch (id) {
      // Authentication
      case 'auth.login': {
        const body = this.#validate(schemas.loginSchema, ctx);
        const user = [...this.#users.values()].find((u) => u.email.toLowerCase() === body.email.toLowerCase());
        if (!user || user.password !== body.password) throw new HttpError(401, 'Invalid e-mail or password', 50035);
        return this.#startSession(user);
      }
      case 'auth.refresh': {
        const session = (caller as Extract<Caller, { kind: 'refresh' }>).session;
        session.revoked = true;
        const user = this.#users.get(session.userId);
        if (!user) throw new HttpError(401, 'Unknown user');
        return this.#startSession(user);
      }
      case 'auth.logout': {
        (caller as Extract<Caller, { kind: 'refresh' }>).session.revoked = true;
        return { status: 204, headers: { 'set-cookie': 'refresh_token=; Path=/api/v1/auth; HttpOnly; Max-Age=0' }, body: '' };
      }
      case 'auth.forgotPassword': {
        const body = this.#validate(schemas.forgotPasswordSchema, ctx);
        const email = String(body['email'] ?? '');
        if ([...this.#users.values()].some((u) => u.email === email)) {
          const token = this.#token();
          this.#resetTokens.set(token, email);
          this.#deliverMail(email, { kind: 'reset', token });
        }
        return noContent();
      }
      case 'auth.resetPassword': {
        const body = this.#validate(schemas.resetPasswordSchema, ctx);
        const email = this.#resetTokens.get(String(body['token'] ?? ''));
        const password = String(body['password'] ?? '');
        if (!email) throw new HttpError(400, 'Invalid or expired reset token', 50035);
        if (password.length < 8) throw new HttpError(400, 'Password must be at least 8 characters', 50035, { errors: { password: 'too short' } });
        const user = [...this.#users.values()].find((u) => u.email === email);
        if (user) user.password = password;
        this.#resetTokens.delete(String(body['token']));
        for (const session of this.#sessions) if (session.userId === user?.id) session.revoked = true;
        return noContent();
      }
      case 'auth.verifyEmail': {
        const email = this.#verifyTokens.get(params['token'] ?? '');
        if (!email) throw new HttpError(400, 'Invalid or expired verification token', 50035);
        this.#verifyTokens.delete(params['token'] ?? '');
        const user = [...this.#users.values()].find((u) => u.email === email);
        if (user) user.verified = true;
        return json(200, { verified: true, email });
      }
      case 'users.getMe':
        if (caller.kind === 'bot') return json(200, { id: caller.app.bot.id, username: caller.app.bot.username, bot: true });
        return json(200, this.#publicUser((caller as Extract<Caller, { kind: 'user' }>).user));

      // Applications
      case 'applications.list':
        return json(200, [...this.#apps.values()].filter((app) => app.ownerId === this.#user(caller).id).map((app) => this.#appView(app)));
      case 'applications.create': {
        const body = this.#validate(schemas.createApplicationSchema, ctx);
        const { name, description, ...extra } = body;
        if (typeof name !== 'string' || name.trim() === '') throw new HttpError(400, 'Invalid Form Body', 50035, { errors: { name: 'is required' } });
        const app = this.#addApplication(this.#user(caller).id, name, typeof description === 'string' ? description : '', extra);
        return json(201, this.#appView(app));
      }
      case 'applications.get':
        return json(200, this.#appView(this.#ownedApp(caller, params)));
      case 'applications.update': {
        const app = this.#ownedApp(caller, params);
        const { name, description, ...extra } = this.#validate(schemas.updateApplicationSchema, ctx);
        if (typeof name === 'string' && name.trim() !== '') app.name = name;
        if (typeof description === 'string') app.description = description;
        Object.assign(app.extra, extra);
        return json(200, this.#appView(app));
      }
      case 'applications.delete': {
        const app = this.#ownedApp(caller, params);
        this.#apps.delete(app.id);
        this.#gateway?.closeSessionsOfToken(app.bot.token, 4004);
        return noContent();
      }
      case 'applications.getPublic': {
        const app = this.#apps.get(params['app_id'] ?? '');
        if (!app) throw new HttpError(404, 'Unknown Application', 10002);
        return json(200, { id: app.id, name: app.name, description: app.description, bot_public: true });
      }
      case 'applications.listApiLogs':
        return json(200, this.#page(this.#ownedApp(caller, params).apiLogs, ctx));
      case 'applications.getMetrics': {
        const app = this.#ownedApp(caller, params);
        const interactions = [...this.#interactions.values()].filter((i) => i.applicationId === app.id);
        return json(200, { application_id: app.id, api_requests: app.apiLogs.length, interactions: interactions.length, interactions_answered: interactions.filter((i) => i.acknowledgedWith !== undefined).length, commands: app.commands.length });
      }

      // Bot
      case 'bots.get': {
        const app = this.#ownedApp(caller, params);
        return json(200, { id: app.bot.id, username: app.bot.username, application_id: app.id, bot: true });
      }
      case 'bots.update': {
        const app = this.#ownedApp(caller, params);
        const body = this.#validate(schemas.updateBotSchema, ctx);
        if (typeof body['username'] === 'string' && body['username'] !== '') app.bot.username = body['username'];
        return json(200, { id: app.bot.id, username: app.bot.username, application_id: app.id, bot: true });
      }
      case 'bots.getInviteUrl': {
        const app = this.#ownedApp(caller, params);
        return json(200, { url: `${this.#baseUrl}/oauth2/authorize?client_id=${app.id}&scope=bot%20applications.commands` });
      }
      case 'bots.resetToken': {
        const app = this.#ownedApp(caller, params);
        const old = app.bot.token;
        app.bot.token = this.#token();
        this.#gateway?.closeSessionsOfToken(old, 4004);
        return json(200, { token: app.bot.token });
      }

      // Global commands
      case 'commands.list':
        return json(200, this.#ownedApp(caller, params).commands);
      case 'commands.create': {
        const app = this.#ownedApp(caller, params);
        const body = this.#validate(schemas.commandDefinitionSchema, ctx);
        const command = this.#makeCommand(app.id, body);
        const index = app.commands.findIndex((c) => c.name === command.name);
        if (index >= 0) app.commands[index] = { ...command, id: app.commands[index]?.id ?? command.id };
        else app.commands.push(command);
        return json(201, app.commands.find((c) => c.name === command.name));
      }
      case 'commands.replace': {
        const app = this.#ownedApp(caller, params);
        const body = this.#validate(schemas.commandDefinitionListSchema, ctx);
        app.commands = body.map((definition) => this.#makeCommand(app.id, definition, app.commands.find((c) => c.name === definition.name.toLowerCase())?.id));
        return json(200, app.commands);
      }
      case 'commands.delete': {
        const app = this.#ownedApp(caller, params);
        const before = app.commands.length;
        app.commands = app.commands.filter((c) => c.id !== params['cmd_id']);
        if (app.commands.length === before) throw new HttpError(404, 'Unknown application command', 10063);
        return noContent();
      }
      // Community commands
      case 'commands.listInGuild': {
        const guild = this.#guildFor(caller, params['guild_id']);
        const visible: Command[] = [];
        for (const appId of guild.botApplications) {
          const app = this.#apps.get(appId);
          if (app) visible.push(...app.commands, ...(app.guildCommands.get(guild.id) ?? []));
        }
        return json(200, visible);
      }
      case 'commands.listForGuild': {
        const guild = this.#guildFor(caller, params['guild_id']);
        return json(200, this.#appForCommandRoute(caller, params).guildCommands.get(guild.id) ?? []);
      }
      case 'commands.replaceForGuild': {
        const guild = this.#guildFor(caller, params['guild_id']);
        const app = this.#appForCommandRoute(caller, params);
        const body = this.#validate(schemas.commandDefinitionListSchema, ctx);
        const existing = app.guildCommands.get(guild.id) ?? [];
        const next = body.map((definition) => ({ ...this.#makeCommand(app.id, definition, existing.find((c) => c.name === definition.name.toLowerCase())?.id), guild_id: guild.id }));
        app.guildCommands.set(guild.id, next);
        return json(200, next);
      }

      // Application webhooks
      case 'applicationWebhooks.list':
        return json(200, [...this.#ownedApp(caller, params).webhooks.values()].map(({ secret: _secret, extra, ...view }) => ({ ...extra, ...view })));
      case 'applicationWebhooks.create': {
        const app = this.#ownedApp(caller, params);
        const { url, events, ...extra } = this.#validate(schemas.createApplicationWebhookSchema, ctx);
        if (typeof url !== 'string' || !/^https?:\/\//.test(url)) throw new HttpError(400, 'Invalid Form Body', 50035, { errors: { url: 'must be an http(s) URL' } });
        const hook = { id: this.#id(), url, events: Array.isArray(events) ? events.map(String) : ['INTERACTION_CREATE'], secret: this.#token(), active: true, extra };
        app.webhooks.set(hook.id, hook);
        return json(201, { ...extra, id: hook.id, url: hook.url, events: hook.events, active: true, secret: hook.secret });
      }
      case 'applicationWebhooks.update': {
        const hook = this.#appWebhook(caller, params);
        const { url, events, active, ...extra } = this.#validate(schemas.updateApplicationWebhookSchema, ctx);
        if (typeof url === 'string') hook.url = url;
        if (Array.isArray(events)) hook.events = events.map(String);
        if (typeof active === 'boolean') hook.active = active;
        Object.assign(hook.extra, extra);
        return json(200, { ...hook.extra, id: hook.id, url: hook.url, events: hook.events, active: hook.active });
      }
      case 'applicationWebhooks.delete': {
        const app = this.#ownedApp(caller, params);
        if (!app.webhooks.delete(params['webhook_id'] ?? '')) throw new HttpError(404, 'Unknown Webhook', 10015);
        return noContent();
      }
      case 'applicationWebhooks.regenerateSecret': {
        const hook = this.#appWebhook(caller, params);
        hook.secret = this.#token();
        return json(200, { id: hook.id, secret: hook.secret });
      }
      case 'applicationWebhooks.test': {
        const app = this.#ownedApp(caller, params);
        const hook = this.#appWebhook(caller, params);
        const delivery = { id: this.#id(), webhook_id: hook.id, event: 'TEST', status: 'queued', created_at: new Date(this.now()).toISOString() };
        app.deliveries.unshift(delivery);
        return json(202, delivery);
      }
      case 'applicationWebhooks.listDeliveries':
        return json(200, this.#page(this.#ownedApp(caller, params).deliveries, ctx));

      // Channels
      case 'channels.get':
        return json(200, this.#channelView(this.#channelFor(caller, params['channel_id'])));
      case 'channels.update': {
        const channel = this.#channelFor(caller, params['channel_id']);
        const { name, topic, ...extra } = this.#validate(schemas.updateChannelSchema, ctx);
        if (typeof name === 'string') {
          if (name.length < 1 || name.length > 100) throw new HttpError(400, 'Invalid Form Body', 50035, { errors: { name: 'must be 1 to 100 characters' } });
          channel.name = name;
        }
        if (typeof topic === 'string') channel.topic = topic;
        Object.assign(channel.extra, extra);
        return json(200, this.#channelView(channel));
      }
      case 'channels.delete': {
        const channel = this.#channelFor(caller, params['channel_id']);
        this.#channels.delete(channel.id);
        return noContent();
      }
      case 'channels.ack': {
        const channel = this.#channelFor(caller, params['channel_id']);
        channel.readBy.add(caller.kind === 'bot' ? caller.app.bot.id : this.#user(caller).id);
        return noContent();
      }
      case 'channels.uploadAttachment': {
        const channel = this.#channelFor(caller, params['channel_id']);
        const type = ctx.request.headers['content-type'] ?? '';
        const boundary = /boundary=([^;]+)/.exec(type)?.[1];
        if (!type.startsWith('multipart/form-data') || !boundary) throw new HttpError(400, 'Expected multipart/form-data with a file', 50035);
        const part = ctx.request.body.split(`--${boundary}`).find((chunk) => /filename="/.test(chunk));
        if (!part) throw new HttpError(400, 'No file in the upload', 50035);
        const filename = /filename="([^"]*)"/.exec(part)?.[1] ?? 'file';
        const contentType = /Content-Type: ([^\r\n]+)/i.exec(part)?.[1] ?? 'application/octet-stream';
        const content = part.slice(part.indexOf('\r\n\r\n') + 4).replace(/\r\n$/, '');
        const id = this.#id();
        return json(200, { id, filename, size: Buffer.byteLength(content), content_type: contentType, url: `${this.#baseUrl}/attachments/${channel.id}/${id}/${encodeURIComponent(filename)}` });
      }
      case 'channels.listDriveLinks':
        return json(200, this.#driveLinks.get(this.#channelFor(caller, params['channel_id']).id) ?? []);
      case 'channels.createDriveLink': {
        const channel = this.#channelFor(caller, params['channel_id']);
        const body = parseJson(ctx.request.body);
        if (typeof body !== 'object' || body === null || typeof (body as { url?: unknown }).url !== 'string') throw new HttpError(400, 'url is required', 50035);
        const link = { id: this.#id(), ...(body as Record<string, unknown>) };
        this.#driveLinks.set(channel.id, [...(this.#driveLinks.get(channel.id) ?? []), link]);
        return json(201, link);
      }

      // Activities
      case 'activities.list':
        return json(200, [...this.#activities.values()].filter((a) => a.channelId === this.#channelFor(caller, params['channel_id']).id && !a.ended).map((a) => this.#activityView(a)));
      case 'activities.create': {
        const channel = this.#channelFor(caller, params['channel_id']);
        const fields = this.#validate(schemas.createActivitySchema, ctx);
        const activity: Activity = { id: this.#id(), channelId: channel.id, fields, participants: new Set(), paused: true, positionMs: 0, state: {}, ended: false, createdAt: this.now() };
        this.#activities.set(activity.id, activity);
        return json(201, this.#activityView(activity));
      }
      case 'activities.getActive': {
        const channel = this.#channelFor(caller, params['channel_id']);
        const active = [...this.#activities.values()].filter((a) => a.channelId === channel.id && !a.ended).at(-1);
        if (!active) throw new HttpError(404, 'No active activity in this channel', 10070);
        return json(200, this.#activityView(active));
      }
      case 'activities.get':
        return json(200, this.#activityView(this.#activity(caller, params)));
      case 'activities.delete':
        this.#activity(caller, params).ended = true;
        return noContent();
      case 'activities.join':
        this.#activity(caller, params).participants.add(this.#callerId(caller));
        return noContent();
      case 'activities.leave':
        this.#activity(caller, params).participants.delete(this.#callerId(caller));
        return noContent();
      case 'activities.playPause': {
        const activity = this.#activity(caller, params);
        const body = this.#validate(schemas.playPauseSchema, ctx);
        activity.paused = typeof body['paused'] === 'boolean' ? body['paused'] : !activity.paused;
        return noContent();
      }
      case 'activities.seek': {
        const activity = this.#activity(caller, params);
        const body = this.#validate(schemas.seekSchema, ctx);
        if (typeof body['position_ms'] !== 'number') throw new HttpError(400, 'Invalid Form Body', 50035, { errors: { position_ms: 'is required' } });
        activity.positionMs = body['position_ms'];
        return noContent();
      }
      case 'activities.updateState': {
        const activity = this.#activity(caller, params);
        const body = this.#validate(schemas.stateUpdateSchema, ctx);
        const state = body['state'];
        Object.assign(activity.state, typeof state === 'object' && state !== null ? state : body);
        return noContent();
      }
      case 'activities.getSnapshot': {
        const activity = this.#activity(caller, params);
        return json(200, { activity_id: activity.id, paused: activity.paused, position_ms: activity.positionMs, state: activity.state, participants: [...activity.participants], taken_at: new Date(this.now()).toISOString() });
      }

      // Interactions
      case 'interactions.respond': {
        const app = (caller as Extract<Caller, { kind: 'bot' }>).app;
        const interaction = this.#interactions.get(params['interaction_id'] ?? '');
        if (!interaction || interaction.applicationId !== app.id) throw new HttpError(404, 'Unknown interaction', 10062);
        if (this.now() >= interaction.createdAt + INTERACTION_LIFETIME_MS) throw new HttpError(404, 'Unknown interaction (its token expired after 15 minutes)', 10062);
        const body = this.#validate(schemas.interactionResponseSchema, ctx);
        const type = body.interaction_type;
        if (interaction.acknowledgedWith !== undefined && !(type === 8 && interaction.acknowledgedWith === 8)) {
          throw new HttpError(400, 'Interaction has already been acknowledged.', 40060);
        }
        interaction.acknowledgedWith = type;
        const callback: EmulatedCallback = { interactionType: type, data: body.data, at: this.now() };
        interaction.callbacks.push(callback);
        if (type === 4) this.#post(interaction.channelId, String(body.data['content']), { kind: 'bot', id: app.bot.id, name: app.bot.username }, 'interaction');
        for (const waiter of interaction.waiters.splice(0)) waiter(callback);
        return noContent();
      }

      // Community webhooks
      case 'webhooks.list': {
        const guild = this.#managedGuild(caller, params['guild_id']);
        return json(200, [...this.#webhooks.values()].filter((w) => w.guildId === guild.id).map((w) => this.#webhookView(w)));
      }
      case 'webhooks.create': {
        const guild = this.#managedGuild(caller, params['guild_id']);
        const body = this.#validate(schemas.createGuildWebhookSchema, ctx);
        const channel = this.#channels.get(body.channel_id);
        if (!channel || channel.guildId !== guild.id) throw new HttpError(400, 'channel_id is not a channel of this community', 50035);
        const webhook: GuildWebhook = { id: this.#id(), guildId: guild.id, channelId: channel.id, name: body.name, token: this.#token(), executions: [] };
        this.#webhooks.set(webhook.id, webhook);
        return json(200, { ...this.#webhookView(webhook), token: webhook.token, url: this.#webhookUrl(webhook) });
      }
      case 'webhooks.delete': {
        const guild = this.#managedGuild(caller, params['guild_id']);
        const webhook = this.#webhooks.get(params['webhook_id'] ?? '');
        if (!webhook || webhook.guildId !== guild.id) throw new HttpError(404, 'Unknown Webhook', 10015);
        this.#webhooks.delete(webhook.id);
        return noContent();
      }
      case 'webhooks.resetToken': {
        const guild = this.#managedGuild(caller, params['guild_id']);
        const webhook = this.#webhooks.get(params['webhook_id'] ?? '');
        if (!webhook || webhook.guildId !== guild.id) throw new HttpError(404, 'Unknown Webhook', 10015);
        webhook.token = this.#token();
        return json(200, { ...this.#webhookView(webhook), token: webhook.token, url: this.#webhookUrl(webhook) });
      }
      case 'webhooks.execute': {
        const webhook = (caller as Extract<Caller, { kind: 'webhook' }>).webhook;
        const body = this.#validate(schemas.webhookMessageSchema, ctx);
        this.#checkWebhookLimit(webhook);
        this.#post(webhook.channelId, body.content, { kind: 'webhook', id: webhook.id, name: typeof body.username === 'string' && body.username !== '' ? body.username : webhook.name }, 'webhook');
        return noContent(this.#webhookLimitHeaders(webhook));
      }
      case 'webhooks.updateWithToken': {
        const webhook = (caller as Extract<Caller, { kind: 'webhook' }>).webhook;
        const body = this.#validate(schemas.updateWebhookSchema, ctx);
        if (typeof body['name'] === 'string' && body['name'] !== '') webhook.name = body['name'];
        return json(200, this.#webhookView(webhook));
      }
      case 'webhooks.deleteWithToken':
        this.#webhooks.delete((caller as Extract<Caller, { kind: 'webhook' }>).webhook.id);
        return noContent();
      default:
        throw new HttpError(404, 'Unknown route', 0);
    }
  }

  // ---------------------------------------------------------------- helpers

  #validate<S extends ZodType>(schema: S, ctx: Context): ReturnType<S['parse']> {
    const parsed = parseJson(ctx.request.body);
    if (parsed === INVALID_JSON) throw new HttpError(400, 'The request body is not valid JSON', 50109);
    const result = schema.safeParse(parsed);
    if (!result.success) {
      const errors = Object.fromEntries(result.error.issues.map((issue) => [issue.path.map(String).join('.') || '(body)', issue.message]));
      throw new HttpError(400, 'Invalid Form Body', 50035, { errors });
    }
    return result.data as ReturnType<S['parse']>;
  }

  #page(items: Record<string, unknown>[], ctx: Context): Record<string, unknown> {
    const page = Number(ctx.query.get('page'));
    const perPage = Number(ctx.query.get('per_page'));
    if (!Number.isInteger(page) || page < 1 || !Number.isInteger(perPage) || perPage < 1 || perPage > 100) {
      throw new HttpError(400, 'page and per_page are required positive integers (per_page at most 100)', 50035);
    }
    const slice = items.slice((page - 1) * perPage, page * perPage);
    return { items: slice, page, per_page: perPage, total: items.length, has_more: page * perPage < items.length };
  }

  #checkWebhookLimit(webhook: GuildWebhook): void {
    const limit = this.#options.webhookRateLimit ?? { limit: 30, windowMs: 60_000 };
    const now = this.now();
    webhook.executions = webhook.executions.filter((at) => at > now - limit.windowMs);
    if (webhook.executions.length >= limit.limit) {
      const retryAfter = Math.max(0.001, ((webhook.executions[0] as number) + limit.windowMs - now) / 1000);
      throw new HttpError(429, 'You are being rate limited.', 0, { retry_after: retryAfter, global: false }, { 'retry-after': retryAfter.toFixed(3), 'x-ratelimit-scope': 'webhook' });
    }
    webhook.executions.push(now);
  }

  #webhookLimitHeaders(webhook: GuildWebhook): Record<string, string> {
    const limit = this.#options.webhookRateLimit ?? { limit: 30, windowMs: 60_000 };
    const oldest = webhook.executions[0] ?? this.now();
    return {
      'x-ratelimit-limit': String(limit.limit),
      'x-ratelimit-remaining': String(Math.max(0, limit.limit - webhook.executions.length)),
      'x-ratelimit-reset-after': (Math.max(0, oldest + limit.windowMs - this.now()) / 1000).toFixed(3),
    };
  }

  #startSession(user: User): EmulatorResponse {
    const lifetime = this.#options.accessTokenLifetimeMs ?? ACCESS_LIFETIME_MS;
    const session: Session = { userId: user.id, accessToken: this.#token(), accessExpiresAt: this.now() + lifetime, refreshToken: this.#token(), revoked: false };
    this.#sessions.push(session);
    return {
      status: 200,
      headers: { 'content-type': 'application/json', 'set-cookie': `refresh_token=${session.refreshToken}; Path=/api/v1/auth; HttpOnly; SameSite=Strict; Max-Age=2592000` },
      body: JSON.stringify({ access_token: session.accessToken, token_type: 'Bearer', expires_in: lifetime / 1000, user: this.#publicUser(user) }),
    };
  }

  #user(caller: Caller): User {
    if (caller.kind !== 'user') throw new HttpError(403, 'This route needs user credentials', 50001);
    return caller.user;
  }

  #callerId(caller: Caller): string {
    return caller.kind === 'bot' ? caller.app.bot.id : this.#user(caller).id;
  }

  #ownedApp(caller: Caller, params: Record<string, string>): Application {
    const app = this.#apps.get(params['app_id'] ?? '');
    if (!app) throw new HttpError(404, 'Unknown Application', 10002);
    if (app.ownerId !== this.#user(caller).id) throw new HttpError(403, 'Missing Access: you do not own this application', 50001);
    return app;
  }

  #appForCommandRoute(caller: Caller, params: Record<string, string>): Application {
    if (caller.kind === 'bot') {
      if (caller.app.id !== params['app_id']) throw new HttpError(403, 'A bot may only manage its own commands', 50001);
      return caller.app;
    }
    return this.#ownedApp(caller, params);
  }

  #appWebhook(caller: Caller, params: Record<string, string>) {
    const hook = this.#ownedApp(caller, params).webhooks.get(params['webhook_id'] ?? '');
    if (!hook) throw new HttpError(404, 'Unknown Webhook', 10015);
    return hook;
  }

  #guildFor(caller: Caller, guildId: string | undefined): Guild {
    const guild = this.#guilds.get(guildId ?? '');
    if (!guild) throw new HttpError(404, 'Unknown Guild', 10004);
    const member = caller.kind === 'bot' ? guild.botApplications.has(caller.app.id) : guild.members.has(this.#user(caller).id);
    if (!member) throw new HttpError(403, 'Missing Access: not a member of this community', 50001);
    return guild;
  }

  #managedGuild(caller: Caller, guildId: string | undefined): Guild {
    const guild = this.#guildFor(caller, guildId);
    const user = this.#user(caller);
    if (guild.ownerId !== user.id && !guild.members.get(user.id)?.manageWebhooks) throw new HttpError(403, 'Missing Permissions: MANAGE_WEBHOOKS or community ownership is required', 50013);
    return guild;
  }

  #channelFor(caller: Caller, channelId: string | undefined): Channel {
    const channel = this.#channels.get(channelId ?? '');
    if (!channel) throw new HttpError(404, 'Unknown Channel', 10003);
    this.#guildFor(caller, channel.guildId);
    return channel;
  }

  #activity(caller: Caller, params: Record<string, string>): Activity {
    const activity = this.#activities.get(params['activity_id'] ?? '');
    if (!activity || activity.ended) throw new HttpError(404, 'Unknown Activity', 10071);
    this.#channelFor(caller, activity.channelId);
    return activity;
  }

  #findCommand(guildId: string, name: string, applicationId: string | undefined): { app: Application; command: Command } | undefined {
    const guild = this.#guilds.get(guildId);
    if (!guild) return undefined;
    for (const appId of guild.botApplications) {
      if (applicationId !== undefined && appId !== applicationId) continue;
      const app = this.#apps.get(appId);
      const command = app && [...(app.guildCommands.get(guildId) ?? []), ...app.commands].find((c) => c.name === name);
      if (app && command) return { app, command };
    }
    return undefined;
  }

  #makeCommand(applicationId: string, definition: Record<string, unknown>, id?: string): Command {
    const { name, description, options, dm_permission, ...extra } = definition;
    return {
      ...extra,
      id: id ?? this.#id(),
      application_id: applicationId,
      name: String(name).toLowerCase(),
      description: String(description ?? ''),
      options: Array.isArray(options) ? options : [],
      dm_permission: dm_permission !== false,
      version: this.#id(),
    };
  }

  #post(channelId: string, content: string, author: EmulatedMessage['author'], via: EmulatedMessage['via']): void {
    if (countCharacters(content) < 1 || countCharacters(content) > 2000) throw new HttpError(400, 'Message content must be 1 to 2000 characters', 50035);
    const list = this.#messages.get(channelId) ?? [];
    list.push({ id: this.#id(), channelId, content, author, via, createdAt: this.now() });
    this.#messages.set(channelId, list);
  }

  #deliverMail(email: string, mail: { kind: 'reset' | 'verify'; token: string }): void {
    this.#mailbox.set(email, [...(this.#mailbox.get(email) ?? []), mail]);
  }

  #addUser(email: string, password: string, username: string): User {
    const user: User = { id: this.#id(), email, password, username, verified: false };
    this.#users.set(user.id, user);
    return user;
  }

  #addApplication(ownerId: string, name: string, description: string, extra: Record<string, unknown> = {}): Application {
    const app: Application = {
      id: this.#id(),
      ownerId,
      name,
      description,
      extra,
      bot: { id: this.#id(), username: `${name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-bot`, token: '' },
      commands: [],
      guildCommands: new Map(),
      webhooks: new Map(),
      deliveries: [],
      apiLogs: [],
    };
    app.bot.token = `${Buffer.from(app.bot.id).toString('base64url')}.${this.#token()}`;
    this.#apps.set(app.id, app);
    return app;
  }

  #addChannel(guildId: string, name: string): Channel {
    const channel: Channel = { id: this.#id(), guildId, name, topic: '', extra: {}, readBy: new Set() };
    this.#channels.set(channel.id, channel);
    return channel;
  }

  #appView(app: Application): Record<string, unknown> {
    return { ...app.extra, id: app.id, name: app.name, description: app.description, owner_id: app.ownerId, bot_id: app.bot.id };
  }

  #channelView(channel: Channel): Record<string, unknown> {
    return { ...channel.extra, id: channel.id, guild_id: channel.guildId, name: channel.name, topic: channel.topic, type: 0 };
  }

  #activityView(activity: Activity): Record<string, unknown> {
    return { ...activity.fields, id: activity.id, channel_id: activity.channelId, paused: activity.paused, position_ms: activity.positionMs, participants: [...activity.participants], created_at: new Date(activity.createdAt).toISOString() };
  }

  #webhookView(webhook: GuildWebhook): Record<string, unknown> {
    return { id: webhook.id, guild_id: webhook.guildId, channel_id: webhook.channelId, name: webhook.name };
  }

  #webhookUrl(webhook: GuildWebhook): string {
    return `${this.#baseUrl}/api/v1/webhooks/${webhook.id}/${webhook.token}`;
  }

  #publicUser(user: User): Record<string, unknown> {
    return { id: user.id, username: user.username, email: user.email, verified: user.verified };
  }

  /** A snowflake id whose timestamp is the emulator clock (so interaction ages are right). */
  #id(): string {
    this.#idCounter = (this.#idCounter + 1) % 4096;
    return ((BigInt(Math.floor(this.now())) - DISCORD_EPOCH) << 22n | BigInt(this.#idCounter)).toString();
  }

  #token(): string {
    let out = '';
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    for (let i = 0; i < 32; i++) out += alphabet[Math.floor(this.#random() * alphabet.length)];
    return out;
  }
}

/** What to invoke with {@link EmulatorCore.invokeCommand}. */
export interface InvokeCommandInput {
  /** Command name. */
  name: string;
  /** Option values by name. */
  options?: Record<string, string | number | boolean> | undefined;
  /** Set to an option name to send an autocomplete interaction with that option focused. */
  focused?: string | undefined;
  /** Community. @default the seeded community */
  guildId?: string | undefined;
  /** Channel. @default the seeded channel */
  channelId?: string | undefined;
  /** The user running it. @default the seeded user */
  userId?: string | undefined;
  /** Pick the command of this application, when several have one of that name. */
  applicationId?: string | undefined;
}

/** An interaction created by {@link EmulatorCore.invokeCommand}. */
export interface InvokedInteraction {
  /** Interaction id. */
  id: string;
  /** The INTERACTION_CREATE payload sent. */
  payload: Record<string, unknown>;
  /** How many Gateway sessions received it (0: the bot is not connected). */
  delivered: number;
  /** Resolves with the bot's first answer. */
  response: Promise<EmulatedCallback>;
  /** Every answer so far. */
  callbacks(): EmulatedCallback[];
}

interface Context {
  request: EmulatorRequest;
  params: Record<string, string>;
  query: URLSearchParams;
  caller: Caller;
}

const INVALID_JSON = Symbol('invalid json');

function parseJson(text: string): unknown {
  if (text === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return INVALID_JSON;
  }
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): EmulatorResponse {
  return { status, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) };
}

function noContent(headers: Record<string, string> = {}): EmulatorResponse {
  return { status: 204, headers, body: '' };
}
