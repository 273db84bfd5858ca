/**
 * A fleet's and a stream's status as text, for people (`community-chat-fleet status`): one line per member, shard,
 * group and consumer. Names and ids read from Redis are printed with control, format and line-separator characters escaped, so a value planted in
 * Redis cannot rewrite the terminal.
 *
 * @module
 */

import { UNPRINTABLE } from './fleet-members.js';
import type { FleetStatus } from './fleet-status.js';
import type { StreamStatus } from './stream-status.js';

/** A character escaped: `\xHH` up to U+00FF, `\uHHHH` above. */
function escapeCharacter(char: string): string {
  const code = char.codePointAt(0) ?? 0;
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** A value read from Redis, safe to print: characters a terminal acts on ({@link UNPRINTABLE}) escaped, at most 120 characters. */
function printable(value: string): string {
  const escaped = [...value].map((char) => (UNPRINTABLE.test(char) ? escapeCharacter(char) : char)).join('');
  return escaped.length > 120 ? `${escaped.slice(0, 117)}...` : escaped;
}

/** A fleet's status as lines of text; `at` is Redis's time when read (renewals and expiries are printed relative to it). */
export function fleetStatusText(status: FleetStatus): string {
  const at = status.readAt;
  const lines: string[] = [];
  const count = status.shardCount === undefined ? 'no shard count recorded' : `${status.shardCount} shards`;
  const lease = status.leaseMs === undefined ? '' : `, leases of ${status.leaseMs} ms`;
  const listed = status.liveMembers > status.members.length ? ` (${status.members.length} listed)` : '';
  lines.push(`fleet ${printable(status.key)}: ${count}, ${status.liveMembers} members${listed}${lease}`);
  for (const line of status.truncated) lines.push(`  not read whole: ${printable(line)}`);
  if (status.reshard !== undefined) {
    const { target, ready, switching } = status.reshard;
    lines.push(`  reshard to ${target} shards under way: ${ready} of ${target} READY${switching ? ', switching' : ''}`);
  }
  lines.push('members:');
  if (status.members.length === 0) lines.push('  (none live)');
  for (const member of status.members) {
    const where = member.host === undefined ? '' : ` on ${printable(member.host)} pid ${member.pid ?? '?'}`;
    const shards = member.shardIds.length === 0 ? 'no shard (spare)' : `shards ${member.shardIds.join(',')}`;
    lines.push(
      `  ${printable(member.name ?? '(unnamed)')}${where} [${printable(member.id)}]: ${shards}; renewed ${at - member.renewedAt} ms ago, expires in ${member.expiresAt - at} ms`,
    );
  }
  if (status.shards.length > 0) lines.push('shards:');
  for (const shard of status.shards) {
    const unlisted = shard.holderListed === false ? ' (a member not listed)' : '';
    const holder = shard.holder === undefined ? 'free' : `${printable(shard.holderName ?? shard.holder)}${unlisted} (fence ${shard.fence})`;
    const session =
      shard.session === undefined
        ? ''
        : shard.session.resumable
          ? `; session resumable at sequence ${shard.session.sequence ?? 'none'}`
          : '; no session stored';
    lines.push(`  ${shard.shardId}: ${holder}${session}`);
  }
  return `${lines.join('\n')}\n`;
}

/** A stream's status as lines of text. */
export function streamStatusText(status: StreamStatus): string {
  const { backlog } = status;
  const lines = [`stream ${printable(status.key)}: ${backlog.length} entries, oldest owed ${backlog.oldestAgeMs} ms ago, ${backlog.deadLetters} dead letters`];
  for (const line of status.truncated) lines.push(`  not read whole: ${printable(line)}`);
  for (const group of backlog.groups) {
    const ages = status.pendingByAge.find((entry) => entry.group === group.name);
    const byAge =
      ages === undefined
        ? ''
        : ` (by age: <10s ${ages.counts[0]}, <1m ${ages.counts[1]}, <5m ${ages.counts[2]}, >=5m ${ages.counts[3]}${ages.truncated ? ', first 1000 counted' : ''})`;
    lines.push(`  group ${printable(group.name)}: ${group.pending} pending${byAge}, ${group.undelivered} undelivered`);
    for (const consumer of group.consumers) lines.push(`    consumer ${printable(consumer.name)}: ${consumer.pending} pending, idle ${consumer.idleMs} ms`);
  }
  for (const letter of status.deadLetters) {
    lines.push(
      `  dead letter ${printable(letter.id)}: ${printable(letter.type)}, ${printable(letter.reason)} after ${letter.deliveries} deliveries: ${printable(letter.error)}`,
    );
  }
  return `${lines.join('\n')}\n`;
}
