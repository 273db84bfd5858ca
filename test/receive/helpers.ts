/**
 * Helpers of the receiver tests: signed deliveries, a server that leaves the
 * body unread, and plain HTTP posts. (Kept here rather than in
 * test/helpers/index.ts, which another change is editing.)
 */
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';

/** The fixture signing secrets; tests assert none of them (nor any signature) leaks. */
export const WEBHOOK_SECRET = 'whsec-Receiver-Lk93.secret';
export const OLD_WEBHOOK_SECRET = 'whsec-Older-Pq11.secret';

/** A fixed clock: 2026-01-01T00:00:00Z. */
export const NOW_MS = Date.UTC(2026, 0, 1);
export const NOW_S = NOW_MS / 1000;

/** Signs by hand (not with the SDK's signer), as the service would. */
export function hmacHex(secret: string, timestamp: string | number, body: string | Buffer): string {
  return createHmac('sha256', secret)
    .update(Buffer.concat([Buffer.from(`${timestamp}.`), Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8')]))
    .digest('hex');
}

let counter = 0;

/** A signed delivery: its raw body text and its headers. */
export function signedDelivery(options: { type?: string; data?: unknown; id?: string; secret?: string; timestamp?: number; body?: string } = {}): {
  id: string;
  body: string;
  headers: Record<string, string>;
} {
  const id = options.id ?? `dlv-${++counter}`;
  const type = options.type ?? 'TEST_EVENT';
  const body = options.body ?? JSON.stringify({ id, type, created_at: new Date(NOW_MS).toISOString(), data: options.data ?? { hello: 'world' } });
  const timestamp = options.timestamp ?? NOW_S;
  return {
    id,
    body,
    headers: {
      'content-type': 'application/json',
      'x-signature-timestamp': String(timestamp),
      'x-signature-256': `sha256=${hmacHex(options.secret ?? WEBHOOK_SECRET, timestamp, body)}`,
      'x-delivery-id': id,
      'x-event-type': type,
    },
  };
}

/** A real node:http server on 127.0.0.1, port 0, that leaves each request's body for `listener` to read. */
export async function startRawServer(listener: http.RequestListener): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(listener);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** POSTs a body with headers; resolves with the status and the parsed JSON answer. */
export async function post(url: string, body: string | Buffer, headers: Record<string, string>): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(url, { method: 'POST', body, headers });
  const text = await response.text();
  return { status: response.status, json: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

/** Waits until `check` holds: the tests' one poll (see helpers/until.ts). */
export { until as waitFor } from '../helpers/until.js';

/** Lets pending handlers run (a few turns of the event loop). */
export async function settle(ms = 30): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms));
}

/** Returns `serve(receiver)`, which mounts a receiver's node:http adapter on a real server closed after the current test. Call it at the top of a test file. */
export function useReceiverServer(): (receiver: { node: http.RequestListener }) => Promise<string> {
  let closeServer: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await closeServer?.();
    closeServer = undefined;
  });
  return async (receiver) => {
    const server = await startRawServer(receiver.node);
    closeServer = server.close;
    return server.url;
  };
}
