/**
 * The Gateway connection: a state machine over one `ws` socket at a time.
 * Loaded only when a Gateway connects.
 *
 * @module
 */

import WebSocket from 'ws';
import { backoffDelay } from '../backoff.js';
import { GatewayError, GatewayFatalError } from '../errors.js';
import type { GatewayDispatchEvent, GatewayEvents, GatewayStatus, ResolvedGatewayOptions } from './options.js';
import { GatewayDispatch, GatewayOpcode, closeCodeRule, type GatewayFrame } from './protocol.js';

/** The events the connection reports through its host; dispatches go through {@link ConnectionHost.dispatch}. */
export type ConnectionEvent = 'ready' | 'resumed' | 'reconnecting' | 'close' | 'debug' | 'error';

/** What the connection needs from whoever hosts it (the `Gateway`). */
export interface ConnectionHost {
  /** The bot token, read at each Identify and Resume. */
  token(): string | undefined;
  /** The clock. */
  now(): number;
  /** Reports a connection event. */
  emit<K extends ConnectionEvent>(event: K, ...args: GatewayEvents[K]): void;
  /** Receives every dispatch, once, in sequence order (READY and RESUMED included), before the connection acts on it. */
  dispatch(event: GatewayDispatchEvent): void;
}

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

/** Drives one Gateway session across reconnects. */
export class GatewayConnection {
  status: GatewayStatus = 'idle';
  latency: number | undefined;
  lastAckAt: number | undefined;
  sessionId: string | undefined;
  sequence: number | null = null;

  readonly #options: ResolvedGatewayOptions;
  readonly #host: ConnectionHost;
  #resumeUrl: string | undefined;
  #ws: WebSocket | undefined;
  #generation = 0;
  #timers = new Set<ReturnType<typeof setTimeout>>();
  #heartbeat: ReturnType<typeof setInterval> | undefined;
  #helloTimer: ReturnType<typeof setTimeout> | undefined;
  #readyTimer: ReturnType<typeof setTimeout> | undefined;
  #awaitingAck = false;
  #lastBeatAt = 0;
  #attempt = 0;
  #resuming = false;
  #replayed = 0;
  #planned: PlannedReconnect | undefined;
  #waiters: Waiter[] = [];
  #destroyed = false;

  constructor(options: ResolvedGatewayOptions, host: ConnectionHost) {
    this.#options = options;
    this.#host = host;
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
    this.#helloTimer = this.#readyTimer = undefined;
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
    this.#host.emit('debug', message);
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
      this.#host.emit('error', new GatewayError('received a frame that is not JSON; ignored'));
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
        const now = this.#host.now();
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
    const token = this.#host.token();
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
    this.#host.dispatch({ t: type, s: typeof sequence === 'number' ? sequence : null, d: frame.d });
    switch (type) {
      case GatewayDispatch.Ready: {
        const data = (frame.d ?? {}) as Record<string, unknown>;
        this.sessionId = typeof data['session_id'] === 'string' ? data['session_id'] : undefined;
        this.#resumeUrl = typeof data['resume_gateway_url'] === 'string' ? data['resume_gateway_url'] : undefined;
        this.#becameReady();
        this.#host.emit('ready', { sessionId: this.sessionId ?? '', data });
        return;
      }
      case GatewayDispatch.Resumed: {
        const replayed = this.#replayed;
        this.#resuming = false;
        this.#becameReady();
        this.#host.emit('resumed', { replayed });
        return;
      }
      default:
    }
  }

  #becameReady(): void {
    this.#clearTimer(this.#readyTimer);
    this.status = 'ready';
    this.#attempt = 0;
    for (const waiter of [...this.#waiters]) waiter.resolve();
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
    this.#setTimer(() => {
      this.#beat(ws);
      this.#heartbeat = setInterval(() => {
        if (this.#awaitingAck) {
          this.#plannedReconnect(ws, { reason: 'no heartbeat ACK since the last beat (zombie connection)' }, true);
          return;
        }
        this.#beat(ws);
      }, interval);
    }, Math.floor(interval * this.#options.random()));
  }

  #stopHeartbeat(): void {
    if (this.#heartbeat !== undefined) clearInterval(this.#heartbeat);
    this.#heartbeat = undefined;
  }

  #beat(ws: WebSocket): void {
    this.#lastBeatAt = this.#host.now();
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
      this.#host.emit('close', { code, reason, willReconnect: false });
      this.#stop('idle');
      this.#dropSession();
      this.#failAll(error);
      this.#host.emit('error', error);
      return;
    }
    if (rule.action === 'reidentify') this.#dropSession();
    this.#host.emit('close', { code, reason, willReconnect: true });
    this.#attempt++;
    const delayMs = planned?.delayMs ?? backoffDelay({ baseDelayMs: this.#options.reconnectBaseDelayMs, maxDelayMs: this.#options.reconnectMaxDelayMs }, this.#attempt, this.#options.random);
    this.status = 'reconnecting';
    this.#host.emit('reconnecting', { attempt: this.#attempt, delayMs, resume: this.#canResume(), reason: planned ? planned.reason : `closed with ${code} (${rule.name})` });
    this.#setTimer(() => this.#open(), delayMs);
  }

  #failAll(error: Error): void {
    for (const waiter of [...this.#waiters]) waiter.reject(error);
  }
}
