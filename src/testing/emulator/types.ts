/**
 * The emulator's public types: requests and responses as the core sees them,
 * what it records, its seed data and its options.
 *
 * @module
 */

/** A request as the core sees it. */
export interface EmulatorRequest {
  /** HTTP method. */
  method: string;
  /** Path and query, e.g. `/api/v1/channels/1?x=y`. */
  url: string;
  /** Headers, lower-case names. */
  headers: Record<string, string | undefined>;
  /** Raw body. */
  body: string;
}

/** A response from the core. */
export interface EmulatorResponse {
  /** HTTP status. */
  status: number;
  /** Headers; `set-cookie` may be an array. */
  headers: Record<string, string | string[]>;
  /** Body text (JSON unless the status is 204). */
  body: string;
  /** Reset the connection instead of answering (an injected fault; `status` is then 0). @default false */
  reset?: boolean;
}

/** A message posted to a channel by a webhook or an interaction reply. */
export interface EmulatedMessage {
  /** Message id. */
  id: string;
  /** Channel id. */
  channelId: string;
  /** Text. */
  content: string;
  /** Who posted it. */
  author: {
    /** `webhook`: an incoming webhook posted it; `bot`: a bot, answering an interaction. */
    kind: 'webhook' | 'bot';
    /** The webhook's id, or the bot's user id. */
    id: string;
    /** The name shown for the author: the message's `username` override or else the webhook's name, or the bot's username. */
    name: string;
  };
  /** How it was posted. */
  via: 'webhook' | 'interaction';
  /** When, epoch milliseconds (emulator clock). */
  createdAt: number;
  /** Message components (buttons, select menus) the bot attached, Discord's shapes. @default undefined */
  components?: unknown[] | undefined;
  /** The interaction this message answers (a reply or a follow-up). @default undefined */
  interactionId?: string | undefined;
  /** Discord's message flags the bot set (64: ephemeral). @default 0 */
  flags?: number | undefined;
  /**
   * For an ephemeral answer (`flags: 64`): the one user who sees it, the one
   * who used the interaction. Nobody else sees it or can use its components,
   * and it is no part of the channel's history others read (docs/assumptions.md).
   * @default undefined (a public message)
   */
  visibleTo?: string | undefined;
}

/** What the emulator reports to observers (the playground): a REST call it served, or a change of its state. */
export type EmulatorEvent =
  | {
      /** A REST call. */
      kind: 'rest';
      /** HTTP method. */
      method: string;
      /** The route template (e.g. `/channels/{channel_id}`), or the path's first segment when no route matched. */
      route: string;
      /** Answer status. */
      status: number;
      /** Time taken, milliseconds. */
      durationMs: number;
      /** The `X-RateLimit-Bucket` of the answer, if any. */
      bucket: string | undefined;
      /** When, epoch milliseconds (emulator clock). */
      at: number;
    }
  | {
      /** Something changed (an interaction created, the clock moved). */
      kind: 'change';
    };

/** An interaction callback the emulator received. */
export interface EmulatedCallback {
  /** Callback type. */
  /** Callback type, named as on the wire (`interaction_type`). */
  interaction_type: number;
  /** Callback data. */
  data: Record<string, unknown>;
  /** When, epoch milliseconds (emulator clock). */
  at: number;
}

/**
 * The demo data an emulator starts with. Secrets included: it is a local test
 * service. The same `seed` option gives the same ids and tokens.
 */
