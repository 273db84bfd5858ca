/**
 * Channel activities: create, list, the active one, join, leave, play or
 * pause, seek, state, snapshot and end.
 *
 * @module
 */

import * as schemas from '../../../schemas/requests.js';
import { activityFor, actorId, channelFor } from '../access.js';
import { HttpError, json, noContent, validate } from '../responses.js';
import type { Activity } from '../state.js';
import { activityView } from '../views.js';
import type { HandlersOf } from './types.js';

export const activityHandlers = {
  'activities.list': ({ state, params, caller }) => {
    const channel = channelFor(state, caller, params.channel_id);
    return json(200, [...state.activities.values()].filter((a) => a.channelId === channel.id && !a.ended).map(activityView));
  },
  'activities.create': ({ state, request, params, caller }) => {
    const channel = channelFor(state, caller, params.channel_id);
    const fields = validate(schemas.createActivitySchema, request.body);
    const activity: Activity = {
      id: state.id(),
      channelId: channel.id,
      fields,
      participants: new Set(),
      paused: true,
      positionMs: 0,
      state: {},
      ended: false,
      createdAt: state.now(),
    };
    state.activities.set(activity.id, activity);
    return json(201, activityView(activity));
  },
  'activities.getActive': ({ state, params, caller }) => {
    const channel = channelFor(state, caller, params.channel_id);
    const active = [...state.activities.values()].filter((a) => a.channelId === channel.id && !a.ended).at(-1);
    if (!active) throw new HttpError(404, 'No active activity in this channel', 10070);
    return json(200, activityView(active));
  },
  'activities.get': ({ state, params, caller }) => json(200, activityView(activityFor(state, caller, params.activity_id))),
  'activities.delete': ({ state, params, caller }) => {
    activityFor(state, caller, params.activity_id).ended = true;
    return noContent();
  },
  'activities.join': ({ state, params, caller }) => {
    activityFor(state, caller, params.activity_id).participants.add(actorId(caller));
    return noContent();
  },
  'activities.leave': ({ state, params, caller }) => {
    activityFor(state, caller, params.activity_id).participants.delete(actorId(caller));
    return noContent();
  },
  'activities.playPause': ({ state, request, params, caller }) => {
    const activity = activityFor(state, caller, params.activity_id);
    const body = validate(schemas.playPauseSchema, request.body);
    activity.paused = typeof body['paused'] === 'boolean' ? body['paused'] : !activity.paused;
    return noContent();
  },
  'activities.seek': ({ state, request, params, caller }) => {
    const activity = activityFor(state, caller, params.activity_id);
    const body = validate(schemas.seekSchema, request.body);
    if (typeof body['position_ms'] !== 'number') throw new HttpError(400, 'Invalid Form Body', 50035, { errors: { position_ms: 'is required' } });
    activity.positionMs = body['position_ms'];
    return noContent();
  },
  'activities.updateState': ({ state, request, params, caller }) => {
    const activity = activityFor(state, caller, params.activity_id);
    const body = validate(schemas.stateUpdateSchema, request.body);
    const update = body['state'];
    Object.assign(activity.state, typeof update === 'object' && update !== null ? update : body);
    return noContent();
  },
  'activities.getSnapshot': ({ state, params, caller }) => {
    const activity = activityFor(state, caller, params.activity_id);
    const snapshot = {
      activity_id: activity.id,
      paused: activity.paused,
      position_ms: activity.positionMs,
      state: structuredClone(activity.state),
      participants: [...activity.participants],
      taken_at: new Date(state.now()).toISOString(),
    };
    activity.lastSnapshot = snapshot;
    return json(200, snapshot);
  },
} satisfies HandlersOf<'activities'>;
