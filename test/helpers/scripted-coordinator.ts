/**
 * A shard coordinator whose every answer the test gives: each call waits
 * until the test resolves (or rejects, or never answers) it, so a unit test
 * can answer late, fail, hang, grant or refuse anything.
 */
import type { CoordinatorTick, ShardCoordinator, ShardLease } from '../../src/gateway/coordinator.js';

/** One call made to the coordinator, waiting for the test's answer. */
export interface ScriptedCall<T = unknown> {
  readonly method: string;
  readonly args: readonly unknown[];
  resolve(value: T): void;
  reject(error: unknown): void;
}

export class ScriptedCoordinator implements ShardCoordinator {
  readonly leaseMs: number;
  /** Calls not yet taken by `next()`, in order. */
  readonly #pending: ScriptedCall[] = [];
  readonly #waiting: { method: string; take: (call: ScriptedCall) => void }[] = [];
  /** Every call made, in order (`method arg0 arg1 ...`). */
  readonly log: string[] = [];

  constructor(leaseMs = 1000) {
    this.leaseMs = leaseMs;
  }

  #call<T>(method: string, args: unknown[]): Promise<T> {
    this.log.push([method, ...args.map((arg) => JSON.stringify(arg))].join(' '));
    return new Promise<T>((resolve, reject) => {
      const call: ScriptedCall = { method, args, resolve: resolve as (value: unknown) => void, reject };
      const waiter = this.#waiting.findIndex((w) => w.method === method);
      if (waiter >= 0) this.#waiting.splice(waiter, 1)[0]?.take(call);
      else this.#pending.push(call);
    });
  }

  /** The next call of `method` (one already made and not taken, or the next one made). */
  next<T = unknown>(method: string): Promise<ScriptedCall<T>> {
    const index = this.#pending.findIndex((call) => call.method === method);
    if (index >= 0) return Promise.resolve(this.#pending.splice(index, 1)[0] as ScriptedCall<T>);
    return new Promise((take) => this.#waiting.push({ method, take: take as (call: ScriptedCall) => void }));
  }

  /** How many calls of `method` wait for an answer and were not taken. */
  waiting(method: string): number {
    return this.#pending.filter((call) => call.method === method).length;
  }

  tick(member: string, shardCount: number, acquire: boolean, registered?: boolean): Promise<CoordinatorTick> {
    return this.#call('tick', [member, shardCount, acquire, registered ?? false]);
  }
  release(member: string, shardCount: number, lease: ShardLease): Promise<void> {
    return this.#call('release', [member, shardCount, lease]);
  }
  leave(member: string, shardCount: number): Promise<void> {
    return this.#call('leave', [member, shardCount]);
  }
  claimInteraction(member: string, interactionId: string, ttlMs?: number): Promise<boolean> {
    return this.#call('claimInteraction', ttlMs === undefined ? [member, interactionId] : [member, interactionId, ttlMs]);
  }
  answered(interactionId: string): Promise<void> {
    return this.#call('answered', [interactionId]);
  }
}

/** A step's answer: one member holding `leases` (shard id to fence). */
export function step(leases: Record<number, number>, members = 1, index = 0): CoordinatorTick {
  return { members, index, leases: Object.entries(leases).map(([shardId, fence]) => ({ shardId: Number(shardId), fence })) };
}
