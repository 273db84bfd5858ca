/**
 * The Gateway's side of a fleet: starting a shard the coordinator gave this
 * process (its stored session restored, so it resumes) and stopping one it
 * hands off (session saved first) or lost (nothing saved: the session is
 * its new holder's).
 *
 * @module
 */

import { wait } from '../core/wait.js';
import { GatewayError, isCommunityChatError } from '../errors/index.js';
import type { Interaction } from '../interactions/interaction.js';
import type { InteractionResponder } from '../interactions/types.js';
import { FleetSupervisor, type CoordinatorTick, type FleetHost, type ShardCoordinator } from './coordinator.js';
import { restores, withLastSessions, type GatewaySessionStore, type LastSessions, type SessionSaver } from './gateway-session-store.js';
import type { StoreRecoveredEvent } from '../observe/events.js';
import { diedHolding, type FleetEvent, publishAnswerRefused } from './fleet-events.js';
import { OutageReporter } from './outages.js';

import type { GatewayDispatchEvent } from './options.js';
import { startShard, stopAttempts, type ShardStartTarget } from './shard-start.js';

/** What the fleet host works on: the set's shards and savers, started through {@link startShard}, and its own parts. */
export interface FleetShards extends Omit<ShardStartTarget, 'count'> {
  /** Where sessions are kept between processes (a shard's start falls back on {@link FleetShards.last}). */
  readonly store: GatewaySessionStore | undefined;
  /** The last session of each shard this process held (for a store that lost them). */
  readonly last: LastSessions;
  /** Whether this process still holds the shard (it may have lost it while starting). */
  holds(shardId: number): boolean;
  /** A shard this process started is READY (or RESUMED). @default undefined */
  ready?(shardId: number): Promise<void> | void;
  /** Each coordinator step's answer. @default undefined */
  ticked?(answer: CoordinatorTick): void;
  /** A fleet event of this set. @default undefined */
  event?(event: FleetEvent): void;
  /** The coordinator answers again after an outage (its first failure was an `error`). @default undefined */
  storeRecovered?(event: StoreRecoveredEvent): void;
  /**
   * The coordinator's outages, shared by every set of the Gateway ({@link coordinatorOutages}): during a reshard both sets step
   * on the one coordinator, and its outage is one report. @default a reporter of this set's own
   */
  readonly outages?: OutageReporter | undefined;
}

/**
 * In a fleet, an answer the service accepted is recorded, so that a replay of the interaction elsewhere does not run it again;
 * and an answer from a process that lost the interaction's shard (paused past its lease, then woken) is refused: the shard's
 * new holder replays the interaction and answers it.
 */
export function recordingAnswers(
  coordinator: ShardCoordinator,
  respond: InteractionResponder,
  mayAnswer: (interactionId: string) => boolean,
): InteractionResponder {
  return async (interactionId, ...rest) => {
    if (!mayAnswer(interactionId)) {
      publishAnswerRefused();
      throw new GatewayError(
        `not answering interaction ${interactionId}: this process lost its shard's lease while handling it; the shard's new holder answers it`,
      );
    }
    const result = await respond(interactionId, ...rest);
    await markAnswered(coordinator, interactionId);
    return result;
  };
}

/** How many times marking an interaction answered is tried (the last tries about half a minute after the answer). */
const MARK_ATTEMPTS = 8;

/**
 * Marks the interaction answered; a coordinator that fails is tried again in the background (a growing pause, about half a minute
 * in all), so that a replay after the coordinator came back does not run the interaction again.
 */
async function markAnswered(coordinator: ShardCoordinator, interactionId: string, attempt = 0): Promise<void> {
  try {
    await coordinator.answered(interactionId);
  } catch {
    if (attempt + 1 >= MARK_ATTEMPTS) return;
    const retry = wait(Math.min(250 * 2 ** attempt, 8000)).then(() => markAnswered(coordinator, interactionId, attempt + 1));
    if (attempt > 0) await retry; // the first failure returns at once: the answer was sent, the retries go on behind it
  }
}

/**
 * Whether an answer to the interaction may be sent from this process (see {@link FleetSupervisor.mayAnswer}), asked of the set it
 * arrived on: the current one, or during a reshard the next one (whose leases are its own).
 */
