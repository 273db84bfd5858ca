/**
 * A raw WebSocket server on 127.0.0.1, port 0, for protocol tests: the test
 * scripts every frame and close code itself, and can read the upgrade
 * request's headers. Unlike the emulator's GatewayServer, it has no protocol
 * logic of its own.
 */
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import { until } from './until.js';

/** One accepted connection. */
export interface WsPeer {
  /** The server side of the socket. */
  readonly socket: WebSocket;
  /** The upgrade request's headers (lower-case names). */
  readonly headers: Readonly<Record<string, string>>;
  /** The upgrade request's path and query. */
  readonly url: string;
  /** Every text frame received, parsed as JSON where it parses (else the text). */
  readonly received: unknown[];
  /** Sends a value as a JSON text frame. */
  send(frame: unknown): void;
  /** Sends text as is (to send JSON that `JSON.stringify` cannot produce, e.g. `1e999`, or non-JSON). */
  sendRaw(text: string): void;
  /** Sends a binary frame. */
  sendBinary(data: Buffer): void;
  /** Closes with a code and reason. */
  close(code: number, reason?: string): void;
  /** Resolves with the first received frame (now or later) matching `predicate`. */
  nextFrame(predicate: (frame: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** Resolves when the socket has closed, with the client's close code. */
  readonly closed: Promise<number>;
}

/** A scripted loopback WebSocket server. */
export interface WsTestServer {
  /** `ws://127.0.0.1:<port>`. */
  readonly url: string;
  /** The port it listens on. */
  readonly port: number;
  /** Every connection so far, oldest first. */
  readonly peers: WsPeer[];
  /** Runs for each new connection (replaces the previous handler). */
  onConnection(handler: (peer: WsPeer) => void): void;
  /** Resolves with connection number `index` (0-based), waiting for it if needed. */
  peer(index: number, timeoutMs?: number): Promise<WsPeer>;
  /** Terminates every socket and stops listening. */
  close(): Promise<void>;
}

/** Starts a {@link WsTestServer}; pass `port` to listen again on a port used before. */
export async function startWsServer(handler: (peer: WsPeer) => void = () => undefined, port = 0): Promise<WsTestServer> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port, perMessageDeflate: false });
  await new Promise<void>((resolve, reject) => {
    wss.once('listening', resolve);
    wss.once('error', reject);
  });
  const peers: WsPeer[] = [];
  let current = handler;
  wss.on('connection', (socket: WebSocket, request: IncomingMessage) => {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
    const received: unknown[] = [];
    socket.on('error', () => undefined);
    socket.on('message', (data, isBinary) => {
      const text = isBinary ? '' : data.toString();
      try {
        received.push(JSON.parse(text));
      } catch {
        received.push(text);
      }
    });
    const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
    const peer: WsPeer = {
      socket,
      headers,
      url: request.url ?? '',
      received,
      closed,
      send: (frame) => {
        if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(frame));
      },
      sendRaw: (text) => {
        if (socket.readyState === WebSocket.OPEN) socket.send(text);
      },
      sendBinary: (data) => {
        if (socket.readyState === WebSocket.OPEN) socket.send(data, { binary: true });
      },
      close: (code, reason) => {
        if (socket.readyState === WebSocket.OPEN) socket.close(code, reason);
      },
      nextFrame: (predicate, timeoutMs = 5000) =>
        until(
          () =>
            received.find(
              (frame): frame is Record<string, unknown> => typeof frame === 'object' && frame !== null && predicate(frame as Record<string, unknown>),
            ),
          { timeoutMs, what: () => `a matching frame (received: ${JSON.stringify(received).slice(0, 500)})` },
        ),
    };
    peers.push(peer);
    current(peer);
  });
  const listening = (wss.address() as AddressInfo).port;
  return {
    url: `ws://127.0.0.1:${listening}`,
    port: listening,
    peers,
    onConnection(next) {
      current = next;
    },
    peer: (index, timeoutMs = 5000) => until(() => peers[index], { timeoutMs, what: `connection #${index} (${peers.length} so far)` }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of wss.clients) client.terminate();
        wss.close(() => resolve());
      }),
  };
}

/** Discord-style frames a scripted server sends. */
export const frames = {
  hello: (heartbeatInterval: unknown = 45_000) => ({ op: 10, d: { heartbeat_interval: heartbeatInterval } }),
  dispatch: (t: string, s: number, d: unknown) => ({ op: 0, t, s, d }),
  ready: (s: number, d: Record<string, unknown> = {}) => ({ op: 0, t: 'READY', s, d: { v: 10, session_id: 'sess-1', user: { id: 'bot' }, ...d } }),
  resumed: (s: number) => ({ op: 0, t: 'RESUMED', s, d: {} }),
};

/** A peer that answers like a well-behaved Gateway: Hello at once, READY (sequence 1) on Identify, RESUMED (the resumed sequence + 1) on Resume, ACK to heartbeats. */
export function behaveWell(peer: WsPeer, options: { heartbeatInterval?: number; ready?: Record<string, unknown> } = {}): void {
  peer.socket.on('message', (data) => {
    let frame: { op?: unknown; d?: { seq?: unknown } };
    try {
      frame = JSON.parse(data.toString()) as typeof frame;
    } catch {
      return;
    }
    if (frame.op === 1) peer.send({ op: 11, d: null });
    else if (frame.op === 2) peer.send(frames.ready(1, options.ready));
    // RESUMED follows the last sequence the client saw, so it is not dropped as a replay.
    else if (frame.op === 6) peer.send(frames.resumed((typeof frame.d?.seq === 'number' ? frame.d.seq : 0) + 1));
  });
  peer.send(frames.hello(options.heartbeatInterval ?? 45_000));
}

export { until };

/** The opcodes of every frame the peer received from the client, in order. */
export const opsOf = (peer: WsPeer): unknown[] => peer.received.map((frame) => (frame as { op?: unknown }).op);
