import type { CallOptions } from '../rest/options.js';
import type { RestClient } from '../rest/rest-client.js';
import { validate } from '../schemas/validate.js';
import { withId, withIds } from './response-ids.js';
import type { CreateApplicationRequest, UpdateApplicationRequest } from '../schemas/request-types.js';
import type { ApiLogEntry, Application, ApplicationMetrics, PublicApplication } from '../schemas/responses.js';
import { PageList, type ListOptions } from './pagination.js';

/** Applications: registration, the public view, api-logs and metrics. User credentials, except {@link ApplicationsManager.getPublic}. */
export class ApplicationsManager {
  constructor(
    private readonly rest: RestClient,
    /** Whether responses must carry a string `id` (the client option `requireResponseIds`). @default true */
    private readonly requireIds: boolean = true,
  ) {}

  /** `GET /applications`: the logged-in user's applications. */
  async list(options?: CallOptions): Promise<Application[]> {
    return withIds('applications.list', await this.rest.request('applications.list', { ...options }), this.requireIds);
  }

  /** `POST /applications`: registers an application. */
  async create(application: CreateApplicationRequest, options?: CallOptions): Promise<Application> {
    const body = await validate('applications.create', 'createApplicationSchema', application);
    return withId('applications.create', await this.rest.request('applications.create', { ...options, body }), this.requireIds);
  }

  /** `GET /applications/{app_id}`. */
  async get(applicationId: string, options?: CallOptions): Promise<Application> {
    return withId('applications.get', await this.rest.request('applications.get', { ...options, params: { app_id: applicationId } }), this.requireIds);
  }

  /** `PATCH /applications/{app_id}`. */
  async update(applicationId: string, changes: UpdateApplicationRequest, options?: CallOptions): Promise<Application> {
    const body = await validate('applications.update', 'updateApplicationSchema', changes);
    return withId(
      'applications.update',
      await this.rest.request('applications.update', { ...options, params: { app_id: applicationId }, body }),
      this.requireIds,
    );
  }

  /** `DELETE /applications/{app_id}`. */
  delete(applicationId: string, options?: CallOptions): Promise<void> {
    return this.rest.request('applications.delete', { ...options, params: { app_id: applicationId } });
  }

  /** `GET /applications/{app_id}/public`: the public view; sends no credentials. */
  getPublic(applicationId: string, options?: CallOptions): Promise<PublicApplication> {
    return this.rest.request('applications.getPublic', { ...options, params: { app_id: applicationId } });
  }

  /** `GET /applications/{app_id}/api-logs`: `await` it for one page (`page` @default 1, `perPage` @default 50), or walk every entry with `for await`. */
  listApiLogs(applicationId: string, options?: ListOptions): PageList<ApiLogEntry> {
    return new PageList(this.rest, 'applications.listApiLogs', { app_id: applicationId }, options);
  }

  /** `GET /applications/{app_id}/metrics`. */
  getMetrics(applicationId: string, options?: CallOptions): Promise<ApplicationMetrics> {
    return this.rest.request('applications.getMetrics', { ...options, params: { app_id: applicationId } });
  }
}
