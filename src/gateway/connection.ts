/**
 * The Gateway connection: a state machine over one `ws` socket at a time.
 * Loaded only when a Gateway connects.
 *
 * @module
 */

import WebSocket from 'ws';
import { connectTimeoutError, failedAttempt } from './connect-failure.js';
import { backoffDelay } from '../core/backoff.js';
import { GatewayError, GatewayFatalError, SessionBudgetError } from '../errors/index.js';
import type { GatewayStatus, ResolvedGatewayOptions } from './options.js';
import {
  GatewayDispatch,
  GatewayOpcode,
  closeCodeRule,
  identifyFrame,
  DUPLICATE_SEQUENCE,
  readHeartbeatInterval,
  readReconnectDelay,
  readSequence,
  readSessionId,
  type CloseCodeRule,
  type GatewayFrame,
} from './protocol.js';
import { decodeFrame, dispatchEventOf } from './frame.js';
import { Heartbeat, TimerSet } from './heartbeat.js';
import { trustedResumeUrl, upgradeHeaders } from './transport.js';
import { ConnectWaiters } from './waiters.js';
import { closedWithin, openSocket } from './socket.js';
import type { GatewaySessionRecord } from './gateway-session-store.js';
import { IdentifyAttempts, PACED, awaitIdentifyTurn, type ConnectionHost, type PlannedReconnect, type SocketState } from './connection-host.js';

/** Drives one Gateway session across reconnects. */
export class GatewayConnection {
  status: GatewayStatus = 'idle';
  sessionId: string | undefined;
  sequence: number | null = null;

  readonly #options: ResolvedGatewayOptions;
  readonly #host: ConnectionHost;
  #resumeUrl: string | undefined;
  #ws: WebSocket | undefined;
  #generation = 0;
  readonly #timers = new TimerSet();
  readonly #heartbeat: Heartbeat;
  #helloTimer: ReturnType<typeof setTimeout> | undefined;
  #readyTimer: ReturnType<typeof setTimeout> | undefined;
  #attempt = 0;
  /** What the last failed connection attempt said (a socket error before the session was ready), for the connect timeout's message. */
  #lastFailure: string | undefined;
  /** A failure retrying cannot fix (a 4xx answer to the upgrade, a bad certificate): the next close is fatal. */
  #hopeless: GatewayFatalError | undefined;
  #resuming = false;
  #replayed = 0;
  #planned: PlannedReconnect | undefined;
  readonly #waiters = new ConnectWaiters();
  #destroyed = false;
  #socket: SocketState = { viaResumeUrl: false, hello: false, identified: false, ready: false };
  /** Identify attempts in a row that ended without READY; reset only by READY. */
  readonly #identifyAttempts = new IdentifyAttempts();
  readonly #headers: Record<string, string>;
  /** Aborts a wait for an Identify turn when its socket goes away. */
  #identifyWait: AbortController | undefined;

  constructor(options: ResolvedGatewayOptions, host: ConnectionHost) {
    this.#options = options;
    this.#host = host;
    this.#headers = upgradeHeaders(options.headers);
    this.#heartbeat = new Heartbeat(host.now, options.random);
  }

  /** Milliseconds between the last heartbeat and its ACK. */
  get latency(): number | undefined {
    return this.#heartbeat.latency;
  }

  /** When the last heartbeat ACK arrived, epoch milliseconds. */
  get lastAckAt(): number | undefined {
    return this.#heartbeat.lastAckAt;
  }

  /** The resume URL in use (from READY), if any. */
  get resumeUrl(): string | undefined {
    return this.#resumeUrl;
  }

  /** The session to resume on the next connect (a saved one); the usual rules apply if the service refuses it. */
  restore(record: GatewaySessionRecord): void {
    this.sessionId = record.sessionId;
    this.sequence = record.sequence;
    this.#resumeUrl = record.resumeUrl === undefined ? undefined : this.#acceptResumeUrl(record.resumeUrl);
  }

