/**
 * A fleet member's typed events, in place of debug text: a shard acquired (from whom; resumed or identified), released
 * (why), fenced, taken over from a member that died; the members changed; what this process serves. The Gateway emits
 * each under its `type` and publishes it on the `community-chat-sdk:gateway:fleet` diagnostics channel.
 *
 * @module
 */

import { channels, type GatewayFleetMessage } from '../observe/diagnostics.js';

/** Publishes that an answer was not sent (its shard was fenced here), when the channel has subscribers. */
export function publishAnswerRefused(): void {
  if (channels.gatewayFleet.hasSubscribers) channels.gatewayFleet.publish({ type: 'answerRefused' } satisfies GatewayFleetMessage);
}

/** The member a shard was held by before this process acquired it. */
export interface PreviousHolder {
  /** Its member id. */
  member: string;
  /** Its name (the Redis coordinator's `name` option), when it recorded one. @default undefined */
  name?: string | undefined;
  /** Whether it is still a live member (it handed the shard off) or not (it died, or left). */
  live: boolean;
  /** Whether it left the fleet (closed) rather than died. @default false */
  left?: boolean | undefined;
  /**
   * When it died holding the shard: how long before this acquisition it last renewed its lease, milliseconds on the
   * coordinator's clock (Redis `TIME`, or `MemoryShardCoordinator`'s `clock`). Both coordinators give it under one rule: only
   * when a step of the fleet (any member's, of this shard count) freed the lease after its holder died, and at most 40
   * leases (`40 × leaseMs`, at most 2^31 - 1 ms) before this acquisition. A fleet's records of a count live 3 leases past
   * its last step: a count no member stepped for longer (the whole fleet was down) forgets its leases, so a holder found
   * dead after that has none; so has one whose last renewal is older than 40 leases (a shard left free that long).
   * @default undefined (not known)
   */
  sinceRenewalMs?: number | undefined;
}

/** Fields of every fleet event. */
export interface FleetEventBase {
  /** This process's member id. */
  member: string;
  /** The shard count of the set the event is about. */
  shardCount: number;
}

/** This process acquired a shard and its session is up: `resumed` (the stored session went on) or identified afresh. */
export interface ShardAcquiredEvent extends FleetEventBase {
  /** The event's name. */
  type: 'shardAcquired';
  /** The shard. */
  shardId: number;
  /** The lease's fencing token. */
  fence: number;
  /** Whether the shard resumed its stored session (no Identify spent). */
  resumed: boolean;
  /** Who held it before, when the coordinator knows. @default undefined */
  from?: PreviousHolder | undefined;
  /** From the acquisition (the step's answer) to the session up, milliseconds. */
  durationMs: number;
  /**
   * Taken over from a member that died, when its last renewal is known: from that renewal to this session up,
   * milliseconds (`from.sinceRenewalMs` + `durationMs`), the takeover as a client sees it. @default undefined
   */
  takeoverMs?: number | undefined;
}

/** This process gave a shard back. */
export interface ShardReleasedEvent extends FleetEventBase {
  /** The event's name. */
  type: 'shardReleased';
  /** The shard. */
  shardId: number;
  /** `rebalance` (handed off beyond the fair share), `reshard` (the fleet switched to another count) or `closing`. */
  reason: 'rebalance' | 'reshard' | 'closing';
}

/** This process stopped dispatching on a shard whose lease lapsed or was taken (nothing saved: its next holder resumes). */
export interface ShardFencedEvent extends FleetEventBase {
  /** The event's name. */
  type: 'shardFenced';
  /** The shard. */
  shardId: number;
  /** Why, in words. */
  reason: string;
}

/** This process took a shard over from a member that died (its lease expired). */
export interface ShardTakenOverEvent extends FleetEventBase {
  /** The event's name. */
  type: 'shardTakenOver';
  /** The shard. */
  shardId: number;
  /** The dead member's id. */
  fromMember: string;
  /** The dead member's name, when it recorded one. @default undefined */
  fromName?: string | undefined;
  /** How long before this acquisition the dead member last renewed its lease, milliseconds, when known. @default undefined */
  sinceRenewalMs?: number | undefined;
}

/** The fleet's live members changed. */
export interface MembersChangedEvent extends FleetEventBase {
  /** The event's name. */
  type: 'membersChanged';
  /** Live members, this one included. */
  members: number;
  /** The most shards one member holds: `ceil(shardCount / members)`. */
  fairShare: number;
}

/**
 * What this process serves, emitted when it changes (an acquisition, a hand-off, a fence, a lost lease, a release when
 * resharding or closing; once per change) and once after joining, so a spare says it is one.
 */
export interface ServingEvent extends FleetEventBase {
  /** The event's name. */
  type: 'serving';
  /** The shard ids held here. */
  shardIds: number[];
  /** Whether this process holds no shard (a spare, waiting for one to free). */
  spare: boolean;
  /** Live members. */
  members: number;
  /** The most shards one member holds. */
  fairShare: number;
}

/** Every fleet event. */
export type FleetEvent = ShardAcquiredEvent | ShardReleasedEvent | ShardFencedEvent | ShardTakenOverEvent | MembersChangedEvent | ServingEvent;

