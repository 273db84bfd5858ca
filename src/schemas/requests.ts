/**
 * Zod schemas for request bodies and query parameters.
 *
 * Each schema enforces exactly what the contract names. Where the contract
 * says a request type's fields are "not shown", the schema only requires a
 * JSON object, suggests the fields we assume (see docs/assumptions.md), and
 * passes every other field through untouched.
 *
 * @module
 */

import * as z from 'zod';
import { INTERACTION_CALLBACK_TYPES, InteractionCallbackType } from '../core/constants.js';
import { ValidationError, type ValidationIssue } from '../errors/index.js';
import { messageComponentsSchema, modalFormSchema } from './components.js';
import type {
  CreateActivityRequest,
  CreateApplicationRequest,
  CreateApplicationWebhookRequest,
  CreateGuildWebhookRequest,
  ForgotPasswordRequest,
  InteractionResponse,
  LoginCredentials,
  PlayPauseRequest,
  ResetPasswordRequest,
  SeekRequest,
  StateUpdateRequest,
  UpdateApplicationRequest,
  UpdateApplicationWebhookRequest,
  UpdateBotRequest,
  UpdateChannelRequest,
  UpdateWebhookRequest,
  WebhookMessage,
} from './request-types.js';
import { countCharacters } from './text.js';
import { messageContentMissing, WEBHOOK_CONTENT_CHARACTERS } from './pre-filter.js';

const characters = (min: number, max: number) =>
  z.string().check((ctx) => {
    const length = countCharacters(ctx.value);
    if (length < min || length > max) {
      ctx.issues.push({
        code: 'custom',
        input: ctx.value,
        message: `must be ${min} to ${max} characters (got ${length})`,
      });
    }
  });

const anyObject = z.looseObject({});

/** A choice offered by a command option. */
export const commandOptionChoiceSchema = z.looseObject({
  /** Display name of the choice, 1 to 100 characters. */
  name: characters(1, 100),
  /** Value sent back when the choice is picked. */
  value: z.union([z.string(), z.number()]),
});

/** A typed option descriptor of a slash command (Discord's shape and limits; see docs/assumptions.md). */
export const commandOptionSchema = z.looseObject({
  /** Option type (Discord's numbering: 1 sub-command, 3 string, 4 integer, 5 boolean, ...). */
  type: z.int().min(1),
  /** Option name. */
  name: characters(1, 32),
  /** Option description, 1 to 100 characters. */
  description: characters(1, 100),
  /** Whether the user must fill it in. */
  required: z.boolean().optional(),
  /** Whether the bot offers autocomplete results for it. */
  autocomplete: z.boolean().optional(),
  /** Fixed choices, at most 25. */
  choices: z.array(commandOptionChoiceSchema).max(25).optional(),
  /** Smallest value of an integer or number option. */
  min_value: z.number().optional(),
  /** Largest value of an integer or number option. */
  max_value: z.number().optional(),
  /** Shortest string, 0 to 6000. */
  min_length: z.int().min(0).max(6000).optional(),
  /** Longest string, 1 to 6000. */
  max_length: z.int().min(1).max(6000).optional(),
  /** Channel types a channel option accepts. */
  channel_types: z.array(z.int().min(0)).optional(),
  /** Nested options, for sub-commands and groups, at most 25. */
  get options() {
    return z.array(commandOptionSchema).max(25).optional();
  },
});

/** Discord's rule for slash command names, after lowercasing: letters, digits, `-` and `_` only, 1 to 32 of them. */
const COMMAND_NAME = /^[-_\p{L}\p{N}]{1,32}$/u;

/** A command name: lowercased, 1 to 32 characters, then Discord's character rule (reported only when the length is right, so one problem gives one message). */
const commandName = z
  .string()
  .transform((name) => name.toLowerCase())
  .pipe(
    characters(1, 32).check((ctx) => {
      const length = countCharacters(ctx.value);
      if (length >= 1 && length <= 32 && !COMMAND_NAME.test(ctx.value)) {
        ctx.issues.push({
          code: 'custom',
          input: ctx.value,
          message: `may hold only letters, digits, "-" and "_", with no spaces or other symbols (got ${JSON.stringify(ctx.value)})`,
        });
      }
    }),
  );

/**
 * A slash command definition (the contract's CreateCommandRequest).
 *
 * `name` is 1 to 32 letters, digits, `-` or `_` (Discord's rule, checked
 * after lowercasing) and is lowercased before sending; `dm_permission`
 * defaults to `true`.
 */