  /** Resolves on READY or RESUMED; see `Gateway.connect`. */
  connect(signal: AbortSignal | undefined): Promise<void> {
    if (this.#destroyed) return Promise.reject(new GatewayError('this shard was stopped; it connects no more'));
    if (this.status === 'ready') return Promise.resolve();
    const waiting = this.#waiters.wait(
      this.#options.connectTimeoutMs,
      signal,
      () => connectTimeoutError(this.#options.connectTimeoutMs, this.status, this.#lastFailure),
      () => {
        // Nobody is waiting for a session that never became ready: stop trying.
        if (this.#waiters.size === 0 && this.sessionId === undefined && this.status !== 'ready') this.#stop('idle');
      },
    );
    if (this.status === 'idle' && !signal?.aborted) this.#open();
    return waiting;
  }

  /** Closes for good: with 1000, which ends the session (Discord's rule), or, when `resumable`, with 4000, which keeps it for a successor. */
  async destroy(options: { resumable?: boolean } = {}): Promise<void> {
    if (this.#destroyed) return;
    this.#destroyed = true;
    const ws = this.#ws;
    this.#stop('destroyed', options.resumable === true);
    this.#waiters.rejectAll(new GatewayError('the Gateway was destroyed'));
    // The closing handshake ends before this resolves (at most 2 s), so the service has seen the close code before a successor resumes.
    if (ws) await closedWithin(ws, 2000);
  }

  #stop(status: GatewayStatus, resumable = false): void {
    this.#generation++;
    this.#identifyWait?.abort();
    this.#heartbeat.stop();
    this.#timers.clearAll();
    this.#helloTimer = this.#readyTimer = undefined;
    const ws = this.#ws;
    this.#ws = undefined;
    if (ws && ws.readyState !== WebSocket.CLOSED) {
      if (ws.readyState === WebSocket.OPEN) ws.close(resumable ? 4000 : 1000, resumable ? 'handing off' : 'client closed');
      else ws.terminate();
    }
    this.status = status;
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
    const viaResumeUrl = resume && this.#resumeUrl !== undefined;
    const url = viaResumeUrl ? (this.#resumeUrl as string) : this.#options.url;
    this.#socket = { viaResumeUrl, hello: false, identified: false, ready: false };
    this.#debug(`opening ${url} (${resume ? 'resume' : 'new session'})`);
    try {
      this.#ws = openSocket(url, this.#options, this.#headers, {
        current: () => generation === this.#generation,
        report: (error) => this.#host.emit('error', error),
        error: (error) => this.#onSocketError(url, error),
        open: (ws) => {
          this.#helloTimer = this.#timers.set(
            () => this.#plannedReconnect(ws, { reason: `no Hello within ${this.#options.helloTimeoutMs} ms` }),
            this.#options.helloTimeoutMs,
          );
        },
        message: (ws, data, isBinary) => this.#onMessage(ws, data, isBinary),
        close: (code, reason) => this.#onClose(code, reason),
      });
    } catch (error) {
      this.#waiters.rejectAll(new GatewayError(`invalid Gateway URL: ${error instanceof Error ? error.message : String(error)}`));
    }
  }

  /** A socket error: said at once (debug), remembered for the connect timeout, and fatal when retrying cannot fix it. */
  #onSocketError(url: string, error: Error): void {
    const attempt = failedAttempt(url, error, this.#socket.ready);
    this.#debug(attempt.debug);
    if (attempt.last !== undefined) this.#lastFailure = attempt.last;
    if (attempt.fatal !== undefined) this.#hopeless = attempt.fatal;
  }

