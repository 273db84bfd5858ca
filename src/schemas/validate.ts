/**
 * Validation entry point that loads zod and the request schemas on first use,
 * so importing the SDK stays cheap. Every SDK method is async, so the first
 * validation simply awaits the load.
 *
 * @module
 */

import type * as Schemas from './requests.js';
import { passInteractionResponse, passWebhookMessage } from './pre-filter.js';

type SchemaModule = typeof Schemas;

/** Names of the request schemas. */
type SchemaName = { [K in keyof SchemaModule]: K extends `${string}Schema` ? K : never }[keyof SchemaModule];

/** The validated (output) type of a schema. */
type SchemaOutput<K extends SchemaName> = SchemaModule[K] extends { _zod: { output: infer O } } ? O : never;

let loaded: SchemaModule | undefined;
let loading: Promise<SchemaModule> | undefined;

/** Loads the schema module (once). */
export function loadSchemas(): Promise<SchemaModule> {
  loading ??= import('./requests.js').then((module) => (loaded = module));
  return loading;
}

/**
 * Validates `input` with the named schema, or rejects with a `ValidationError`
 * naming every offending field. No I/O happens before this settles.
 */
export async function validate<K extends SchemaName>(operation: string, name: K, input: unknown): Promise<SchemaOutput<K>> {
  const schemas = loaded ?? (await loadSchemas());
  return schemas.parseInput(operation, schemas[name] as never, input) as SchemaOutput<K>;
}

/**
 * Validates a webhook message: the messages the schema certainly accepts pass
 * without zod (`pre-filter.ts`, the execution's hot path), as the schema
 * would return them; every other goes to the schema, which refuses it with a
 * `ValidationError` naming each offending field.
 */
export function validateWebhookMessage(
  operation: string,
  message: unknown,
): SchemaOutput<'webhookMessageSchema'> | Promise<SchemaOutput<'webhookMessageSchema'>> {
  return passWebhookMessage(message) ?? validate(operation, 'webhookMessageSchema', message);
}

/**
 * Validates an interaction callback: the callbacks the schema certainly
 * accepts (no modal, no components) pass without zod (`pre-filter.ts`), as
 * the schema would return them; every other goes to the schema, which refuses
 * it with a `ValidationError` naming each offending field.
 */
export function validateInteractionResponse(
  operation: string,
  response: unknown,
): SchemaOutput<'interactionResponseSchema'> | Promise<SchemaOutput<'interactionResponseSchema'>> {
  return passInteractionResponse(response) ?? validate(operation, 'interactionResponseSchema', response);
}
