/**
 * The Gateway handle a client exposes. It holds the options, the events and
 * the interaction handlers; the WebSocket connection itself (with `ws`, the
 * protocol state machine and the interaction classes) loads on `connect()`,
 * so importing the SDK does not pay for it.
 *
 * @module
 */

import { EventEmitter } from 'eventemitter3';
import { GatewayError, InsecureTransportError, ValidationError } from '../errors.js';
import { isLoopbackHost } from '../loopback.js';
import { inspectSymbol } from '../redact.js';
import type { CommandOptionValues, TypedCommandDefinition } from '../interactions/options.js';
import type { CommandInteraction, Interaction, InteractionByKind, InteractionKind, InteractionResponder } from '../interactions/interaction.js';
import type { GatewayConnection } from './connection.js';

/** Status of the Gateway connection. */
export type GatewayStatus = 'idle' | 'connecting' | 'identifying' | 'resuming' | 'ready' | 'reconnecting' | 'destroyed';

/** Options of the Gateway. */
export interface GatewayOptions {
  /** The Gateway URL. @default the base URL with a ws(s) scheme and the path /api/v1/gateway */
  url?: string | undefined;
  /** Gateway intents sent with Identify. INTERACTION_CREATE needs none. @default 0 */
  intents?: number | undefined;
  /** Fails `connect()` if no session is ready within this time. @default 60000 */
  connectTimeoutMs?: number | undefined;
  /** Time allowed for the WebSocket to open. @default 15000 */
  openTimeoutMs?: number | undefined;
  /** Time allowed between open and Hello. @default 10000 */
  helloTimeoutMs?: number | undefined;
  /** Time allowed between Identify or Resume and READY or RESUMED. @default 15000 */
  readyTimeoutMs?: number | undefined;
  /** First reconnect backoff ceiling, milliseconds; doubles each attempt. @default 1000 */
  reconnectBaseDelayMs?: number | undefined;
  /** Largest reconnect backoff ceiling, milliseconds. @default 30000 */
  reconnectMaxDelayMs?: number | undefined;
  /** A source of numbers in [0, 1) for jitter. @default Math.random */
  random?: (() => number) | undefined;
}

/** Emitted on READY. */
export interface GatewayReadyEvent {
  /** The new session's id. */
  sessionId: string;
  /** The READY payload, as received. */
  data: Record<string, unknown>;
}

/** Emitted on RESUMED. */
export interface GatewayResumedEvent {
  /** How many missed dispatches the service replayed. */
  replayed: number;
}

/** Emitted before a reconnect. */
export interface GatewayReconnectingEvent {
  /** Reconnect attempt since the last READY or RESUMED, starting at 1. */
  attempt: number;
  /** Milliseconds until it starts. */
  delayMs: number;
  /** Whether it will resume the session (or identify anew). */
  resume: boolean;
  /** Why. */
  reason: string;
}

/** Emitted when the connection closes. */
export interface GatewayCloseEvent {
  /** Close code. */
  code: number;
  /** Close reason text. */
  reason: string;
  /** Whether the Gateway will reconnect. */
  willReconnect: boolean;
}

/** A raw dispatch. */
export interface GatewayDispatchEvent {
  /** Event name, e.g. `INTERACTION_CREATE`. */
  t: string;
  /** Sequence number. */
  s: number | null;
  /** Payload. */
  d: unknown;
}

/** Emitted when an interaction handler throws or rejects. */
export interface InteractionErrorEvent {
  /** What the handler threw. */
  error: unknown;
  /** The interaction it was handling. */
  interaction: Interaction;
}

/** Every event the Gateway emits. */
export interface GatewayEvents {
  /** A new session is ready. */
  ready: [event: GatewayReadyEvent];
  /** A session was resumed. */
  resumed: [event: GatewayResumedEvent];
  /** A reconnect is scheduled. */
  reconnecting: [event: GatewayReconnectingEvent];
  /** The connection closed. */
  close: [event: GatewayCloseEvent];
  /** Diagnostics (never with a token). */
  debug: [message: string];
  /** A problem that does not stop the Gateway (a bad frame, a payload that failed validation, a socket error). */
  error: [error: Error];
  /** Every dispatch, raw. */
  dispatch: [event: GatewayDispatchEvent];
  /** A typed interaction arrived. */
  interactionCreate: [interaction: Interaction];
  /** An interaction handler threw or rejected. */
  interactionError: [event: InteractionErrorEvent];
}

/** A handler of interactions of one kind. */
export type InteractionHandler<I> = (interaction: I) => unknown;

/** What the Gateway needs from its client. */
export interface GatewayWiring {
  /** The bot token, read at each Identify and Resume. */
  token: () => string | undefined;
  /** Sends interaction callbacks. */
  respond: InteractionResponder;
  /** The default Gateway URL, derived from the client's base URL. */
  defaultUrl: string;
  /** The clock. */
  now: () => number;
  /** Whether the token may go over plain ws:// to a host that is not loopback. */
  allowInsecure: boolean;
}

