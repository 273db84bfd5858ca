/**
 * Applications: the owner's list, create, read, update, delete, the public
 * view, API logs and metrics.
 *
 * @module
 */

import * as schemas from '../../../schemas/requests.js';
import { ownedApp, userOf } from '../access.js';
import { HttpError, json, noContent, page, validate } from '../responses.js';
import { appView } from '../views.js';
import type { HandlersOf } from './types.js';

/** Gateway close code for a token that no longer authenticates. */
export const AUTHENTICATION_FAILED = 4004;

export const applicationHandlers = {
  'applications.list': ({ state, caller }) => json(200, [...state.apps.values()].filter((app) => app.ownerId === caller.user.id).map(appView)),
  'applications.create': ({ state, request, caller }) => {
    const { name, description, ...extra } = validate(schemas.createApplicationSchema, request.body);
    if (typeof name !== 'string' || name.trim() === '') throw new HttpError(400, 'Invalid Form Body', 50035, { errors: { name: 'is required' } });
    const app = state.addApplication(userOf(caller).id, name, typeof description === 'string' ? description : '', extra);
    return json(201, appView(app));
  },
  'applications.get': ({ state, params, caller }) => json(200, appView(ownedApp(state, caller, params.app_id))),
  'applications.update': ({ state, request, params, caller }) => {
    const app = ownedApp(state, caller, params.app_id);
    const { name, description, ...extra } = validate(schemas.updateApplicationSchema, request.body);
    if (typeof name === 'string' && name.trim() !== '') app.name = name;
    if (typeof description === 'string') app.description = description;
    Object.assign(app.extra, extra);
    return json(200, appView(app));
  },
  'applications.delete': ({ state, params, caller }) => {
    const app = ownedApp(state, caller, params.app_id);
    state.apps.delete(app.id);
    state.gateway?.closeSessionsOfToken(app.bot.token, AUTHENTICATION_FAILED);
    return noContent();
  },
  'applications.getPublic': ({ state, params }) => {
    const app = state.apps.get(params.app_id);
    if (!app) throw new HttpError(404, 'Unknown Application', 10002);
    return json(200, { id: app.id, name: app.name, description: app.description, bot_public: true });
  },
  'applications.listApiLogs': ({ state, params, query, caller }) => json(200, page(ownedApp(state, caller, params.app_id).apiLogs, query)),
  'applications.getMetrics': ({ state, params, caller }) => {
    const app = ownedApp(state, caller, params.app_id);
    const interactions = [...state.interactions.values()].filter((i) => i.applicationId === app.id);
    return json(200, {
      application_id: app.id,
      api_requests: app.apiLogs.length,
      interactions: interactions.length,
      interactions_answered: interactions.filter((i) => i.acknowledgedWith !== undefined).length,
      commands: app.commands.length,
    });
  },
} satisfies HandlersOf<'applications'>;
