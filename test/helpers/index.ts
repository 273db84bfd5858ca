/**
 * Shared test helpers: one loopback HTTP server, one MSW recorder, and client factories.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { http as mswHttp, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { Client, type ClientOptions } from '../../src/index.js';

/** Secrets used by the fixtures; tests assert none of them leaks. */
export const SECRETS = {
  botToken: 'bot-token-Zx81.secret',
  accessToken: 'access-token-Qw72.secret',
  refreshCookie: 'refresh-cookie-Kp55.secret',
  webhookToken: 'webhook-token-Mm31.secret',
} as const;

/** A request as a server saw it. */
export interface RecordedRequest {
  method: string;
  /** Path and query, as sent on the wire. */
  url: string;
  headers: Record<string, string>;
  body: string;
  /** When the server had read the whole request (epoch ms); loopback servers only. */
  receivedAt?: number;
}

/** What a responder returns. */
export interface CannedResponse {
  status?: number;
  json?: unknown;
  text?: string;
  headers?: Record<string, string | string[]>;
}

export type Responder = (request: RecordedRequest) => CannedResponse | Promise<CannedResponse>;

/** An MSW server that records every request and answers through a replaceable responder. */
export interface MswRecorder {
  server: ReturnType<typeof setupServer>;
  requests: RecordedRequest[];
  respond(responder: Responder): void;
}

export function createMswRecorder(): MswRecorder {
  const requests: RecordedRequest[] = [];
  let responder: Responder = () => ({ status: 200, json: {} });
  const server = setupServer(
    mswHttp.all('*', async ({ request }) => {
      const url = new URL(request.url);
      const headers: Record<string, string> = {};
      request.headers.forEach((value, name) => {
        headers[name] = value;
      });
      const recorded: RecordedRequest = { method: request.method, url: url.pathname + url.search, headers, body: await request.text() };
      requests.push(recorded);
      const answer = await responder(recorded);
      const responseHeaders = new Headers();
      for (const [name, value] of Object.entries(answer.headers ?? {})) {
        for (const item of Array.isArray(value) ? value : [value]) responseHeaders.append(name, item);
      }
      if (answer.json !== undefined) {
        responseHeaders.set('content-type', 'application/json');
        return new HttpResponse(JSON.stringify(answer.json), { status: answer.status ?? 200, headers: responseHeaders });
      }
      return new HttpResponse(answer.text ?? null, { status: answer.status ?? 200, headers: responseHeaders });
    }),
  );
  return {
    server,
    requests,
    respond(next) {
      responder = next;
    },
  };
}

/** Creates an MSW recorder and registers its lifecycle in the current test file. */
export function useMswRecorder(): MswRecorder {
  const recorder = createMswRecorder();
  beforeAll(() => recorder.server.listen({ onUnhandledRequest: 'error' }));
  afterEach(() => {
    recorder.requests.length = 0;
    recorder.respond(() => ({ status: 200, json: {} }));
  });
  afterAll(() => recorder.server.close());
  return recorder;
}

/** A real HTTP server on 127.0.0.1, port 0. */
export interface LoopbackServer {
  url: string;
  /** The underlying node:http server (to attach a WebSocket server to it). */
  server: http.Server;
  requests: RecordedRequest[];
  /** Raw handler access, for fault injection. */
  setHandler(handler: (request: http.IncomingMessage, response: http.ServerResponse, body: string) => void): void;
  close(): Promise<void>;
}

export async function startLoopbackServer(
  handler: (request: http.IncomingMessage, response: http.ServerResponse, body: string) => void = (_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end('{}');
  },
  listenPort = 0,
): Promise<LoopbackServer> {
  const requests: RecordedRequest[] = [];
  let current = handler;
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers)) if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
      requests.push({ method: request.method ?? '', url: request.url ?? '', headers, body, receivedAt: Date.now() });
      current(request, response, body);
    });
  });
  return {
    ...(await listenOnLoopback(server, listenPort)),
    server,
    requests,
    setHandler(next) {
      current = next;
    },
  };
}

/** Base URL used with MSW (https, so credentials may be sent). */
export const MSW_BASE_URL = 'https://chat.test';

