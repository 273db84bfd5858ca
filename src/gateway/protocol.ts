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

/** Dispatch event names the SDK acts on. */
export const GatewayDispatch = {
  Ready: 'READY',
  Resumed: 'RESUMED',
  InteractionCreate: 'INTERACTION_CREATE',
} as const;