export function answerable(fleets: readonly (FleetSupervisor | undefined)[], interactionId: string): boolean {
  for (const fleet of fleets) {
    const shardId = fleet?.inFlight.shardOf(interactionId);
    if (fleet !== undefined && shardId !== undefined) return fleet.mayAnswer(shardId);
  }
  return true;
}

/** What a claimed delivery asks of the Gateway. */
interface ClaimedDelivery {
  /** Runs the interaction's handlers; resolves once they settle, never rejects. */
  deliver(interaction: Interaction, shardId: number): Promise<void>;
  /** The interaction is claimed or answered elsewhere (a debug line). */
  skipped(line: string, shardId: number): void;
  /** The Gateway's session savers: a shard's session is saved again once the interaction no longer holds its sequence back. */
  readonly savers: ReadonlyMap<number, SessionSaver>;
}

/**
 * In a fleet, an interaction runs where it is claimed first, so a replay after a failover or a reshard runs nowhere else; and until
 * its handlers settle, its shard's saved sequence stays below it, so that if this process dies first the successor's resume
 * replays it (its claim, held by a member that is gone, is taken over).
 */
export function deliverClaimed(fleet: FleetSupervisor, event: GatewayDispatchEvent, interaction: Interaction, gateway: ClaimedDelivery): void {
  const { shardId } = event;
  // Still running here (a replay after this process fenced the shard and took it again): it runs once. A copy that only waits for
  // its claim does not count: the fence drops that claim, and this replay is the one that runs.
  if (fleet.inFlight.running(interaction.id)) return gateway.skipped(`interaction ${interaction.id} skipped: already running here`, shardId);
  const done = fleet.inFlight.begin(shardId, interaction.id, event.s);
  void fleet
    .claim(interaction.id, shardId)
    .then((claimed) => {
      if (!claimed)
        return gateway.skipped(`interaction ${interaction.id} skipped: not claimed here (claimed or answered elsewhere, or the shard's lease lapsed)`, shardId);
      fleet.inFlight.started(interaction.id);
      return gateway.deliver(interaction, shardId);
    })
    .finally(() => {
      done();
      if (fleet.saves(shardId)) gateway.savers.get(shardId)?.schedule();
    });
}

/** A coordinator's failure as the Gateway's `error`: a ShardCoordinatorError already says the coordinator failed; anything else is named here. */
function coordinatorError(error: unknown, more: string): GatewayError {
  const text = error instanceof Error ? error.message : String(error);
  const message = text.startsWith('The shard coordinator failed') ? text : `the shard coordinator failed: ${text}`;
  return new GatewayError(message + more, undefined, { cause: error });
}

/**
 * The supervisor of a Gateway's part of the fleet for one shard count: this process's member id is its pid and a random id (a
 * reshard's second supervisor, for the new count, shares the first one's).
 */
export function createFleet(
  coordinator: ShardCoordinator,
  count: number,
  shards: FleetShards,
  member = `${process.pid}-${globalThis.crypto.randomUUID()}`,
): FleetSupervisor {
  const fleet: FleetSupervisor = new FleetSupervisor(
    coordinator,
    count,
    member,
    fleetHost(shards, count, () => fleet.member),
  );
  return fleet;
}

/**
 * The outages of a coordinator, one report each: the first failed step an `error`, the failures after it counted, the step that
 * answers again a `storeRecovered` event. One per Gateway, whatever the sets stepping on the coordinator.
 */
export function coordinatorOutages(target: Pick<FleetShards, 'report' | 'storeRecovered'>): OutageReporter {
  return new OutageReporter(
    'shardCoordinator',
    (error) => target.report({ event: 'error', payload: coordinatorError(error, ' (further failures are counted until it answers again)') }),
    (event) => target.storeRecovered?.(event),
  );
}

