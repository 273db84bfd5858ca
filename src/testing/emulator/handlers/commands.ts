/**
 * Slash commands: an application's global commands, and community commands.
 *
 * @module
 */

import * as schemas from '../../../schemas/requests.js';
import { appForCommandRoute, guildFor, ownedApp } from '../access.js';
import { HttpError, json, noContent, validate } from '../responses.js';
import type { Command } from '../state.js';
import type { HandlersOf } from './types.js';

export const commandHandlers = {
  'commands.list': ({ state, params, caller }) => json(200, ownedApp(state, caller, params.app_id).commands),
  'commands.create': ({ state, request, params, caller }) => {
    const app = ownedApp(state, caller, params.app_id);
    const command = state.makeCommand(app.id, validate(schemas.commandDefinitionSchema, request.body));
    const index = app.commands.findIndex((c) => c.name === command.name);
    if (index >= 0) app.commands[index] = { ...command, id: app.commands[index]?.id ?? command.id };
    else app.commands.push(command);
    return json(
      201,
      app.commands.find((c) => c.name === command.name),
    );
  },
  'commands.replace': ({ state, request, params, caller }) => {
    const app = ownedApp(state, caller, params.app_id);
    const body = validate(schemas.commandDefinitionListSchema, request.body);
    app.commands = body.map((definition) => state.makeCommand(app.id, definition, app.commands.find((c) => c.name === definition.name.toLowerCase())?.id));
    return json(200, app.commands);
  },
  'commands.delete': ({ state, params, caller }) => {
    const app = ownedApp(state, caller, params.app_id);
    const before = app.commands.length;
    app.commands = app.commands.filter((c) => c.id !== params.cmd_id);
    if (app.commands.length === before) throw new HttpError(404, 'Unknown application command', 10063);
    return noContent();
  },
  'commands.listInGuild': ({ state, params, caller }) => {
    const guild = guildFor(state, caller, params.guild_id);
    const visible: Command[] = [];
    for (const appId of guild.botApplications) {
      const app = state.apps.get(appId);
      if (app) visible.push(...app.commands, ...(app.guildCommands.get(guild.id) ?? []));
    }
    return json(200, visible);
  },
  'commands.listForGuild': ({ state, params, caller }) => {
    const guild = guildFor(state, caller, params.guild_id);
    return json(200, appForCommandRoute(state, caller, params.app_id).guildCommands.get(guild.id) ?? []);
  },
  'commands.replaceForGuild': ({ state, request, params, caller }) => {
    const guild = guildFor(state, caller, params.guild_id);
    const app = appForCommandRoute(state, caller, params.app_id);
    const body = validate(schemas.commandDefinitionListSchema, request.body);
    const existing = app.guildCommands.get(guild.id) ?? [];
    const next = body.map((definition) => ({
      ...state.makeCommand(app.id, definition, existing.find((c) => c.name === definition.name.toLowerCase())?.id),
      guild_id: guild.id,
    }));
    app.guildCommands.set(guild.id, next);
    return json(200, next);
  },
} satisfies HandlersOf<'commands'>;
