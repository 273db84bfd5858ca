/**
 * Closing a Gateway: its shards stopped, what its fleet is handling let
 * settle, what it received published, and each session saved for a
 * successor or forgotten.
 *
 * @module
 */

import type { SessionSaver } from './gateway-session-store.js';
import type { InFlightInteractions } from './in-flight.js';
import type { DispatchPublisher } from './publisher.js';
import type { ShardHandle } from './shards.js';

/** What closing stops: the Gateway's shards, the interactions its fleet is handling, its publisher and session savers. */
interface ClosingParts {
  readonly shards: readonly ShardHandle[];
  readonly inFlight: InFlightInteractions | undefined;
  readonly publisher: DispatchPublisher | undefined;
  readonly savers: ReadonlyMap<number, SessionSaver>;
  /** Reports a debug line. */
  report(line: string): void;
}

/**
 * Stops every shard (nothing more is dispatched), lets the interactions a fleet is handling settle (at most `drainTimeoutMs`:
 * their claims are this process's, so a successor skips their replay while it lives), publishes what was received (at most
 * 2 s), then saves each session for a successor (`handOff`) or forgets it, before the leases are given back.
 */
export async function stopShards(parts: ClosingParts, handOff: boolean, drainTimeoutMs: number): Promise<void> {
  await Promise.all(parts.shards.map((shard) => shard.destroy({ handOff })));
  const handling = parts.inFlight?.size ?? 0;
  if (handling > 0) {
    parts.report(`closing: waiting for ${handling} interaction(s) being handled here (at most ${drainTimeoutMs} ms)`);
    await parts.inFlight?.settled(drainTimeoutMs);
  }
  await parts.publisher?.flush(2000);
  parts.publisher?.stop();
  for (const saver of parts.savers.values()) saver[handOff ? 'schedule' : 'end']();
  await Promise.all([...parts.savers.values()].map((saver) => saver.flush()));
}
