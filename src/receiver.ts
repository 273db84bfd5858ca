/**
 * `community-chat-sdk/receiver`: receiving the service's application-webhook
 * deliveries, and interactions, over HTTP instead of the Gateway (serverless
 * platforms, Workers, a bot behind a load balancer).
 * {@link createWebhookReceiver} checks each delivery's signature on its raw
 * bytes, refuses replays, answers the service and runs the same
 * `InteractionRouter` as the Gateway, with adapters for `node:http`
 * (`receiver.node`), fetch-style runtimes (`receiver.fetch`) and Express
 * (`receiver.express`); {@link verifyWebhookDelivery} checks one delivery
 * alone, and {@link signWebhookDelivery} signs one (for tests and relays).
 *
 * Its errors (`WebhookVerificationError`, `ReplayStoreFullError`) are on the
 * main entry with the others; the replay store's interface and its in-memory
 * default are in `community-chat-sdk/stores`.
 *
 * @packageDocumentation
 */

export { verifyWebhookDelivery, type VerifyWebhookOptions } from './receive/verify.js';
export { signWebhookDelivery, type SignWebhookOptions } from './receive/sign.js';
export { createWebhookReceiver, type WebhookReceiver, type WebhookReceiverEvents, type WebhookErrorEvent } from './receive/receiver.js';
export type { WebhookReceiverOptions, InteractionCallbackClient } from './receive/receiver-options.js';
export type { WebhookSecretProvider } from './receive/receiver-secrets.js';
export type { WebhookDelivery, WebhookEventMap } from './receive/delivery.js';
export type { WebhookScheme, WebhookSecret, DeliveryFields, SignedPayloadParts } from './receive/scheme.js';
export type { WebhookHeaders, RawBody } from './receive/input.js';
export type { NodeRequestHandler } from './receive/node.js';
export type { FetchHandler, FetchHandlerContext } from './receive/fetch.js';
export type { ExpressMiddleware } from './receive/express.js';
export type { ReceiveOutcome } from './receive/outcome.js';
