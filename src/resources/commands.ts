import { MissingCredentialError } from '../errors/index.js';
import { validate } from '../schemas/validate.js';
import type { CallOptions } from '../rest/options.js';
import type { RestClient } from '../rest/rest-client.js';
import type { CommandDefinition } from '../schemas/request-types.js';
import type { Command } from '../schemas/responses.js';
import { withId, withIds } from './response-ids.js';

/** The outcome of {@link CommandsManager.sync}. */
export interface CommandSyncResult {
  /** Whether the server's commands differed and were replaced. */
  changed: boolean;
  /** The commands now registered. */
  commands: Command[];
}

/**
 * Slash commands, global to an application or specific to a community.
 * Every method takes the application id first (then the community id, for
 * the `...ForGuild` methods) and call options last. Registering commands
 * needs a user session (`client.auth.login`); a bot token can list them.
 */
export class CommandsManager {
  constructor(
    private readonly rest: RestClient,
    /** Whether responses must carry a string `id` (the client option `requireResponseIds`). @default true */
    private readonly requireIds: boolean = true,
  ) {}

  /** `GET /applications/{app_id}/commands`: an application's global commands. */
  list(applicationId: string, options?: CallOptions): Promise<Command[]> {
    return this.#list(applicationId, undefined, options);
  }

  /** `GET /guilds/{guild_id}/commands/{app_id}`: one application's commands specific to a community. */
  listForGuild(applicationId: string, guildId: string, options?: CallOptions): Promise<Command[]> {
    return this.#list(applicationId, guildId, options);
  }

  async #list(applicationId: string, guildId: string | undefined, options: CallOptions | undefined): Promise<Command[]> {
    if (guildId !== undefined) {
      return withIds(
        'commands.listForGuild',
        await this.rest.request('commands.listForGuild', { ...options, params: { guild_id: guildId, app_id: applicationId } }),
        this.requireIds,
      );
    }
    return withIds('commands.list', await this.rest.request('commands.list', { ...options, params: { app_id: applicationId } }), this.requireIds);
  }

  /** `GET /guilds/{guild_id}/commands`: every command visible in a community, of every application. */
  async listInGuild(guildId: string, options?: CallOptions): Promise<Command[]> {
    return withIds('commands.listInGuild', await this.rest.request('commands.listInGuild', { ...options, params: { guild_id: guildId } }), this.requireIds);
  }

  /** `POST /applications/{app_id}/commands`: registers one global command (name lowercased, `dm_permission` defaulting to true). */
  async create(applicationId: string, definition: CommandDefinition, options?: CallOptions): Promise<Command> {
    const body = await validate('commands.create', 'commandDefinitionSchema', definition);
    return withId<Command>(
      'commands.create',
      await this.rest.request('commands.create', { ...options, params: { app_id: applicationId }, body }),
      this.requireIds,
    );
  }

  /** `PUT /applications/{app_id}/commands`: replaces every global command of the application. */
  replace(applicationId: string, definitions: readonly CommandDefinition[], options?: CallOptions): Promise<Command[]> {
    return this.#replace(applicationId, undefined, definitions, options);
  }

  /** `PUT /guilds/{guild_id}/commands/{app_id}`: replaces one application's commands specific to a community. */
  replaceForGuild(applicationId: string, guildId: string, definitions: readonly CommandDefinition[], options?: CallOptions): Promise<Command[]> {
    return this.#replace(applicationId, guildId, definitions, options);
  }

  async #replace(applicationId: string, guildId: string | undefined, definitions: unknown, options: CallOptions | undefined): Promise<Command[]> {
    const operation = guildId === undefined ? 'commands.replace' : 'commands.replaceForGuild';
    const body = await validate(operation, 'commandDefinitionListSchema', definitions);
    const params = guildId === undefined ? { app_id: applicationId } : { guild_id: guildId, app_id: applicationId };
    return withIds(operation, await this.rest.request(operation, { ...options, params, body }), this.requireIds);
  }

  /** `DELETE /applications/{app_id}/commands/{cmd_id}`. */
  delete(applicationId: string, commandId: string, options?: CallOptions): Promise<void> {
    return this.rest.request('commands.delete', { ...options, params: { app_id: applicationId, cmd_id: commandId } });
  }

  /**
   * Makes the application's global commands match `definitions`: fetches
   * them, compares, and replaces them only when they differ (extra
   * server-side fields such as ids are ignored).
   */
  sync(applicationId: string, definitions: readonly CommandDefinition[], options?: CallOptions): Promise<CommandSyncResult> {
    return this.#sync(applicationId, undefined, definitions, options);
  }

  /** Like {@link CommandsManager.sync}, for one application's commands specific to a community. */
  syncForGuild(applicationId: string, guildId: string, definitions: readonly CommandDefinition[], options?: CallOptions): Promise<CommandSyncResult> {
    return this.#sync(applicationId, guildId, definitions, options);
  }

  async #sync(applicationId: string, guildId: string | undefined, definitions: unknown, options: CallOptions | undefined): Promise<CommandSyncResult> {
    // Errors name the method the caller used, not the operations it is made of.
    const method = guildId === undefined ? 'commands.sync' : 'commands.syncForGuild';
    const local = await validate(method, 'commandDefinitionListSchema', definitions);
    try {
      const remote = await this.#list(applicationId, guildId, options);
      if (sameCommands(local, remote)) return { changed: false, commands: remote };
      return { changed: true, commands: await this.#replace(applicationId, guildId, local, options) };
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
    return Array.isArray(remote)
      ? local.length === remote.length && local.every((item, index) => covers(item, remote[index]))
      : local.length === 0 && remote === undefined;
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
