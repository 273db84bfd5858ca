import type { CallOptions } from '../rest/options.js';
import type { RestClient } from '../rest/rest-client.js';
import { validateInteractionResponse } from '../schemas/validate.js';
import type { InteractionResponse } from '../schemas/request-types.js';
import type { ApiObject } from '../schemas/responses.js';

/** The interaction callback. Bot credentials. */
export class InteractionsManager {
  constructor(private readonly rest: RestClient) {}

  /**
   * `POST /interactions/{interaction_id}/callback`: answers an interaction.
   *
   * `interaction_type` is one of 1 (pong), 4 (message, needs `data.content`),
   * 5 (deferred message), 6 (deferred update), 8 (autocomplete) or 9 (modal).
   */
  async respond(interactionId: string, response: InteractionResponse, options?: CallOptions): Promise<ApiObject | undefined> {
    const body = await validateInteractionResponse('interactions.respond', response);
    return this.rest.request('interactions.respond', { ...options, params: { interaction_id: interactionId }, body });
  }
}
