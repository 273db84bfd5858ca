/**
 * `EmulatorCore`: a stateful, in-memory implementation of the whole contract,
 * independent of any transport. `createEmulator()` serves it over node:http
 * and ws; `createMswHandlers()` serves it through MSW.
 *
 * It routes with the SDK's own route table and validates with the SDK's own
 * schemas, and it answers with the shapes recorded in docs/assumptions.md.
 *
 * @module
 */

import { checkDuration } from '../../core/bounds.js';
import { advancingClock } from '../../core/clock.js';
import { EmulatorError, EmulatorNotFoundError } from '../errors.js';
import { startGatewaySession } from './gateway-info.js';
import { inspectState, secretsOf, type EmulatorSnapshot } from './inspect.js';
import { EmulatorFaults } from './faults.js';
import { handleRequest, routeOf } from './router.js';
import { addMember, type CommunityInput, type CreatedCommunity, createCommunity } from './communities.js';
import { expireInteractions } from './lifecycle.js';
import { checkCoreOptions } from './options.js';
import { clickComponent, invokeCommand, submitModal } from './simulate.js';
import { EmulatorState } from './state.js';
import { cancelTimers, stopTimers } from './timers.js';
import { InteractionCallbackType, InteractionType } from '../../core/constants.js';
import type { BotIdentity } from '../gateway-server-options.js';
import type {
  ComponentInput,
  DispatchTarget,
  EmulatedMessage,
  EmulatorCoreOptions,
  EmulatorEvent,
  EmulatorRequest,
  EmulatorResponse,
  InvokeCommandInput,
  InvokedInteraction,
  ModalSubmitInput,
  SeedData,
  WindowLimit,
} from './types.js';

/** The furthest `advanceTime` moves the clock in one step: ten years. */
const MAX_ADVANCE_MS = 10 * 366 * 24 * 60 * 60 * 1000;

/** The work an emulator still has under way (see {@link EmulatorCore.pendingWork}). */
export interface PendingWork {
  /** Interactions delivered to a bot and not answered yet (nor expired). */
  interactions: number;
  /** Webhook deliveries queued or retrying. */
  deliveries: number;
}

/** An interaction delivered to a bot and not answered yet (see {@link EmulatorCore.pendingInteractions}). */
export interface PendingInteraction {
  /** Its id. */
  id: string;
  /** What the user did, in words: `/poll`, `the click on "yes"`, `the submit of modal "survey"`. */
  what: string;
  /** The user's id. */
  userId: string;
  /** How long ago it was delivered, milliseconds on the emulator clock. */
  ageMs: number;
}

/** What the user did, in words, from the interaction's type and label (the command's name or the custom id). */
export function describeInteraction(type: number, label: string): string {
  if (type === InteractionType.MessageComponent) return `the click on ${JSON.stringify(label)}`;
  if (type === InteractionType.ModalSubmit) return `the submit of modal ${JSON.stringify(label)}`;
  return `/${label}`;
}

/** The stateful core and its control API. */
export class EmulatorCore {
  /** The seed data. */
  readonly seed: SeedData;
  /** Faults on demand: the next calls of an operation answer a chosen status, wait, or reset; plus latency on every call and a share of 503s. */
  readonly faults = new EmulatorFaults();
  readonly #state: EmulatorState;

  /**
   * The emulator's clock as a function, epoch milliseconds: give it to the SDK
   * (`new Client({ clock: core.clock })`) so that interaction expiry and session
   * refresh follow `advanceTime`.
   */
  readonly clock: () => number;
  /** Who hears of `advanceTime` (the SDK's timers on this clock). */
  readonly #advanceListeners = new Set<() => void>();

  /** Throws `ValidationError` naming an unknown option or a number out of bounds. */
  constructor(options: EmulatorCoreOptions = {}) {
    checkCoreOptions('EmulatorCore', options);
    this.#state = new EmulatorState(options);
    this.seed = this.#state.seed;
    const state = this.#state;
    const listeners = this.#advanceListeners;
    this.clock = advancingClock(
      () => state.now(),
      (listener) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    );
  }

