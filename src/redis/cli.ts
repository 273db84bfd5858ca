/**
 * `community-chat-fleet`: a fleet's and a stream's status from the command line, read from Redis by a process that is
 * not a member.
 *
 *   npx community-chat-fleet status --redis redis://127.0.0.1:6379 --key ccsdk:fleet [--stream ccsdk:events] [--json]
 *
 * @module
 */

import { parseArgs } from 'node:util';
import { readFleetStatus } from './fleet-status.js';
import { fleetStatusText, streamStatusText } from './status-text.js';
import { readStreamStatus } from './stream-status.js';

const HELP = `Usage: community-chat-fleet status --redis URL [--key KEY] [--session-prefix PREFIX] [--stream NAME] [--group G] [--json]

Prints a fleet's status (members with name, host, pid, last renewal and lease expiry;
each shard's holder, fence and stored session; the shard count and a reshard under way),
read from Redis without joining the fleet. With --stream, also that event stream's
backlog: groups (--group, repeatable, to count only those by age), consumers, pending
entries by age, dead letters. --json prints both as JSON. Exits 1 when Redis fails.
`;

let values: ReturnType<typeof parse>['values'];
let positionals: string[];
function parse() {
  return parseArgs({
    args: process.argv.slice(2),
    allowPositionals: true,
    options: {
      redis: { type: 'string' },
      key: { type: 'string' },
      'session-prefix': { type: 'string' },
      stream: { type: 'string' },
      group: { type: 'string', multiple: true },
      json: { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });
}
try {
  ({ values, positionals } = parse());
} catch (error) {
  process.stderr.write(`community-chat-fleet: ${(error as Error).message}\nRun with --help for the usage.\n`);
  process.exit(2);
}
if (values.help === true) {
  process.stdout.write(HELP);
  process.exit(0);
}
if (positionals[0] !== 'status' || positionals.length !== 1 || values.redis === undefined) {
  process.stderr.write(`community-chat-fleet: give the command status and --redis URL\n${HELP}`);
  process.exit(2);
}

const { createClient } = await import('redis');
const client = createClient({ url: values.redis, socket: { connectTimeout: 5000, reconnectStrategy: false } });
client.on('error', () => undefined); // the failing command reports it
try {
  await client.connect();
  const fleet = await readFleetStatus({
    client,
    key: values.key,
    ...(values['session-prefix'] === undefined ? {} : { sessionPrefix: values['session-prefix'] }),
  });
  const stream = values.stream === undefined ? undefined : await readStreamStatus({ client, stream: values.stream, groups: values.group });
  if (values.json === true) process.stdout.write(`${JSON.stringify({ fleet, stream }, null, 2)}\n`);
  else process.stdout.write(fleetStatusText(fleet) + (stream === undefined ? '' : streamStatusText(stream)));
} catch (error) {
  // The URL may carry a password: only the error's own message, which node-redis writes without it.
  process.stderr.write(`community-chat-fleet: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
} finally {
  if (client.isOpen) await client.close().catch(() => undefined);
}
