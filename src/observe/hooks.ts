/**
 * Request hooks: `beforeRequest`, `afterResponse` and `onError`, their views
 * of a call (redacted, frozen, without credentials), and the checks on the
 * headers a `beforeRequest` hook adds.
 *
 * @module
 */

import { HookError, type RequestHookName } from '../errors/index.js';
import { checkHeaders } from '../core/path.js';
import { REDACTED, redactHeaders } from '../core/redact.js';
import type { HttpMethod } from '../core/routes.js';

/** What every hook is told of the call and attempt. Frozen; no credential, body or secret path segment. */
export interface RequestHookView {
  /** Operation id, e.g. `channels.get`, or `request` for `client.request()`. */
  readonly operation: string;
  /** HTTP method. */
  readonly method: HttpMethod;
  /** The path with secret segments replaced by `:redacted`, without the query string. */
  readonly path: string;
  /** The route template with its prefix, e.g. `/api/v1/channels/{channel_id}`. */
  readonly route: string;
  /** Attempt number, starting at 1. */
  readonly attempt: number;
  /** The rate-limit bucket. */
  readonly bucket: string;
}

/** The view given to `beforeRequest`. */
export interface BeforeRequestView extends RequestHookView {
  /**
   * The request's headers with lower-case names, credentials left out (they
   * are added after the hook). The hook may add or replace entries here; it
   * cannot set `authorization`, `cookie`, `proxy-authorization` or the
   * credential's own headers (the call then rejects with `HookError`).
   */
  readonly headers: Record<string, string>;
}

/** The view given to `afterResponse`. */
export interface AfterResponseView extends RequestHookView {
  /** HTTP status. */
  readonly status: number;
  /** From sending to the response headers, milliseconds. */
  readonly durationMs: number;
  /** Response headers useful for debugging (content type, rate limits, request ids), lower-case, frozen; cookies and credentials left out, known secrets scrubbed. */
  readonly headers: Readonly<Record<string, string>>;
}

/** The view given to `onError`. */
export interface RequestErrorView extends RequestHookView {
  /** The error the call rejects with (SDK errors are already scrubbed of secrets). */
  readonly error: unknown;
  /** The error's name, e.g. `ServerError`. */
  readonly errorName: string;
  /** The status of the error response, if the error is one. @default undefined */
  readonly status?: number;
}

/** What `beforeRequest` may return: headers to add to (or replace in) the request. */
export interface BeforeRequestResult {
  /** Extra headers; credential headers are refused. @default undefined */
  headers?: Readonly<Record<string, string>> | undefined;
}

/**
 * Hooks run around every call of a client. Each may be async; one that throws
 * or rejects makes that call reject with `HookError` (the rate-limit place it
 * held is released, so other calls go on). Hooks run for calls that reach the
 * rate limiter: input refused before that (`ValidationError`,
 * `MissingCredentialError`) rejects without them.
 */
export interface RequestHooks {
  /** Before each attempt is sent (after the rate-limit wait): add headers by returning `{ headers }` or by setting them on `view.headers`. @default undefined */
  beforeRequest?: ((view: BeforeRequestView) => BeforeRequestResult | void | Promise<BeforeRequestResult | void>) | undefined;
  /** After each response's headers arrive, whatever its status (before its body is read). @default undefined */
  afterResponse?: ((view: AfterResponseView) => void | Promise<void>) | undefined;
  /** Once, when the call is about to reject. @default undefined */
  onError?: ((view: RequestErrorView) => void | Promise<void>) | undefined;
}

/** Whether any hook is set. */
export function hasHooks(hooks: RequestHooks | undefined): hooks is RequestHooks {
  return hooks !== undefined && (hooks.beforeRequest !== undefined || hooks.afterResponse !== undefined || hooks.onError !== undefined);
}

/** Headers no hook may set: the credential headers of every kind. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'cookie', 'proxy-authorization']);

/** A short, secret-free description of what a hook threw. */
function describe(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : typeof error === 'string' ? error : 'a non-Error value';
  return text.length > 200 ? `${text.slice(0, 200)}...` : text;
}

/** Builds the `HookError` of a hook that threw. */
export function hookError(
  hook: RequestHookName,
  view: RequestHookView,
  cause: unknown,
  extra: { callError?: unknown; mayHaveReachedServer?: boolean } = {},
): HookError {
  const init = {
    hook,
    method: view.method,
    path: view.path,
    operation: view.operation,
    attempt: view.attempt,
    mayHaveReachedServer: extra.mayHaveReachedServer ?? hook !== 'beforeRequest',
    cause,
  };
  return new HookError('callError' in extra ? { ...init, callError: extra.callError } : init, describe(cause));
}

/**
 * Runs `beforeRequest` on a copy of `headers` without credentials, then
 * writes what it added back into `headers`. Throws `HookError` when the hook
 * throws or sets a credential or invalid header (the value is never shown).
 */
export async function runBeforeRequest(
  hook: NonNullable<RequestHooks['beforeRequest']>,
  base: RequestHookView,
  headers: Record<string, string>,
  credentialHeaders: readonly string[],
): Promise<void> {
  const refused = new Set(CREDENTIAL_HEADERS);
  for (const name of credentialHeaders) refused.add(name.toLowerCase());
  const visible: Record<string, string> = {};
  for (const name in headers) if (!refused.has(name)) visible[name] = headers[name] as string;
  const view: BeforeRequestView = Object.freeze({ ...base, headers: visible });
  let result: BeforeRequestResult | void;
  try {
    result = await hook(view);
  } catch (error) {
    throw hookError('beforeRequest', base, error);
  }
  const added: Record<string, unknown> = { ...visible, ...(result && typeof result === 'object' ? result.headers : undefined) };
  const issues = checkHeaders(added);
  const lower: Record<string, string> = {};
  for (const name in added) {
    const key = name.toLowerCase();
    if (refused.has(key)) issues.push({ path: `headers.${key}`, message: 'is a credential header, which hooks cannot set' });
    lower[key] = added[name] as string;
  }
  if (issues.length > 0) {
    const detail = issues.map((issue) => `${issue.path} ${issue.message}`).join('; ');
    throw hookError('beforeRequest', base, new Error(detail));
  }
  Object.assign(headers, lower);
}

/** The response headers an `afterResponse` hook sees: the debugging ones, scrubbed, without cookies or credentials. */
export function hookResponseHeaders(headers: Record<string, string | string[] | undefined>, secrets: readonly string[]): Readonly<Record<string, string>> {
  const kept = redactHeaders(headers, secrets);
  for (const name in kept) if (kept[name] === REDACTED) delete kept[name];
  return Object.freeze(kept);
}
