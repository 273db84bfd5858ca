/**
 * The emulator: its transport-independent core, and its node:http server.
 *
 * @module
 */

export { EmulatorCore, type PendingInteraction, type PendingWork } from './core.js';
export { createEmulator, type Emulator, type EmulatorOptions } from './server.js';
export type { EmulatorSnapshot } from './inspect.js';
export { EmulatorFaults, type FaultInput, type FaultStatus, type InjectedFault, type PendingFault } from './faults.js';
export type { RateLimitScope } from './limits.js';
export type { BotIdentity } from '../gateway-server-options.js';
export type {
  ComponentInput,
  DeliveryRequest,
  DeliveryTimingOptions,
  DeliveryTransport,
  EmulatorEvent,
  ModalSubmitInput,
  UserClickInput,
  UserModalSubmitInput,
  DispatchTarget,
  EmulatedCallback,
  EmulatedMessage,
  EmulatorCoreOptions,
  EmulatorGatewayOptions,
  EmulatorRequest,
  EmulatorResponse,
  InvokeCommandInput,
  InvokedInteraction,
  SeedData,
  WebhookDeliveryRecord,
  WindowLimit,
} from './types.js';
export type { CommunityInput, CreatedCommunity } from './communities.js';