/** The Gateway: connection state, events, and typed interaction handlers. */
export class Gateway extends EventEmitter<GatewayEvents> {
  readonly #options: GatewayOptions;
  readonly #wiring: GatewayWiring;
  readonly #handlers = new Map<string, Set<InteractionHandler<Interaction>>>();
  #connection: GatewayConnection | undefined;
  #loading: Promise<GatewayConnection> | undefined;
  #destroyed = false;

  constructor(options: GatewayOptions, wiring: GatewayWiring) {
    super();
    this.#options = options;
    this.#wiring = wiring;
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
    return this.#addHandler(kind, handler as InteractionHandler<Interaction>);
  }

  /** Handles one slash command by name. Returns a function that removes the handler. */
  onCommand(name: string, handler: InteractionHandler<CommandInteraction>): () => void;
  /** Handles one slash command by its definition (from `defineCommand`), which types `interaction.options`. */
  onCommand<D extends TypedCommandDefinition>(command: D, handler: InteractionHandler<CommandInteraction<CommandOptionValues<D>>>): () => void;
  onCommand(command: TypedCommandDefinition | string, handler: InteractionHandler<CommandInteraction<never>>): () => void {
    const name = (typeof command === 'string' ? command : command.name).toLowerCase();
    return this.#addHandler(`command:${name}`, handler as InteractionHandler<Interaction>);
  }

  #addHandler(key: string, handler: InteractionHandler<Interaction>): () => void {
    let set = this.#handlers.get(key);
    if (!set) {
      set = new Set();
      this.#handlers.set(key, set);
    }
    set.add(handler);
    return () => {
      set?.delete(handler);
    };
  }

  /**
   * Runs the handlers of an interaction: `interactionCreate` listeners, the
   * handlers of its kind, and for commands those of its name. Nothing a
   * handler throws escapes: it is emitted as `interactionError`.
   */
  deliver(interaction: Interaction): void {
    this.#safely(interaction, () => this.emit('interactionCreate', interaction));
    const keys = interaction.kind === 'command' ? [interaction.kind, `command:${interaction.commandName.toLowerCase()}`] : [interaction.kind];
    for (const key of keys) {
      const set = this.#handlers.get(key);
      if (!set) continue;
      for (const handler of set) this.#safely(interaction, () => handler(interaction));
    }
  }

  #safely(interaction: Interaction, run: () => unknown): void {
    try {
      const result = run();
      if (result && typeof (result as Promise<unknown>).then === 'function') {
        (result as Promise<unknown>).then(undefined, (error: unknown) => this.#reportHandlerError(error, interaction));
      }
    } catch (error) {
      this.#reportHandlerError(error, interaction);
    }
  }

  #reportHandlerError(error: unknown, interaction: Interaction): void {
    try {
      this.emit('interactionError', { error, interaction });
    } catch {
      // A throwing interactionError listener must not crash the connection either.
    }
  }

  /**
   * Connects, identifies (or resumes), and resolves when the session is READY
   * or RESUMED. Rejects with `GatewayFatalError` on a close code that must not
   * be retried, with `GatewayError` after `connectTimeoutMs`, on `destroy()` or
   * when `signal` aborts.
   */
  async connect(options: { signal?: AbortSignal | undefined } = {}): Promise<void> {
    if (this.#destroyed) throw new GatewayError('this Gateway was destroyed; client.gateway gives a new one');
    if (this.#wiring.token() === undefined) {
      throw new ValidationError('gateway.connect', [{ path: 'auth.botToken', message: 'the Gateway identifies with the bot token; the client has none' }]);
    }
    const url = this.#options.url ?? this.#wiring.defaultUrl;
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new ValidationError('gateway.connect', [{ path: 'gateway.url', message: 'must be an absolute ws:// or wss:// URL' }]);
    }
    if (parsed.protocol !== 'ws:' && parsed.protocol !== 'wss:') {
      throw new ValidationError('gateway.connect', [{ path: 'gateway.url', message: 'must use ws: or wss:' }]);
    }
    if (parsed.protocol === 'ws:' && !this.#wiring.allowInsecure && !isLoopbackHost(parsed.hostname)) {
      throw new InsecureTransportError('gateway.connect', parsed.origin);
    }
    this.#loading ??= import('./connection.js').then(({ GatewayConnection }) => {
      this.#connection = new GatewayConnection(this.#options, this.#wiring, this);
      return this.#connection;
    });
    const connection = await this.#loading;
    if (this.#destroyed) throw new GatewayError('the Gateway was destroyed while connecting');
    return connection.connect(options.signal);
  }

  /** Closes the connection for good, clearing every timer and listener. */
  async destroy(): Promise<void> {
    this.#destroyed = true;
    await this.#connection?.destroy();
    this.#handlers.clear();
    this.removeAllListeners();
  }

  /** Redacted view for `util.inspect`. */
  [inspectSymbol](): string {
    return `Gateway { status: ${this.status}, sessionId: ${this.sessionId ?? 'none'}, latency: ${this.latency ?? 'n/a'} }`;
  }
}
