/**
 * `community-chat-sdk/diagnostics`: what the SDK reports about its work, for
 * code that watches it (a metrics or tracing bridge, a test, a dashboard):
 * the names of its `node:diagnostics_channel` channels
 * ({@link DIAGNOSTICS_CHANNELS}) and the message each publishes; the payloads
 * of the Client's request and session events and of a fleet member's events;
 * and what a request hook is shown.
 *
 * The main entry's emitters are typed with these already (`client.on('retry',
 * (event) => …)` needs no import); import them here to name one.
 *
 * @packageDocumentation
 */

export {
  DIAGNOSTICS_CHANNELS,
  type RequestDiagnosticsBase,
  type RequestStartMessage,
  type RequestRateLimitWaitMessage,
  type RequestAttemptMessage,
  type RequestEndMessage,
  type RequestErrorMessage,
  type GatewayConnectMessage,
  type GatewayReadyMessage,
  type GatewayResumeMessage,
  type GatewayCloseMessage,
  type StreamStepMessage,
  type GatewayFleetMessage,
  type GatewaySessionBudgetMessage,
} from './observe/diagnostics.js';
export type {
  RequestEventBase,
  RequestEvent,
  ResponseEvent,
  RateLimitedEvent,
  RequestHeldEvent,
  RetryEvent,
  SessionRefreshedEvent,
  SessionExpiredEvent,
  StoreErrorEvent,
  StoreRecoveredEvent,
} from './observe/events.js';
export type { RequestHookView, BeforeRequestView, BeforeRequestResult, AfterResponseView, RequestErrorView } from './observe/hooks.js';
export type {
  FleetEvent,
  FleetEventBase,
  FleetEvents,
  PreviousHolder,
  ShardAcquiredEvent,
  ShardReleasedEvent,
  ShardFencedEvent,
  ShardTakenOverEvent,
  MembersChangedEvent,
  ServingEvent,
} from './gateway/fleet-events.js';
