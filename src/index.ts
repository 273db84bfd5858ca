/**
 * community-chat-sdk: the typed SDK for the Community Chat Service.
 *
 * @packageDocumentation
 */

export { Client, type ClientAuth, type ClientOptions, type ClientSummary } from './clients/client.js';
export { WebhookClient, type WebhookClientEvents, type WebhookClientOptions } from './clients/webhook-client.js';
export {
  CommunityChatError,
  ApiError,
  AuthenticationError,
  PermissionError,
  NotFoundError,
  RateLimitError,
  ServerError,
  GatewayError,
  GatewayFatalError,
  SessionBudgetError,
  InteractionError,
  InteractionAlreadyAcknowledgedError,
  InteractionExpiredError,
  InteractionResponseError,
  InteractionTimeoutError,
  InteractionWaitAbortedError,
  ValidationError,
  MissingCredentialError,
  InsecureTransportError,
  RateLimitStoreError,
  SessionStoreError,
  EventStreamError,
  ShardCoordinatorError,
  WebhookVerificationError,
  ReplayStoreFullError,
  NetworkError,
  TimeoutError,
  AbortError,
  ResponseTooLargeError,
  UnexpectedResponseError,
  HookError,
  isCommunityChatError,
  type CommunityChatErrorOptions,
  type ErrorKind,
  type ErrorOfKind,
  type RequestDescription,
  type ApiErrorInit,
  type RateLimitErrorInit,
  type InteractionErrorInit,
  type InteractionWaitKind,
  type ValidationIssue,
  type WebhookVerificationReason,
  type RequestFailureInit,
  type RequestHookName,
  type HookErrorInit,
} from './errors/index.js';
export {
  InteractionType,
  InteractionCallbackType,
  ApplicationCommandOptionType,
  ComponentType,
  INTERACTION_LIFETIME_MS,
  snowflakeTimestamp,
} from './core/constants.js';
export {
  ButtonStyle,
  TextInputStyle,
  type Button,
  type ComponentEmoji,
  type InteractiveButton,
  type LinkButton,
  type MessageActionRow,
  type ModalActionRow,
  type SelectOption,
  type StringSelect,
  type TextInput,
} from './core/components.js';
export { routes, operationIds, type CredentialKind, type HttpMethod, type OperationId, type RouteDefinition, type Routes } from './core/routes.js';
export type {
  CallOptions,
  CustomRoute,
  QueryValue,
  RequestInput,
  RouteOverrides,
  RateLimitInfo,
  RejectOnRateLimit,
  PipelineOptions,
  RetryOptions,
} from './rest/options.js';
export type { ClientEvents, Logger, LogLevel, LogFunction } from './observe/events.js';
export { UserSession, type SessionSnapshot } from './auth/session.js';
export { CookieJar, type StoredCookie } from './auth/cookie-jar.js';
export { WebhookTokenStrategy, BotTokenStrategy, type CredentialStrategy, type AppliedCredential, type AuthorizeContext } from './auth/strategies.js';
export { ActivitiesManager } from './resources/activities.js';
export { ApplicationsManager } from './resources/applications.js';
export { ApplicationWebhooksManager } from './resources/application-webhooks.js';
export { AuthManager } from './resources/auth.js';
export { defaultAccessTokenReader, type AccessTokenGrant, type AccessTokenReader, type SessionGrant } from './auth/refresher.js';
export { BotsManager } from './resources/bots.js';
export { ChannelsManager, type AttachmentUpload } from './resources/channels.js';
export { CommandsManager, type CommandSyncResult } from './resources/commands.js';
export { InteractionsManager } from './resources/interactions.js';
export { UsersManager } from './resources/users.js';
export { WebhooksManager, type WebhookTarget } from './resources/webhooks.js';
export { PageList, type ListOptions } from './resources/pagination.js';
export { countCharacters } from './schemas/text.js';
export type {
  CommandOptionChoice,
  CommandOption,
  CommandDefinition,
  WebhookMessage,
  CreateGuildWebhookRequest,
  LoginCredentials,
  PageQuery,
  InteractionResponse,
  CreateApplicationRequest,
  UpdateApplicationRequest,
  UpdateBotRequest,
  CreateApplicationWebhookRequest,
  UpdateApplicationWebhookRequest,
  UpdateWebhookRequest,
  UpdateChannelRequest,
  CreateActivityRequest,
  PlayPauseRequest,
  SeekRequest,
  StateUpdateRequest,
  ForgotPasswordRequest,
  ResetPasswordRequest,
} from './schemas/request-types.js';
export type {
  ApiObject,
  Application,
  PublicApplication,
  Bot,
  BotInviteUrl,
  BotTokenReset,
  Command,
  Activity,
  ActivitySnapshot,
  Channel,
  Attachment,
  DriveLink,
  GuildWebhook,
  ApplicationWebhook,
  ApplicationWebhookSecret,
  WebhookTestDelivery,
  WebhookDeliveryLogEntry,
  ApiLogEntry,
  ApplicationMetrics,
  Page,
  User,
  SessionTokens,
} from './schemas/responses.js';
export { SDK_VERSION } from './core/version.js';
export { Gateway } from './gateway/gateway.js';
export type { GatewayCloseOptions } from './gateway/options.js';
export type {
  GatewayOptions,
  GatewayStatus,
  GatewayEvents,
  GatewayReadyEvent,
  GatewayResumedEvent,
  GatewayReconnectingEvent,
  GatewayCloseEvent,
  GatewayDispatchEvent,
} from './gateway/options.js';
export { GatewayDispatch, shardOfGuild } from './gateway/protocol.js';
export {
  PingInteraction,
  CommandInteraction,
  AutocompleteInteraction,
  ComponentInteraction,
  ModalSubmitInteraction,
  UnknownInteraction,
  createInteraction,
  type Interaction,
  type InteractionByKind,
  type AwaitComponentOptions,
  type AwaitModalSubmitOptions,
  type AwaitsComponents,
  type ShowsModals,
  type DefersUpdates,
} from './interactions/interaction.js';
export { BaseInteraction, RepliableInteraction } from './interactions/base.js';
export type {
  InteractionKind,
  InteractionPayload,
  InteractionUser,
  InteractionResponder,
  AcknowledgementState,
  ReplyMessage,
  MessagePayload,
  AllowedMentions,
  ReceivedMessage,
  AutocompleteChoice,
  ModalForm,
  AnswerOptions,
} from './interactions/types.js';
export {
  defineCommand,
  type Exactly,
  type CommandOptionValues,
  type CommandOptionTypeMap,
  type CommandOptionValue,
  type TypedCommandDefinition,
  type OptionProblem,
} from './interactions/options.js';
export { type InteractionRouter, createInteractionRouter, type InteractionHandler, type InteractionRouterOptions } from './interactions/router.js';
export type { InteractionErrorEvent, InteractionRouterEvents, InteractionUnhandledEvent } from './interactions/router-events.js';
export type { DuplicateEvent, InteractionHost } from './interactions/host.js';
export { MultipartStreamError } from './errors/transport.js';
export type { AutoReshardOptions, GatewayConnectionOptions, GatewayShardingOptions, ShardEvent } from './gateway/options.js';
export type { ShardInfo } from './gateway/shards.js';
export type { GatewayCompression } from './gateway/compression.js';
export type { RequestHooks } from './observe/hooks.js';
