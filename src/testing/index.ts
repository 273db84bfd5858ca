/**
 * `community-chat-sdk/testing`: a local emulator of the whole service, and
 * helpers to unit-test bots. The main entry never loads this.
 *
 * @packageDocumentation
 */

export {
  createEmulator,
  EmulatorCore,
  type PendingWork,
  type PendingInteraction,
  type CommunityInput,
  type CreatedCommunity,
  type Emulator,
  type EmulatorOptions,
  type EmulatorCoreOptions,
  type EmulatorGatewayOptions,
  type EmulatorRequest,
  type EmulatorResponse,
  type EmulatedMessage,
  type EmulatedCallback,
  type InvokeCommandInput,
  type InvokedInteraction,
  type SeedData,
  type DispatchTarget,
  type ComponentInput,
  type ModalSubmitInput,
  type UserClickInput,
  type UserModalSubmitInput,
  type EmulatorEvent,
  type EmulatorSnapshot,
  type DeliveryRequest,
  type DeliveryTimingOptions,
  type DeliveryTransport,
  type WebhookDeliveryRecord,
  type WindowLimit,
  EmulatorFaults,
  type FaultInput,
  type FaultStatus,
  type InjectedFault,
  type PendingFault,
  type RateLimitScope,
} from './emulator/index.js';
export {
  BotModuleError,
  EmulatorError,
  EmulatorHandlerError,
  EmulatorNoAnswerError,
  EmulatorInteractionExpiredError,
  EmulatorInvalidOptionsError,
  EmulatorNotDeliveredError,
  EmulatorNotFoundError,
  EmulatorUnknownCommandError,
  isBotModuleError,
  isEmulatorError,
  isEmulatorHandlerError,
  isEmulatorNoAnswerError,
  type InteractionLabel,
  isEmulatorInteractionExpiredError,
  isEmulatorInvalidOptionsError,
  isEmulatorNotDeliveredError,
  isEmulatorNotFoundError,
  isEmulatorUnknownCommandError,
} from './errors.js';
export { createTestDelivery, type TestDelivery, type TestDeliveryInput } from './test-deliveries.js';
/** The SDK's signer, re-exported so tests can sign deliveries for their receivers. */
export { GatewayServer, GATEWAY_PATH, type BotGatewayStats } from './gateway-server.js';
export type { GatewayServerOptions, GatewayTraffic, BotIdentity, IdentifyRecord } from './gateway-server-options.js';
export {
  createTestInteraction,
  createTestGateway,
  createTestPayload,
  type BotHost,
  type TestGatewayOptions,
  type TestInteractionInput,
  type TestResponse,
  type TestGateway,
} from './interactions.js';
export { useEmulator, type EmulatorFixture, type TestHooks, type UseEmulatorOptions } from './fixture.js';
export {
  emulatorMatchers,
  type AnsweredInteraction,
  type HandlerErrorSource,
  type EmulatorMatchers,
  type ExpectedMessage,
  type MatcherResult,
  type MessageMatchOptions,
  type MessageSource,
} from './matchers.js';
export { MemoryShardCoordinator, type MemoryShardCoordinatorOptions } from './shard-coordinator.js';
// The Gateway protocol's opcodes, frames and close-code table: for scripting the test Gateway server by hand (the SDK's own Gateway needs none of them).
export { GatewayOpcode, closeCodes, closeCodeRule, type GatewayFrame, type CloseCodeRule, type GatewayOpcodeValue } from '../gateway/protocol.js';
