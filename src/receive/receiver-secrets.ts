/**
 * A receiver's signing secrets: given once (one, or several while rotating),
 * or asked of a provider for each delivery, so that a server can start before
 * it knows its secret and rotate it at run time.
 *
 * @module
 */

import { ValidationError, isCommunityChatError } from '../errors/index.js';
import { secretKeys } from './input.js';
import type { WebhookSecret } from './scheme.js';

/** Gives the receiver's current signing secret(s); `undefined` or an empty list while there is none yet. */
export type WebhookSecretProvider = () => WebhookSecret | readonly WebhookSecret[] | undefined;

const OPERATION = 'createWebhookReceiver';

const listOf = (given: WebhookSecret | readonly WebhookSecret[] | undefined): WebhookSecret[] =>
  given === undefined ? [] : Array.isArray(given) ? [...(given as readonly WebhookSecret[])] : [given as WebhookSecret];

/** The secrets a receiver verifies with. */
export class ReceiverSecrets {
  #list: WebhookSecret[];
  #texts: string[];
  readonly #provider: WebhookSecretProvider | undefined;

  /** Refuses an empty or whitespace secret given directly with a `ValidationError`; a provider is asked later. */
  constructor(secret: WebhookSecret | readonly WebhookSecret[] | WebhookSecretProvider) {
    this.#provider = typeof secret === 'function' ? secret : undefined;
    if (typeof secret !== 'function') secretKeys(OPERATION, secret);
    this.#list = typeof secret === 'function' ? [] : listOf(secret);
    this.#texts = this.#list.filter((item): item is string => typeof item === 'string');
  }

  /**
   * The secrets to verify a delivery with now; `undefined` while a provider
   * gives none. Throws a `ValidationError` that never quotes what the
   * provider gave when it gives an unusable secret, or throws.
   */
  current(): WebhookSecret[] | undefined {
    if (this.#provider === undefined) return this.#list;
    let list: WebhookSecret[];
    try {
      list = listOf(this.#provider());
      if (list.length === 0) return undefined;
      secretKeys(OPERATION, list);
    } catch (error) {
      throw isCommunityChatError(error, 'ValidationError') ? error : new ValidationError(OPERATION, [{ path: 'secret', message: 'the secret provider threw' }]);
    }
    this.#list = list;
    this.#texts = list.filter((item): item is string => typeof item === 'string');
    return list;
  }

  /** The text secrets last used, to scrub from errors. */
  get texts(): readonly string[] {
    return this.#texts;
  }

  /** How many secrets were last used. */
  get count(): number {
    return this.#list.length;
  }
}
