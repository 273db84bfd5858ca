/**
 * The Gateway connection: a state machine over one `ws` socket at a time.
 * Loaded only when a Gateway connects.
 *
 * @module
 */

import { backoffDelay } from '../backoff.js';
import WebSocket from 'ws';
import { GatewayError, GatewayFatalError, ValidationError } from '../errors.js';
import { createInteraction, type InteractionPayload } from '../interactions/interaction.js';
import { interactionPayloadSchema } from '../interactions/schema.js';
import { redactValue } from '../redact.js';
import { toIssues } from '../schemas/requests.js';
import type { Gateway, GatewayOptions, GatewayStatus, GatewayWiring } from './gateway.js';
import { GatewayDispatch, GatewayOpcode, closeCodeRule, type GatewayFrame } from './protocol.js';

interface Waiter {
  resolve: () => void;
  reject: (error: Error) => void;
}

/** A reconnect the connection itself decided on (zombie, Reconnect, Invalid Session, a timeout). */
interface PlannedReconnect {
  reason: string;
  /** Fixed delay instead of the backoff (Invalid Session waits 1 to 5 s). */
  delayMs?: number;
}

/** Gateway options with their defaults filled in. */
type ResolvedGatewayOptions = { [K in keyof GatewayOptions]-?: Exclude<GatewayOptions[K], undefined> };

/** Drives one Gateway session across reconnects. */
export class GatewayConnection {
  status: GatewayStatus = 'idle';
  latency: number | undefined;
  lastAckAt: number | undefined;
  sessionId: string | undefined;
  sequence: number | null = null;

  readonly #options: ResolvedGatewayOptions;
  readonly #wiring: GatewayWiring;
  readonly #gateway: Gateway;
  #resumeUrl: string | undefined;
  #ws: WebSocket | undefined;
  #generation = 0;
  #timers = new Set<ReturnType<typeof setTimeout>>();
  #heartbeat: ReturnType<typeof setInterval> | undefined;
  #helloTimer: ReturnType<typeof setTimeout> | undefined;
  #readyTimer: ReturnType<typeof setTimeout> | undefined;
  #reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  #awaitingAck = false;
  #lastBeatAt = 0;
  #attempt = 0;
  #resuming = false;
  #replayed = 0;
  #planned: PlannedReconnect | undefined;
  #waiters: Waiter[] = [];
  #destroyed = false;

