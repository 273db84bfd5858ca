import { MissingCredentialError, ValidationError } from '../errors.js';
import { validate } from '../schemas/validate.js';
import type { CallOptions } from '../rest/options.js';
import type { RestClient } from '../rest/rest-client.js';
import type { CommandDefinition } from '../schemas/requests.js';
import type { Command } from '../schemas/responses.js';
import { withId, withIds } from './response-ids.js';

/**
 * Which application, and optionally which community, a command call
 * addresses, in the deprecated forms that take no application id argument.
 */
export interface CommandScope extends CallOptions {
  /** The application. @default the client's `applicationId` option */
  applicationId?: string | undefined;
  /** A community: address its community-specific commands instead of the global ones. @default undefined (global commands) */
  guildId?: string | undefined;
}

/** The outcome of {@link CommandsManager.sync}. */
export interface CommandSyncResult {
  /** Whether the server's commands differed and were replaced. */
  changed: boolean;
  /** The commands now registered. */
  commands: Command[];
}

/** The parts of a deprecated scope: the application, the community, and the call options. */
function splitScope(scope: CommandScope | undefined): { applicationId: string | undefined; guildId: string | undefined; options: CallOptions } {
  const { applicationId, guildId, ...options } = typeof scope === 'object' && scope !== null ? scope : ({} as CommandScope);
  return { applicationId, guildId, options };
}

/**
 * Slash commands, global to an application or specific to a community.
 * Every method takes the application id first (after the community id, for
 * the `...ForGuild` methods) and call options last; the older forms that
 * read the application from an options object or the client option
 * `applicationId` still work, and are deprecated.
 */
export class CommandsManager {
  constructor(
    private readonly rest: RestClient,
    private readonly defaultApplicationId: () => string | undefined,
    /** Whether responses must carry a string `id` (the client option `requireResponseIds`). @default true */
    private readonly requireIds: boolean = true,
  ) {}

