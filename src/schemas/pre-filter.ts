/**
 * The hot paths' request bodies without zod: pre-filters that say yes only to
 * a body its schema (`requests.ts`, the rule) accepts, and then return what the
 * schema would return; anything else, `undefined`: the schema decides and
 * describes the refusal (so zod loads only for a body off the common path).
 * Each pre-filter's "yes" is held to its schema's by a property test on
 * generated bodies (`test/schemas/pre-filter.test.ts`), and the limits they
 * share are constants here that the schemas read.
 *
 * @module
 */

import { INTERACTION_CALLBACK_TYPES, InteractionCallbackType } from '../core/constants.js';
import type { InteractionResponse, WebhookMessage } from './request-types.js';
import { countCharacters } from './text.js';

/** A webhook message's `content`: 1 to 2000 characters (code points), the schema's limits and the pre-filter's. */
export const WEBHOOK_CONTENT_CHARACTERS = { min: 1, max: 2000 } as const;

/** The rule an interaction callback's `content` follows: a type 4 callback (a message) needs a non-empty string. */
export function messageContentMissing(type: unknown, data: Record<string, unknown>): boolean {
  const content = data['content'];
  return type === InteractionCallbackType.ChannelMessageWithSource && (typeof content !== 'string' || content.length === 0);
}

type Fields = Record<string, unknown>;

/** Whether a value is an object zod's objects take (not `null`, not an array). */
const isFields = (value: unknown): value is Fields => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Copies the fields of a loose object as zod does: every enumerable one (inherited too) but the schema's own and `__proto__`. */
function copyOthers(into: Fields, from: Fields, known: readonly string[]): void {
  for (const key in from) if (key !== '__proto__' && !known.includes(key)) into[key] = from[key];
}

const MESSAGE_FIELDS = ['content', 'username'] as const;

/** The message as `webhookMessageSchema` would return it when it certainly passes; otherwise `undefined` (ask the schema). */
export function passWebhookMessage(message: unknown): WebhookMessage | undefined {
  if (!isFields(message)) return undefined;
  const content = message.content;
  if (typeof content !== 'string') return undefined;
  // A code point is one or two UTF-16 units: they are counted only when the units alone cannot say (past `max`, or under twice `min`).
  const { min, max } = WEBHOOK_CONTENT_CHARACTERS;
  const units = content.length;
  if (units > max || units < 2 * min) {
    const characters = countCharacters(content);
    if (characters < min || characters > max) return undefined;
  }
  const passed: WebhookMessage = { content };
  if ('username' in message) {
    const username = message.username;
    if (username !== undefined && typeof username !== 'string') return undefined;
    passed.username = username;
  }
  copyOthers(passed, message, MESSAGE_FIELDS);
  return passed;
}

const RESPONSE_FIELDS = ['interaction_type', 'data'] as const;

/**
 * The callback as `interactionResponseSchema` would return it when it certainly passes (a type other than a modal, data
 * without components); otherwise `undefined` (ask the schema, which also checks modals and components).
 */
export function passInteractionResponse(response: unknown): (InteractionResponse & { data: Fields }) | undefined {
  if (!isFields(response)) return undefined;
  const type = response.interaction_type as InteractionCallbackType;
  if (type === InteractionCallbackType.Modal || !INTERACTION_CALLBACK_TYPES.includes(type)) return undefined;
  const given = response.data;
  const data: Fields = {};
  if (given !== undefined) {
    if (!isFields(given)) return undefined;
    copyOthers(data, given, []);
  }
  // Read from the copy, as the schema's check reads its parsed value.
  if (data['components'] !== undefined || messageContentMissing(type, data)) return undefined;
  const passed = { interaction_type: type, data };
  copyOthers(passed, response, RESPONSE_FIELDS);
  return passed;
}
