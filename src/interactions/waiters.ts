/**
 * The interactions a router's callers wait for (`awaitComponent`,
 * `awaitModalSubmit`): a bounded set of waiters, each settled once by a
 * matching interaction, its timeout, its signal, or the router being cleared,
 * and then forgotten with its timer and its abort listener.
 *
 * @module
 */

import { InteractionTimeoutError, InteractionWaitAbortedError, ValidationError, type InteractionErrorInit, type InteractionWaitKind } from '../errors/index.js';
import { MAX_TIMER_MS } from '../core/bounds.js';
import { clockTimer } from '../core/clock.js';
import { wait } from '../core/wait.js';
import type {
  AwaitComponentOptions,
  AwaitModalSubmitOptions,
  ComponentInteraction,
  Interaction,
  InteractionWaitRegistry,
  ModalSubmitInteraction,
} from './interaction.js';
import type { BaseInteraction } from './base.js';

/** How many waits a router holds at once unless told otherwise. */
export const DEFAULT_MAX_WAITERS = 1000;

/** Interactions a waiter took: no router runs handlers for them (`handle()` offers one interaction to the waits of several routers). */
const takenByWait = new WeakSet<object>();

/** Whether a wait took the interaction. */
export function taken(interaction: object): boolean {
  return takenByWait.has(interaction);
}

interface Waiter {
  /** The index keys it is filed under: only an interaction of one of these keys is ever tried against it. */
  readonly keys: readonly string[];
  /** Whether the interaction is the one awaited (may throw: the caller's filter). */
  matches(interaction: Interaction): boolean;
  resolve(interaction: Interaction): void;
  reject(error: unknown): void;
  /** Rejects with `InteractionWaitAbortedError` saying `why`. */
  abort(why: string): void;
  /** Registration order: the oldest matching wait takes an interaction. */
  readonly order: number;
}

/** Counts registrations, for the oldest-first order. */
let order = 0;

/** The id of the interaction a message answers (Discord's `interaction_metadata.id`, or the older `interaction.id`). */
export function answeredInteractionId(message: Readonly<Record<string, unknown>> | undefined): string | undefined {
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
  const tied =
    answered !== undefined
      ? answered === original.id || sameMessage
      : sameMessage || original.channelId === undefined || candidate.channelId === original.channelId;
  return tied && sameUser(original, candidate);
}

/**
 * The index keys a component wait is filed under: the interaction it waits
 * for an answer to, the message it sits on, and its channel (or any channel)
 * for clicks whose message says nothing of the interaction it answers.
 */
function componentWaitKeys(original: BaseInteraction): string[] {
  const keys = [`answers:${original.id}`];
  const ownMessage = original.kind === 'component' ? messageId((original as ComponentInteraction).message) : undefined;
  if (ownMessage !== undefined) keys.push(`message:${ownMessage}`);
  keys.push(`channel:${original.channelId ?? '*'}`);
  return keys;
}

/** The index keys an interaction is looked up under: the only waits it is tried against. */
function candidateKeys(interaction: Interaction): string[] {
  if (interaction.kind === 'modalSubmit') return [`modal:${interaction.customId}`];
  if (interaction.kind !== 'component') return [];
  const keys: string[] = [];
  const answered = answeredInteractionId(interaction.message);
  if (answered !== undefined) keys.push(`answers:${answered}`);
  const onMessage = messageId(interaction.message);
  if (onMessage !== undefined) keys.push(`message:${onMessage}`);
  // A click whose message does not say which interaction it answers may be tied by its channel.
  if (answered === undefined) keys.push(`channel:${interaction.channelId ?? '*'}`, 'channel:*');
  return keys;
}

/** Most unclaimed interactions held for a wait about to register. */
const MAX_HELD = 100;

/** An interaction nothing took, held briefly for a wait about to register. */
interface Held {
  readonly timer: ReturnType<typeof setTimeout>;
  readonly unclaimed: () => void;
}

/** The waits registered with one router, indexed by what they match. */
export class InteractionWaiters implements InteractionWaitRegistry {
  readonly #index = new Map<string, Set<Waiter>>();
  readonly #held = new Map<Interaction, Held>();
  readonly #max: number;
  #size = 0;

