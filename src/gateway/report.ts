/**
 * A shard's connection event, as the Gateway emits it: scrubbed of every
 * known secret (the bot token, recent interaction tokens), with the shard id.
 *
 * @module
 */

import type { EventEmitter } from 'eventemitter3';
import type { ConnectionReport } from './connection-host.js';
import type { GatewayEvents } from './options.js';
import type { SecretBook } from './secrets.js';

/** What emitting a report needs of the Gateway. */
interface ReportContext {
  /** Whether the Gateway runs shards (debug lines then name the shard). */
  sharded: boolean;
  /** The secrets to scrub. */
  secrets: SecretBook;
  /** The current bot token. */
  token: string | undefined;
  /** Scrubs an error in place. */
  scrubError(error: Error): Error;
  /** Emits an event (a throwing listener becomes an `error` event). */
  emit<K extends keyof GatewayEvents>(event: K, ...args: EventEmitter.EventArgs<GatewayEvents, K>): void;
}

/** Emits a shard's connection event, scrubbed. */
export function emitReport(report: ConnectionReport, shardId: number, context: ReportContext): void {
  const { secrets, token } = context;
  switch (report.event) {
    case 'debug': {
      const line = context.sharded ? `[shard ${shardId}] ${report.payload}` : report.payload;
      context.emit('debug', secrets.scrubText(line, token));
      return;
    }
    case 'error':
      context.emit('error', context.scrubError(report.payload));
      return;
    case 'ready':
      context.emit('ready', { ...report.payload, data: secrets.redact(report.payload.data, token) as Record<string, unknown>, shardId });
      return;
    case 'close':
      context.emit('close', { ...report.payload, reason: secrets.scrubText(report.payload.reason, token), shardId });
      return;
    case 'reconnecting':
      context.emit('reconnecting', { ...report.payload, reason: secrets.scrubText(report.payload.reason, token), shardId });
      return;
    case 'resumed':
      context.emit('resumed', { ...report.payload, shardId });
  }
}
