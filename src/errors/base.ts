/**
 * The root of the error hierarchy, and the brand that lets any copy of the package recognise its errors.
 *
 * @module
 */

/** Marks each SDK error class's prototype with its kind; a global symbol, so two copies of the package agree. */
export const KIND = Symbol.for('community-chat-sdk.error.kind');

/**
 * Marks each class's prototype with its kind (its key here), where the classes are defined: an error made through any entry
 * point (`community-chat-sdk/transport` loads no other error module) is recognised by {@link hasKind}.
 */
export function brand(classes: Readonly<Record<string, { readonly prototype: object }>>): void {
  for (const [kind, errorClass] of Object.entries(classes)) Object.defineProperty(errorClass.prototype, KIND, { value: kind, enumerable: false });
}

/** How deep a prototype chain {@link hasKind} walks: an SDK error's is a few levels; a proxy's may be endless. */
const MAX_CHAIN = 32;

/**
 * Whether `value` has `kind` anywhere on its prototype chain: its class or one of its ancestors. Never throws and always
 * ends: a proxy whose traps throw, a revoked one, a chain that loops or a brand read through a throwing getter answer `false`.
 */
export function hasKind(value: unknown, kind: string): boolean {
  if (typeof value !== 'object' || value === null) return false;
  try {
    let proto: object | null = Object.getPrototypeOf(value);
    for (let depth = 0; proto !== null && depth < MAX_CHAIN; depth++, proto = Object.getPrototypeOf(proto)) {
      const own = Object.getOwnPropertyDescriptor(proto, KIND);
      if (own !== undefined && 'value' in own && own.value === kind) return true;
    }
  } catch {
    // a hostile value: not an SDK error
  }
  return false;
}

/** Options shared by every SDK error. */
export interface CommunityChatErrorOptions {
  /** The underlying error, if any. @default undefined */
  cause?: unknown;
}

/** Base class of every error thrown by the SDK. */
export class CommunityChatError extends Error {
  constructor(message: string, options?: CommunityChatErrorOptions) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    // The registered kind survives bundlers that rename classes; a user's own subclass keeps its class name.
    const prototype = new.target.prototype as unknown as Record<symbol, unknown>;
    this.name = Object.hasOwn(prototype, KIND) ? String(prototype[KIND]) : new.target.name;
  }
}
brand({ CommunityChatError });

/** The Errors {@link toError} made around a thrown value. */
const wrappers = new WeakSet<Error>();

/** Whether `value` is an `Error`; `false` for a proxy whose prototype cannot be read (never throws). */
function isError(value: unknown): value is Error {
  try {
    return value instanceof Error;
  } catch {
    return false;
  }
}

/**
 * What a thrown value says, as text for a message: an `Error`'s `message`, anything else as `String()` writes it. Never
 * throws: a value `String()` cannot convert (`Object.create(null)`, a `toString` that throws) or an `Error` whose
 * `message` cannot be read is described by its type.
 */
export function describeThrown(value: unknown): string {
  try {
    return isError(value) ? String(value.message) : String(value);
  } catch {
    return `a thrown ${typeof value} that cannot be read as text`;
  }
}

/** What an event's `error` field carries: `value` itself when it is an `Error`, else an `Error` saying what was thrown, `value` as its `cause`. */
export function toError(value: unknown): Error {
  if (isError(value)) return value;
  const wrapper = new Error(`a non-Error value was thrown (${value === null ? 'null' : typeof value})`, { cause: value });
  wrappers.add(wrapper);
  return wrapper;
}

/** What was thrown: the value {@link toError} wrapped, else `error` itself. */
export function thrownValue(error: unknown): unknown {
  return isError(error) && wrappers.has(error) ? error.cause : error;
}