  /** @param max The most waits held at once. @default 1000 */
  constructor(max: number = DEFAULT_MAX_WAITERS) {
    if (!Number.isInteger(max) || max < 1)
      throw new ValidationError('createInteractionRouter', [{ path: 'maxWaiters', message: 'must be a whole number of at least 1' }]);
    this.#max = max;
  }

  /** How many waits are pending. */
  get size(): number {
    return this.#size;
  }

  /** How many unclaimed interactions are held for a wait about to register. */
  get heldCount(): number {
    return this.#held.size;
  }

  /** Waits for a component interaction tied to `original` (see `AwaitComponentOptions`). */
  awaitComponent(original: BaseInteraction, options: AwaitComponentOptions): Promise<ComponentInteraction> {
    const filter = options.filter;
    const matches = (candidate: Interaction) =>
      candidate.kind === 'component' && tiedComponent(original, candidate) && (filter === undefined || filter(candidate) === true);
    return this.#wait(original, 'component', options, componentWaitKeys(original), matches) as Promise<ComponentInteraction>;
  }

  /** Waits for a modal submit with `options.customId` by `original`'s user. */
  awaitModalSubmit(original: BaseInteraction, options: AwaitModalSubmitOptions): Promise<ModalSubmitInteraction> {
    const customId = (options as Partial<AwaitModalSubmitOptions>).customId;
    if (typeof customId !== 'string' || customId === '') {
      return Promise.reject(
        new ValidationError('interaction.awaitModalSubmit', [{ path: 'customId', message: 'required: the custom_id of the modal form that was shown' }]),
      );
    }
    // A modal opened from a component comes back with that component's message (Discord's): then it must be this one's.
    const ownMessage = original.kind === 'component' ? messageId((original as ComponentInteraction).message) : undefined;
    const matches = (candidate: Interaction) => {
      if (candidate.kind !== 'modalSubmit' || candidate.customId !== customId || !sameUser(original, candidate)) return false;
      const submittedOn = messageId(candidate.message);
      return ownMessage === undefined || submittedOn === undefined || submittedOn === ownMessage;
    };
    return this.#wait(original, 'modalSubmit', options, [`modal:${customId}`], matches) as Promise<ModalSubmitInteraction>;
  }

