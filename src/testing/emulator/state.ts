/**
 * The emulator's in-memory state: users, sessions, applications, communities,
 * channels, webhooks, activities and interactions, with the emulator clock,
 * seeded ids and tokens, and the demo data it starts with.
 *
 * @module
 */

import { makeSnowflake } from '../../core/constants.js';
import { API_PREFIX } from '../../core/routes.js';
import { countCharacters } from '../../schemas/text.js';
import { HttpError } from './responses.js';
import type {
  DispatchTarget,
  EmulatedCallback,
  EmulatedMessage,
  EmulatorCoreOptions,
  EmulatorEvent,
  SeedData,
  WebhookDeliveryRecord,
  WindowLimit,
} from './types.js';

export interface User {
  id: string;
  email: string;
  password: string;
  username: string;
  verified: boolean;
}
export interface Session {
  userId: string;
  accessToken: string;
  accessExpiresAt: number;
  refreshToken: string;
  revoked: boolean;
}
export interface Command {
  id: string;
  application_id: string;
  guild_id?: string;
  name: string;
  description: string;
  options: unknown[];
  dm_permission: boolean;
  [field: string]: unknown;
}
export interface ApplicationWebhook {
  id: string;
  url: string;
  events: string[];
  secret: string;
  active: boolean;
  extra: Record<string, unknown>;
}
export interface Application {
  id: string;
  ownerId: string;
  name: string;
  description: string;
  extra: Record<string, unknown>;
  bot: { id: string; username: string; token: string };
  commands: Command[];
  guildCommands: Map<string, Command[]>;
  webhooks: Map<string, ApplicationWebhook>;
  /** Newest first. */
  deliveries: WebhookDeliveryRecord[];
  apiLogs: Record<string, unknown>[];
}
export interface Guild {
  id: string;
  name: string;
  ownerId: string;
  /** Member user ids with their permission flag. */
  members: Map<string, { manageWebhooks: boolean }>;
  botApplications: Set<string>;
}
export interface Channel {
  id: string;
  guildId: string;
  name: string;
  topic: string;
  extra: Record<string, unknown>;
  readBy: Set<string>;
}
export interface GuildWebhook {
  id: string;
  guildId: string;
  channelId: string;
  name: string;
  token: string;
  executions: number[];
}
export interface Activity {
  id: string;
  channelId: string;
  fields: Record<string, unknown>;
  participants: Set<string>;
  paused: boolean;
  positionMs: number;
  state: Record<string, unknown>;
  ended: boolean;
  createdAt: number;
  /** The last snapshot taken (`GET /activities/{id}/snapshot`), for the playground. */
  lastSnapshot?: Record<string, unknown>;
}
export interface Interaction {
  id: string;
  token: string;
  applicationId: string;
  channelId: string;
  /** Interaction type, the command's name (or the component's custom id), and who ran it: for the playground. */
  type?: number;
  label?: string;
  userId?: string;
  /** Whether a follow-up (or an edit of the deferred original) was posted. */
  followedUp?: boolean;
  /** For a component interaction: the message clicked (a modal it opens carries that message when submitted). */
  messageId?: string;
  /** For an interaction answered with a modal: whether the modal was submitted (it closes then; a second submit is refused). */
  modalSubmitted?: boolean;
  createdAt: number;
  acknowledgedWith: number | undefined;
  callbacks: EmulatedCallback[];
  /** Who waits for the first answer (`invokeCommand().response`). */
  waiters: { resolve: (callback: EmulatedCallback) => void; reject: (error: Error) => void }[];
}
interface Mail {
  kind: 'reset' | 'verify';
  token: string;
}

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

const TOKEN_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** The state every handler reads and changes. Internal: the public face is `EmulatorCore`. */
export class EmulatorState {
  readonly options: EmulatorCoreOptions;
  readonly random: () => number;
  readonly seed: SeedData;
  /** Where the emulator is reachable (for URLs in answers). */
  baseUrl: string;
  gateway: DispatchTarget | undefined;
  clockOffset = 0;
  /** The global limit now in force (starts as `options.globalRateLimit`; the playground may change it). */
  globalRateLimit: WindowLimit | undefined;
  /** The shard count `GET /gateway/bot` recommends, once `recommendShards()` changed it. */
  recommendedShards: number | undefined;
  /** Observers of REST calls and changes (the playground). */
  readonly observers = new Set<(event: EmulatorEvent) => void>();
  #idCounter = 0;
  /** The drive links the emulator starts with (`clearActivity` restores them). */
  #seedLinks = new Map<string, Record<string, unknown>[]>();

