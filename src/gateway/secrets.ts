/**
 * The secret values the Gateway knows, so that it can scrub them from every
 * event and error it emits: the bot token (current, and the one last sent),
 * and the tokens of recent interactions, each kept only for its 15-minute
 * lifetime and at most `capacity` of them.
 *
 * @module
 */

import { INTERACTION_LIFETIME_MS } from '../constants.js';
import { scrubText } from '../redact.js';

/** Known secrets, bounded in number and time. */
export class SecretBook {
  readonly #now: () => number;
  readonly #capacity: number;
  /** Interaction token → when to forget it; insertion order is age order. */
  readonly #interactionTokens = new Map<string, number>();
  readonly #botTokens = new Set<string>();

  constructor(now: () => number, capacity = 1000) {
    this.#now = now;
    this.#capacity = capacity;
  }

  /** Records a bot token that was (or will be) sent; keeps the last two. */
  rememberBotToken(token: string | undefined): void {
    if (token === undefined || this.#botTokens.has(token)) return;
    this.#botTokens.add(token);
    if (this.#botTokens.size > 2) this.#botTokens.delete(this.#botTokens.values().next().value as string);
  }

  /** Records an interaction's token for its lifetime. */
  remember(token: string): void {
    this.#prune();
    this.#interactionTokens.delete(token);
    this.#interactionTokens.set(token, this.#now() + INTERACTION_LIFETIME_MS);
    while (this.#interactionTokens.size > this.#capacity) this.#interactionTokens.delete(this.#interactionTokens.keys().next().value as string);
  }

  /** The interaction tokens still remembered, oldest first. */
  interactionTokens(): string[] {
    this.#prune();
    return [...this.#interactionTokens.keys()];
  }

  /** Every known secret, with `current` (the bot token the client holds now). */
  list(current: string | undefined): string[] {
    const secrets = [...this.#botTokens, ...this.interactionTokens()];
    if (current !== undefined && !this.#botTokens.has(current)) secrets.push(current);
    return secrets;
  }

  #prune(): void {
    const now = this.#now();
    for (const [token, forgetAt] of this.#interactionTokens) {
      if (forgetAt > now) break;
      this.#interactionTokens.delete(token);
    }
  }
}

/** The error, its message and stack scrubbed of known secrets (in place: the SDK made it). */
export function scrubError<E extends Error>(error: E, secrets: readonly string[]): E {
  const message = scrubText(error.message, secrets);
  if (message !== error.message) error.message = message;
  if (error.stack !== undefined) {
    const stack = scrubText(error.stack, secrets);
    if (stack !== error.stack) error.stack = stack;
  }
  return error;
}