  #onMessage(ws: WebSocket, data: WebSocket.RawData, isBinary: boolean): void {
    const frame = decodeFrame(data);
    if (typeof frame === 'string') {
      this.#host.emit('error', new GatewayError(`received ${isBinary ? 'a binary frame: ' : ''}${frame}; ignored`));
      return;
    }
    switch (frame.op) {
      case GatewayOpcode.Dispatch:
        this.#onDispatch(frame);
        return;
      case GatewayOpcode.Hello:
        this.#onHello(ws, frame);
        return;
      case GatewayOpcode.HeartbeatAck:
        this.#heartbeat.ack();
        return;
      case GatewayOpcode.Heartbeat:
        this.#heartbeat.beat(() => this.#sendBeat(ws));
        return;
      case GatewayOpcode.Reconnect: {
        // Discord sends d: null; a number in d is taken as a delay in milliseconds, capped at reconnectMaxDelayMs.
        const delayMs = readReconnectDelay(frame.d, this.#options.reconnectMaxDelayMs);
        this.#plannedReconnect(
          ws,
          delayMs === undefined ? { reason: 'the service asked to reconnect' } : { reason: `the service asked to reconnect in ${delayMs} ms`, delayMs },
        );
        return;
      }
      case GatewayOpcode.InvalidSession: {
        const resumable = frame.d === true;
        if (!resumable) this.#dropSession();
        // Refused before READY: the service's answer to an Identify that came too early in its bucket, not to a bad token.
        this.#socket.paced = this.#socket.identified && !this.#socket.ready;
        this.#plannedReconnect(ws, {
          reason: `invalid session (${resumable ? 'resumable' : 'not resumable'})${this.#socket.paced ? PACED : ''}`,
          delayMs: 1000 + Math.floor(this.#options.random() * 4000),
        });
        return;
      }
      default:
        this.#debug(`ignored opcode ${String(frame.op)}`);
    }
  }

  #onHello(ws: WebSocket, frame: GatewayFrame): void {
    // One Hello per socket: another would identify twice and orphan the READY timer.
    if (this.#socket.hello) return this.#debug('ignored a second Hello on the same connection');
    this.#socket.hello = true;
    this.#timers.clear(this.#helloTimer);
    const interval = readHeartbeatInterval(frame.d, this.#options.minHeartbeatIntervalMs);
    if (typeof interval === 'string') {
      // A protocol error: reconnect with the backoff, never with a timer Node would clamp to 1 ms.
      this.#host.emit('error', new GatewayError(`protocol error: ${interval}; reconnecting`));
      this.#plannedReconnect(ws, { reason: interval });
      return;
    }
    this.#heartbeat.start(
      interval,
      () => this.#sendBeat(ws),
      () => this.#plannedReconnect(ws, { reason: 'no heartbeat ACK since the last beat (zombie connection)' }, true),
    );
    const token = this.#host.token();
    if (token === undefined) {
      this.#waiters.rejectAll(new GatewayError('the client has no bot token to identify with'));
      this.#stop('idle');
      return;
    }
    if (this.#canResume()) {
      this.status = 'resuming';
      this.#resuming = true;
      this.#replayed = 0;
      this.#send(ws, { op: GatewayOpcode.Resume, d: { token, session_id: this.sessionId, seq: this.sequence } });
      this.#armReadyTimer(ws);
      return;
    }
    this.status = 'identifying';
    this.#resuming = false;
    // A new session numbers its dispatches from the start: the old sequence would drop them as already delivered.
    this.#dropSession();
    const controller = (this.#identifyWait = new AbortController());
    awaitIdentifyTurn(
      this.#host,
      controller,
      () => this.#identify(ws),
      (error, retry) => {
        if (error !== undefined) this.#host.emit('error', error);
        // Not identifying below the session start reserve: connect() says why at once (the retry waits for the budget to reset).
        if (error instanceof SessionBudgetError) this.#waiters.rejectAll(error);
        this.#plannedReconnect(ws, retry);
      },
    );
  }

  #identify(ws: WebSocket): void {
    const token = this.#host.token();
    if (ws !== this.#ws || token === undefined) return;
    this.#socket.identified = true;
    this.#send(ws, identifyFrame(token, this.#options.intents, this.#host.shard));
    this.#armReadyTimer(ws);
  }

  #armReadyTimer(ws: WebSocket): void {
    this.#timers.clear(this.#readyTimer);
    this.#readyTimer = this.#timers.set(
      () => this.#plannedReconnect(ws, { reason: `no ${this.#resuming ? 'RESUMED' : 'READY'} within ${this.#options.readyTimeoutMs} ms` }),
      this.#options.readyTimeoutMs,
    );
  }

  #onDispatch(frame: GatewayFrame): void {
    const type = typeof frame.t === 'string' ? frame.t : '';
    const sequence = readSequence(frame.s, this.sequence);
    if (sequence === DUPLICATE_SEQUENCE) return this.#debug(`dropped dispatch ${type} with sequence ${String(frame.s)}: already delivered`);
    // A bad sequence is reported and not recorded; the dispatch itself is still delivered, and so is what follows.
    if (typeof sequence === 'string')
      this.#host.emit('error', new GatewayError(`protocol error: ${sequence} in ${type || 'a dispatch'}; delivered without it`));
    const next = typeof sequence === 'number' && sequence >= 0 ? sequence : null;
    if (next !== null) this.sequence = next;
    if (this.#resuming && type !== GatewayDispatch.Resumed) this.#replayed++;
    // The payload is not read here: it is parsed only if a consumer reads it (READY's below, a listener's, the router's).
    this.#host.dispatch(dispatchEventOf(frame, type, next));
    switch (type) {
      case GatewayDispatch.Ready: {
        const data = typeof frame.d === 'object' && frame.d !== null && !Array.isArray(frame.d) ? (frame.d as Record<string, unknown>) : {};
        this.sessionId = readSessionId(data);
        if (this.sessionId === undefined)
          this.#host.emit(
            'error',
            new GatewayError('protocol error: READY without a session_id; this session cannot be resumed (the next connection identifies anew)'),
          );
        this.#resumeUrl = this.sessionId === undefined ? undefined : this.#acceptResumeUrl(data['resume_gateway_url']);
        this.#identifyAttempts.ready();
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

  /** The READY's `resume_gateway_url`, if trusted and it passes the configured URL's transport rule; otherwise an error event and the configured URL. */
  #acceptResumeUrl(value: unknown): string | undefined {
    return trustedResumeUrl(value, this.#options, this.#host.allowInsecure, (error) => this.#host.emit('error', error));
  }

  #becameReady(): void {
    this.#timers.clear(this.#readyTimer);
    this.#socket.ready = true;
    this.status = 'ready';
    this.#attempt = 0;
    this.#lastFailure = undefined;
    this.#waiters.resolveAll();
  }

  #send(ws: WebSocket, frame: GatewayFrame): void {
    if (ws.readyState !== WebSocket.OPEN) return;
    ws.send(JSON.stringify(frame), (error) => {
      if (error) this.#debug(`send failed: ${error.message}`);
    });
  }

  #sendBeat(ws: WebSocket): void {
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
    this.#heartbeat.stop();
    if (terminate || ws.readyState !== WebSocket.OPEN) ws.terminate();
    // 4000 keeps the session resumable on the service side (1000 and 1001 would end it).
    else ws.close(4000, 'reconnecting');
    // If the socket does not report its close in time, carry on anyway.
    this.#timers.set(() => {
      if (ws === this.#ws && this.#planned === plan) {
        ws.terminate();
        this.#onClose(4000, 'close timed out');
      }
    }, 5000);
  }

  #onClose(code: number, reason: string): void {
    this.#generation++;
    this.#identifyWait?.abort();
    this.#heartbeat.stop();
    this.#timers.clear(this.#helloTimer);
    this.#timers.clear(this.#readyTimer);
    this.#ws = undefined;
    if (this.#destroyed) return;
    const planned = this.#planned;
    this.#planned = undefined;
    const socket = this.#socket;
    if (socket.viaResumeUrl && !socket.ready && this.#resumeUrl !== undefined) {
      this.#resumeUrl = undefined;
      this.#debug('the resume on resume_gateway_url failed; falling back to the configured URL');
    }
    const exhausted = this.#identifyAttempts.closed(socket, code, this.#options.maxIdentifyFailures);
    let rule: CloseCodeRule = planned ? { name: planned.reason, action: 'resume' } : closeCodeRule(code);
    if (rule.action !== 'fatal' && exhausted !== undefined) rule = exhausted;
    const hopeless = this.#hopeless;
    this.#hopeless = undefined;
    if (rule.action === 'fatal' || hopeless !== undefined) {
      const error = hopeless ?? new GatewayFatalError(code, rule.name, rule.hint ?? 'see the close code');
      this.#host.emit('close', { code, reason, willReconnect: false });
      this.#stop('idle');
      this.#dropSession();
      this.#waiters.rejectAll(error);
      this.#host.emit('error', error);
      return;
    }
    if (rule.action === 'reidentify') this.#dropSession();
    this.#host.emit('close', { code, reason, willReconnect: true });
    this.#attempt++;
    const { reconnectBaseDelayMs: baseDelayMs, reconnectMaxDelayMs: maxDelayMs, random } = this.#options;
    const delayMs = planned?.delayMs ?? backoffDelay({ baseDelayMs, maxDelayMs }, this.#attempt, random);
    this.status = 'reconnecting';
    const why = planned ? planned.reason : `closed with ${code} (${rule.name})`;
    this.#host.emit('reconnecting', { attempt: this.#attempt, delayMs, resume: this.#canResume(), reason: why });
    this.#timers.set(() => this.#open(), delayMs);
  }
}