  readonly users = new Map<string, User>();
  readonly sessions: Session[] = [];
  readonly apps = new Map<string, Application>();
  readonly guilds = new Map<string, Guild>();
  readonly channels = new Map<string, Channel>();
  readonly webhooks = new Map<string, GuildWebhook>();
  readonly activities = new Map<string, Activity>();
  readonly interactions = new Map<string, Interaction>();
  readonly driveLinks = new Map<string, Record<string, unknown>[]>();
  /** Messages posted per channel. */
  readonly messages = new Map<string, EmulatedMessage[]>();
  /** Addresses and their mail (password reset and verification tokens). */
  readonly mailbox = new Map<string, Mail[]>();
  readonly resetTokens = new Map<string, string>();
  readonly verifyTokens = new Map<string, string>();
  /** Times of requests counted by the global limit. */
  readonly globalHits: number[] = [];
  /** The per-route limit's fixed windows (start and count), by caller, route and major parameter. */
  readonly routeWindows = new Map<string, { start: number; count: number }>();
  /** Gateway session starts per application (Discord's daily session start limit). */
  readonly sessionStarts = new Map<string, number[]>();
  /** Identify refused because the bot was past its session start limit. */
  refusedSessionStarts = 0;
  /** The DM channel of each bot and user, keyed `appId:userId`. */
  readonly dmChannels = new Map<string, string>();

  constructor(options: EmulatorCoreOptions = {}) {
    this.options = options;
    this.baseUrl = (options.baseUrl ?? 'http://localhost:8080').replace(/\/+$/, '');
    // No seed: secrets differ on every run (a token or password seen once cannot be reused against another emulator).
    this.random = prng(options.seed ?? (globalThis.crypto.getRandomValues(new Uint32Array(1))[0] as number));
    this.globalRateLimit = options.globalRateLimit;
    const owner = this.addUser('demo@example.com', `demo-${this.token().slice(0, 12)}`, 'demo');
    const member = this.addUser('member@example.com', `member-${this.token().slice(0, 12)}`, 'member');
    const app = this.addApplication(owner.id, 'Demo App', 'The demo application');
    const guild: Guild = { id: this.id(), name: 'Demo Community', ownerId: owner.id, members: new Map(), botApplications: new Set([app.id]) };
    guild.members.set(owner.id, { manageWebhooks: true });
    guild.members.set(member.id, { manageWebhooks: false });
    this.guilds.set(guild.id, guild);
    const channel = this.addChannel(guild.id, 'general');
    this.driveLinks.set(channel.id, [{ id: this.id(), url: 'https://drive.example/demo-slides', title: 'Demo slides' }]);
    this.#seedLinks = structuredClone(this.driveLinks);
    const webhook: GuildWebhook = { id: this.id(), guildId: guild.id, channelId: channel.id, name: 'Announcements', token: this.token(), executions: [] };
    this.webhooks.set(webhook.id, webhook);
    const state = this;
    this.seed = {
      user: { id: owner.id, email: owner.email, password: owner.password, username: owner.username },
      member: { id: member.id, email: member.email, password: member.password, username: member.username },
      applicationId: app.id,
      botUserId: app.bot.id,
      botToken: app.bot.token,
      guildId: guild.id,
      channelId: channel.id,
      webhook: { id: webhook.id, token: webhook.token },
      // A getter: the address is known only once the server listens (createEmulator sets baseUrl).
      get webhookUrl() {
        return state.apiUrl(`/webhooks/${webhook.id}/${webhook.token}`);
      },
    };
  }

