/**
 * The parts of one attempt the REST client builds outside its loop: the
 * headers and body, the secrets to scrub from what the server echoes, and
 * whether a one-shot upload was already read.
 *
 * @module
 */

import type { ChosenCredential } from '../auth/credential-choice.js';
import { secretValuesIn } from '../core/redact.js';
import { MultipartBody } from './multipart.js';
import type { RequestInput } from './options.js';

/** Credentials and path of one attempt. */
export interface Prepared {
  readonly credential: ChosenCredential;
  readonly built: { readonly path: string; readonly displayPath: string; readonly secrets: readonly string[] };
}

/** The headers (without credentials) and body of an attempt. */
export function requestParts(userAgent: string, input: RequestInput): { headers: Record<string, string>; body: string | FormData | undefined } {
  const headers: Record<string, string> = { 'user-agent': userAgent };
  if (input.headers) for (const name in input.headers) headers[name.toLowerCase()] = input.headers[name] as string;
  if (input.formData !== undefined) return { headers, body: input.formData };
  if (input.body === undefined) return { headers, body: undefined };
  headers['content-type'] = 'application/json';
  return { headers, body: JSON.stringify(input.body) };
}

/** Every secret a call sent (credential, path token, password or token in the body), to scrub from whatever the server echoes. */
export function callSecrets(prepared: Prepared, input: RequestInput): string[] {
  return [...(prepared.credential.applied?.secrets ?? []), ...prepared.built.secrets, ...secretValuesIn(input.body)];
}

/** Whether the call's body is a one-shot upload stream that an attempt has already read, so it cannot be sent again. */
export function bodySpent(input: RequestInput): boolean {
  return input.formData instanceof MultipartBody && input.formData.consumed;
}
