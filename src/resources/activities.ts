import type { CallOptions } from '../rest/options.js';
import type { RestClient } from '../rest/rest-client.js';
import { validate } from '../schemas/validate.js';
import type { CreateActivityRequest, PlayPauseRequest, SeekRequest, StateUpdateRequest } from '../schemas/requests.js';
import type { Activity, ActivitySnapshot } from '../schemas/responses.js';

/** Channel activities: create, join, leave, play or pause, seek, state, snapshot, end. User or bot credentials. */
export class ActivitiesManager {
  constructor(private readonly rest: RestClient) {}

  /** `GET /channels/{channel_id}/activities`. */
  list(channelId: string, options?: CallOptions): Promise<Activity[]> {
    return this.rest.request('activities.list', { ...options, params: { channel_id: channelId } });
  }

  /** `POST /channels/{channel_id}/activities`. */
  async create(channelId: string, activity: CreateActivityRequest, options?: CallOptions): Promise<Activity> {
    const body = await validate('activities.create', 'createActivitySchema', activity);
    return this.rest.request('activities.create', { ...options, params: { channel_id: channelId }, body });
  }

  /** `GET /channels/{channel_id}/activities/active`: the channel's active activity. */
  getActive(channelId: string, options?: CallOptions): Promise<Activity> {
    return this.rest.request('activities.getActive', { ...options, params: { channel_id: channelId } });
  }

  /** `GET /activities/{activity_id}`. */
  get(activityId: string, options?: CallOptions): Promise<Activity> {
    return this.rest.request('activities.get', { ...options, params: { activity_id: activityId } });
  }

  /** `DELETE /activities/{activity_id}`: ends the activity. */
  end(activityId: string, options?: CallOptions): Promise<void> {
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
