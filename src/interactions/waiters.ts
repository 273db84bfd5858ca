/**
 * The interactions a router's callers wait for (`awaitComponent`,
 * `awaitModalSubmit`): a bounded set of waiters, each settled once by a
 * matching interaction, its timeout, its signal, or the router being cleared,
 * and then forgotten with its timer and its abort listener.
 *
 * @module
 */

import { InteractionTimeoutError, InteractionWaitAbortedError, ValidationError, type InteractionErrorInit, type InteractionWaitKind } from '../errors.js';
import type {
  AwaitComponentOptions,
  AwaitModalSubmitOptions,
  BaseInteraction,
  ComponentInteraction,
  Interaction,
  InteractionWaitRegistry,
  ModalSubmitInteraction,
} from './interaction.js';

/** How many waits a router holds at once unless told otherwise. */
export const DEFAULT_MAX_WAITERS = 1000;
/** The longest timer Node keeps (about 24.8 days). */
const MAX_TIMEOUT_MS = 2_147_483_647;

/** Interactions a waiter took: no router runs handlers for them (the Gateway dispatches one interaction to several routers). */
const taken = new WeakSet<object>();

interface Waiter {
  /** Whether the interaction is the one awaited (may throw: the caller's filter). */
  matches(interaction: Interaction): boolean;
  resolve(interaction: Interaction): void;
  reject(error: unknown): void;
  /** Rejects with `InteractionWaitAbortedError` saying `why`. */
  abort(why: string): void;
}

/** The id of the interaction a message answers (Discord's `interaction_metadata.id`, or the older `interaction.id`). */
function answeredInteractionId(message: Readonly<Record<string, unknown>> | undefined): string | undefined {
  for (const key of ['interaction_metadata', 'interaction']) {
    const value = message?.[key];
    const id = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)['id'] : undefined;
    if (typeof id === 'string' && id !== '') return id;
  }
  return undefined;
}

function messageId(message: Readonly<Record<string, unknown>> | undefined): string | undefined {
  const id = message?.['id'];
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/** The same user, when the waiting interaction carries one. */
function sameUser(original: BaseInteraction, candidate: Interaction): boolean {
  return original.user === undefined || candidate.user?.id === original.user.id;
}

/** The default match of `awaitComponent` (see `AwaitComponentOptions`). */
function tiedComponent(original: BaseInteraction, candidate: ComponentInteraction): boolean {
  const ownMessage = original.kind === 'component' ? messageId((original as ComponentInteraction).message) : undefined;
  const sameMessage = ownMessage !== undefined && messageId(candidate.message) === ownMessage;
  const answered = answeredInteractionId(candidate.message);
  const tied = answered !== undefined ? answered === original.id || sameMessage : sameMessage || original.channelId === undefined || candidate.channelId === original.channelId;
  return tied && sameUser(original, candidate);
}

/** The waits registered with one router. */
export class InteractionWaiters implements InteractionWaitRegistry {
  readonly #waiters = new Set<Waiter>();
  readonly #max: number;

  /** @param max The most waits held at once. @default 1000 */
  constructor(max: number = DEFAULT_MAX_WAITERS) {
    if (!Number.isInteger(max) || max < 1) throw new ValidationError('createInteractionRouter', [{ path: 'maxWaiters', message: 'must be a whole number of at least 1' }]);
    this.#max = max;
  }

  /** How many waits are pending. */
  get size(): number {
    return this.#waiters.size;
  }

  /** Waits for a component interaction tied to `original` (see `AwaitComponentOptions`). */
  awaitComponent(original: BaseInteraction, options: AwaitComponentOptions): Promise<ComponentInteraction> {
    const filter = options.filter;
    const matches = (candidate: Interaction) => candidate.kind === 'component' && tiedComponent(original, candidate) && (filter === undefined || filter(candidate) === true);
    return this.#wait(original, 'component', options, matches) as Promise<ComponentInteraction>;
  }

  /** Waits for a modal submit with `options.customId` by `original`'s user. */
  awaitModalSubmit(original: BaseInteraction, options: AwaitModalSubmitOptions): Promise<ModalSubmitInteraction> {
    const customId = (options as Partial<AwaitModalSubmitOptions>).customId;
    if (typeof customId !== 'string' || customId === '') {
      return Promise.reject(new ValidationError('interaction.awaitModalSubmit', [{ path: 'customId', message: 'required: the custom_id of the modal form that was shown' }]));
    }
    const matches = (candidate: Interaction) => candidate.kind === 'modalSubmit' && candidate.customId === customId && sameUser(original, candidate);
    return this.#wait(original, 'modalSubmit', options, matches) as Promise<ModalSubmitInteraction>;
  }

  /**
   * Hands an interaction to the first pending wait it matches, and says
   * whether one took it (or already did, on another router): the router then
   * runs no listener or handler for it. A filter that throws rejects its
   * wait with what it threw.
   */
  offer(interaction: Interaction): boolean {
    if (taken.has(interaction)) return true;
    for (const waiter of [...this.#waiters]) {
      let match: boolean;
      try {
        match = waiter.matches(interaction);
      } catch (error) {
        waiter.reject(error);
        continue;
      }
      if (match) {
        taken.add(interaction);
        waiter.resolve(interaction);
        return true;
      }
    }
    return false;
  }

  /** Rejects every pending wait with `InteractionWaitAbortedError` (the router is being cleared). */
  abortAll(why: string): void {
    for (const waiter of [...this.#waiters]) waiter.abort(why);
  }

  #wait(original: BaseInteraction, kind: InteractionWaitKind, options: AwaitComponentOptions | AwaitModalSubmitOptions, matches: (interaction: Interaction) => boolean): Promise<Interaction> {
    const operation = kind === 'component' ? 'interaction.awaitComponent' : 'interaction.awaitModalSubmit';
    const { timeoutMs, signal } = options as Partial<AwaitComponentOptions>;
    if (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_TIMEOUT_MS) {
      const message = `required: how long to wait, in milliseconds (1 to ${MAX_TIMEOUT_MS}); the service never reports a dismissed modal or an ignored message`;
      return Promise.reject(new ValidationError(operation, [{ path: 'timeoutMs', message }]));
    }
    const init = (): InteractionErrorInit => ({ interactionId: original.id, ageMs: original.ageMs });
    if (signal?.aborted) return Promise.reject(new InteractionWaitAbortedError(init(), kind, 'the signal was already aborted', { cause: signal.reason }));
    if (this.#waiters.size >= this.#max) {
      const message = `this router already holds ${this.#max} waits (maxWaiters); settle some, or raise maxWaiters in createInteractionRouter()`;
      return Promise.reject(new ValidationError(operation, [{ path: 'maxWaiters', message }]));
    }
    return new Promise<Interaction>((resolve, reject) => {
      const settle = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.#waiters.delete(waiter);
      };
      const waiter: Waiter = {
        matches,
        resolve: (interaction) => {
          settle();
          resolve(interaction);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
        abort: (why) => waiter.reject(new InteractionWaitAbortedError(init(), kind, why)),
      };
      const onAbort = () => waiter.reject(new InteractionWaitAbortedError(init(), kind, 'the signal aborted', { cause: signal?.reason }));
      const timer = setTimeout(() => waiter.reject(new InteractionTimeoutError(init(), kind, timeoutMs)), timeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters.add(waiter);
    });
  }
}