  /**
   * Hands an interaction to the first pending wait it matches, and says
   * whether one took it (or already did, on another router): the router then
   * runs no listener or handler for it. A filter that throws rejects its
   * wait with what it threw.
   */
  offer(interaction: Interaction): boolean {
    if (takenByWait.has(interaction)) return true;
    // No wait at all (the common case, and every slash command finds none): nothing to build.
    if (this.#index.size === 0) return false;
    // Only the waits filed under the interaction's keys, oldest first: an unrelated click costs a few map lookups, however many waits there are.
    const tried = new Set<Waiter>();
    const candidates: Waiter[] = [];
    for (const key of candidateKeys(interaction)) {
      for (const waiter of this.#index.get(key) ?? []) {
        if (tried.has(waiter)) continue;
        tried.add(waiter);
        candidates.push(waiter);
      }
    }
    // Clicks go to the oldest matching wait; a modal submit to the latest opener (a user sees one modal at a time: showing another replaces the first).
    if (candidates.length > 1) candidates.sort(interaction.kind === 'modalSubmit' ? (a, b) => b.order - a.order : (a, b) => a.order - b.order);
    for (const waiter of candidates) if (this.#try(waiter, interaction)) return true;
    return false;
  }

  /**
   * Holds an interaction that no wait, handler or listener took, for `ms`, for
   * a wait about to register (the README's order, reply then await, lets a
   * fast click arrive before the wait). At most 100 are held; the oldest goes
   * first. `unclaimed` runs if no wait takes it in time.
   */
  hold(interaction: Interaction, ms: number, unclaimed: () => void): void {
    if (this.#held.size >= MAX_HELD) {
      const [oldest] = this.#held;
      if (oldest !== undefined) this.#release(oldest[0], true);
    }
    const timer = setTimeout(() => this.#release(interaction, true), ms);
    // Holding a click never keeps the process alive.
    timer.unref?.();
    this.#held.set(interaction, { timer, unclaimed });
  }

  /** Rejects every pending wait with `InteractionWaitAbortedError` (the router is being cleared), and lets held interactions go. */
  abortAll(why: string): void {
    for (const set of [...this.#index.values()]) for (const waiter of [...set]) waiter.abort(why);
    for (const interaction of [...this.#held.keys()]) this.#release(interaction, true);
  }

  /** Hands `interaction` to `waiter` if it matches; a filter that throws rejects the wait. */
  #try(waiter: Waiter, interaction: Interaction): boolean {
    let match: boolean;
    try {
      match = waiter.matches(interaction);
    } catch (error) {
      waiter.reject(error);
      return false;
    }
    if (!match) return false;
    takenByWait.add(interaction);
    waiter.resolve(interaction);
    return true;
  }

  #release(interaction: Interaction, unclaimed: boolean): void {
    const held = this.#held.get(interaction);
    if (held === undefined) return;
    clearTimeout(held.timer);
    this.#held.delete(interaction);
    if (unclaimed) held.unclaimed();
  }

  #wait(
    original: BaseInteraction,
    kind: InteractionWaitKind,
    options: AwaitComponentOptions | AwaitModalSubmitOptions,
    keys: readonly string[],
    matches: (interaction: Interaction) => boolean,
  ): Promise<Interaction> {
    const operation = kind === 'component' ? 'interaction.awaitComponent' : 'interaction.awaitModalSubmit';
    const { timeoutMs, signal } = options as Partial<AwaitComponentOptions>;
    if (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_TIMER_MS) {
      const message = `required: how long to wait, in milliseconds (1 to ${MAX_TIMER_MS}); the service never reports a dismissed modal or an ignored message`;
      return Promise.reject(new ValidationError(operation, [{ path: 'timeoutMs', message }]));
    }
    const init = (): InteractionErrorInit => ({ interactionId: original.id, ageMs: original.ageMs });
    if (signal?.aborted) return Promise.reject(new InteractionWaitAbortedError(init(), kind, 'the signal was already aborted', { cause: signal.reason }));
    if (this.#size >= this.#max) {
      const message = `this router already holds ${this.#max} waits (maxWaiters); settle some, or raise maxWaiters in createInteractionRouter()`;
      return Promise.reject(new ValidationError(operation, [{ path: 'maxWaiters', message }]));
    }
    let settle!: { resolve: (interaction: Interaction) => void; reject: (error: unknown) => void };
    const matched = new Promise<Interaction>((resolve, reject) => (settle = { resolve, reject }));
    let filed = true;
    const unfile = () => {
      if (!filed) return;
      filed = false;
      this.#size--;
      for (const key of keys) {
        const set = this.#index.get(key);
        set?.delete(waiter);
        if (set?.size === 0) this.#index.delete(key);
      }
    };
    const waiter: Waiter = {
      keys,
      order: ++order,
      matches,
      resolve: (interaction) => {
        unfile();
        settle.resolve(interaction);
      },
      reject: (error) => {
        unfile();
        settle.reject(error);
      },
      abort: (why) => waiter.reject(new InteractionWaitAbortedError(init(), kind, why)),
    };
    this.#size++;
    for (const key of keys) {
      let set = this.#index.get(key);
      if (set === undefined) this.#index.set(key, (set = new Set()));
      set.add(waiter);
    }
    // A click that arrived before this wait (and that nothing took) is still held: the oldest that matches is this wait's.
    // A filter that throws on one rejects the wait: it takes no later one (which would be marked taken and lost).
    for (const interaction of this.#held.keys()) {
      if (!filed) break;
      if (candidateKeys(interaction).some((key) => keys.includes(key)) && this.#try(waiter, interaction)) {
        this.#release(interaction, false);
        break;
      }
    }
    // The timeout runs on the interaction's clock (the client's): a test clock's jump past it ends the wait at once.
    const stopTimer = clockTimer(original.clock, timeoutMs, () => waiter.reject(new InteractionTimeoutError(init(), kind, timeoutMs)));
    // The one abortable wait ends it at the signal; either way the wait is unfiled (and its timer stopped) before any later click is read.
    // Without a timeout of its own, the wait settles only as `matched` does (never with `undefined`).
    const waited = wait(matched, {
      signal,
      onAbort: (reason) => new InteractionWaitAbortedError(init(), kind, 'the signal aborted', { cause: reason }),
    }) as Promise<Interaction>;
    return waited.finally(() => {
      stopTimer();
      unfile();
    });
  }
}
