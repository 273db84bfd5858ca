/**
 * The kit's watch over the bot's answers: an interaction the test drove
 * through `useEmulator` settles its `response` at once when the bot's
 * handler throws or nothing takes it, and within `answerTimeoutMs` when no
 * handler answers, instead of leaving the test to its runner's timeout.
 *
 * @module
 */

import { InteractionType } from '../core/constants.js';
import type { Gateway } from '../gateway/gateway.js';
import type { GatewayDispatchEvent } from '../gateway/options.js';
import type { InteractionErrorEvent, InteractionUnhandledEvent } from '../interactions/router-events.js';
import { describeThrown, EmulatorHandlerError, EmulatorNoAnswerError, type InteractionLabel } from './errors.js';
import { describeInteraction } from './emulator/core.js';
import { takeHandlerCensus } from './handler-census.js';
import type { Emulator } from './emulator/server.js';
import type { EmulatedCallback, InvokedInteraction } from './emulator/types.js';

/** The watch: the emulator as the tests see it, and the listeners it needs on the bot's Gateway. */
export interface AnswerWatch {
  /** `emulator` with `invokeCommand`, `clickComponent` and `submitModal` watched, and `waitForIdle` naming the handlers' errors. */
  wrap(emulator: Emulator): Emulator;
  /** Stops listening to the Gateway and ends nothing else (the emulator's own answers still settle). */
  stop(): void;
  /** How many driven interactions are awaited (internal, for tests: 0 once every `response` settled). */
  readonly awaitedCount: number;
}

/** What the user did, in words, from an interaction's payload: `/poll`, `the click on "yes"`. */
function labelOf(invoked: InvokedInteraction): InteractionLabel {
  const data = invoked.payload['data'] as Record<string, unknown> | undefined;
  const label = data?.['custom_id'] ?? data?.['name'];
  return { interactionId: invoked.id, what: describeInteraction(Number(invoked.payload['type']), String(label)) };
}

/**
 * A listener of the kit's that never throws: the Gateway's emitter stops at
 * the first listener that throws, so one of the kit's must not starve the
 * bot's own (nor the others of the kit's).
 */
export function guarded<Args extends unknown[]>(listener: (...args: Args) => void): (...args: Args) => void {
  return (...args) => {
    try {
      listener(...args);
    } catch {
      // Nothing to do: the kit's bookkeeping of this event is lost, the bot's listeners still run.
    }
  };
}

/** Starts watching the answers of `gateway`'s handlers. `errors` is the fixture's list of what they threw. */
export function watchAnswers(gateway: Gateway, answerTimeoutMs: number, errors: readonly InteractionErrorEvent[]): AnswerWatch {
  // The interactions a test is awaiting, by id: each fails at once with what its handler threw.
  const awaited = new Map<string, { label: InteractionLabel; fail: (error: Error) => void }>();
  const onError = guarded((event: InteractionErrorEvent) => {
    const entry = awaited.get(event.interaction.id);
    entry?.fail(new EmulatorHandlerError(entry.label, event.error));
  });
  const onUnhandled = guarded((event: InteractionUnhandledEvent) => {
    const entry = awaited.get(event.interaction.id);
    entry?.fail(new EmulatorNoAnswerError(entry.label, `${event.message} (register a handler, or await it)`));
  });
  // A command or autocomplete nothing of the bot's can take fails at once, as it reaches the bot, instead of looking like a slow handler.
  const census = takeHandlerCensus(gateway);
  const onDispatch = guarded(({ t, d }: GatewayDispatchEvent) => {
    if (t !== 'INTERACTION_CREATE' || typeof d !== 'object' || d === null) return;
    const { id, type, data } = d as { id?: unknown; type?: unknown; data?: { name?: unknown } };
    const entry = typeof id === 'string' ? awaited.get(id) : undefined;
    const command = type === InteractionType.ApplicationCommand;
    if (entry === undefined || (!command && type !== InteractionType.ApplicationCommandAutocomplete) || typeof data?.name !== 'string') return;
    const why = census.missing(command ? 'command' : 'autocomplete', data.name);
    if (why !== undefined) entry.fail(new EmulatorNoAnswerError(entry.label, why));
  });
  gateway.on('interactionError', onError);
  gateway.on('interactionUnhandled', onUnhandled);
  gateway.on('dispatch', onDispatch);

  const watched = (invoked: InvokedInteraction): InvokedInteraction => {
    const label = labelOf(invoked);
    const response = new Promise<EmulatedCallback>((resolve, reject) => {
      const finish = (settle: () => void) => {
        clearTimeout(timer);
        awaited.delete(label.interactionId);
        settle();
      };
      // Real time, as Discord counts it: past it a user sees "This interaction failed".
      const timer = setTimeout(() => {
        const why = `no reply or deferral within ${answerTimeoutMs} ms (Discord's limit for a first answer; useEmulator's answerTimeoutMs changes it)`;
        finish(() => reject(new EmulatorNoAnswerError(label, why)));
      }, answerTimeoutMs);
      timer.unref?.();
      awaited.set(label.interactionId, { label, fail: (error) => finish(() => reject(error)) });
      invoked.response.then(
        (answer) => finish(() => resolve(answer)),
        (error: unknown) => finish(() => reject(error)),
      );
    });
    // Marked handled, as the emulator's own: an interaction nobody awaits never becomes an unhandled rejection.
    response.catch(() => undefined);
    return { ...invoked, response };
  };

  return {
    get awaitedCount() {
      return awaited.size;
    },
    wrap(emulator) {
      const view: Emulator = Object.create(emulator);
      // The core's simulations are watched too; its other members are the core's own (its private state needs it as `this`).
      const simulations = new Set<PropertyKey>(['invokeCommand', 'clickComponent', 'submitModal']);
      const core = new Proxy(emulator.core, {
        get(target, key) {
          const value: unknown = Reflect.get(target, key, target);
          if (typeof value !== 'function') return value;
          const bound = (value as (...args: unknown[]) => unknown).bind(target);
          return simulations.has(key) ? (input: unknown) => watched(bound(input) as InvokedInteraction) : bound;
        },
      });
      return Object.assign(view, {
        core,
        invokeCommand: (input: Parameters<Emulator['invokeCommand']>[0]) => watched(emulator.invokeCommand(input)),
        clickComponent: (input: Parameters<Emulator['clickComponent']>[0]) => watched(emulator.clickComponent(input)),
        submitModal: (input: Parameters<Emulator['submitModal']>[0]) => watched(emulator.submitModal(input)),
        waitForIdle: (options?: Parameters<Emulator['waitForIdle']>[0]) =>
          emulator.waitForIdle(options).catch((error: unknown) => {
            if (errors.length === 0 || !(error instanceof Error)) throw error;
            const thrown = errors.map(({ error: cause, interaction }) => `interaction ${interaction.id}: ${describeThrown(cause)}`);
            error.message += `; the bot's handlers threw: ${thrown.join('; ')}`;
            throw error;
          }),
      });
    },
    stop() {
      gateway.off('interactionError', onError);
      gateway.off('interactionUnhandled', onUnhandled);
      gateway.off('dispatch', onDispatch);
    },
  };
}
