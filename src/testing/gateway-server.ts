/**
 * A Gateway server speaking the SDK's protocol (Discord's), for the emulator
 * and for tests: sessions with Discord's READY (and GUILD_CREATE with the
 * GUILDS intent), heartbeats, resume with replay, Discord's close codes for
 * unknown opcodes, a second Identify and invalid shards, and knobs to drop
 * connections, stop acknowledging heartbeats, or reject a token.
 *
 * @module
 */

import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, WebSocket } from 'ws';
import { GatewayDispatch, GatewayOpcode, shardOfGuild, type GatewayFrame } from '../gateway/protocol.js';
import { API_PREFIX } from '../core/routes.js';
import { GATEWAY_VERSION, GatewayIntent, GUILD_CREATE, IgnoredGatewayOpcode } from './discord.js';
import type { BotIdentity, GatewayServerOptions, IdentifyRecord } from './gateway-server-options.js';
import { GatewayFrameWriter, requestedCompression } from './gateway-compression.js';

/** Where the Gateway is served, under the API prefix (as the SDK's client looks for it). */
export const GATEWAY_PATH = `${API_PREFIX}/gateway`;

const DEFAULT_IDENTITY: BotIdentity = { user: { id: '1', username: 'test-bot', bot: true }, guilds: [], application: { id: '1', flags: 0 } };

const IGNORED_OPCODES: ReadonlySet<number> = new Set(Object.values(IgnoredGatewayOpcode));

/** Discord's close code for a second Identify on one connection. */
const ALREADY_AUTHENTICATED = 4005;

/** Discord's close code for a shard array it cannot serve. */
const INVALID_SHARD = 4010;

interface Session {
  id: string;
  token: string;
  sequence: number;
  /** Dispatches of this session, for replay. */
  log: { s: number; t: string; d: unknown }[];
  socket: WebSocket | undefined;
  /** `[shard_id, num_shards]` from Identify: the session gets only its shard's communities (DMs on shard 0). */
  shard: [number, number] | undefined;
  /** When its connection dropped (`Date.now()`), while it has none. */
  droppedAt?: number | undefined;
}

/** Counters of one bot (one token). */
export interface BotGatewayStats {
  /** Identify frames answered with READY. */
  identifies: number;
  /** Resume frames answered with RESUMED. */
  resumes: number;
  /** Resume frames refused (Invalid Session): an unknown, ended or expired session. */
  resumesRefused: number;
}

/** A Gateway server on `ws`. */
export class GatewayServer {
  readonly #wss: WebSocketServer;
  readonly #options: GatewayServerOptions;
  readonly #sessions = new Map<string, Session>();
  /** Each open connection and its writer (plain, or compressed as the client asked with `compress=`); closes go through it, after the messages before them. */
  readonly #sockets = new Map<WebSocket, GatewayFrameWriter>();
  #nextSession = 0;
  /** Makes this server's session ids its own: a session id stored by another emulator (a Redis session store left over) never resumes here. */
  readonly #instance = Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(6))).toString('hex');
  #detach: (() => void) | undefined;
  /** Whether heartbeats are acknowledged (turn off to make the connection a zombie). */
  ackHeartbeats = true;
  /** Whether Hello is sent on connection (turn off to test the Hello timeout). */
  sendHello = true;
  /** Whether Identify and Resume are answered (turn off to test the READY timeout). */
  answerSessions = true;
  /** Counters, for tests. */
  readonly stats: {
    /** WebSocket connections accepted. */
    connections: number;
    /** Identify frames received (answered or not). */
    identifies: number;
    /** Resume frames received (answered or not). */
    resumes: number;
    /** Heartbeat frames received. */
    heartbeats: number;
    /** Identifies answered with Invalid Session because they came too early (see {@link GatewayServerOptions.identifyPacing}). */
    tooEarlyIdentifies: number;
    /** Sessions ended because the client closed with 1000 or 1001 (a resume of one is refused with Invalid Session). */
    sessionsEndedByClient: number;
  } = { connections: 0, identifies: 0, resumes: 0, heartbeats: 0, tooEarlyIdentifies: 0, sessionsEndedByClient: 0 };
  /** Every Identify, oldest first, for tests (at most the last 10,000). */
  readonly identifyLog: IdentifyRecord[] = [];
  /** Per token and bucket: when its last accepted Identify arrived. */
  readonly #lastIdentify = new Map<string, number>();
  /** Counters per token (kept inside: {@link GatewayServer.statsOf} reads them). */
  readonly #perToken = new Map<string, BotGatewayStats>();
  /** Frames received from clients, newest last (tokens included: test use only). */
  readonly received: GatewayFrame[] = [];

