/**
 * The Gateway protocol table: opcodes and close codes, in one place.
 *
 * The contract does not show the Gateway; the service mirrors Discord, so
 * this follows Discord's Gateway protocol (docs/assumptions.md). To adapt to a
 * different dialect, change this file only.
 *
 * @module
 */

/** Gateway opcodes (Discord's numbering). */
export const GatewayOpcode = {
  /** Server → client: an event, with `t` (type) and `s` (sequence). */
  Dispatch: 0,
  /** Both ways: a heartbeat carrying the last sequence; the server may ask for one. */
  Heartbeat: 1,
  /** Client → server: start a new session. */
  Identify: 2,
  /** Client → server: resume a session and replay missed events. */
  Resume: 6,
  /** Server → client: reconnect and resume. */
  Reconnect: 7,
  /** Server → client: the session is invalid; `d` says whether it can be resumed. */
  InvalidSession: 9,
  /** Server → client: the first frame, with `heartbeat_interval`. */
  Hello: 10,
  /** Server → client: a heartbeat was received. */
  HeartbeatAck: 11,
} as const;

/** A Gateway opcode value. */
export type GatewayOpcodeValue = (typeof GatewayOpcode)[keyof typeof GatewayOpcode];

/** A Gateway frame. */
export interface GatewayFrame {
  /** Opcode. */
  op: number;
  /** Payload. */
  d: unknown;
  /** Sequence number of a dispatch. */
  s?: number | null;
  /** Event name of a dispatch. */
  t?: string | null;
}

/** What to do after the server closes the connection with a code. */
export interface CloseCodeRule {
  /** A short name. */
  name: string;
  /** `resume`: reconnect and resume; `reidentify`: reconnect with a new session; `fatal`: stop and report. */
  action: 'resume' | 'reidentify' | 'fatal';
  /** What the user can do about it, for fatal codes. */
  hint?: string;
}

/** Close codes and the action each one calls for (Discord's table). Unlisted codes resume. */
export const closeCodes: Readonly<Record<number, CloseCodeRule>> = {
  4000: { name: 'unknown error', action: 'resume' },
  4001: { name: 'unknown opcode', action: 'resume' },
  4002: { name: 'decode error', action: 'resume' },
  4003: { name: 'not authenticated', action: 'resume' },
  4004: { name: 'authentication failed', action: 'fatal', hint: 'the bot token is invalid or was reset; pass a valid token (client.setBotToken)' },
  4005: { name: 'already authenticated', action: 'resume' },
  4006: { name: 'session no longer valid', action: 'reidentify' },
  4007: { name: 'invalid sequence', action: 'reidentify' },
  4008: { name: 'rate limited', action: 'resume' },
  4009: { name: 'session timed out', action: 'reidentify' },
  4010: { name: 'invalid shard', action: 'fatal', hint: 'check the shard option' },
  4011: { name: 'sharding required', action: 'fatal', hint: 'the bot is in too many communities for one connection; use shards' },
  4012: { name: 'invalid API version', action: 'fatal', hint: 'the gateway URL asks for a version the service does not speak; check gatewayUrl' },
  4013: { name: 'invalid intents', action: 'fatal', hint: 'the intents option has an invalid value' },
  4014: { name: 'disallowed intents', action: 'fatal', hint: 'the application is not allowed some of the requested intents; enable them or request fewer' },
};

/** The rule for a close code. */
export function closeCodeRule(code: number): CloseCodeRule {
  return closeCodes[code] ?? { name: code === 1000 || code === 1001 ? 'closed by the server' : 'connection lost', action: 'resume' };
}

/**
 * The rule that stops the Gateway after `count` Identify attempts in a row
 * ended without READY, whatever their close codes (e.g. a wrong token closed
 * with 4000 instead of 4004).
 */
export function identifyFailureRule(count: number): CloseCodeRule {
  return {
    name: `no READY after ${count} Identify attempts in a row`,
    action: 'fatal',
    hint: 'the bot token is likely invalid or was reset, or the intents are invalid or not allowed; check auth.botToken and gateway.intents (gateway.maxIdentifyFailures sets the count)',
  };
}

/** The Identify frame; with `shard` (`[shard_id, num_shards]`) when sharded. */
export function identifyFrame(token: string, intents: number, shard?: readonly [number, number]): GatewayFrame {
  const properties = { os: process.platform, browser: 'community-chat-sdk', device: 'community-chat-sdk' };
  return { op: GatewayOpcode.Identify, d: { token, intents, properties, ...(shard === undefined ? {} : { shard: [shard[0], shard[1]] }) } };
}

/** The shard that receives the events of a community: `(guild_id >> 22) % count` (Discord's rule); DMs and anything without a community go to shard 0. */
export function shardOfGuild(guildId: string | undefined | null, shardCount: number): number {
  if (guildId === undefined || guildId === null || !/^\d+$/.test(guildId) || shardCount <= 1) return 0;
  return Number((BigInt(guildId) >> 22n) % BigInt(shardCount));
}