export interface SeedData {
  /**
   * A user who owns the application and the community (and so may manage its
   * webhooks): log in with `email` and `password` for user-credential routes.
   */
  user: {
    /** The user's id. */
    id: string;
    /** The user's login e-mail address. */
    email: string;
    /** The user's password. */
    password: string;
    /** The user's name. */
    username: string;
  };
  /** A member of the community without MANAGE_WEBHOOKS (for 403 tests); log in like `user`. */
  member: {
    /** The user's id. */
    id: string;
    /** The user's login e-mail address. */
    email: string;
    /** The user's password. */
    password: string;
    /** The user's name. */
    username: string;
  };
  /** The demo application (owned by `user`): the first argument of `client.commands.sync(applicationId, ...)` and the other command calls. */
  applicationId: string;
  /** Its bot's user id (the author of the bot's messages, READY's `user.id`). */
  botUserId: string;
  /** Its bot token: `new Client({ auth: { botToken } })`. Reset by `POST /applications/{app_id}/bot/reset-token`. */
  botToken: string;
  /** The community; the bot is in it and `invokeCommand` runs there by default. */
  guildId: string;
  /** A text channel in it: where `invokeCommand` runs and `emulator.messages()` reads by default. */
  channelId: string;
  /** An incoming webhook for the channel: its id and path token. */
  webhook: {
    /** The webhook's id. */
    id: string;
    /** The webhook's path token (a secret). */
    token: string;
  };
  /**
   * The incoming webhook's full execution URL (`{url}/api/v1/webhooks/{id}/{token}`),
   * under the emulator's own address: `new WebhookClient(seed.webhookUrl)`.
   * The CLI prints it.
   */
  readonly webhookUrl: string;
}

/** A rolling-window limit. */
export interface WindowLimit {
  /** Requests allowed per window. */
  limit: number;
  /** Window length, milliseconds. */
  windowMs: number;
}

/** Options of the core. */
export interface EmulatorCoreOptions {
  /** Seed for ids, tokens and passwords, so runs are reproducible; without one they differ on every run. @default undefined (a random seed) */
  seed?: number | undefined;
  /** Global rate limit across all requests, or none. @default undefined */
  globalRateLimit?: WindowLimit | undefined;
  /** Executions allowed per webhook per window. @default { limit: 30, windowMs: 60000 } */
  webhookRateLimit?: WindowLimit | undefined;
  /**
   * A per-route limit for each caller, as Discord's per-user buckets: every
   * authenticated contract route other than webhook executions gets a window
   * per credential, route and major parameter; its answers carry the bucket's
   * `X-RateLimit-*` headers, and going past it answers 429 with
   * `X-RateLimit-Scope: user`. The contract shows no such limit, so it is off
   * unless set. @default undefined (off)
   */
  routeRateLimit?: WindowLimit | undefined;
  /** Access-token lifetime. @default 900000 */
  accessTokenLifetimeMs?: number | undefined;
  /**
   * The base URL clients use, for the URLs in answers (webhook, invite,
   * attachment and Gateway URLs). `createEmulator` uses its own address
   * unless this is given: give the public one when clients reach it through
   * a proxy or a port mapping (`http://localhost:9000` for
   * `docker run -p 9000:8080`). An absolute `http:` or `https:` URL
   * (`ValidationError` otherwise); with `createEmulator` its host name is
   * also allowed in the `Host` check, and `playgroundUrl` is built from it.
   * @default "http://localhost:8080" (`createEmulator`: its own address)
   */
  baseUrl?: string | undefined;
  /** Sharding of the Gateway: what `GET /gateway/bot` recommends, and Identify pacing. @default undefined (1 shard, max_concurrency 1, Identify not paced) */
  gateway?: EmulatorGatewayOptions | undefined;
  /**
   * Let application-webhook deliveries go to hosts that are not loopback
   * (`localhost`, `127.0.0.0/8`, `[::1]`). Off, a delivery to another host is
   * recorded as `failed` without any request. Ignored by a `deliveryTransport`. @default false
   */
  allowExternalDeliveries?: boolean | undefined;
  /** Timing of application-webhook deliveries (real time, not the emulator clock). @default see each field */
  deliveries?: DeliveryTimingOptions | undefined;
  /**
   * Sends a delivery instead of the network (e.g. to a receiver's `fetch`
   * handler in a unit test); resolves with the status the receiver answered.
   * @default undici, one POST with `Connection: close`
   */
  deliveryTransport?: DeliveryTransport | undefined;
}