export const commandDefinitionSchema = z.looseObject({
  /** Command name: 1 to 32 letters, digits, `-` or `_`, sent lowercased. */
  name: commandName,
  /** Command description, 1 to 100 characters. */
  description: characters(1, 100),
  /** Typed option descriptors, at most 25. */
  options: z.array(commandOptionSchema).max(25).optional(),
  /** Whether the command is usable in direct messages. @default true */
  dm_permission: z.boolean().default(true),
});

/** A list of command definitions whose names must be unique. */
export const commandDefinitionListSchema = z.array(commandDefinitionSchema).check((ctx) => {
  const seen = new Set<string>();
  ctx.value.forEach((command, index) => {
    if (seen.has(command.name)) {
      ctx.issues.push({ code: 'custom', input: ctx.value, path: [index, 'name'], message: `duplicate command name "${command.name}"` });
    }
    seen.add(command.name);
  });
});

/** A message published through an incoming webhook (the rule; `pre-filter.ts` passes the messages it certainly accepts without zod). */
export const webhookMessageSchema = z.looseObject({
  /** Message text, 1 to 2000 characters. */
  content: characters(WEBHOOK_CONTENT_CHARACTERS.min, WEBHOOK_CONTENT_CHARACTERS.max),
  /** Overrides the displayed author name. */
  username: z.string().optional(),
});

/** Body of `POST /guilds/{guild_id}/webhooks`. */
export const createGuildWebhookSchema = z.looseObject({
  /** Webhook name. */
  name: z.string().min(1),
  /** The channel the webhook posts to. */
  channel_id: z.string().min(1),
});

/** Login credentials. */
export const loginSchema = z.object({
  /** E-mail address. */
  email: z
    .string()
    .min(1, 'is required')
    .regex(/^[^\s@]+@[^\s@]+$/, 'must be an e-mail address'),
  /** Password. */
  password: z.string().min(1, 'is required'),
});

/** The page size used when the caller gives none. */
export const DEFAULT_PER_PAGE = 50;

/** Page selection for paginated lists; the defaults are applied before validation, so only what the caller passed can be reported. */
export const pageQuerySchema = z.object({
  /** Page number, starting at 1 (see docs/assumptions.md). @default 1 */
  page: z.int().positive().default(1),
  /** Items per page. @default 50 */
  perPage: z.int().positive().default(DEFAULT_PER_PAGE),
});

/** Body of `POST /interactions/{interaction_id}/callback` (the rule; `pre-filter.ts` passes the callbacks it certainly accepts without zod). */
export const interactionResponseSchema = z
  .looseObject({
    /** Callback type: 1 pong, 4 message, 5 deferred message, 6 deferred update, 8 autocomplete, 9 modal. */
    interaction_type: z.union(
      INTERACTION_CALLBACK_TYPES.map((value) => z.literal(value)) as [z.ZodLiteral<InteractionCallbackType>, ...z.ZodLiteral<InteractionCallbackType>[]],
    ),
    /** Callback data; for type 4 it carries `content`. */
    data: anyObject.default({}),
  })
  .check((ctx) => {
    const { interaction_type: type, data } = ctx.value;
    if (messageContentMissing(type, data)) {
      ctx.issues.push({ code: 'custom', input: data, path: ['data', 'content'], message: 'is required for interaction_type 4 and must be a non-empty string' });
    }
    // Components and modal forms within Discord's limits, each issue at its path.
    const checked =
      type === InteractionCallbackType.Modal
        ? modalFormSchema.safeParse(data)
        : data['components'] !== undefined
          ? messageComponentsSchema.safeParse(data['components'])
          : undefined;
    if (checked !== undefined && !checked.success) {
      const base = type === InteractionCallbackType.Modal ? ['data'] : ['data', 'components'];
      for (const issue of checked.error.issues) ctx.issues.push({ code: 'custom', input: data, path: [...base, ...issue.path], message: issue.message });
    }
  });