/** The longest heartbeat interval a Hello may announce (10 minutes); longer is a protocol error. */
export const MAX_HEARTBEAT_INTERVAL_MS = 10 * 60 * 1000;

/** The shortest heartbeat interval a Hello may announce by default (1 s; Discord sends about 41 s); shorter is a protocol error. */
export const MIN_HEARTBEAT_INTERVAL_MS = 1000;

/**
 * How far ahead of the last sequence (or of 0 in a new session) a dispatch's
 * `s` may be. Discord numbers the dispatches of a session one by one, so a
 * larger jump is a protocol error: the dispatch is delivered, the sequence
 * kept, so that one absurd `s` cannot make every later event look delivered.
 */
export const MAX_SEQUENCE_JUMP = 1_000_000;

/** {@link readSequence}: the dispatch has no sequence. */
export const NO_SEQUENCE = -1;
/** {@link readSequence}: the sequence is at or below the last one: already delivered. */
export const DUPLICATE_SEQUENCE = -2;

/**
 * What to do with a dispatch's `s`: the sequence to record (0 or more),
 * {@link DUPLICATE_SEQUENCE} (at or below the last one: already delivered),
 * {@link NO_SEQUENCE}, or a sentence saying what is wrong with it (not a
 * safe non-negative integer, or more than {@link MAX_SEQUENCE_JUMP} ahead of
 * `last`). A number or a string, not an object: it is read for every dispatch.
 */
export function readSequence(s: number | null | undefined, last: number | null): number | string {
  if (s === undefined || s === null) return NO_SEQUENCE;
  if (!Number.isSafeInteger(s) || s < 0) return `a dispatch sequence that is not a safe non-negative integer (${s})`;
  if (last !== null && s <= last) return DUPLICATE_SEQUENCE;
  if (s - (last ?? 0) > MAX_SEQUENCE_JUMP) return `a dispatch sequence ${s} more than ${MAX_SEQUENCE_JUMP} ahead of the last one (${last ?? 'none'})`;
  return s;
}

/** The session id of a READY's `d`: a non-empty string, else `undefined` (the session cannot be resumed). */
export function readSessionId(d: Record<string, unknown>): string | undefined {
  const id = d['session_id'];
  return typeof id === 'string' && id !== '' ? id : undefined;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Reads a text frame: a JSON object with an integer `op`, or a sentence saying why it is not one (a string: no wrapper object per frame). */
export function readFrame(text: string): GatewayFrame | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'a frame that is not JSON';
  }
  if (!isRecord(value)) return `a frame that is JSON but not an object (${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value})`;
  if (!Number.isInteger(value['op'])) return 'a frame without an integer op';
  const frame: GatewayFrame = { op: value['op'] as number, d: value['d'] };
  if (typeof value['s'] === 'number' || value['s'] === null) frame.s = value['s'];
  if (typeof value['t'] === 'string' || value['t'] === null) frame.t = value['t'];
  return frame;
}

/**
 * The heartbeat interval of a Hello's `d`, or a sentence saying why it is
 * unusable (missing, non-finite, under `minMs`, over 10 minutes).
 */
export function readHeartbeatInterval(d: unknown, minMs = MIN_HEARTBEAT_INTERVAL_MS): number | string {
  const interval = isRecord(d) ? d['heartbeat_interval'] : undefined;
  if (typeof interval !== 'number') return `Hello without a numeric heartbeat_interval (${interval === undefined ? 'missing' : typeof interval})`;
  if (!Number.isFinite(interval) || interval <= 0 || interval < minMs || interval > MAX_HEARTBEAT_INTERVAL_MS) {
    return `Hello with an unusable heartbeat_interval (${interval}; expected at least ${minMs} ms, more than 0, and at most ${MAX_HEARTBEAT_INTERVAL_MS} ms)`;
  }
  return interval;
}

/** The delay a Reconnect (op 7) asks for in `d`, milliseconds, capped at `maxMs`; `undefined` unless `d` is a finite number of 0 or more. */
export function readReconnectDelay(d: unknown, maxMs: number): number | undefined {
  if (typeof d !== 'number' || !Number.isFinite(d) || d < 0) return undefined;
  return Math.min(Math.floor(d), maxMs);
}

/** Dispatch event names the SDK acts on. */
export const GatewayDispatch = {
  /** The session is ready: its id, resume URL and the bot's identity. */
  Ready: 'READY',
  /** A resume succeeded and the missed dispatches were replayed. */
  Resumed: 'RESUMED',
  /** An interaction (slash command, component, modal submit, autocomplete) to answer. */
  InteractionCreate: 'INTERACTION_CREATE',
} as const;
