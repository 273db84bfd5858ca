/**
 * The Redis key names of one rate-limit store: every key under the store's
 * tagged prefix (one Redis Cluster slot), the keys a step's action declares,
 * the buckets keys resolve to once another process learned them, and the
 * arguments of a step.
 *
 * @module
 */

/** The most keys remembered as resolving to another bucket, and the most action key lists cached. */
const MAX_ENTRIES = 4096;

/** Key names of one store. */
export class RateLimitKeys {
  readonly #prefix: string;
  /** Keys that resolve to another bucket, as a step answered (another process learned the bucket id); bounded. */
  readonly #aliases = new Map<string, string>();
  /** The key names of recent steps' actions, by action, key and bucket; bounded. */
  readonly #actions = new Map<string, readonly string[]>();

  /** `prefix` is the tagged prefix (see `taggedKey` in `keys.ts`). */
  constructor(prefix: string) {
    this.#prefix = prefix;
  }

  /** A key of this store: `kind` (`b:`, `r:`, `d:`, `a:`, `gp`, `g`, `w:`) and its name, under the tagged prefix. */
  name(kind: string, name = ''): string {
    return `${this.#prefix}${kind}${name}`;
  }

  /** The bucket a key resolves to, as far as this process knows. */
  resolve(key: string): string {
    return this.#aliases.get(key) ?? key;
  }

  /** Remembers that `key` resolves to `bucket` (a step answered so). */
  setAlias(key: string, bucket: string): void {
    if (this.#aliases.size >= MAX_ENTRIES && !this.#aliases.has(key)) this.#aliases.delete(this.#aliases.keys().next().value as string);
    this.#aliases.set(key, bucket);
  }

  /**
   * The keys of a step's action, as the script reads them: for a bucket, the
   * alias of the key used, the global pause, the bucket's hash, reservations,
   * discovery lock and the global cap (the last three are what the step may
   * take); for a webhook, its window. Cached, so the common step builds no
   * key name.
   */
  actionKeys(action: 'b' | 'w', key: string, bucket: string): readonly string[] {
    const cacheKey = `${action}${key}\n${bucket}`;
    let keys = this.#actions.get(cacheKey);
    if (keys === undefined) {
      keys =
        action === 'b'
          ? [this.name('a:', key), this.name('gp'), this.name('b:', bucket), this.name('r:', bucket), this.name('d:', bucket), this.name('g')]
          : [this.name('w:', key)];
      if (this.#actions.size >= MAX_ENTRIES) this.#actions.clear();
      this.#actions.set(cacheKey, keys);
    }
    return keys;
  }
}

/** Finished work waiting for the next step: the script's operation fields, and the keys it touches. */
export interface Op {
  type: 'r' | 'l' | 'p' | 'w' | 'x';
  id: string;
  a: string;
  b: string;
  c: string;
  keys: string[];
}

/**
 * The `KEYS` and `ARGV` of one step (see `STEP_SCRIPT`): every key the step
 * touches declared once, the action's first, and named by index in `ARGV`.
 * `action` is `[type, bucket, reservation id, lane]`.
 */
export function stepArguments(
  head: readonly string[],
  ops: readonly Op[],
  actionKeys: readonly string[],
  action: readonly [string, string, string, string],
): { keys: string[]; args: string[] } {
  const keys = actionKeys.slice();
  const args = [...head, String(ops.length)];
  for (const op of ops) {
    let list = '';
    for (const name of op.keys) {
      let index = keys.indexOf(name);
      if (index === -1) index = keys.push(name) - 1;
      list = list === '' ? String(index + 1) : `${list},${index + 1}`;
    }
    args.push(op.type, op.id, op.a, op.b, op.c, list);
  }
  args.push(...action, action[0] === 'b' ? '1,2,3,4,5,6' : action[0] === 'w' ? '1' : '');
  return { keys, args };
}