/** Loose schemas for request bodies whose fields the contract does not show. */
export const createApplicationSchema = z.looseObject({
  /** The application's name (not empty). */
  name: z.string().min(1).optional(),
  /** The application's description. */
  description: z.string().optional(),
});
/** Body of `PATCH /applications/{app_id}` (fields not shown). */
export const updateApplicationSchema = anyObject;
/** Body of `PATCH /applications/{app_id}/bot` (fields not shown). */
export const updateBotSchema = z.looseObject({
  /** The bot user's new username. */
  username: z.string().optional(),
});
/** Body of `POST /applications/{app_id}/webhooks` (fields not shown). */
export const createApplicationWebhookSchema = z.looseObject({
  /** The URL the service delivers events to. */
  url: z.string().optional(),
  /** The event names to deliver. */
  events: z.array(z.string()).optional(),
});
/** Body of `PATCH /applications/{app_id}/webhooks/{webhook_id}` (fields not shown). */
export const updateApplicationWebhookSchema = anyObject;
/** Body of `PATCH /webhooks/{webhook_id}/{token}` (fields not shown). */
export const updateWebhookSchema = z.looseObject({
  /** The webhook's new name. */
  name: z.string().optional(),
});
/** Body of `PATCH /channels/{channel_id}` (fields not shown). */
export const updateChannelSchema = z.looseObject({
  /** The channel's new name. */
  name: z.string().optional(),
  /** The channel's new topic. */
  topic: z.string().optional(),
});
/** Body of `POST /channels/{channel_id}/activities` (fields not shown). */
export const createActivitySchema = anyObject;
/** Body of `POST /activities/{activity_id}/play-pause` (fields not shown). */
export const playPauseSchema = z.looseObject({
  /** `true` to pause the activity's playback, `false` to resume it. */
  paused: z.boolean().optional(),
});
/** Body of `POST /activities/{activity_id}/seek` (fields not shown). */
export const seekSchema = z.looseObject({
  /** The playback position to seek to, milliseconds (0 or more). */
  position_ms: z.number().nonnegative().optional(),
});
/** Body of `POST /activities/{activity_id}/state` (fields not shown). */
export const stateUpdateSchema = anyObject;
/** Body of `POST /auth/forgot-password` (fields not shown). */
export const forgotPasswordSchema = z.looseObject({
  /** The account's email address, where the reset link is sent. */
  email: z.string().optional(),
});
/** Body of `POST /auth/reset-password` (fields not shown). */
export const resetPasswordSchema = z.looseObject({
  /** The reset token from the email's link (a secret). */
  token: z.string().optional(),
  /** The new password (a secret). */
  password: z.string().optional(),
});

/** Validates `input` against `schema`, or throws a {@link ValidationError} naming every offending field. */
export function parseInput<S extends z.ZodType>(operation: string, schema: S, input: unknown, prefix?: string): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw new ValidationError(operation, toIssues(result.error, prefix));
}

/** Converts zod issues into the SDK's {@link ValidationIssue} list. */
export function toIssues(error: z.ZodError, prefix?: string): ValidationIssue[] {
  return error.issues.map((issue) => {
    const path = issue.path.map(String).join('.');
    return { path: prefix ? (path ? `${prefix}.${path}` : prefix) : path, message: issue.message };
  });
}

// Each public request type is what its schema accepts, both ways (request-types.ts): a field added to one and not the other fails to compile.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Expect<T extends true> = T;
// biome-ignore lint/correctness/noUnusedVariables: a compile-time check, read by tsc only
type RequestTypeChecks = [
  Expect<Same<WebhookMessage, z.input<typeof webhookMessageSchema>>>,
  Expect<Same<CreateGuildWebhookRequest, z.input<typeof createGuildWebhookSchema>>>,
  Expect<Same<LoginCredentials, z.input<typeof loginSchema>>>,
  Expect<Same<InteractionResponse, z.input<typeof interactionResponseSchema>>>,
  Expect<Same<CreateApplicationRequest, z.input<typeof createApplicationSchema>>>,
  Expect<Same<UpdateApplicationRequest, z.input<typeof updateApplicationSchema>>>,
  Expect<Same<UpdateBotRequest, z.input<typeof updateBotSchema>>>,
  Expect<Same<CreateApplicationWebhookRequest, z.input<typeof createApplicationWebhookSchema>>>,
  Expect<Same<UpdateApplicationWebhookRequest, z.input<typeof updateApplicationWebhookSchema>>>,
  Expect<Same<UpdateWebhookRequest, z.input<typeof updateWebhookSchema>>>,
  Expect<Same<UpdateChannelRequest, z.input<typeof updateChannelSchema>>>,
  Expect<Same<CreateActivityRequest, z.input<typeof createActivitySchema>>>,
  Expect<Same<PlayPauseRequest, z.input<typeof playPauseSchema>>>,
  Expect<Same<SeekRequest, z.input<typeof seekSchema>>>,
  Expect<Same<StateUpdateRequest, z.input<typeof stateUpdateSchema>>>,
  Expect<Same<ForgotPasswordRequest, z.input<typeof forgotPasswordSchema>>>,
  Expect<Same<ResetPasswordRequest, z.input<typeof resetPasswordSchema>>>,
];