  /**
   * Stops what runs in the background: delivery attempts and their retries,
   * expiry timers. Nothing new starts after it; resolves once the delivery
   * attempts in flight have ended. Safe to call more than once.
   */
  close(): Promise<void> {
    return stopTimers(this.#state);
  }

  /** `await using core = new EmulatorCore()` closes it at the end of the scope. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /**
   * Clears what happened, keeping what was set up: messages, interactions
   * (a pending `response` rejects with `EmulatorError`), webhook deliveries
   * (retries stop), API logs, rate-limit windows, webhook executions,
   * activities, drive links added, mail, faults and the clock offset; users,
   * applications, commands, webhooks, communities and channels stay.
   */
  reset(): void {
    cancelTimers(this.#state);
    this.#state.clearActivity(new EmulatorError('the emulator was reset before the bot answered'));
    this.faults.clear();
    this.#clockMoved();
    this.#state.notify({ kind: 'change' });
  }

  /** The emulator's clock (real time plus whatever `advanceTime` added). */
  now(): number {
    return this.#state.now();
  }

  /** Changes the shard count `GET /gateway/bot` recommends (a bot that grew). */
  recommendShards(count: number): void {
    if (!Number.isInteger(count) || count < 1) throw new RangeError('a shard count is a whole number of at least 1');
    this.#state.recommendedShards = count;
  }

  /**
   * Moves the clock forward, e.g. to expire access tokens (15 min) or
   * interactions (15 min): `invokeCommand().response` of an interaction now
   * expired unanswered rejects with `EmulatorInteractionExpiredError`.
   */
  advanceTime(ms: number): void {
    checkDuration('emulator.advanceTime', 'ms', ms, { max: MAX_ADVANCE_MS });
    this.#state.clockOffset += ms;
    expireInteractions(this.#state);
    this.#clockMoved();
    this.#state.notify({ kind: 'change' });
  }

  /** Tells the SDK's timers on this clock (an awaitComponent's timeout) that it jumped; one that throws stops no other. */
  #clockMoved(): void {
    for (const listener of [...this.#advanceListeners]) {
      try {
        listener();
      } catch {
        // A listener's failure is its own.
      }
    }
  }

  /** The global rate limit in force (`undefined`: none). Starts as the `globalRateLimit` option. */
  get globalRateLimit(): WindowLimit | undefined {
    return this.#state.globalRateLimit;
  }

  /** Replaces the global rate limit (`undefined` removes it) and forgets the requests counted so far. */
  set globalRateLimit(limit: WindowLimit | undefined) {
    this.#state.globalRateLimit = limit;
    this.#state.globalHits.length = 0;
  }

  /** Calls `observer` for every REST call served and every change of state; returns a function that stops it. */
  observe(observer: (event: EmulatorEvent) => void): () => void {
    this.#state.observers.add(observer);
    return () => this.#state.observers.delete(observer);
  }

  /** A secret-free picture of the state (what the playground shows). */
  snapshot(): EmulatorSnapshot {
    return inspectState(this.#state);
  }

  /** Every secret the state holds (tokens, secrets, passwords), to scrub from logs. */
  secrets(): string[] {
    return secretsOf(this.#state);
  }

  /** Simulates a user pressing a button or choosing in a select menu of a bot's message (a component interaction). */
  clickComponent(input: ComponentInput): InvokedInteraction {
    return clickComponent(this.#state, input);
  }

  /** Plays or pauses a channel activity, as a participant's player would (the playground's play/pause button). */
  setActivityPaused(activityId: string, paused: boolean): void {
    const activity = this.#state.activities.get(activityId);
    if (!activity || activity.ended) throw new EmulatorNotFoundError(`no running activity ${activityId}`);
    activity.paused = paused;
    this.#state.notify({ kind: 'change' });
  }

  /** Simulates a user submitting the modal a bot opened with callback type 9 (a modal-submit interaction). */
  submitModal(input: ModalSubmitInput): InvokedInteraction {
    return submitModal(this.#state, input);
  }

  /**
   * The latest message in `channelId` carrying a component with `customId`
   * (at any depth of its action rows), or `undefined`.
   */
  findMessageWithComponent(channelId: string, customId: string): EmulatedMessage | undefined {
    const holds = (value: unknown): boolean =>
      Array.isArray(value)
        ? value.some(holds)
        : typeof value === 'object' &&
          value !== null &&
          ((value as Record<string, unknown>)['custom_id'] === customId || holds((value as Record<string, unknown>)['components']));
    return [...(this.#state.messages.get(channelId) ?? [])].reverse().find((message) => holds(message.components));
  }

  /** The interactions delivered and not answered yet (nor expired), oldest first: what they are, who and since when. */
  pendingInteractions(): PendingInteraction[] {
    const now = this.#state.now();
    const pending: PendingInteraction[] = [];
    for (const interaction of this.#state.interactions.values()) {
      if (interaction.waiters.length === 0 || interaction.acknowledgedWith !== undefined) continue;
      const { id, type, label, userId, createdAt } = interaction;
      pending.push({ id, what: describeInteraction(type ?? InteractionType.ApplicationCommand, label ?? '?'), userId: userId ?? '?', ageMs: now - createdAt });
    }
    return pending;
  }

  /** What keeps the emulator busy: interactions delivered and not answered yet (nor expired), and webhook deliveries not finished. */
  pendingWork(): PendingWork {
    const interactions = this.pendingInteractions().length;
    let deliveries = 0;
    for (const app of this.#state.apps.values())
      for (const record of app.deliveries) if (record.status === 'queued' || record.status === 'retrying') deliveries++;
    return { interactions, deliveries };
  }

  /** The id of the latest interaction the bot answered with a modal, or `undefined`. */
  latestModalOpener(): string | undefined {
    let latest: string | undefined;
    for (const [id, interaction] of this.#state.interactions) {
      if (interaction.callbacks.some((callback) => callback.interaction_type === InteractionCallbackType.Modal)) latest = id;
    }
    return latest;
  }

  /** Connects the Gateway that delivers dispatches. */
  attachGateway(target: DispatchTarget, baseUrl: string): void {
    this.#state.gateway = target;
    this.#state.baseUrl = baseUrl;
  }

  /** Whether a token belongs to a bot (the Gateway's Identify check). */
  isBotToken(token: string): boolean {
    return this.#state.appOfBotToken(token) !== undefined;
  }

  /**
   * Starts a Gateway session for a bot token: counts it against the session
   * start limit and returns what READY tells the bot about itself (its user,
   * its communities as unavailable stubs, its application), or `undefined`
   * for a token that is not a bot's.
   */
  startGatewaySession(token: string): BotIdentity | undefined {
    return startGatewaySession(this.#state, token);
  }

  /** Identify refused so far because a bot was past its session start limit. */
  sessionStartsRefused(): number {
    return this.#state.refusedSessionStarts;
  }

  /** Messages posted to a channel, oldest first. */
  messages(channelId: string): EmulatedMessage[] {
    return [...(this.#state.messages.get(channelId) ?? [])];
  }

  /** Mail sent to an address (password-reset and verification tokens). */
  mailbox(email: string): {
    /** `reset`: a password-reset mail; `verify`: an e-mail-verification mail. */
    kind: 'reset' | 'verify';
    /** The token the mail carries (for `auth.resetPassword` or `auth.verifyEmail`). */
    token: string;
  }[] {
    return [...(this.#state.mailbox.get(email) ?? [])];
  }

  /**
   * Creates a community with its channels (the contract has no route for
   * it), its snowflake chosen (`id`) or derived so that it lands on a chosen
   * shard (`shard: { id, count }`); the seeded bot is in it unless
   * `withBot: false`, and its connected sessions of that shard get GUILD_CREATE.
   */
  createCommunity(input: CommunityInput = {}): CreatedCommunity {
    return createCommunity(this.#state, input);
  }

  /** Adds a member to a community: an existing user (`userId`) or a new one (`username`). Returns the user's id. */
  addMember(guildId: string, input: { userId?: string | undefined; username?: string | undefined } = {}): string {
    return addMember(this.#state, guildId, input);
  }

  /** Creates a channel in a community (the contract has no route for it). Returns its id. */
  createChannel(name: string, guildId: string = this.seed.guildId): string {
    if (!this.#state.guilds.has(guildId)) throw new EmulatorNotFoundError(`unknown community ${guildId}`);
    return this.#state.addChannel(guildId, name).id;
  }

  /** Sends a verification mail to a user, as signing up would. Returns the token. */
  sendVerificationMail(email: string): string {
    const token = this.#state.token();
    this.#state.verifyTokens.set(token, email);
    this.#state.deliverMail(email, { kind: 'verify', token });
    return token;
  }

  /**
   * Simulates a user running a slash command (or typing in one, for
   * autocomplete): creates the interaction, delivers INTERACTION_CREATE to
   * the application's webhooks subscribed to it (signed, over HTTP), or to
   * its bot over the Gateway when none is, and returns it with a promise of
   * the bot's first answer. Throws `EmulatorUnknownCommandError` (listing the
   * registered commands) for a command not registered there.
   */
  invokeCommand(input: InvokeCommandInput): InvokedInteraction {
    return invokeCommand(this.#state, input);
  }

  /** Handles one REST request (and tells the observers about it). */
  async handle(request: EmulatorRequest): Promise<EmulatorResponse> {
    const state = this.#state;
    if (state.observers.size === 0) return handleRequest(state, this.faults, request);
    const started = performance.now();
    const answer = await handleRequest(state, this.faults, request);
    const bucket = answer.headers['x-ratelimit-bucket'];
    state.notify({
      kind: 'rest',
      method: request.method,
      route: routeOf(state, request.method, request.url) ?? `${request.url.split('?')[0]?.split('/').slice(0, 4).join('/') ?? ''}…`,
      status: answer.status,
      durationMs: Math.round(performance.now() - started),
      bucket: typeof bucket === 'string' ? bucket : undefined,
      at: state.now(),
    });
    return answer;
  }
}
