/**
 * Credential strategies: small objects that decorate a request with one kind
 * of credential.
 *
 * @module
 */

import type { CredentialKind } from '../core/routes.js';
import { REDACTED, inspectSymbol } from '../core/redact.js';
import type { UserSession } from './session.js';

/** What a strategy adds to a request. */
export interface AppliedCredential {
  /** Headers to add. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Path parameters to fill (the webhook path token). */
  readonly pathParams?: Readonly<Record<string, string>>;
  /** The secret values used, so they can be scrubbed from any text. */
  readonly secrets: readonly string[];
}

/** What a strategy may look at to decide. */
export interface AuthorizeContext {
  /** The call's path parameters. */
  params: Readonly<Record<string, unknown>>;
  /** The request path (used for cookie path matching). */
  path: string;
}

/** One kind of credential. */
export interface CredentialStrategy {
  /** Which credential kind this strategy provides. */
  readonly kind: CredentialKind;
  /** Returns what to add to the request, or `undefined` if it holds no credential for it. */
  authorize(context: AuthorizeContext): AppliedCredential | undefined;
  /** Called when the service rejected this credential with 401 on a request with this context. */
  invalidate?(context: AuthorizeContext): void;
  /** Why the strategy holds no usable credential, if it once did. */
  unavailableReason?(): string | undefined;
}

/** `Authorization: Bot <token>`. */
export class BotTokenStrategy implements CredentialStrategy {
  readonly kind = 'bot' as const;
  #token: string;

  constructor(token: string) {
    this.#token = token;
  }

  #rejected = false;
  #applied: AppliedCredential | undefined;

  /** Replaces the token, e.g. after a reset. */
  setToken(token: string): void {
    this.#token = token;
    this.#applied = undefined;
    this.#rejected = false;
  }

  authorize(): AppliedCredential | undefined {
    if (this.#rejected) return undefined;
    // Built once per token: every request shares the same frozen object.
    return (this.#applied ??= Object.freeze({
      headers: Object.freeze({ authorization: `Bot ${this.#token}` }),
      secrets: Object.freeze([this.#token]),
    }) as AppliedCredential);
  }

  /**
   * The raw token, for the Gateway's Identify and Resume frames (which carry
   * it in the payload, not in a header), or `undefined` after a 401. A method,
   * not a property: `toJSON` and `util.inspect` never show it.
   */
  gatewayToken(): string | undefined {
    return this.#rejected ? undefined : this.#token;
  }

  /** Stops using the token after a 401, so a revoked token does not keep hitting the service. */
  invalidate(): void {
    this.#rejected = true;
  }

  unavailableReason(): string | undefined {
    return this.#rejected ? 'the bot token was rejected with 401; set a new one with client.setBotToken()' : undefined;
  }

  /** Redacted view for `JSON.stringify`. */
  toJSON(): Record<string, string> {
    return { kind: this.kind, token: REDACTED };
  }

  /** @internal Redacted view for `util.inspect`. (Node finds it by its registered symbol). */
  [inspectSymbol](): string {
    return `BotTokenStrategy { token: ${REDACTED} }`;
  }
}

/** `Authorization: Bearer <access token>` from a {@link UserSession}. */
export class UserBearerStrategy implements CredentialStrategy {
  readonly kind = 'user' as const;

  #cached: { token: string; applied: AppliedCredential } | undefined;

  constructor(private readonly session: UserSession) {}

  authorize(): AppliedCredential | undefined {
    const token = this.session.accessToken;
    if (token === undefined) return undefined;
    if (this.#cached?.token !== token) {
      this.#cached = {
        token,
        applied: Object.freeze({ headers: Object.freeze({ authorization: `Bearer ${token}` }), secrets: Object.freeze([token]) }) as AppliedCredential,
      };
    }
    return this.#cached.applied;
  }

  unavailableReason(): string | undefined {
    return this.session.accessToken === undefined
      ? 'no user session: log in first with `await client.auth.login({ email, password })`, or restore one with the `auth.session` option (a bot token cannot do what needs a user)'
      : undefined;
  }
}

/** The session's refresh cookie, sent as a `Cookie` header to refresh and logout. */
export class RefreshCookieStrategy implements CredentialStrategy {
  readonly kind = 'refreshCookie' as const;

  constructor(private readonly session: UserSession) {}

  authorize(context: AuthorizeContext): AppliedCredential | undefined {
    const cookie = this.session.cookies.headerFor(context.path);
    if (cookie === undefined) return undefined;
    const secrets = cookie.split('; ').map((pair) => pair.slice(pair.indexOf('=') + 1));
    return { headers: { cookie }, secrets };
  }
}

/** Webhook path tokens, by webhook id. */
export class WebhookTokenStrategy implements CredentialStrategy {
  readonly kind = 'webhook' as const;
  readonly #tokens = new Map<string, string>();

  constructor(tokens?: Readonly<Record<string, string>>) {
    if (tokens) for (const [id, token] of Object.entries(tokens)) this.#tokens.set(id, token);
  }

  /** Registers (or replaces) the token of one webhook. */
  set(webhookId: string, token: string): void {
    this.#tokens.set(webhookId, token);
  }

  /** Forgets the token of one webhook. */
  delete(webhookId: string): void {
    this.#tokens.delete(webhookId);
  }

  /** Whether a token is registered for the webhook. */
  has(webhookId: string): boolean {
    return this.#tokens.has(webhookId);
  }

  /** Forgets the stored token of the webhook a 401 came from; explicitly passed tokens are not stored. */
  invalidate(context: AuthorizeContext): void {
    const id = context.params['webhook_id'];
    const explicit = context.params['webhook_token'];
    if (typeof id === 'string' && (typeof explicit !== 'string' || explicit === '')) this.#tokens.delete(id);
  }

  authorize(context: AuthorizeContext): AppliedCredential | undefined {
    const explicit = context.params['webhook_token'];
    const id = context.params['webhook_id'];
    const token = typeof explicit === 'string' && explicit !== '' ? explicit : typeof id === 'string' ? this.#tokens.get(id) : undefined;
    return token === undefined ? undefined : { pathParams: { webhook_token: token }, secrets: [token] };
  }

  /** Redacted view for `JSON.stringify`. */
  toJSON(): Record<string, string> {
    return Object.fromEntries([...this.#tokens.keys()].map((id) => [id, REDACTED]));
  }

  /** @internal Redacted view for `util.inspect`. (Node finds it by its registered symbol). */
  [inspectSymbol](): string {
    return `WebhookTokenStrategy { ${[...this.#tokens.keys()].map((id) => `${id}: ${REDACTED}`).join(', ')} }`;
  }
}