  /**
   * Clears what happened, keeping what was set up (see `Emulator.reset`):
   * pending interactions end with `ended`'s error.
   */
  clearActivity(ended: Error): void {
    for (const interaction of this.interactions.values()) for (const waiter of interaction.waiters.splice(0)) waiter.reject(ended);
    this.interactions.clear();
    this.messages.clear();
    for (const app of this.apps.values()) {
      app.deliveries.length = 0;
      app.apiLogs.length = 0;
    }
    for (const webhook of this.webhooks.values()) webhook.executions = [];
    this.activities.clear();
    this.driveLinks.clear();
    for (const [channelId, links] of this.#seedLinks) this.driveLinks.set(channelId, structuredClone(links));
    this.mailbox.clear();
    this.resetTokens.clear();
    this.verifyTokens.clear();
    this.globalHits.length = 0;
    this.routeWindows.clear();
    this.sessionStarts.clear();
    this.refusedSessionStarts = 0;
    this.globalRateLimit = this.options.globalRateLimit;
    this.clockOffset = 0;
  }

  /** The emulator's clock (real time plus whatever `advanceTime` added). */
  now(): number {
    return Date.now() + this.clockOffset;
  }

  /** A snowflake id whose timestamp is the emulator clock (so interaction ages are right). */
  id(): string {
    this.#idCounter = (this.#idCounter + 1) % 4096;
    return makeSnowflake(this.now(), this.#idCounter);
  }

  /** A random 32-character token from the seeded PRNG. */
  token(): string {
    let out = '';
    for (let i = 0; i < 32; i++) out += TOKEN_ALPHABET[Math.floor(this.random() * TOKEN_ALPHABET.length)];
    return out;
  }

  /** The application whose bot holds `token`. */
  appOfBotToken(token: string): Application | undefined {
    for (const app of this.apps.values()) if (app.bot.token === token) return app;
    return undefined;
  }

  /** The full URL of a path under the API prefix. */
  apiUrl(path: string): string {
    return `${this.baseUrl}${API_PREFIX}${path}`;
  }

  addUser(email: string, password: string, username: string): User {
    const user: User = { id: this.id(), email, password, username, verified: false };
    this.users.set(user.id, user);
    return user;
  }

  userByEmail(email: string): User | undefined {
    for (const user of this.users.values()) if (user.email === email) return user;
    return undefined;
  }

  addApplication(ownerId: string, name: string, description: string, extra: Record<string, unknown> = {}): Application {
    const app: Application = {
      id: this.id(),
      ownerId,
      name,
      description,
      extra,
      bot: { id: this.id(), username: `${name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-bot`, token: '' },
      commands: [],
      guildCommands: new Map(),
      webhooks: new Map(),
      deliveries: [],
      apiLogs: [],
    };
    app.bot.token = `${Buffer.from(app.bot.id).toString('base64url')}.${this.token()}`;
    this.apps.set(app.id, app);
    return app;
  }

  addChannel(guildId: string, name: string): Channel {
    const channel: Channel = { id: this.id(), guildId, name, topic: '', extra: {}, readBy: new Set() };
    this.channels.set(channel.id, channel);
    return channel;
  }

  /** Builds a stored command from a definition, keeping `id` when it replaces one. */
  makeCommand(applicationId: string, definition: Record<string, unknown>, id?: string): Command {
    const { name, description, options, dm_permission, ...extra } = definition;
    return {
      ...extra,
      id: id ?? this.id(),
      application_id: applicationId,
      name: String(name).toLowerCase(),
      description: String(description ?? ''),
      options: Array.isArray(options) ? options : [],
      dm_permission: dm_permission !== false,
      version: this.id(),
    };
  }

  /** The command `name` that a user in `guildId` can run, and its application. */
  findCommand(guildId: string, name: string, applicationId: string | undefined): { app: Application; command: Command } | undefined {
    const guild = this.guilds.get(guildId);
    if (!guild) return undefined;
    for (const appId of guild.botApplications) {
      if (applicationId !== undefined && appId !== applicationId) continue;
      const app = this.apps.get(appId);
      const command = app && [...(app.guildCommands.get(guildId) ?? []), ...app.commands].find((c) => c.name === name);
      if (app && command) return { app, command };
    }
    return undefined;
  }

  /** A global command `name` usable in DMs (`dm_permission`), of `applicationId` or of any application (the seeded one first). */
  findDmCommand(name: string, applicationId: string | undefined): { app: Application; command: Command } | undefined {
    for (const app of this.apps.values()) {
      if (applicationId !== undefined && app.id !== applicationId) continue;
      const command = app.commands.find((c) => c.name === name && c.dm_permission);
      if (command) return { app, command };
    }
    return undefined;
  }

  /** The id of the DM channel between a bot and a user (created on first use). */
  dmChannelOf(appId: string, userId: string): string {
    const key = `${appId}:${userId}`;
    const existing = this.dmChannels.get(key);
    if (existing !== undefined) return existing;
    const id = this.id();
    this.dmChannels.set(key, id);
    return id;
  }

  /** Posts a message to a channel (1 to 2000 characters, as the contract says). */
  post(
    channelId: string,
    content: string,
    author: EmulatedMessage['author'],
    via: EmulatedMessage['via'],
    extra: Pick<EmulatedMessage, 'components' | 'interactionId' | 'flags' | 'visibleTo'> = {},
  ): EmulatedMessage {
    if (countCharacters(content) < 1 || countCharacters(content) > 2000) throw new HttpError(400, 'Message content must be 1 to 2000 characters', 50035);
    const list = this.messages.get(channelId) ?? [];
    const message: EmulatedMessage = { id: this.id(), channelId, content, author, via, createdAt: this.now() };
    if (extra.components !== undefined) message.components = extra.components;
    if (extra.interactionId !== undefined) message.interactionId = extra.interactionId;
    if (extra.flags !== undefined && extra.flags !== 0) message.flags = extra.flags;
    if (extra.visibleTo !== undefined) message.visibleTo = extra.visibleTo;
    list.push(message);
    this.messages.set(channelId, list);
    return message;
  }

  /** Tells the observers. */
  notify(event: EmulatorEvent): void {
    for (const observer of this.observers) observer(event);
  }

  deliverMail(email: string, mail: Mail): void {
    this.mailbox.set(email, [...(this.mailbox.get(email) ?? []), mail]);
  }
}
