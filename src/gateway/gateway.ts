/**
 * The Gateway handle a client exposes. It holds the options, the events and
 * the interaction handlers; the WebSocket connection itself (with `ws`, the
 * protocol state machine and the interaction classes) loads on `connect()`,
 * so importing the SDK does not pay for it.
 *
 * @module
 */

import { EventEmitter } from 'eventemitter3';
import { GatewayError, ValidationError } from '../errors.js';
import { inspectSymbol, redactValue, scrubText } from '../redact.js';
import type { InteractionFromDispatch } from '../interactions/from-dispatch.js';
import { InteractionRouter } from '../interactions/router.js';
import type { CommandOptionValues, TypedCommandDefinition } from '../interactions/options.js';
import type { CommandInteraction, Interaction, InteractionByKind, InteractionKind } from '../interactions/interaction.js';
import type { ConnectionEvent, ConnectionHost, GatewayConnection } from './connection.js';
import {
  resolveGatewayOptions,
  type GatewayDispatchEvent,
  type GatewayEvents,
  type GatewayOptions,
  type GatewayReadyEvent,
  type GatewayStatus,
  type GatewayWiring,
  type InteractionErrorEvent,
  type InteractionHandler,
  type ResolvedGatewayOptions,
} from './options.js';
import { GatewayDispatch } from './protocol.js';
import { SecretBook, scrubError } from './secrets.js';
import { checkGatewayUrl, upgradeHeaders } from './transport.js';

export type {
  GatewayCloseEvent,
  GatewayDispatchEvent,
  GatewayEvents,
  GatewayOptions,
  GatewayReadyEvent,
  GatewayReconnectingEvent,
  GatewayResumedEvent,
  GatewayStatus,
  GatewayWiring,
  InteractionErrorEvent,
  InteractionHandler,
} from './options.js';

/** The Gateway: connection state, events, and typed interaction handlers. */
export class Gateway extends EventEmitter<GatewayEvents> {
  readonly #options: ResolvedGatewayOptions;
  readonly #wiring: GatewayWiring;
  /** The handlers registered with `gateway.onCommand` / `gateway.onInteraction`. */
  readonly #router = new InteractionRouter();
  /** Routers added with `use()`, run after the Gateway's own. */
  readonly #routers = new Set<InteractionRouter>();
  /** The bot token and recent interaction tokens, scrubbed from everything this Gateway emits. */
  readonly #secrets: SecretBook;
  #connection: GatewayConnection | undefined;
  #loading: Promise<GatewayConnection> | undefined;
  /** Builds interactions from INTERACTION_CREATE; loaded with the connection (it pulls in zod). */
  #fromDispatch: ((payload: unknown) => InteractionFromDispatch) | undefined;
  #destroyed = false;

  constructor(options: GatewayOptions, wiring: GatewayWiring) {
    super();
    this.#options = resolveGatewayOptions(options, wiring.defaultUrl);
    this.#wiring = wiring;
    this.#secrets = new SecretBook(wiring.now);
  }

