/**
 * A webhook execution's body on the hot path, without zod: a pre-filter that
 * says yes only to a message `webhookMessageSchema` (`requests.ts`, the rule)
 * accepts, and then returns what the schema would return (a fresh object:
 * `content`, `username` when present, then every other enumerable field,
 * `__proto__` left out). Anything else, `undefined`: the schema decides and
 * describes the refusal. Its "yes" is held to the schema's by a property test
 * on generated messages (`test/schemas/webhook-message.test.ts`), and the
 * content's limits are the schema's own constant.
 *
 * @module
 */

import type { WebhookMessage } from './request-types.js';
import { countCharacters } from './text.js';

/** A webhook message's `content`: 1 to 2000 characters (code points), the schema's limits and the pre-filter's. */
export const WEBHOOK_CONTENT_CHARACTERS = { min: 1, max: 2000 } as const;

/** The message as `webhookMessageSchema` would return it when it certainly passes; otherwise `undefined` (ask the schema). */
export function passWebhookMessage(message: unknown): WebhookMessage | undefined {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return undefined;
  const fields = message as Record<string, unknown>;
  const content = fields.content;
  if (typeof content !== 'string') return undefined;
  // A code point is one or two UTF-16 units: they are counted only when the units alone cannot say (past `max`, or under twice `min`).
  const { min, max } = WEBHOOK_CONTENT_CHARACTERS;
  const units = content.length;
  if (units > max || units < 2 * min) {
    const characters = countCharacters(content);
    if (characters < min || characters > max) return undefined;
  }
  const passed: WebhookMessage = { content };
  if ('username' in fields) {
    const username = fields.username;
    if (username !== undefined && typeof username !== 'string') return undefined;
    passed.username = username;
  }
  for (const key in fields) if (key !== 'content' && key !== 'username' && key !== '__proto__') passed[key] = fields[key];
  return passed;
}
