/**
 * `community-chat-sdk/redis`: what processes share through Redis (node-redis
 * v6, an optional peer dependency): rate limits, the user session, the
 * Identify throttle, Gateway sessions, the webhook receiver's replay store,
 * the shard coordinator of a fleet, and the event stream with its workers.
 * The main entry never loads this module nor `redis`.
 *
 * @packageDocumentation
 */

export { createRedisRateLimitStore, type RedisRateLimitStore, type RedisRateLimitStoreOptions, type RedisRateLimitStoreEvents } from './rate-limit-store.js';
export { createRedisUserSessionStore, type RedisUserSessionStore, type RedisUserSessionStoreOptions } from './user-session-store.js';
export type { RedisClientLike, RedisNodeClientLike, RedisClusterClientLike, RedisSentinelClientLike, ReplicaAcknowledgement } from './connection.js';
export { createRedisIdentifyThrottle, type RedisIdentifyThrottle, type RedisIdentifyThrottleOptions } from './identify-throttle.js';
export { createRedisGatewaySessionStore, type RedisGatewaySessionStore, type RedisGatewaySessionStoreOptions } from './gateway-session-store.js';
export { createRedisReplayStore, type RedisReplayStore, type RedisReplayStoreOptions } from './replay-store.js';
export { createRedisEventStream, type RedisEventStream, type RedisEventStreamOptions, type DeadLetter } from './event-stream.js';
export type { StreamBacklog, StreamGroupBacklog, StreamConsumerBacklog } from './stream-backlog.js';
export {
  createEventWorker,
  type EventWorker,
} from './event-worker.js';
export type {
  EventWorkerOptions,
  EventWorkerEvents,
  StreamEvent,
  OrderKeyFunction,
  LostEvent,
  RecreatedEvent,
  HandlerFailedEvent,
  ReclaimedEvent,
} from './event-worker-options.js';
export type { UnmarkedEvent } from './event-worker-marks.js';
export {
  createBacklogMonitor,
  type BacklogMonitor,
  type BacklogMonitorOptions,
  type BacklogMonitorEvents,
  type ConsumersRemovedEvent,
  type BacklogWarning,
} from './stream-upkeep.js';
export {
  createRedisShardCoordinator,
  type CoordinatorStatusOptions,
  type RedisShardCoordinator,
  type RedisShardCoordinatorOptions,
} from './shard-coordinator.js';
export {
  readFleetStatus,
  type FleetStatusOptions,
  type FleetStatus,
  type FleetMemberStatus,
  type FleetShardStatus,
  type FleetSessionStatus,
  type FleetReshardStatus,
} from './fleet-status.js';
export {
  readStreamStatus,
  PENDING_AGE_BOUNDS_MS,
  type StreamStatusOptions,
  type StreamStatus,
  type PendingByAge,
  type DeadLetterSummary,
} from './stream-status.js';
export { fleetStatusText, streamStatusText } from './status-text.js';
