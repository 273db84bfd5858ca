import type { CallOptions } from '../rest/options.js';
import type { RestClient } from '../rest/rest-client.js';
import type { User } from '../schemas/responses.js';

/** Users. User or bot credentials. */
export class UsersManager {
  constructor(private readonly rest: RestClient) {}

  /** `GET /users/@me`: the account the client acts as. */
  getMe(options?: CallOptions): Promise<User> {
    return this.rest.request('users.getMe', { ...options });
  }
}
