/**
 * The playground's live channel: server-sent events to every open page.
 * State pictures are coalesced (at most one every 50 ms); REST calls and
 * Gateway frames are batched into log entries, each redacted with the SDK's
 * rules before it leaves the process.
 *
 * @module
 */

import type { ServerResponse } from 'node:http';
import { redactValue, scrubText } from '../../core/redact.js';
import type { EmulatorEvent } from '../emulator/types.js';
import type { GatewayTraffic } from '../gateway-server-options.js';
import type { LogEntry } from './log-entry.js';

/** What the hub needs from the emulator. */
interface HubSource {
  /** The state picture plus status (already secret-free). */
  picture(): Record<string, unknown>;
  /** Every secret, to scrub from log lines. */
  secrets(): string[];
}

const BACKLOG = 300;
const FLUSH_MS = 50;
const TEXT_LIMIT = 400;

type Pending = { kind: 'rest'; event: Extract<EmulatorEvent, { kind: 'rest' }> } | { kind: 'gateway'; event: GatewayTraffic; at: number };

/** Streams state and log entries to the open pages. */
export class PlaygroundHub {
  readonly #source: HubSource;
  readonly #clients = new Set<ServerResponse>();
  readonly #log: LogEntry[] = [];
  #pending: Pending[] = [];
  #stateDirty = false;
  #timer: NodeJS.Timeout | undefined;
  readonly #keepAlive: NodeJS.Timeout;

  constructor(source: HubSource) {
    this.#source = source;
    this.#keepAlive = setInterval(() => this.#write(': keep-alive\n\n'), 15_000);
    this.#keepAlive.unref();
  }

  /** Takes an open SSE response: sends the picture and the log so far. */
  attach(response: ServerResponse): void {
    response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-content-type-options': 'nosniff',
    });
    this.#clients.add(response);
    response.on('close', () => this.#clients.delete(response));
    this.#flush();
    response.write(`event: state\ndata: ${JSON.stringify(this.#source.picture())}\n\n`);
    response.write(`event: backlog\ndata: ${JSON.stringify(this.#log)}\n\n`);
  }

  /** The emulator served a REST call or changed. */
  onEmulator(event: EmulatorEvent): void {
    if (event.kind === 'rest') this.#pending.push({ kind: 'rest', event });
    this.#stateDirty = true;
    this.#schedule();
  }

  /** A Gateway frame went by, or a connection opened or closed. */
  onGateway(event: GatewayTraffic): void {
    this.#pending.push({ kind: 'gateway', event, at: Date.now() });
    if (event.kind === 'close' || (event.kind === 'out' && event.frame.t === 'READY') || (event.kind === 'out' && event.frame.t === 'RESUMED')) {
      // The bot's connection changed: show it at once, so even a quick reconnect is seen.
      this.#stateDirty = true;
      if (this.#clients.size > 0) this.#flush();
      else this.#drainQuietly();
      return;
    }
    this.#schedule();
  }

  /** Sends a fresh picture soon. */
  changed(): void {
    this.#stateDirty = true;
    this.#schedule();
  }

  #schedule(): void {
    if (this.#timer || this.#clients.size === 0) {
      if (this.#clients.size === 0) this.#drainQuietly();
      return;
    }
    this.#timer = setTimeout(() => this.#flush(), FLUSH_MS);
  }

  /** With no page open: build no picture, and keep only the newest raw events (redacted when a page opens). */
  #drainQuietly(): void {
    if (this.#pending.length > BACKLOG) this.#pending.splice(0, this.#pending.length - BACKLOG);
    this.#stateDirty = false;
  }

  #entries(): LogEntry[] {
    const secrets = this.#source.secrets();
    const entries = this.#pending.map((item) => toEntry(item, secrets));
    this.#pending = [];
    return entries;
  }

  #remember(entries: LogEntry[]): void {
    this.#log.push(...entries);
    if (this.#log.length > BACKLOG) this.#log.splice(0, this.#log.length - BACKLOG);
  }

  #flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#pending.length > 0) {
      const entries = this.#entries();
      this.#remember(entries);
      this.#write(`event: log\ndata: ${JSON.stringify(entries)}\n\n`);
    }
    if (this.#stateDirty && this.#clients.size > 0) {
      this.#stateDirty = false;
      this.#write(`event: state\ndata: ${JSON.stringify(this.#source.picture())}\n\n`);
    }
  }

  #write(text: string): void {
    for (const client of this.#clients) client.write(text);
  }

  /** Ends every stream. */
  close(): void {
    clearInterval(this.#keepAlive);
    clearTimeout(this.#timer);
    for (const client of this.#clients) client.end();
    this.#clients.clear();
  }
}

function toEntry(item: Pending, secrets: readonly string[]): LogEntry {
  if (item.kind === 'rest') {
    const { method, route, status, durationMs, bucket, at } = item.event;
    return { kind: 'rest', method, route: scrubText(route, secrets), status, ms: durationMs, bucket: bucket ?? null, at };
  }
  const { event, at } = item;
  if (!('frame' in event))
    return { kind: 'gateway', dir: event.kind, op: null, t: null, text: event.kind === 'close' ? `code ${String(event.code ?? '')}` : '', at };
  const { frame } = event;
  const text = scrubText(JSON.stringify(redactValue(frame.d ?? null, secrets)) ?? 'null', secrets);
  return { kind: 'gateway', dir: event.kind, op: frame.op, t: frame.t ?? null, text: text.length > TEXT_LIMIT ? `${text.slice(0, TEXT_LIMIT)}…` : text, at };
}