/** A client on the fetch transport (MSW intercepts it) holding every kind of credential. */
export function createMswClient(options: ClientOptions = {}): Client {
  return new Client({
    baseUrl: MSW_BASE_URL,
    transport: 'fetch',
    auth: {
      botToken: SECRETS.botToken,
      session: {
        accessToken: SECRETS.accessToken,
        accessTokenExpiresAt: Date.now() + 600_000,
        cookies: [{ name: 'refresh_token', value: SECRETS.refreshCookie, path: '/', expiresAt: undefined }],
      },
      webhookTokens: { wh1: SECRETS.webhookToken },
    },
    ...options,
  });
}

/** Asserts that no fixture secret appears in `text`. */
export function findLeakedSecrets(text: string, extra: readonly string[] = []): string[] {
  return [...Object.values(SECRETS), ...extra].filter((secret) => text.includes(secret) || text.includes(encodeURIComponent(secret)));
}

/** Counts timers and other handles the process holds, to check nothing leaks. */
export function activeTimers(): number {
  return process.getActiveResourcesInfo().filter((name) => name === 'Timeout').length;
}

/** Collects unhandled rejections while a test runs. */
export function trackUnhandledRejections(): { readonly count: number; stop(): void } {
  let count = 0;
  const listener = () => {
    count++;
  };
  process.on('unhandledRejection', listener);
  return {
    get count() {
      return count;
    },
    stop: () => process.off('unhandledRejection', listener),
  };
}

/** A child process running a TypeScript file through tsx, with its output collected. */
export interface RunningScript {
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  /** Waits until stdout matches. */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  kill(signal?: NodeJS.Signals): void;
}

/** Starts `node --import tsx <file>` from the repository root. */
export async function startScript(file: string, options: { env?: Record<string, string>; args?: string[] } = {}): Promise<RunningScript> {
  const { spawn } = await import('node:child_process');
  const { fileURLToPath } = await import('node:url');
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', file, ...(options.args ?? [])], {
    cwd: root,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  // Each waitForOutput() is asked again on every chunk of output and at the close; one listener each for all of them.
  const waiting = new Set<() => void>();
  const askWaiting = () => {
    for (const ask of [...waiting]) ask();
  };
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    askWaiting();
  });
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  // 'close' comes after the last output was read (an 'exit' may come before it).
  let closed = false;
  child.on('close', () => {
    closed = true;
    askWaiting();
  });
  return {
    stdout: () => out,
    stderr: () => err,
    exited,
    // Matched on each chunk of output as it arrives (and once at the call), not on a poll; fails once the process ended without it, or after timeoutMs.
    waitForOutput(pattern, timeoutMs = 20_000) {
      return new Promise<RegExpMatchArray>((resolve, reject) => {
        const done = () => {
          clearTimeout(timer);
          waiting.delete(ask);
        };
        const ask = () => {
          const match = out.match(pattern);
          if (match !== null) {
            done();
            resolve(match);
          } else if (closed) {
            done();
            reject(
              new Error(`output never matched ${pattern} (the process exited with ${child.exitCode ?? child.signalCode}); stdout: ${out}; stderr: ${err}`),
            );
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`output never matched ${pattern} (not within ${timeoutMs} ms); stdout: ${out}; stderr: ${err}`));
        }, timeoutMs);
        waiting.add(ask);
        ask();
      });
    },
    kill: (signal = 'SIGTERM') => {
      child.kill(signal);
    },
  };
}

/** A loopback HTTP server that hands each request over unread, for tests of streamed request bodies. */
export interface RawLoopbackServer {
  url: string;
  setHandler(handler: (request: http.IncomingMessage, response: http.ServerResponse) => void): void;
  close(): Promise<void>;
}

/** Starts a {@link RawLoopbackServer} on 127.0.0.1, port 0. */
export async function startRawLoopbackServer(handler: (request: http.IncomingMessage, response: http.ServerResponse) => void): Promise<RawLoopbackServer> {
  let current = handler;
  const server = http.createServer((request, response) => current(request, response));
  return {
    ...(await listenOnLoopback(server, 0)),
    setHandler(next) {
      current = next;
    },
  };
}

/** The one way the test servers listen: on 127.0.0.1 (`port` 0: a free one), closed with every connection. */
async function listenOnLoopback(server: http.Server, port: number): Promise<{ url: string; close(): Promise<void> }> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