  constructor(options: GatewayOptions, wiring: GatewayWiring, gateway: Gateway) {
    this.#wiring = wiring;
    this.#gateway = gateway;
    this.#options = {
      url: options.url ?? wiring.defaultUrl,
      intents: options.intents ?? 0,
      connectTimeoutMs: options.connectTimeoutMs ?? 60_000,
      openTimeoutMs: options.openTimeoutMs ?? 15_000,
      helloTimeoutMs: options.helloTimeoutMs ?? 10_000,
      readyTimeoutMs: options.readyTimeoutMs ?? 15_000,
      reconnectBaseDelayMs: options.reconnectBaseDelayMs ?? 1_000,
      reconnectMaxDelayMs: options.reconnectMaxDelayMs ?? 30_000,
      random: options.random ?? Math.random,
    };
  }

  /** Resolves on READY or RESUMED; see `Gateway.connect`. */
  connect(signal: AbortSignal | undefined): Promise<void> {
    if (this.status === 'ready') return Promise.resolve();
    if (signal?.aborted) return Promise.reject(new GatewayError('connect() was aborted', undefined, { cause: signal.reason }));
    return new Promise<void>((resolve, reject) => {
      const settle = () => {
        clearTimeout(timer);
        this.#timers.delete(timer);
        signal?.removeEventListener('abort', onAbort);
        this.#waiters = this.#waiters.filter((w) => w !== waiter);
      };
      const waiter: Waiter = {
        resolve: () => {
          settle();
          resolve();
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      };
      const giveUp = (error: Error) => {
        waiter.reject(error);
        // Nobody is waiting for a session that never became ready: stop trying.
        if (this.#waiters.length === 0 && this.sessionId === undefined && this.status !== 'ready') this.#stop('idle');
      };
      const onAbort = () => giveUp(new GatewayError('connect() was aborted', undefined, { cause: signal?.reason }));
      const timer = this.#setTimer(
        () => giveUp(new GatewayError(`no Gateway session was ready within ${this.#options.connectTimeoutMs} ms (connectTimeoutMs); last status: ${this.status}`)),
        this.#options.connectTimeoutMs,
      );
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters.push(waiter);
      if (this.status === 'idle') this.#open();
    });
  }

  /** Closes for good. */
  async destroy(): Promise<void> {
    if (this.#destroyed) return;
    this.#destroyed = true;
    this.#stop('destroyed');
    for (const waiter of [...this.#waiters]) waiter.reject(new GatewayError('the Gateway was destroyed'));
  }

  #stop(status: GatewayStatus): void {
    this.#generation++;
    this.#stopHeartbeat();
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    this.#helloTimer = this.#readyTimer = this.#reconnectTimer = undefined;
    const ws = this.#ws;
    this.#ws = undefined;
    if (ws && ws.readyState !== WebSocket.CLOSED) {
      if (ws.readyState === WebSocket.OPEN) ws.close(1000, 'client closed');
      else ws.terminate();
    }
    this.status = status;
  }

  #setTimer(fn: () => void, ms: number): ReturnType<typeof setTimeout> {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      fn();
    }, ms);
    this.#timers.add(timer);
    return timer;
  }

  #clearTimer(timer: ReturnType<typeof setTimeout> | undefined): void {
    if (timer === undefined) return;
    clearTimeout(timer);
    this.#timers.delete(timer);
  }

  #debug(message: string): void {
    this.#gateway.emit('debug', message);
  }

  #canResume(): boolean {
    return this.sessionId !== undefined && this.sequence !== null;
  }

  #open(): void {
    if (this.#destroyed) return;
    const generation = ++this.#generation;
    const resume = this.#canResume();
    this.status = resume ? 'resuming' : 'connecting';
    const url = resume && this.#resumeUrl ? this.#resumeUrl : this.#options.url;
    this.#debug(`opening ${url} (${resume ? 'resume' : 'new session'})`);
    let ws: WebSocket;
    try {
      ws = new WebSocket(url, { handshakeTimeout: this.#options.openTimeoutMs, perMessageDeflate: false, maxPayload: 16 * 1024 * 1024 });
    } catch (error) {
      this.#failAll(new GatewayError(`invalid Gateway URL: ${error instanceof Error ? error.message : String(error)}`));
      return;
    }
    this.#ws = ws;
    // An 'error' listener stays on every socket for its whole life: ws is a Node EventEmitter, and an
    // unhandled 'error' would crash the process.
    ws.on('error', (error: Error) => {
      if (generation === this.#generation) this.#debug(`socket error: ${error.message}`);
    });
    ws.on('open', () => {
      if (generation !== this.#generation) return;
      this.#helloTimer = this.#setTimer(() => this.#plannedReconnect(ws, { reason: `no Hello within ${this.#options.helloTimeoutMs} ms` }), this.#options.helloTimeoutMs);
    });
    ws.on('message', (data: WebSocket.RawData) => {
      if (generation === this.#generation) this.#onMessage(ws, data);
    });
    ws.on('close', (code: number, reason: Buffer) => {
      if (generation === this.#generation) this.#onClose(code, reason.toString());
    });
  }

  #onMessage(ws: WebSocket, data: WebSocket.RawData): void {
    let frame: GatewayFrame;
    try {
      frame = JSON.parse(data.toString()) as GatewayFrame;
    } catch {
      this.#gateway.emit('error', new GatewayError('received a frame that is not JSON; ignored'));
      return;
    }
    switch (frame.op) {
      case GatewayOpcode.Dispatch:
        this.#onDispatch(frame);
        return;
      case GatewayOpcode.Hello:
        this.#onHello(ws, frame);
        return;
      case GatewayOpcode.HeartbeatAck: {
        const now = this.#wiring.now();
        this.#awaitingAck = false;
        this.lastAckAt = now;
        this.latency = now - this.#lastBeatAt;
        return;
      }
      case GatewayOpcode.Heartbeat:
        this.#beat(ws);
        return;
      case GatewayOpcode.Reconnect:
        this.#plannedReconnect(ws, { reason: 'the service asked to reconnect' });
        return;
      case GatewayOpcode.InvalidSession: {
        const resumable = frame.d === true;
        if (!resumable) this.#dropSession();
        this.#plannedReconnect(ws, { reason: `invalid session (${resumable ? 'resumable' : 'not resumable'})`, delayMs: 1000 + Math.floor(this.#options.random() * 4000) });
        return;
      }
      default:
        this.#debug(`ignored opcode ${String(frame.op)}`);
    }
  }

  #onHello(ws: WebSocket, frame: GatewayFrame): void {
    this.#clearTimer(this.#helloTimer);
    const interval = (frame.d as { heartbeat_interval?: unknown } | null)?.heartbeat_interval;
    if (typeof interval !== 'number' || !(interval > 0)) {
      this.#plannedReconnect(ws, { reason: 'Hello without a valid heartbeat_interval' });
      return;
    }
    this.#startHeartbeat(ws, interval);
    const token = this.#wiring.token();
    if (token === undefined) {
      this.#failAll(new GatewayError('the client has no bot token to identify with'));
      this.#stop('idle');
      return;
    }
    if (this.#canResume()) {
      this.status = 'resuming';
      this.#resuming = true;
      this.#replayed = 0;
      this.#send(ws, { op: GatewayOpcode.Resume, d: { token, session_id: this.sessionId, seq: this.sequence } });
    } else {
      this.status = 'identifying';
      this.#resuming = false;
      this.#send(ws, {
        op: GatewayOpcode.Identify,
        d: { token, intents: this.#options.intents, properties: { os: process.platform, browser: 'community-chat-sdk', device: 'community-chat-sdk' } },
      });
    }
    this.#readyTimer = this.#setTimer(
      () => this.#plannedReconnect(ws, { reason: `no ${this.#resuming ? 'RESUMED' : 'READY'} within ${this.#options.readyTimeoutMs} ms` }),
      this.#options.readyTimeoutMs,
    );
  }

  #onDispatch(frame: GatewayFrame): void {
    const sequence = frame.s;
    if (typeof sequence === 'number') {
      if (this.sequence !== null && sequence <= this.sequence) {
        this.#debug(`dropped dispatch ${String(frame.t)} with sequence ${sequence}: already delivered`);
        return;
      }
      this.sequence = sequence;
    }
    const type = typeof frame.t === 'string' ? frame.t : '';
    if (this.#resuming && type !== GatewayDispatch.Resumed) this.#replayed++;
    // Payloads carry secrets (an interaction's token): listeners get a redacted copy, built only when someone listens.
    if (this.#gateway.listenerCount('dispatch') > 0) this.#gateway.emit('dispatch', { t: type, s: typeof sequence === 'number' ? sequence : null, d: redactValue(frame.d) });
    switch (type) {
      case GatewayDispatch.Ready: {
        const data = (frame.d ?? {}) as Record<string, unknown>;
        this.sessionId = typeof data['session_id'] === 'string' ? data['session_id'] : undefined;
        this.#resumeUrl = typeof data['resume_gateway_url'] === 'string' ? data['resume_gateway_url'] : undefined;
        this.#becameReady();
        this.#gateway.emit('ready', { sessionId: this.sessionId ?? '', data });
        return;
      }
      case GatewayDispatch.Resumed: {
        const replayed = this.#replayed;
        this.#resuming = false;
        this.#becameReady();
        this.#gateway.emit('resumed', { replayed });
        return;
      }
      case GatewayDispatch.InteractionCreate:
        this.#onInteraction(frame.d);
        return;
      default:
    }
  }

  #becameReady(): void {
    this.#clearTimer(this.#readyTimer);
    this.status = 'ready';
    this.#attempt = 0;
    for (const waiter of [...this.#waiters]) waiter.resolve();
  }

  #onInteraction(payload: unknown): void {
    const result = interactionPayloadSchema.safeParse(payload);
    if (!result.success) {
      this.#gateway.emit('error', new ValidationError('INTERACTION_CREATE', toIssues(result.error)));
      return;
    }
    const interaction = createInteraction(result.data as InteractionPayload, this.#wiring.respond, this.#wiring.now);
    this.#gateway.deliver(interaction);
  }

  #send(ws: WebSocket, frame: GatewayFrame): void {
    if (ws.readyState !== WebSocket.OPEN) return;
    ws.send(JSON.stringify(frame), (error) => {
      if (error) this.#debug(`send failed: ${error.message}`);
    });
  }

  #startHeartbeat(ws: WebSocket, interval: number): void {
    this.#stopHeartbeat();
    this.#awaitingAck = false;
    // The first beat is jittered, so that many clients reconnecting at once do not beat in step.
    const first = this.#setTimer(() => {
      this.#beat(ws);
      this.#heartbeat = setInterval(() => {
        if (this.#awaitingAck) {
          this.#plannedReconnect(ws, { reason: 'no heartbeat ACK since the last beat (zombie connection)' }, true);
          return;
        }
        this.#beat(ws);
      }, interval);
    }, Math.floor(interval * this.#options.random()));
    void first;
  }

  #stopHeartbeat(): void {
    if (this.#heartbeat !== undefined) clearInterval(this.#heartbeat);
    this.#heartbeat = undefined;
  }

  #beat(ws: WebSocket): void {
    this.#lastBeatAt = this.#wiring.now();
    this.#awaitingAck = true;
    this.#send(ws, { op: GatewayOpcode.Heartbeat, d: this.sequence });
  }

  #dropSession(): void {
    this.sessionId = undefined;
    this.sequence = null;
    this.#resumeUrl = undefined;
  }

  /** Closes the socket and reconnects for a reason of our own. A terminate skips the closing handshake (zombies never answer it). */
  #plannedReconnect(ws: WebSocket, plan: PlannedReconnect, terminate = false): void {
    if (ws !== this.#ws) return;
    this.#planned = plan;
    this.#stopHeartbeat();
    if (terminate || ws.readyState !== WebSocket.OPEN) ws.terminate();
    // 4000 keeps the session resumable on the service side (1000 and 1001 would end it).
    else ws.close(4000, 'reconnecting');
    // If the socket does not report its close in time, carry on anyway.
    this.#setTimer(() => {
      if (ws === this.#ws && this.#planned === plan) {
        ws.terminate();
        this.#onClose(4000, 'close timed out');
      }
    }, 5000);
  }

  #onClose(code: number, reason: string): void {
    this.#generation++;
    this.#stopHeartbeat();
    this.#clearTimer(this.#helloTimer);
    this.#clearTimer(this.#readyTimer);
    this.#ws = undefined;
    if (this.#destroyed) return;
    const planned = this.#planned;
    this.#planned = undefined;
    const rule = planned ? { name: planned.reason, action: 'resume' as const } : closeCodeRule(code);
    if (rule.action === 'fatal') {
      const error = new GatewayFatalError(code, rule.name, rule.hint ?? 'see the close code');
      this.#gateway.emit('close', { code, reason, willReconnect: false });
      this.#stop('idle');
      this.#dropSession();
      this.#failAll(error);
      this.#gateway.emit('error', error);
      return;
    }
    if (rule.action === 'reidentify') this.#dropSession();
    this.#gateway.emit('close', { code, reason, willReconnect: true });
    this.#attempt++;
    const delayMs = planned?.delayMs ?? backoffDelay({ baseDelayMs: this.#options.reconnectBaseDelayMs, maxDelayMs: this.#options.reconnectMaxDelayMs }, this.#attempt, this.#options.random);
    this.status = 'reconnecting';
    this.#gateway.emit('reconnecting', { attempt: this.#attempt, delayMs, resume: this.#canResume(), reason: planned ? planned.reason : `closed with ${code} (${rule.name})` });
    this.#reconnectTimer = this.#setTimer(() => this.#open(), delayMs);
  }

  #failAll(error: Error): void {
    for (const waiter of [...this.#waiters]) waiter.reject(error);
  }
}
