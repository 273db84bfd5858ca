import type { CallOptions } from '../rest/options.js';
import type { RestClient } from '../rest/rest-client.js';
import { validate } from '../schemas/validate.js';
import type { UpdateBotRequest } from '../schemas/request-types.js';
import type { Bot, BotInviteUrl, BotTokenReset } from '../schemas/responses.js';

/** An application's bot account, its token and its invite URL. User credentials. */
export class BotsManager {
  constructor(private readonly rest: RestClient) {}

  /** `GET /applications/{app_id}/bot`. */
  get(applicationId: string, options?: CallOptions): Promise<Bot> {
    return this.rest.request('bots.get', { ...options, params: { app_id: applicationId } });
  }

  /** `PATCH /applications/{app_id}/bot`. */
  async update(applicationId: string, changes: UpdateBotRequest, options?: CallOptions): Promise<Bot> {
    const body = await validate('bots.update', 'updateBotSchema', changes);
    return this.rest.request('bots.update', { ...options, params: { app_id: applicationId }, body });
  }

  /** `GET /applications/{app_id}/bot/invite-url`. */
  getInviteUrl(applicationId: string, options?: CallOptions): Promise<BotInviteUrl> {
    return this.rest.request('bots.getInviteUrl', { ...options, params: { app_id: applicationId } });
  }

  /**
   * `POST /applications/{app_id}/bot/reset-token`: rotates the bot token and
   * invalidates the old one. The result holds the new token: keep it secret,
   * and pass it to `client.setBotToken()` if this client acts as that bot.
   */
  resetToken(applicationId: string, options?: CallOptions): Promise<BotTokenReset> {
    return this.rest.request('bots.resetToken', { ...options, params: { app_id: applicationId } });
  }
}