/** Timing of application-webhook deliveries. Three attempts in all, with the same delivery id. */
export interface DeliveryTimingOptions {
  /** First backoff ceiling before a retry, milliseconds (full jitter, doubling). @default 1000 */
  retryBaseDelayMs?: number | undefined;
  /** Largest backoff ceiling, milliseconds. @default 10000 */
  retryMaxDelayMs?: number | undefined;
  /** How long one attempt may take before it counts as failed, milliseconds. @default 5000 */
  timeoutMs?: number | undefined;
}

/** One delivery attempt, as a {@link DeliveryTransport} gets it. */
export interface DeliveryRequest {
  /** The webhook's URL. */
  url: string;
  /** The headers: `content-type`, the signature headers, `X-Delivery-Id`, `X-Event-Type`. */
  headers: Record<string, string>;
  /** The JSON body `{ id, type, created_at, data }`, exactly as signed. */
  body: string;
  /** Aborted when the attempt times out or the emulator closes. */
  signal: AbortSignal;
}

/** Sends one delivery attempt; a status outside 2xx, a throw or a rejection is a failed attempt. */
export type DeliveryTransport = (request: DeliveryRequest) => Promise<{
  /** The HTTP status the receiver answered. */
  status: number;
}>;

/** One application-webhook delivery, as `GET /applications/{app_id}/webhook-deliveries` lists it. */
export type WebhookDeliveryRecord = {
  /** The delivery id (the body's `id` and `X-Delivery-Id`; the same on every attempt). */
  id: string;
  /** The application webhook it goes to. */
  webhook_id: string;
  /** The event type (`TEST`, `INTERACTION_CREATE`). */
  event: string;
  /** `queued` before the first attempt ends, `retrying` between attempts, then `succeeded` (a 2xx) or `failed`. */
  status: 'queued' | 'retrying' | 'succeeded' | 'failed';
  /** Attempts made so far (at most 3; 0 when refused before sending). */
  attempts: number;
  /** How long the latest attempt took, milliseconds (`null` before any). */
  duration_ms: number | null;
  /** When it was created (emulator clock), ISO 8601. */
  created_at: string;
  /** The status the latest attempt got (`null`: none, e.g. refused or timed out). */
  response_status: number | null;
  /** Why the latest attempt failed (`null` after a success). */
  error: string | null;
};

/** Sharding options of the emulator's Gateway (Discord's rules). */
export interface EmulatorGatewayOptions {
  /** The shard count `GET /gateway/bot` recommends. @default 1 */
  shards?: number | undefined;
  /** `session_start_limit.max_concurrency`: Identify buckets (`shard_id % max_concurrency`). @default 1 */
  maxConcurrency?: number | undefined;
  /** Least time between two Identify of one bot in one bucket, on the emulator clock; an earlier one is answered with Invalid Session (op 9, `d: false`). @default 5000 */
  identifyIntervalMs?: number | undefined;
  /**
   * Session starts per bot per 24 hours of the emulator clock
   * (`session_start_limit.total`): each Identify counts, a Resume does not.
   * Past it an Identify is refused the way the service refuses a bot whose
   * token it reset: the socket closes with 4004 (authentication failed).
   * @default 1000 (Discord's)
   */
  sessionStartLimit?: number | undefined;
  /**
   * How long a session stays resumable after its connection dropped (or was
   * closed with any code but 1000 and 1001), milliseconds: its dispatches
   * meanwhile are kept and replayed on Resume; past it a Resume is answered
   * with Invalid Session (op 9, `d: false`) and the bot identifies.
   * @default 180000 (assumption 80)
   */
  resumeWindowMs?: number | undefined;
}

/** Something that delivers Gateway dispatches to a bot. */
export interface DispatchTarget {
  /** Dispatches to sessions identified with `token`; returns how many connected sessions got it. */
  dispatchToToken(token: string, t: string, d: unknown): number;
  /** How many sessions of `token`, connected or resumable, would get the event `d`. */
  sessionsFor(token: string, d: unknown): number;
  /** Closes the sessions of a token (after a reset). */
  closeSessionsOfToken(token: string, code: number): void;
}