function fleetHost(shards: FleetShards, count: number, member: () => string): FleetHost {
  const outage = shards.outages ?? coordinatorOutages(shards);
  const failed = (error: unknown) => {
    // Values a step repaired are reported each time (the step itself was answered); a failed call is one outage's.
    if (isCommunityChatError(error, 'ShardCoordinatorError') && error.keys.length > 0) shards.report({ event: 'error', payload: coordinatorError(error, '') });
    else outage.failed(error);
  };
  const ticked = (answer: CoordinatorTick) => {
    outage.answered();
    shards.ticked?.(answer);
  };
  const find = (shardId: number) => shards.list.find((shard) => shard.id === shardId);
  const { store: raw, last } = shards;
  const store = raw === undefined ? undefined : withLastSessions(raw, last);
  // A shard the coordinator gave starts where every shard starts, its session restored from the store or this process's last one.
  const target: ShardStartTarget = {
    ...{ create: (id) => shards.create(id), list: shards.list, savers: shards.savers, replayed: shards.replayed, count, store },
    ...{
      record: (shard) => shards.record(shard),
      storeFailed: (error) => shards.storeFailed(error),
      report: (report, shardId) => shards.report(report, shardId),
    },
  };
  // Each start's acquisition until its stop: a start still trying to create its shard (see startShard) stops once the shard was
  // stopped, even if a later step acquired the shard again meanwhile (that acquisition's start creates it).
  const acquisitions = new Map<number, object>();
  return {
    async start(shardId, lease) {
      const acquiredAt = performance.now();
      const acquisition = {};
      acquisitions.set(shardId, acquisition);
      let announced = false; // the event once, though `connected` is tried again when announcing READY fails
      await startShard(target, shardId, {
        kind: 'lease',
        fence: lease?.fence,
        holds: () => acquisitions.get(shardId) === acquisition && shards.holds(shardId),
        connected: (resumed) => {
          const durationMs = performance.now() - acquiredAt;
          const { fence, from } = lease ?? { fence: 0 };
          // Taken over from a member that died: the takeover as a client sees it runs from that member's last renewal.
          const since = diedHolding(from) ? from.sinceRenewalMs : undefined;
          const takeover = since === undefined ? {} : { takeoverMs: since + durationMs };
          if (lease !== undefined && !announced)
            shards.event?.({ type: 'shardAcquired', member: member(), shardCount: count, shardId, fence, resumed, from, durationMs, ...takeover });
          announced = true;
          return shards.ready?.(shardId);
        },
      });
    },
    async stop(shardId, handOff) {
      acquisitions.delete(shardId);
      stopAttempts(shards.list, shardId); // a wait to create or connect it ends now, not when it would have found the lease gone
      const shard = find(shardId);
      const saver = shards.savers.get(shardId);
      shards.savers.delete(shardId);
      // Lost: what was received after the fence is not counted in any save (a write waiting behind a paused store included).
      if (!handOff) saver?.abandon();
      if (shard === undefined) return;
      shards.list.splice(shards.list.indexOf(shard), 1);
      // Closed with 4000 either way: a session handed off is resumed by a successor, a lost one already was.
      await shard.destroy({ handOff: true });
      if (handOff && saver !== undefined) {
        saver.schedule();
        await saver.flush();
        // The successor's now; kept a while in case the store loses it before the successor saves (its record, fenced later, wins).
        last.handedOff(shardId, count, HANDED_OFF_KEPT_MS);
      } else if (!handOff && raw !== undefined) void restoreLost(raw, last, shardId, count).catch(shards.storeFailed);
    },
    // Every session kept here goes back to a store that lost it, those of shards fenced while the store was down included.
    rejoining: () => {
      if (raw !== undefined) for (const shardId of last.shardsOf(count)) void restoreLost(raw, last, shardId, count).catch(shards.storeFailed);
    },
    ready: (shardId) => find(shardId)?.status === 'ready',
    debug: (line) => shards.report({ event: 'debug', payload: `[fleet] ${line}` }),
    failed,
    ticked,
    ...(shards.event === undefined ? {} : { event: shards.event }),
  };
}

/**
 * How long a shard handed off keeps its session here: the Redis session store's default life of a session (one older cannot be
 * resumed anyway). Past the successor's first save it is only a fallback its record (a later fence) always wins over.
 */
const HANDED_OFF_KEPT_MS = 600_000;

/**
 * A shard this process lost or handed off: if the store has no session for it (Redis restarted empty), its last one kept here is
 * written back, so whichever process takes the shard resumes it. A store that has one saved under the same or a later fence (the
 * shard's later holder saved or wrote back its own) keeps it, and so does one saved without a fence.
 */
async function restoreLost(store: GatewaySessionStore, last: LastSessions, shardId: number, count: number): Promise<void> {
  const record = last.get(shardId, count);
  if (record === undefined) return;
  if (store.restore !== undefined) return store.restore(shardId, count, record);
  if (restores(await store.load(shardId, count), record)) await store.save(shardId, count, record);
}
