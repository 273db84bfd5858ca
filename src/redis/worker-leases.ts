/**
 * What a worker holds while it handles entries: each entry it read (pending with it) and, for an interaction, its claim
 * (`interaction-claim.ts`). Every third of `claimIdleMs` a heartbeat renews each claim and then touches the entries still
 * held (`XCLAIM … JUSTID`, idle time back to 0), so no other worker reclaims the entry of a slow but live handler. Each
 * entry's hold counts from when its read or its last touch was sent, on the monotonic clock: once that lapsed (the process
 * was paused, or cut off from Redis) it is no longer touched, since another worker may have taken it. An entry whose read
 * came back late (it arrived near the end of a blocking read, whose send its hold counts from) is touched at once, so its
 * hold never runs out before the next heartbeat. Once an interaction's answered mark is stored its claim is no longer
 * renewed (Redis refuses: it is answered), but its entry is still touched until the handler settles, so a deferred handler
 * working on past `claimIdleMs` is not reclaimed elsewhere as a duplicate.
 *
 * @module
 */

import { type ClaimKeys, HeldClaim, releaseClaim, renewClaim } from './interaction-claim.js';
import type { RedisEventStream } from './event-stream.js';

/** An entry this worker handles, and its interaction's claim once taken. */
interface HeldEntry {
  readonly hold: HeldClaim;
  claim?: { readonly keys: ClaimKeys; readonly holder: string; readonly held: HeldClaim } | undefined;
}

/**
 * How many entries let go of are remembered: a reclaim in flight brings back at most its `COUNT` of them, and many more
 * are let go of only at thousands of entries a second while a command waits (about 100 bytes each).
 */
const MAX_LET_GO = 10_000;

/** The entries a worker holds, and their heartbeat. */
export class WorkerLeases {
  readonly #stream: RedisEventStream;
  readonly #group: string;
  readonly #consumer: string;
  readonly #leaseMs: number;
  readonly #now: () => number;
  readonly #failed: (error: unknown) => void;
  readonly #held = new Map<string, HeldEntry>();
  /**
   * The entries let go of lately and when (monotonic), the oldest first: a reclaim sent before an entry was let go of may
   * bring it back after (taken while it was still pending here, answered after its acknowledgement), and is not handled again.
   */
  readonly #letGo = new Map<string, number>();
  #timer: ReturnType<typeof setInterval> | undefined;
  #beating = false;

  constructor(stream: RedisEventStream, group: string, consumer: string, leaseMs: number, failed: (error: unknown) => void, now = () => performance.now()) {
    this.#stream = stream;
    this.#group = group;
    this.#consumer = consumer;
    this.#leaseMs = leaseMs;
    this.#failed = failed;
    this.#now = now;
  }

  /** The monotonic clock. */
  now(): number {
    return this.#now();
  }

  /** Whether this worker handles the entry. */
  has(id: string): boolean {
    return this.#held.has(id);
  }

  /** How many entries it holds. */
  get size(): number {
    return this.#held.size;
  }

  /**
   * Holds an entry read (or reclaimed) by a command sent at `sentAt`. Returns `false` when it is already held here, or was
   * let go of since that command was sent (its answer is older than the entry's acknowledgement, or than its release for a
   * later delivery: a later read brings it again).
   */
  hold(id: string, sentAt: number): boolean {
    if (this.#held.has(id)) return false;
    const letGo = this.#letGo.get(id);
    if (letGo !== undefined && letGo >= sentAt) return false;
    this.#held.set(id, { hold: new HeldClaim(0, this.#leaseMs, sentAt, this.#now) });
    return true;
  }

  /** Lets go of an entry (handled, acknowledged or dropped). */
  release(id: string): void {
    if (!this.#held.delete(id)) return;
    this.#letGo.delete(id);
    this.#letGo.set(id, this.#now());
    if (this.#letGo.size > MAX_LET_GO) this.#letGo.delete(this.#letGo.keys().next().value as string);
  }

  /** Records the claim taken for an entry's interaction, renewed with the entry from now on. */
  claimed(id: string, keys: ClaimKeys, holder: string, held: HeldClaim): void {
    const entry = this.#held.get(id);
    if (entry !== undefined) entry.claim = { keys, holder, held };
  }

  /** The interaction's answered mark is stored: its claim is done with, its entry still touched until released. */
  answered(id: string): void {
    const entry = this.#held.get(id);
    if (entry !== undefined) entry.claim = undefined;
  }

  /**
   * Entries just read by a command sent at `sentAt`: when its reply came so late that less than half the lease of their
   * hold is left (they arrived near the end of a blocking read), they are touched at once rather than at the next
   * heartbeat. Never rejects (a failure is reported).
   */
  async touchIfLate(ids: readonly string[], sentAt: number): Promise<void> {
    if (ids.length === 0 || this.#now() - sentAt <= this.#leaseMs * 0.3) return;
    await this.#touch(ids.filter((id) => this.valid(id))).catch(this.#failed);
  }

  /** Whether the entry is still known to be this worker's (its hold and its claim, if any, valid now). */
  valid(id: string): boolean {
    const entry = this.#held.get(id);
    return entry?.hold.valid === true && (entry.claim === undefined || entry.claim.held.valid);
  }

  /** Gives an interaction's claim back (best effort: it lapses on its own otherwise). */
  async giveBack(keys: ClaimKeys, holder: string, held: HeldClaim): Promise<void> {
    await releaseClaim(this.#run, keys, holder, held.fence).catch(this.#failed);
  }

  /** Starts the heartbeat, every third of the lease. */
  start(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => void this.beat(), Math.max(1, Math.floor(this.#leaseMs / 3)));
    this.#timer.unref?.();
  }

  /** Stops the heartbeat. */
  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  readonly #run = (script: Parameters<RedisEventStream['script']>[0], keys: readonly string[], args: readonly string[]) =>
    this.#stream.script(script, keys, args);

  /** One heartbeat: renews the claims, then touches every entry still held and valid. Never rejects (failures are reported). */
  async beat(): Promise<void> {
    if (this.#beating) return;
    this.#beating = true;
    try {
      await Promise.all(
        [...this.#held.values()].map(async ({ hold, claim }) => {
          if (claim === undefined || !hold.valid) return;
          await claim.held.renew(() => renewClaim(this.#run, claim.keys, claim.holder, claim.held.fence, this.#leaseMs)).catch(this.#failed);
        }),
      );
      await this.#touch([...this.#held.keys()].filter((id) => this.valid(id)));
    } catch (error) {
      this.#failed(error);
    } finally {
      this.#beating = false;
    }
  }

  /** Touches these entries (idle time back to 0); each one Redis says is still this consumer's is held anew from the send. */
  async #touch(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    const sentAt = this.#now();
    const reply = await this.#stream.command(['XCLAIM', this.#stream.key, this.#group, this.#consumer, '0', ...ids, 'JUSTID']);
    const touched = new Set((Array.isArray(reply) ? reply : []).map(String));
    for (const id of ids) {
      if (touched.has(id)) this.#held.get(id)?.hold.confirm(sentAt);
    }
  }
}