/**
 * What to invoke with `EmulatorCore.invokeCommand`. `Name` narrows the
 * command names a test may use (the kit sets it from the commands it
 * registered, so a misspelt name does not compile).
 */
export interface InvokeCommandInput<Name extends string = string> {
  /** Command name. */
  name: Name;
  /** Option values by name. @default undefined (no options) */
  options?: Record<string, string | number | boolean> | undefined;
  /** Set to an option name to send an autocomplete interaction with that option focused. @default undefined (a command interaction) */
  focused?: string | undefined;
  /** Community, or `null` for the user's DM with the bot (global commands with `dm_permission` only). @default the seeded community */
  guildId?: string | null | undefined;
  /** Channel. @default the seeded channel (in a DM: the DM channel of the bot and the user) */
  channelId?: string | undefined;
  /** The user running it. @default the seeded user */
  userId?: string | undefined;
  /** Pick the command of this application, when several have one of that name. @default undefined (the first application with a command of that name: among the community's bots, or in a DM the seeded one first) */
  applicationId?: string | undefined;
}

/** What to send with `EmulatorCore.clickComponent`: a user pressing a button or choosing in a select menu of a bot's message. */
export interface ComponentInput {
  /** The message holding the component. */
  messageId: string;
  /** The component's `custom_id`. */
  customId: string;
  /** Values chosen in a select menu (absent for a button). @default undefined */
  values?: string[] | undefined;
  /** The user. @default the seeded user */
  userId?: string | undefined;
}

/** What to send with `emulator.clickComponent`: a user clicking a button (or choosing in a select menu) the bot posted. */
export interface UserClickInput {
  /** The component's `custom_id`. */
  customId: string;
  /** The message holding it. @default the latest message in `channelId` carrying a component with `customId` */
  messageId?: string | undefined;
  /** Where to look for that message. @default the seeded channel */
  channelId?: string | undefined;
  /** Values chosen in a select menu (absent for a button). @default undefined */
  values?: string[] | undefined;
  /** The user. @default the seeded user */
  userId?: string | undefined;
}

/** What to send with `emulator.submitModal`: a user filling in and submitting the modal the bot opened. */
export interface UserModalSubmitInput {
  /** Text input values by their `custom_id`. */
  fields: Record<string, string>;
  /** The interaction the bot answered with the modal. @default the latest interaction answered with a modal */
  interactionId?: string | undefined;
  /** The user. @default the seeded user */
  userId?: string | undefined;
}

/** What to send with `EmulatorCore.submitModal`: a user submitting the modal a bot opened. */
export interface ModalSubmitInput {
  /** The interaction the bot answered with the modal (callback type 9). */
  interactionId: string;
  /** Text input values by their `custom_id`. */
  fields: Record<string, string>;
  /** The user. @default the seeded user */
  userId?: string | undefined;
}

/** An interaction created by `EmulatorCore.invokeCommand`. */
export interface InvokedInteraction {
  /** Interaction id. */
  id: string;
  /** The INTERACTION_CREATE payload sent. */
  payload: Record<string, unknown>;
  /**
   * How many Gateway sessions received it, or how many application webhooks
   * it was queued to (see `via`); 0: nobody will see it (no bot connected).
   */
  delivered: number;
  /** How it went out: to the application's webhooks subscribed to INTERACTION_CREATE, else over the Gateway. */
  via: 'gateway' | 'webhook';
  /** The ids of the webhook deliveries carrying it (empty over the Gateway). */
  deliveryIds: string[];
  /**
   * Resolves with the bot's first answer; rejects with
   * `EmulatorInteractionExpiredError` if 15 minutes pass on the emulator clock
   * (real time or `advanceTime`) with none.
   */
  response: Promise<EmulatedCallback>;
  /** Every answer so far. */
  callbacks(): EmulatedCallback[];
}