  #applicationId(operation: string, applicationId: string | undefined): string {
    const id = applicationId ?? this.defaultApplicationId();
    if (id === undefined) {
      throw new ValidationError(operation, [{ path: 'applicationId', message: 'is required: pass it as the first argument (or, in the deprecated forms, in the call or as the client option applicationId)' }]);
    }
    return id;
  }

  /** `GET /applications/{app_id}/commands`: an application's global commands. */
  list(applicationId: string, options?: CallOptions): Promise<Command[]>;
  /**
   * Lists commands of the application in `scope.applicationId` or the client option `applicationId`.
   * @deprecated Use `list(applicationId, options)`, or `listForGuild(guildId, applicationId, options)` for a community's commands.
   */
  list(scope?: CommandScope): Promise<Command[]>;
  async list(first?: string | CommandScope, options?: CallOptions): Promise<Command[]> {
    if (typeof first === 'string') return this.#list(first, undefined, options);
    const scope = splitScope(first);
    return this.#list(this.#applicationId('commands.list', scope.applicationId), scope.guildId, scope.options);
  }

  /** `GET /guilds/{guild_id}/commands/{app_id}`: one application's commands specific to a community. */
  listForGuild(guildId: string, applicationId: string, options?: CallOptions): Promise<Command[]> {
    return this.#list(applicationId, guildId, options);
  }

  async #list(applicationId: string, guildId: string | undefined, options: CallOptions | undefined): Promise<Command[]> {
    if (guildId !== undefined) {
      return withIds('commands.listForGuild', await this.rest.request('commands.listForGuild', { ...options, params: { guild_id: guildId, app_id: applicationId } }), this.requireIds);
    }
    return withIds('commands.list', await this.rest.request('commands.list', { ...options, params: { app_id: applicationId } }), this.requireIds);
  }

  /** `GET /guilds/{guild_id}/commands`: every command visible in a community, of every application. */
  async listVisibleInGuild(guildId: string, options?: CallOptions): Promise<Command[]> {
    return withIds('commands.listInGuild', await this.rest.request('commands.listInGuild', { ...options, params: { guild_id: guildId } }), this.requireIds);
  }

  /** `POST /applications/{app_id}/commands`: registers one global command (name lowercased, `dm_permission` defaulting to true). */
  create(applicationId: string, definition: CommandDefinition, options?: CallOptions): Promise<Command>;
  /**
   * Registers a global command of the application in `scope.applicationId` or the client option `applicationId`.
   * @deprecated Use `create(applicationId, definition, options)`.
   */
  create(definition: CommandDefinition, scope?: Omit<CommandScope, 'guildId'>): Promise<Command>;
  async create(first: string | CommandDefinition, second?: CommandDefinition | Omit<CommandScope, 'guildId'>, third?: CallOptions): Promise<Command> {
    const deprecated = typeof first === 'string' ? undefined : splitScope(second as CommandScope | undefined);
    const applicationId = deprecated ? deprecated.applicationId : (first as string);
    const definition: unknown = deprecated ? first : second;
    const options = deprecated ? deprecated.options : third;
    const body = await validate('commands.create', 'commandDefinitionSchema', definition);
    const appId = this.#applicationId('commands.create', applicationId);
    return withId<Command>('commands.create', await this.rest.request('commands.create', { ...options, params: { app_id: appId }, body }), this.requireIds);
  }

  /** `PUT /applications/{app_id}/commands`: replaces every global command of the application. */
  replace(applicationId: string, definitions: readonly CommandDefinition[], options?: CallOptions): Promise<Command[]>;
  /**
   * Replaces every command: global ones, or with `scope.guildId` a community's.
   * @deprecated Use `replace(applicationId, definitions, options)`, or `replaceForGuild(guildId, applicationId, definitions, options)`.
   */
  replace(definitions: readonly CommandDefinition[], scope?: CommandScope): Promise<Command[]>;
  async replace(first: string | readonly CommandDefinition[], second?: readonly CommandDefinition[] | CommandScope, third?: CallOptions): Promise<Command[]> {
    if (typeof first === 'string') return this.#replace(first, undefined, second, third);
    const scope = splitScope(second as CommandScope | undefined);
    return this.#replace(scope.applicationId, scope.guildId, first, scope.options);
  }

  /** `PUT /guilds/{guild_id}/commands/{app_id}`: replaces one application's commands specific to a community. */
  replaceForGuild(guildId: string, applicationId: string, definitions: readonly CommandDefinition[], options?: CallOptions): Promise<Command[]> {
    return this.#replace(applicationId, guildId, definitions, options);
  }

  async #replace(applicationId: string | undefined, guildId: string | undefined, definitions: unknown, options: CallOptions | undefined): Promise<Command[]> {
    const operation = guildId === undefined ? 'commands.replace' : 'commands.replaceForGuild';
    const body = await validate(operation, 'commandDefinitionListSchema', definitions);
    const appId = this.#applicationId(operation, applicationId);
    const params = guildId === undefined ? { app_id: appId } : { guild_id: guildId, app_id: appId };
    return withIds(operation, await this.rest.request(operation, { ...options, params, body }), this.requireIds);
  }

  /** `DELETE /applications/{app_id}/commands/{cmd_id}`. */
  delete(applicationId: string, commandId: string, options?: CallOptions): Promise<void>;
  /**
   * Deletes a global command of the application in `scope.applicationId` or the client option `applicationId`.
   * @deprecated Use `delete(applicationId, commandId, options)`.
   */
  delete(commandId: string, scope?: Omit<CommandScope, 'guildId'>): Promise<void>;
  async delete(first: string, second?: string | Omit<CommandScope, 'guildId'>, third?: CallOptions): Promise<void> {
    const deprecated = typeof second === 'string' ? undefined : splitScope(second);
    const applicationId = deprecated ? deprecated.applicationId : first;
    const commandId = deprecated ? first : (second as string);
    const options = deprecated ? deprecated.options : third;
    const appId = this.#applicationId('commands.delete', applicationId);
    return this.rest.request('commands.delete', { ...options, params: { app_id: appId, cmd_id: commandId } });
  }

  /**
   * Makes the application's global commands match `definitions`: fetches
   * them, compares, and replaces them only when they differ (extra
   * server-side fields such as ids are ignored).
   */
  sync(applicationId: string, definitions: readonly CommandDefinition[], options?: CallOptions): Promise<CommandSyncResult>;
  /**
   * Syncs global commands, or with `scope.guildId` a community's.
   * @deprecated Use `sync(applicationId, definitions, options)`, or `syncForGuild(guildId, applicationId, definitions, options)`.
   */
  sync(definitions: readonly CommandDefinition[], scope?: CommandScope): Promise<CommandSyncResult>;
  async sync(first: string | readonly CommandDefinition[], second?: readonly CommandDefinition[] | CommandScope, third?: CallOptions): Promise<CommandSyncResult> {
    if (typeof first === 'string') return this.#sync(first, undefined, second, third);
    const scope = splitScope(second as CommandScope | undefined);
    return this.#sync(scope.applicationId, scope.guildId, first, scope.options);
  }

  /** Like {@link CommandsManager.sync}, for one application's commands specific to a community. */
  syncForGuild(guildId: string, applicationId: string, definitions: readonly CommandDefinition[], options?: CallOptions): Promise<CommandSyncResult> {
    return this.#sync(applicationId, guildId, definitions, options);
  }

  async #sync(applicationId: string | undefined, guildId: string | undefined, definitions: unknown, options: CallOptions | undefined): Promise<CommandSyncResult> {
    // Errors name the method the caller used, not the operations it is made of.
    const method = guildId === undefined ? 'commands.sync' : 'commands.syncForGuild';
    const local = await validate(method, 'commandDefinitionListSchema', definitions);
    const appId = this.#applicationId(method, applicationId);
    try {
      const remote = await this.#list(appId, guildId, options);
      if (sameCommands(local, remote)) return { changed: false, commands: remote };
      return { changed: true, commands: await this.#replace(appId, guildId, local, options) };
    } catch (error) {
      throw error instanceof MissingCredentialError ? new MissingCredentialError(method, error.accepted, error.reasons) : error;
    }
  }
}

