/**
 * Choosing the credential of one request among those its operation accepts.
 *
 * @module
 */

import { MissingCredentialError, ValidationError } from '../errors/index.js';
import type { CredentialKind } from '../core/routes.js';
import type { AppliedCredential, AuthorizeContext, CredentialStrategy } from './strategies.js';

/** The credential a request goes out with. */
export interface ChosenCredential {
  /** Its kind. */
  readonly kind: CredentialKind;
  /** What it adds to the request; `undefined` for `none`. */
  readonly applied: AppliedCredential | undefined;
}

/** The strategies a client holds, and which of bot or user it prefers when an operation accepts both. */
export interface CredentialSet {
  /** Strategies by kind. */
  readonly strategies: Partial<Record<CredentialKind, CredentialStrategy>>;
  /** `undefined` follows the route table's order. */
  readonly preferred: 'bot' | 'user' | undefined;
}

/** The kinds to try, in order: the route table's, with the preferred kind moved first when the operation accepts it. */
export function credentialOrder(accepted: readonly CredentialKind[], preferred: 'bot' | 'user' | undefined): readonly CredentialKind[] {
  if (preferred !== undefined && accepted[0] !== preferred && accepted.includes(preferred)) {
    return [preferred, ...accepted.filter((kind) => kind !== preferred)];
  }
  return accepted;
}

/**
 * Picks the first kind in order whose strategy holds a credential for this
 * request. Throws a `ValidationError` when `forced` is not accepted, and a
 * `MissingCredentialError` (with each strategy's reason) when none applies.
 */
export function chooseCredential(
  set: CredentialSet,
  operation: string,
  accepted: readonly CredentialKind[],
  context: AuthorizeContext,
  forced: CredentialKind | undefined,
): ChosenCredential {
  if (forced !== undefined && !accepted.includes(forced)) {
    throw new ValidationError(operation, [{ path: 'credential', message: `must be one of ${accepted.join(', ')} for this operation (got ${forced})` }]);
  }
  const order = forced !== undefined ? [forced] : credentialOrder(accepted, set.preferred);
  for (const kind of order) {
    if (kind === 'none') return { kind, applied: undefined };
    const applied = set.strategies[kind]?.authorize(context);
    if (applied) return { kind, applied };
  }
  const reasons = order.map((kind) => set.strategies[kind]?.unavailableReason?.()).filter((reason): reason is string => reason !== undefined);
  throw new MissingCredentialError(operation, forced !== undefined ? [forced] : accepted, reasons);
}
