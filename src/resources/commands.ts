import { ValidationError } from '../errors.js';
import { validate } from '../schemas/validate.js';
import type { CallOptions } from '../rest/options.js';
import type { RestClient } from '../rest/rest-client.js';
import type { CommandDefinition } from '../schemas/requests.js';
import type { Command } from '../schemas/responses.js';

/** Which application, and optionally which community, a command call addresses. */
export interface CommandScope extends CallOptions {
  /** The application. @default the client's `applicationId` option */
  applicationId?: string | undefined;
  /** A community: address its community-specific commands instead of the global ones. */
  guildId?: string | undefined;
}

/** The outcome of {@link CommandsManager.sync}. */
export interface CommandSyncResult {
  /** Whether the server's commands differed and were replaced. */
  changed: boolean;
  /** The commands now registered. */
  commands: Command[];
}

/** Slash commands, global to an application or specific to a community. */
export class CommandsManager {
  constructor(
    private readonly rest: RestClient,
    private readonly defaultApplicationId: () => string | undefined,
  ) {}

  #applicationId(operation: string, scope: CommandScope | undefined): string {
    const id = scope?.applicationId ?? this.defaultApplicationId();
    if (id === undefined) {
      throw new ValidationError(operation, [{ path: 'applicationId', message: 'is required: pass it in the call or set the client option applicationId' }]);
    }
    return id;
  }

  /**
   * Lists an application's commands: `GET /applications/{app_id}/commands`, or with
   * `guildId`, `GET /guilds/{guild_id}/commands/{app_id}`.
   */
  async list(scope?: CommandScope): Promise<Command[]> {
    const { applicationId: _a, guildId, ...options } = scope ?? {};
    const appId = this.#applicationId('commands.list', scope);
    if (guildId !== undefined) return this.rest.request('commands.listForGuild', { ...options, params: { guild_id: guildId, app_id: appId } });
    return this.rest.request('commands.list', { ...options, params: { app_id: appId } });
  }

  /** `GET /guilds/{guild_id}/commands`: every command visible in a community, of every application. */
  listVisibleInGuild(guildId: string, options?: CallOptions): Promise<Command[]> {
    return this.rest.request('commands.listInGuild', { ...options, params: { guild_id: guildId } });
  }

  /** `POST /applications/{app_id}/commands`: registers one global command (name lowercased, `dm_permission` defaulting to true). */
  async create(definition: CommandDefinition, scope?: Omit<CommandScope, 'guildId'>): Promise<Command> {
    const { applicationId: _a, ...options } = scope ?? {};
    const body = await validate('commands.create', 'commandDefinitionSchema', definition);
    const appId = this.#applicationId('commands.create', scope);
    return this.rest.request('commands.create', { ...options, params: { app_id: appId }, body });
  }

  /**
   * Replaces every command: `PUT /applications/{app_id}/commands`, or with
   * `guildId`, `PUT /guilds/{guild_id}/commands/{app_id}`.
   */
  async replace(definitions: readonly CommandDefinition[], scope?: CommandScope): Promise<Command[]> {
    const { applicationId: _a, guildId, ...options } = scope ?? {};
    const operation = guildId === undefined ? 'commands.replace' : 'commands.replaceForGuild';
    const body = await validate(operation, 'commandDefinitionListSchema', definitions);
    const appId = this.#applicationId(operation, scope);
    if (guildId !== undefined) return this.rest.request('commands.replaceForGuild', { ...options, params: { guild_id: guildId, app_id: appId }, body });
    return this.rest.request('commands.replace', { ...options, params: { app_id: appId }, body });
  }

  /** `DELETE /applications/{app_id}/commands/{cmd_id}`. */
  async delete(commandId: string, scope?: Omit<CommandScope, 'guildId'>): Promise<void> {
    const { applicationId: _a, ...options } = scope ?? {};
    const appId = this.#applicationId('commands.delete', scope);
    return this.rest.request('commands.delete', { ...options, params: { app_id: appId, cmd_id: commandId } });
  }

  /**
   * Makes the server's commands match `definitions`: fetches them, compares,
   * and replaces them only when they differ (extra server-side fields such as
   * ids are ignored).
   */
  async sync(definitions: readonly CommandDefinition[], scope?: CommandScope): Promise<CommandSyncResult> {
    const operation = scope?.guildId === undefined ? 'commands.replace' : 'commands.replaceForGuild';
    const local = await validate(operation, 'commandDefinitionListSchema', definitions);
    this.#applicationId(operation, scope);
    const remote = await this.list(scope);
    if (sameCommands(local, remote)) return { changed: false, commands: remote };
    return { changed: true, commands: await this.replace(local, scope) };
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