const BOOLEAN_DEFAULTS: Record<string, boolean> = { dm_permission: true, required: false, autocomplete: false };

function sameCommands(local: readonly Record<string, unknown>[], remote: readonly Command[]): boolean {
  if (!Array.isArray(remote) || local.length !== remote.length) return false;
  const byName = new Map(remote.map((command) => [command.name, command]));
  return local.every((command) => {
    const match = byName.get(command['name'] as string);
    return match !== undefined && covers(command, match);
  });
}

/** Whether every field the local value sets is equal on the remote value (missing booleans take their defaults). */
function covers(local: unknown, remote: unknown): boolean {
  if (Array.isArray(local)) {
    return Array.isArray(remote) ? local.length === remote.length && local.every((item, index) => covers(item, remote[index])) : local.length === 0 && remote === undefined;
  }
  if (typeof local === 'object' && local !== null) {
    if (typeof remote !== 'object' || remote === null) return false;
    const record = remote as Record<string, unknown>;
    for (const [key, value] of Object.entries(local)) {
      if (value === undefined) continue;
      const other = record[key] ?? BOOLEAN_DEFAULTS[key];
      if (!covers(value, other)) return false;
    }
    const localRecord = local as Record<string, unknown>;
    for (const [key, fallback] of Object.entries(BOOLEAN_DEFAULTS)) {
      if (localRecord[key] === undefined && record[key] !== undefined && record[key] !== fallback) return false;
    }
    return true;
  }
  return Object.is(local, remote);
}