  constructor(options: GatewayServerOptions = {}) {
    this.#options = options;
    const { server } = options;
    if (server) {
      // Upgrades are taken by hand so that the path matches with or without a trailing slash, as Discord's does (`/?v=10`).
      this.#wss = new WebSocketServer({ noServer: true });
      const path = options.path ?? GATEWAY_PATH;
      const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
        // A client that resets the connection after a refusal must not crash the process hosting the emulator.
        socket.on('error', () => undefined);
        const pathname = (request.url ?? '').split('?')[0]?.replace(/(.)\/+$/, '$1');
        if (pathname !== path) {
          socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
          return;
        }
        if (options.admit?.(request) !== undefined) {
          socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
          return;
        }
        this.#wss.handleUpgrade(request, socket, head, (ws) => this.#wss.emit('connection', ws, request));
      };
      server.on('upgrade', onUpgrade);
      this.#detach = () => server.off('upgrade', onUpgrade);
    } else {
      this.#wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    }
    this.#wss.on('connection', (socket: WebSocket, request: IncomingMessage) => this.#onConnection(socket, request));
  }

  /** Resolves once listening (stand-alone servers only). */
  async listening(): Promise<void> {
    if (this.#options.server) return;
    if ((this.#wss.address() as AddressInfo | null)?.port) return;
    await new Promise<void>((resolve) => this.#wss.once('listening', () => resolve()));
  }

  /** The ws:// URL: the server's own, or the HTTP server's with the Gateway path. */
  get url(): string {
    const { server } = this.#options;
    if (!server) return `ws://127.0.0.1:${(this.#wss.address() as AddressInfo).port}`;
    const address = server.address() as AddressInfo;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    return `ws://${host}:${address.port}${this.#options.path ?? GATEWAY_PATH}`;
  }

  #onConnection(socket: WebSocket, request: IncomingMessage): void {
    this.stats.connections++;
    const compression = requestedCompression(request);
    this.#sockets.set(socket, new GatewayFrameWriter(socket, compression));
    let session: Session | undefined;
    this.#options.onTraffic?.({ kind: 'open', compression: compression ?? 'none' });
    socket.on('close', (code: number) => {
      this.#sockets.get(socket)?.destroy();
      this.#sockets.delete(socket);
      if (session?.socket === socket) {
        session.socket = undefined;
        session.droppedAt = Date.now();
      }
      // Discord's rule: a client that closes with 1000 or 1001 ends its session; any other close leaves it resumable.
      if (session?.socket === undefined && session !== undefined && (code === 1000 || code === 1001) && this.#sessions.get(session.id) === session) {
        this.#sessions.delete(session.id);
        this.stats.sessionsEndedByClient++;
      }
      this.#options.onTraffic?.({ kind: 'close', code });
    });
    socket.on('error', () => undefined);
    socket.on('message', (raw) => {
      let frame: GatewayFrame;
      try {
        frame = JSON.parse(raw.toString()) as GatewayFrame;
      } catch {
        this.#sockets.get(socket)?.close(4002, 'decode error');
        return;
      }
      this.received.push(frame);
      this.#options.onTraffic?.({ kind: 'in', frame });
      switch (frame.op) {
        case GatewayOpcode.Heartbeat:
          this.stats.heartbeats++;
          if (this.ackHeartbeats) this.#send(socket, { op: GatewayOpcode.HeartbeatAck, d: null });
          return;
        case GatewayOpcode.Identify: {
          this.stats.identifies++;
          if (!this.answerSessions) return;
          if (session?.socket === socket) {
            this.#sockets.get(socket)?.close(ALREADY_AUTHENTICATED, 'already authenticated');
            return;
          }
          session = this.#identify(socket, frame.d) ?? session;
          return;
        }
        case GatewayOpcode.Resume: {
          this.stats.resumes++;
          if (!this.answerSessions) return;
          const d = (frame.d ?? {}) as { token?: unknown; session_id?: unknown; seq?: unknown };
          const existing = typeof d.session_id === 'string' ? this.#live(d.session_id) : undefined;
          if (!existing || existing.token !== d.token) {
            if (typeof d.token === 'string') this.#count(d.token).resumesRefused++;
            this.#send(socket, { op: GatewayOpcode.InvalidSession, d: false });
            return;
          }
          this.#count(existing.token).resumes++;
          session = existing;
          session.droppedAt = undefined;
          session.socket?.terminate();
          session.socket = socket;
          const from = (typeof d.seq === 'number' ? d.seq : 0) - (this.#options.replayOverlap ?? 0);
          for (const event of session.log) if (event.s > from) this.#send(socket, { op: GatewayOpcode.Dispatch, ...event });
          this.#dispatch(session, GatewayDispatch.Resumed, {});
          return;
        }
        default:
          // Presence, voice state and member requests are valid; the emulator has nothing to do for them.
          if (IGNORED_OPCODES.has(frame.op)) return;
          this.#sockets.get(socket)?.close(4001, 'unknown opcode');
      }
    });
    if (this.sendHello) this.#send(socket, { op: GatewayOpcode.Hello, d: { heartbeat_interval: this.#options.heartbeatIntervalMs ?? 41_250 } });
  }

  /** Answers Identify: READY, then GUILD_CREATE for each community when the GUILDS intent is set. Closes the socket and returns `undefined` on a refusal. */
  #identify(socket: WebSocket, data: unknown): Session | undefined {
    const d = (data ?? {}) as { token?: unknown; shard?: unknown; intents?: unknown };
    const token = String(d.token ?? '');
    const shard = d.shard;
    if (shard !== undefined && !validShard(shard)) {
      this.#sockets.get(socket)?.close(INVALID_SHARD, 'invalid shard');
      return undefined;
    }
    const record: IdentifyRecord = {
      at: this.#options.identifyPacing?.clock?.() ?? Date.now(),
      shard: shard as [number, number] | undefined,
      accepted: false,
      tooEarly: false,
    };
    this.identifyLog.push(record);
    if (this.identifyLog.length > 10_000) this.identifyLog.shift();
    const pacing = this.#options.identifyPacing;
    const bucketKey = pacing && `${token}\u0000${(record.shard?.[0] ?? 0) % Math.max(1, pacing.maxConcurrency)}`;
    if (pacing && bucketKey !== undefined) {
      const last = this.#lastIdentify.get(bucketKey);
      if (last !== undefined && record.at - last < pacing.intervalMs) {
        record.tooEarly = true;
        this.stats.tooEarlyIdentifies++;
        this.#send(socket, { op: GatewayOpcode.InvalidSession, d: false });
        return undefined;
      }
    }
    const identity =
      token && (this.#options.authorize?.(token) ?? true) ? (this.#options.identity ? this.#options.identity(token) : DEFAULT_IDENTITY) : undefined;
    if (!identity) {
      this.#sockets.get(socket)?.close(4004, 'authentication failed');
      return undefined;
    }
    if (bucketKey !== undefined) this.#lastIdentify.set(bucketKey, record.at);
    record.accepted = true;
    this.#count(token).identifies++;
    const session: Session = {
      id: `session-${this.#instance}-${++this.#nextSession}`,
      token,
      sequence: 0,
      log: [],
      socket,
      shard: record.shard && [record.shard[0], record.shard[1]],
    };
    this.#sessions.set(session.id, session);
    this.#dispatch(session, GatewayDispatch.Ready, {
      v: GATEWAY_VERSION,
      user: identity.user,
      guilds: identity.guilds,
      session_id: session.id,
      session_type: 'normal',
      resume_gateway_url: this.#resumeGatewayUrl(),
      application: identity.application,
      private_channels: [],
      presences: [],
      relationships: [],
      ...(shard === undefined ? {} : { shard }),
    });
    const intents = typeof d.intents === 'number' ? d.intents : 0;
    if ((intents & GatewayIntent.Guilds) !== 0) for (const guild of identity.guildCreates ?? []) this.#dispatch(session, GUILD_CREATE, guild);
    return session;
  }

  /** A session that is still resumable (a disconnected one expires after `resumeWindowMs`). */
  #live(id: string): Session | undefined {
    const session = this.#sessions.get(id);
    const window = this.#options.resumeWindowMs;
    if (session?.droppedAt !== undefined && window !== undefined && Date.now() - session.droppedAt > window) {
      this.#sessions.delete(id);
      return undefined;
    }
    return session;
  }

  #count(token: string): BotGatewayStats {
    let stats = this.#perToken.get(token);
    if (stats === undefined) {
      // Bounded: a hostile client sending made-up tokens must not grow it without end.
      if (this.#perToken.size >= 1000) this.#perToken.delete(this.#perToken.keys().next().value as string);
      stats = { identifies: 0, resumes: 0, resumesRefused: 0 };
      this.#perToken.set(token, stats);
    }
    return stats;
  }

  /** The counters of the bot that uses `token` (zeros for one never seen). */
  statsOf(token: string): BotGatewayStats {
    return { ...(this.#perToken.get(token) ?? { identifies: 0, resumes: 0, resumesRefused: 0 }) };
  }

  #resumeGatewayUrl(): string {
    const configured = this.#options.resumeGatewayUrl;
    if (typeof configured === 'function') return configured();
    return configured ?? this.url;
  }

  #send(socket: WebSocket, frame: GatewayFrame): void {
    if (socket.readyState !== WebSocket.OPEN) return;
    this.#sockets.get(socket)?.send(JSON.stringify(frame));
    this.#options.onTraffic?.({ kind: 'out', frame });
  }

  #dispatch(session: Session, t: string, d: unknown): number {
    const s = ++session.sequence;
    if (t !== GatewayDispatch.Ready && t !== GatewayDispatch.Resumed) session.log.push({ s, t, d });
    if (session.log.length > 10_000) session.log.splice(0, session.log.length - 10_000);
    if (session.socket) this.#send(session.socket, { op: GatewayOpcode.Dispatch, s, t, d });
    return s;
  }

