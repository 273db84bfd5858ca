/**
 * `community-chat-sdk/stores`: the interfaces the SDK's shared state is
 * written against, and their in-memory implementations (each the default
 * when none is given): rate limits ({@link RateLimitStore}), a user session
 * ({@link UserSessionStore}), a webhook receiver's replays
 * ({@link ReplayStore}), the Gateway's sessions ({@link GatewaySessionStore}),
 * Identify turns ({@link IdentifyThrottle}) and a fleet's shard leases
 * ({@link ShardCoordinator}); and the sink a Gateway publishes its dispatches
 * to ({@link DispatchSink}, `gateway.publishTo(sink)`).
 *
 * For writing a store of your own, or passing one instance to several
 * clients; `community-chat-sdk/redis` has the Redis implementations, for
 * several processes, and `community-chat-sdk/testing` a coordinator in memory.
 *
 * @packageDocumentation
 */

export { MemoryRateLimitStore } from './rest/rate-limiter.js';
export type {
  RateLimitStore,
  RateLimitSettings,
  RateLimitHeaders,
  GlobalRateLimitOptions,
  Lane,
  WaitGuard,
  WebhookWindowOptions,
} from './rest/rate-limit-store.js';
export type { UserSessionStore } from './auth/refresher.js';
export { MemoryReplayStore, type ReplayStore, type MemoryReplayStoreOptions } from './receive/replay-store.js';
export { MemoryGatewaySessionStore, type GatewaySessionStore, type GatewaySessionRecord } from './gateway/gateway-session-store.js';
export {
  MemoryIdentifyThrottle,
  identifyBucket,
  type IdentifyThrottle,
  type IdentifyRequest,
  type MemoryIdentifyThrottleOptions,
} from './gateway/identify-throttle.js';
export type { ShardCoordinator, ShardLease, CoordinatorTick } from './gateway/coordinator.js';
export type { DispatchSink, PublishedDispatch, PublishOptions } from './gateway/publisher.js';
