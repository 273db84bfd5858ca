import type { CallOptions } from '../rest/options.js';
import type { RestClient } from '../rest/rest-client.js';
import { validate } from '../schemas/validate.js';
import { withId, withIds } from './response-ids.js';
import type { CreateActivityRequest, PlayPauseRequest, SeekRequest, StateUpdateRequest } from '../schemas/request-types.js';
import type { Activity, ActivitySnapshot } from '../schemas/responses.js';

/** Channel activities: create, join, leave, play or pause, seek, state, snapshot, end. User or bot credentials. */
export class ActivitiesManager {
  constructor(
    private readonly rest: RestClient,
    /** Whether responses must carry a string `id` (the client option `requireResponseIds`). @default true */
    private readonly requireIds: boolean = true,
  ) {}

  /** `GET /channels/{channel_id}/activities`. */
  async list(channelId: string, options?: CallOptions): Promise<Activity[]> {
    return withIds('activities.list', await this.rest.request('activities.list', { ...options, params: { channel_id: channelId } }), this.requireIds);
  }

  /** `POST /channels/{channel_id}/activities`. */
  async create(channelId: string, activity: CreateActivityRequest, options?: CallOptions): Promise<Activity> {
    const body = await validate('activities.create', 'createActivitySchema', activity);
    return withId('activities.create', await this.rest.request('activities.create', { ...options, params: { channel_id: channelId }, body }), this.requireIds);
  }

  /** `GET /channels/{channel_id}/activities/active`: the channel's active activity. */
  async getActive(channelId: string, options?: CallOptions): Promise<Activity> {
    return withId('activities.getActive', await this.rest.request('activities.getActive', { ...options, params: { channel_id: channelId } }), this.requireIds);
  }

  /** `GET /activities/{activity_id}`. */
  async get(activityId: string, options?: CallOptions): Promise<Activity> {
    return withId('activities.get', await this.rest.request('activities.get', { ...options, params: { activity_id: activityId } }), this.requireIds);
  }

  /** `DELETE /activities/{activity_id}`: ends the activity. */
  delete(activityId: string, options?: CallOptions): Promise<void> {
    return this.rest.request('activities.delete', { ...options, params: { activity_id: activityId } });
  }

  /** `POST /activities/{activity_id}/join`. */
  join(activityId: string, options?: CallOptions): Promise<void> {
    return this.rest.request('activities.join', { ...options, params: { activity_id: activityId } });
  }

  /** `POST /activities/{activity_id}/leave`. */
  leave(activityId: string, options?: CallOptions): Promise<void> {
    return this.rest.request('activities.leave', { ...options, params: { activity_id: activityId } });
  }

  /** `POST /activities/{activity_id}/play-pause`. */
  async playPause(activityId: string, request: PlayPauseRequest, options?: CallOptions): Promise<void> {
    const body = await validate('activities.playPause', 'playPauseSchema', request);
    return this.rest.request('activities.playPause', { ...options, params: { activity_id: activityId }, body });
  }

  /** `POST /activities/{activity_id}/seek`. */
  async seek(activityId: string, request: SeekRequest, options?: CallOptions): Promise<void> {
    const body = await validate('activities.seek', 'seekSchema', request);
    return this.rest.request('activities.seek', { ...options, params: { activity_id: activityId }, body });
  }

  /** `POST /activities/{activity_id}/state`. */
  async updateState(activityId: string, request: StateUpdateRequest, options?: CallOptions): Promise<void> {
    const body = await validate('activities.updateState', 'stateUpdateSchema', request);
    return this.rest.request('activities.updateState', { ...options, params: { activity_id: activityId }, body });
  }

  /** `GET /activities/{activity_id}/snapshot`. */
  getSnapshot(activityId: string, options?: CallOptions): Promise<ActivitySnapshot> {
    return this.rest.request('activities.getSnapshot', { ...options, params: { activity_id: activityId } });
  }
}