  /** The connection's status. */
  get status(): GatewayStatus {
    if (this.#destroyed) return 'destroyed';
    return this.#connection?.status ?? 'idle';
  }

  /** Milliseconds between the last heartbeat and its ACK, or `undefined` before the first ACK. */
  get latency(): number | undefined {
    return this.#connection?.latency;
  }

  /** When the last heartbeat ACK arrived, epoch milliseconds. */
  get lastAckAt(): number | undefined {
    return this.#connection?.lastAckAt;
  }

  /** The current session id. */
  get sessionId(): string | undefined {
    return this.#connection?.sessionId;
  }

  /** The last dispatch sequence number received. */
  get sequence(): number | null {
    return this.#connection?.sequence ?? null;
  }

  /**
   * Handles interactions of one kind; the handler's parameter is narrowed to
   * that kind. Exceptions and rejections become `interactionError` events.
   * Returns a function that removes the handler.
   */
  onInteraction<K extends InteractionKind>(kind: K, handler: InteractionHandler<InteractionByKind[K]>): () => void {
    return this.#router.onInteraction(kind, handler);
  }

  /** Handles one slash command by name. Returns a function that removes the handler. */
  onCommand(name: string, handler: InteractionHandler<CommandInteraction>): () => void;
  /** Handles one slash command by its definition (from `defineCommand`), which types `interaction.options`. */
  onCommand<D extends TypedCommandDefinition>(command: D, handler: InteractionHandler<CommandInteraction<CommandOptionValues<D>>>): () => void;
  onCommand(command: TypedCommandDefinition | string, handler: InteractionHandler<CommandInteraction<never>>): () => void {
    return this.#router.onCommand(command as string, handler as InteractionHandler<CommandInteraction>);
  }

  /**
   * Runs the handlers of a shared {@link InteractionRouter} (from
   * `createInteractionRouter()`) for every interaction this Gateway receives,
   * after its own. Their errors are emitted as `interactionError` on the
   * router and on this Gateway. Returns a function that stops using it.
   */
  use(router: InteractionRouter): () => void {
    this.#routers.add(router);
    return () => {
      this.#routers.delete(router);
    };
  }

  /**
   * Runs the handlers of an interaction: `interactionCreate` listeners, the
   * handlers of its kind, and for commands those of its name, then those of
   * every router added with `use()`. Nothing a handler throws escapes: it is
   * emitted as `interactionError`.
   */
  deliver(interaction: Interaction): void {
    try {
      this.emit('interactionCreate', interaction);
    } catch (error) {
      this.#reportHandlerError({ error, interaction });
    }
    for (const router of [this.#router, ...this.#routers]) void router.dispatch(interaction, (event) => this.#reportHandlerError(event));
  }

  #reportHandlerError(event: InteractionErrorEvent): void {
    try {
      this.emit('interactionError', event);
    } catch {
      // A throwing interactionError listener must not crash the connection either.
    }
  }

  /**
   * Connects, identifies (or resumes), and resolves when the session is READY
   * or RESUMED. Rejects with `GatewayFatalError` on a close code that must not
   * be retried or after `maxIdentifyFailures` Identify attempts in a row
   * without READY (a likely invalid token or intents), with `GatewayError`
   * after `connectTimeoutMs`, on `destroy()` or when `signal` aborts, and with
   * `ValidationError` / `InsecureTransportError` for unusable options.
   */
  async connect(options: { signal?: AbortSignal | undefined } = {}): Promise<void> {
    if (this.#destroyed) throw new GatewayError('this Gateway was destroyed; client.gateway gives a new one');
    if (this.#wiring.token() === undefined) {
      throw new ValidationError('gateway.connect', [{ path: 'auth.botToken', message: 'the Gateway identifies with the bot token; the client has none' }]);
    }
    checkGatewayUrl(this.#options.url, this.#wiring.allowInsecure);
    upgradeHeaders(this.#options.headers);
    if (!Number.isInteger(this.#options.maxIdentifyFailures) || this.#options.maxIdentifyFailures < 1) {
      throw new ValidationError('gateway.connect', [{ path: 'gateway.maxIdentifyFailures', message: 'must be a whole number of at least 1' }]);
    }
    this.#loading ??= Promise.all([import('./connection.js'), import('../interactions/from-dispatch.js')]).then(([{ GatewayConnection }, { interactionFromDispatch }]) => {
      this.#fromDispatch = (payload) => interactionFromDispatch(payload, this.#wiring.respond, this.#wiring.now);
      this.#connection = new GatewayConnection(this.#options, this.#host());
      return this.#connection;
    });
    const connection = await this.#loading;
    if (this.#destroyed) throw new GatewayError('the Gateway was destroyed while connecting');
    return connection.connect(options.signal).catch((error: unknown) => {
      throw error instanceof Error ? scrubError(error, this.#knownSecrets()) : error;
    });
  }

  /** What the connection reports to and asks of this Gateway. */
  #host(): ConnectionHost {
    return {
      token: () => {
        const token = this.#wiring.token();
        this.#secrets.rememberBotToken(token);
        return token;
      },
      now: () => this.#wiring.now(),
      allowInsecure: this.#wiring.allowInsecure,
      emit: (event, ...args) => this.#report(event, args[0]),
      dispatch: (event) => this.#onDispatch(event),
    };
  }

  #knownSecrets(): string[] {
    return this.#secrets.list(this.#wiring.token());
  }

  /** Emits a connection event with every known secret scrubbed from it (built only when someone listens). */
  #report(event: ConnectionEvent, payload: unknown): void {
    if (this.listenerCount(event) === 0) return;
    const secrets = this.#knownSecrets();
    let scrubbed: unknown = payload;
    if (event === 'debug') scrubbed = scrubText(payload as string, secrets);
    else if (event === 'error') scrubbed = scrubError(payload as Error, secrets);
    else if (event === 'ready') scrubbed = { ...(payload as GatewayReadyEvent), data: redactValue((payload as GatewayReadyEvent).data, secrets) };
    else if (event === 'close' || event === 'reconnecting') scrubbed = { ...(payload as { reason: string }), reason: scrubText((payload as { reason: string }).reason, secrets) };
    this.#emitSafely(event, scrubbed);
  }

  /** Emits; a listener that throws becomes an `error` event instead of escaping into the socket handler. */
  #emitSafely(event: keyof GatewayEvents, payload: unknown): void {
    try {
      (this.emit as (event: string, payload: unknown) => boolean)(event, payload);
    } catch (error) {
      if (event === 'error') return;
      const message = error instanceof Error ? error.message : String(error);
      this.#report('error', new GatewayError(`a '${event}' listener threw: ${message}`, undefined, { cause: error }));
    }
  }

  /** Emits the dispatch (redacted), and turns INTERACTION_CREATE into a typed interaction for the handlers. */
  #onDispatch(event: GatewayDispatchEvent): void {
    const interaction = event.t === GatewayDispatch.InteractionCreate;
    if (interaction) {
      const token = (event.d as { token?: unknown } | null | undefined)?.token;
      if (typeof token === 'string' && token !== '') this.#secrets.remember(token);
    }
    if (this.listenerCount('dispatch') > 0) this.#emitSafely('dispatch', { t: event.t, s: event.s, d: redactValue(event.d, this.#knownSecrets()) });
    if (!interaction || !this.#fromDispatch) return;
    const built = this.#fromDispatch(event.d);
    if (built.ok) this.deliver(built.interaction);
    else this.#report('error', built.error);
  }

  /** Closes the connection for good, clearing every timer and listener. */
  async destroy(): Promise<void> {
    this.#destroyed = true;
    await this.#connection?.destroy();
    this.#router.clear();
    this.#routers.clear();
    this.removeAllListeners();
  }

  /** Redacted view for `util.inspect`. */
  [inspectSymbol](): string {
    return `Gateway { status: ${this.status}, sessionId: ${this.sessionId ?? 'none'}, latency: ${this.latency ?? 'n/a'} }`;
  }
}
