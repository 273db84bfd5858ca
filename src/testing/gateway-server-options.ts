/**
 * The options and report types of the test Gateway server.
 *
 * @module
 */

import type { IncomingMessage, Server } from 'node:http';
import type { GatewayFrame } from '../gateway/protocol.js';

/** What READY tells a bot about itself (Discord's fields). */
export interface BotIdentity {
  /** The bot's user object. */
  user: {
    /** The bot user's id. */
    id: string;
    /** The bot user's name. */
    username: string;
    /** Always `true`: the user is a bot. */
    bot: true;
    /** Any other user field READY should carry. */
    [field: string]: unknown;
  };
  /** The communities the bot is in, as unavailable-guild stubs. */
  guilds: {
    /** The community's id. */
    id: string;
    /** Always `true` in READY: the full object follows as GUILD_CREATE. */
    unavailable: true;
  }[];
  /** The bot's application. */
  application: {
    /** The application's id. */
    id: string;
    /** The application's flags (Discord's bit field). */
    flags: number;
  };
  /** The full community objects sent as GUILD_CREATE after READY when Identify asks for the GUILDS intent. @default undefined (none sent) */
  guildCreates?: Record<string, unknown>[] | undefined;
}

/** The identity READY carries when no `identity` option is given. */
/** Options of {@link GatewayServer}. */
export interface GatewayServerOptions {
  /** Decides whether a token may identify. @default every non-empty token */
  authorize?: ((token: string) => boolean) | undefined;
  /** Heartbeat interval announced in Hello, milliseconds. @default 41250 */
  heartbeatIntervalMs?: number | undefined;
  /** Attach to this HTTP server (upgrades on `path`) instead of listening on a port of its own. @default undefined (listens on a free port of 127.0.0.1) */
  server?: Server | undefined;
  /** Path served when attached to an HTTP server. @default `GATEWAY_PATH` ("/api/v1/gateway") */
  path?: string | undefined;
  /** Says why an upgrade is refused (403), or `undefined` to admit it; the emulator checks Host and Origin here. @default every upgrade is admitted */
  admit?: ((request: IncomingMessage) => string | undefined) | undefined;
  /** How long a disconnected session stays resumable, milliseconds (past it a Resume gets Invalid Session). @default undefined (for ever) */
  resumeWindowMs?: number | undefined;
  /** How many already-delivered events to replay again on resume, to exercise the client's de-duplication. @default 0 */
  replayOverlap?: number | undefined;
  /** What READY tells the bot that identified with `token` about itself; `undefined` refuses the token (close 4004). @default a fixed test bot */
  identity?: ((token: string) => BotIdentity | undefined) | undefined;
  /** The `resume_gateway_url` READY carries. @default this server's URL */
  resumeGatewayUrl?: string | (() => string) | undefined;
  /** Called for every frame received (`in`) or sent (`out`) and when a connection opens or closes (tokens included: redact before showing). @default undefined */
  onTraffic?: ((event: GatewayTraffic) => void) | undefined;
  /**
   * Paces Identify as Discord does: per bot token, shard `id` identifies in
   * bucket `id % maxConcurrency` (no `shard`: bucket 0), and an Identify less
   * than `intervalMs` after the previous accepted one of its bucket is
   * answered with Invalid Session (op 9, `d: false`) and counted in
   * `stats.tooEarlyIdentifies`. @default undefined (no pacing)
   */
  identifyPacing?:
    | {
        /** How many Identify buckets each bot token has (Discord's `max_concurrency`); values below 1 count as 1. */
        maxConcurrency: number;
        /** Least time between two accepted Identifies of one bucket, milliseconds. */
        intervalMs: number;
        /** The clock pacing uses, epoch milliseconds. @default Date.now */
        clock?: (() => number) | undefined;
      }
    | undefined;
}

/** One Identify the server received, for tests. */
export interface IdentifyRecord {
  /** When, on the pacing clock (else `Date.now()`). */
  at: number;
  /** The Identify's `shard`, if any. */
  shard: [number, number] | undefined;
  /** Whether it was answered with READY (not refused nor too early). */
  accepted: boolean;
  /** Whether it came too early in its bucket (answered with Invalid Session). */
  tooEarly: boolean;
}

/** What {@link GatewayServerOptions.onTraffic} reports. */
export type GatewayTraffic =
  | {
      /** `in`: a frame received from the client; `out`: a frame sent to it. */
      kind: 'in' | 'out';
      /** The frame, as parsed or as sent. */
      frame: GatewayFrame;
    }
  | {
      /** `open`: a connection opened; `close`: it closed. */
      kind: 'open' | 'close';
      /** The close code (on `close` only). */
      code?: number | undefined;
      /** The transport compression the connection's messages are sent with, as its client asked with `compress=` (on `open` only). */
      compression?: 'zlib-stream' | 'zstd-stream' | 'none' | undefined;
    };