/** The Gateway's fleet events, by name (part of `GatewayEvents`). */
export interface FleetEvents {
  /** A shard was acquired here and its session is up (resumed or identified), with whom it came from. */
  shardAcquired: [event: ShardAcquiredEvent];
  /** A shard was given back (hand-off to rebalance, a reshard's switch, closing). */
  shardReleased: [event: ShardReleasedEvent];
  /** A shard was fenced: its lease lapsed or was taken; it dispatches nothing more here. */
  shardFenced: [event: ShardFencedEvent];
  /** A shard of a member that died was taken over here. */
  shardTakenOver: [event: ShardTakenOverEvent];
  /** The fleet's live members changed. */
  membersChanged: [event: MembersChangedEvent];
  /** What this process serves changed (and once after joining: a spare says it is one). */
  serving: [event: ServingEvent];
}

/** Whether a shard's former holder died holding it (not live, and it did not leave): the shard is taken over. */
export function diedHolding(from: PreviousHolder | undefined): from is PreviousHolder {
  return from !== undefined && !from.live && from.left !== true;
}

/** Publishes a fleet event on its diagnostics channel (when the channel has subscribers), then emits it under its `type`. */
export function emitFleetEvent(event: FleetEvent, emit: (name: FleetEvent['type'], event: FleetEvent) => void): void {
  if (channels.gatewayFleet.hasSubscribers) channels.gatewayFleet.publish(event);
  emit(event.type, event);
}

/**
 * The events of one supervisor (one member, one shard count), built and handed to `emit`. It follows the steps and says
 * what changed: the members (count, fair share) and what this process serves, once per change: the first step that may
 * acquire always says it (so a spare announces itself), and after that every change (an acquisition, a hand-off, a fence,
 * a lost lease, a release when resharding or closing), those made while one step's answer is acted on said once, at its end.
 */
export class FleetReporter {
  readonly #emit: (event: FleetEvent) => void;
  readonly #member: () => string;
  readonly #count: number;
  #members = -1;
  /** What was last said to be served (`undefined`: nothing said yet). */
  #serving: string | undefined;
  /** Whether a step's answer is being acted on: changes wait for {@link settled}. */
  #acting = false;

  /** @param member - this process's member id now (it changes when it joins again) */
  constructor(emit: (event: FleetEvent) => void, member: () => string, shardCount: number) {
    this.#emit = emit;
    this.#member = member;
    this.#count = shardCount;
  }

  #base(): FleetEventBase {
    return { member: this.#member(), shardCount: this.#count };
  }

  /** A shard newly acquired: `shardTakenOver` when its former holder died (not live, and did not leave). */
  acquired(shardId: number, from: PreviousHolder | undefined): void {
    if (!diedHolding(from)) return;
    const since = from.sinceRenewalMs === undefined ? {} : { sinceRenewalMs: from.sinceRenewalMs };
    this.#emit({ type: 'shardTakenOver', ...this.#base(), shardId, fromMember: from.member, fromName: from.name, ...since });
  }

  /** Shards given back (one event each). */
  released(shardIds: number | readonly number[], reason: ShardReleasedEvent['reason']): void {
    for (const shardId of typeof shardIds === 'number' ? [shardIds] : shardIds) this.#emit({ type: 'shardReleased', ...this.#base(), shardId, reason });
  }

  /** A shard fenced, leaving `held` held here (said as a change, see {@link changed}). */
  fenced(shardId: number, reason: string, held: readonly number[]): void {
    this.#emit({ type: 'shardFenced', ...this.#base(), shardId, reason });
    this.changed(held);
  }

  /** A step's answer arrived: what it changes in what is held here is said once, by {@link settled}. */
  acting(): void {
    this.#acting = true;
  }

  /** The step's answer was acted on: says what is held now, if that changed. */
  settled(held: readonly number[]): void {
    this.#acting = false;
    this.#say(held, false);
  }

  /** What is held here changed outside a step (a fence, a release): said now, unless a step's answer is being acted on. */
  changed(held: readonly number[]): void {
    if (!this.#acting) this.#say(held, false);
  }

  /** A step's outcome (answered `renewalMs` after it was sent): `membersChanged` when the count changed, `serving` when the shards held here did (said at least once). */
  step(members: number, held: readonly number[], renewalMs: number): void {
    if (channels.gatewayFleet.hasSubscribers)
      channels.gatewayFleet.publish({ type: 'leaseRenewed', ...this.#base(), durationMs: renewalMs } satisfies GatewayFleetMessage);
    if (members !== this.#members) {
      this.#members = members;
      this.#emit({ type: 'membersChanged', ...this.#base(), members, fairShare: this.#fairShare() });
    }
    this.#say(held, true);
  }

  #fairShare(): number {
    return Math.ceil(this.#count / Math.max(1, this.#members));
  }

  /** `serving` when what is held differs from what was last said; before the first acquiring step (`first`), nothing. */
  #say(held: readonly number[], first: boolean): void {
    const serving = held.join(',');
    if (serving === this.#serving || (this.#serving === undefined && !first)) return;
    this.#serving = serving;
    const members = Math.max(1, this.#members);
    this.#emit({ type: 'serving', ...this.#base(), shardIds: [...held], spare: held.length === 0, members, fairShare: this.#fairShare() });
  }
}