  /** Dispatches an event to every session (or one), queued for replay while it is disconnected. Returns how many sessions got it. */
  dispatch(t: string, d: unknown, sessionId?: string): number {
    let count = 0;
    for (const session of this.#sessions.values()) {
      if (sessionId !== undefined && session.id !== sessionId) continue;
      this.#dispatch(session, t, d);
      count++;
    }
    return count;
  }

  /**
   * Dispatches to the sessions identified with `token` (queued for replay
   * while one is disconnected); a sharded session gets only the events of
   * its communities (`(guild_id >> 22) % count`, events without `guild_id`
   * on shard 0). Returns how many are connected and got it now.
   */
  dispatchToToken(token: string, t: string, d: unknown): number {
    let count = 0;
    for (const session of this.#sessionsFor(token, d)) {
      this.#dispatch(session, t, d);
      if (session.socket) count++;
    }
    return count;
  }

  /** How many sessions of `token` (connected, or disconnected and resumable) would get the event `d`. */
  sessionsFor(token: string, d: unknown): number {
    return this.#sessionsFor(token, d).length;
  }

  #sessionsFor(token: string, d: unknown): Session[] {
    const guildId = (d as { guild_id?: unknown } | null | undefined)?.guild_id;
    return [...this.#sessions.values()].filter(
      (session) =>
        session.token === token &&
        !(session.shard && shardOfGuild(typeof guildId === 'string' ? guildId : undefined, session.shard[1]) !== session.shard[0]) &&
        this.#live(session.id) !== undefined,
    );
  }

  /** Closes and forgets the sessions of a token (after the token was reset). */
  closeSessionsOfToken(token: string, code: number): void {
    for (const [id, session] of this.#sessions) {
      if (session.token !== token) continue;
      if (session.socket) this.#sockets.get(session.socket)?.close(code, 'token reset');
      this.#sessions.delete(id);
    }
  }

  /** How many sessions identified with `token` have an open socket. */
  connectedSessions(token?: string): number {
    return [...this.#sessions.values()].filter((session) => session.socket !== undefined && (token === undefined || session.token === token)).length;
  }

  /** Drops every client connection: `terminate` (no close frame, like a network failure) or a close code. */
  dropConnections(how: 'terminate' | number = 'terminate'): void {
    for (const socket of this.#sockets.keys()) {
      if (how === 'terminate') socket.terminate();
      else this.#sockets.get(socket)?.close(how, 'closed by the test server');
    }
  }

  /** Sends a raw frame to every connection. */
  sendToAll(frame: GatewayFrame): void {
    for (const socket of this.#sockets.keys()) this.#send(socket, frame);
  }

  /** Closes the server and every connection. */
  async close(): Promise<void> {
    this.#detach?.();
    for (const socket of this.#sockets.keys()) socket.terminate();
    await new Promise<void>((resolve) => this.#wss.close(() => resolve()));
  }

  /** Closes the server at the end of an `await using` scope: the same as {@link GatewayServer.close}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/** Whether Identify's `shard` is `[shard_id, num_shards]` with `0 <= shard_id < num_shards`. */
function validShard(shard: unknown): boolean {
  if (!Array.isArray(shard) || shard.length !== 2) return false;
  const [id, count] = shard as unknown[];
  return Number.isInteger(id) && Number.isInteger(count) && (id as number) >= 0 && (id as number) < (count as number);
}
