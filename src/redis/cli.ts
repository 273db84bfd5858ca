/**
 * `community-chat-fleet`: a fleet's and a stream's status from the command line, read from Redis by a process that is
 * not a member.
 *
 *   npx community-chat-fleet status --redis redis://127.0.0.1:6379 --key ccsdk:fleet [--stream ccsdk:events] [--json]
 *
 * @module
 */

import { parseArgs } from 'node:util';
import { checkDuration } from '../core/bounds.js';
import { isCommunityChatError } from '../errors/index.js';
import { describeThrown } from '../errors/base.js';
import { readFleetStatus } from './fleet-status.js';
import { fleetStatusText, streamStatusText } from './status-text.js';
import { readStreamStatus } from './stream-status.js';

const HELP = `Usage: community-chat-fleet status [--redis URL] [--key KEY] [--session-prefix PREFIX] [--stream NAME] [--group G] [--timeout-ms MS] [--json]

Prints a fleet's status (members with name, host, pid, last renewal and lease expiry;
each shard's holder, fence and stored session; the shard count and a reshard under way),
read from Redis without joining the fleet. With --stream, also that event stream's
backlog: groups (--group, repeatable, to count only those by age), consumers, pending
entries by age, dead letters. --json prints both as JSON.
--redis URL (redis: or rediss:) may be left out for the environment variable REDIS_URL,
so that a password need not be on the command line. --timeout-ms bounds the whole run
(connect and reads; default 10000). Exits 2 on a bad command line or URL, 1 when Redis
fails or does not answer in time. With --json an error is printed on stdout too, as
{"error": {"code": "...", "message": "..."}} (code: usage, invalid-url, invalid-option,
invalid-argument, timeout or redis-failed; never the URL nor its password), with the
same exit code.
`;

/** The whole run's deadline (connect and reads) unless `--timeout-ms` says otherwise. */
const DEFAULT_TIMEOUT_MS = 10_000;

/** What a failed run says with `--json`: what kind of failure it was. */
type FailureCode = 'usage' | 'invalid-url' | 'invalid-option' | 'invalid-argument' | 'timeout' | 'redis-failed';

/** Whether errors are printed as JSON: read from the raw arguments, so a command line that does not parse says it in JSON too. */
const json = process.argv.slice(2).includes('--json');

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
      'timeout-ms': { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });
}
/** Says why the run failed: as JSON on stdout with `--json`, else as text on stderr, `hint` added. */
function report(code: FailureCode, message: string, hint = ''): void {
  if (json) process.stdout.write(`${JSON.stringify({ error: { code, message } })}\n`);
  else process.stderr.write(`community-chat-fleet: ${message}${hint}\n`);
}
/** Reports the failure and exits with `exitCode`. */
function fail(code: FailureCode, message: string, exitCode: number, hint = '\nRun with --help for the usage.'): never {
  report(code, message, hint);
  process.exit(exitCode);
}
function refuse(message: string, code: FailureCode = 'usage'): never {
  fail(code, message, 2);
}
try {
  ({ values, positionals } = parse());
} catch (error) {
  refuse((error as Error).message);
}
if (values.help === true) {
  process.stdout.write(HELP);
  process.exit(0);
}
const url = values.redis ?? process.env.REDIS_URL;
if (positionals[0] !== 'status' || positionals.length !== 1 || url === undefined || url === '')
  fail('usage', 'give the command status and --redis URL (or REDIS_URL)', 2, `\n${HELP}`);
// The URL may carry a password: checked here, never echoed (a URL Node cannot parse would print whole if thrown).
const redisUrl: string = url;
const protocol = URL.canParse(url) ? new URL(url).protocol : undefined;
if (protocol !== 'redis:' && protocol !== 'rediss:') refuse('invalid --redis URL (it must be redis://… or rediss://…)', 'invalid-url');
const timeoutText = values['timeout-ms'] ?? String(DEFAULT_TIMEOUT_MS);
const timeoutMs = /^\d+$/.test(timeoutText) ? Number(timeoutText) : Number.NaN;
try {
  checkDuration('community-chat-fleet', '--timeout-ms', timeoutMs, { min: 1 });
} catch (error) {
  refuse((error as Error).message, 'invalid-option');
}

const { createClient } = await import('redis');
let client: ReturnType<typeof createClient> | undefined;
let timer: NodeJS.Timeout | undefined;
/** The whole run's deadline passed. */
class Deadline extends Error {}
const deadline = new Promise<never>((_, reject) => {
  timer = setTimeout(() => reject(new Deadline(`Redis did not answer within ${timeoutMs} ms (--timeout-ms)`)), timeoutMs);
});
async function run(): Promise<void> {
  client = createClient({ url: redisUrl, socket: { connectTimeout: Math.min(5000, timeoutMs), reconnectStrategy: false } });
  client.on('error', () => undefined); // the failing command reports it
  await client.connect();
  const fleet = await readFleetStatus({
    client,
    key: values.key,
    ...(values['session-prefix'] === undefined ? {} : { sessionPrefix: values['session-prefix'] }),
  });
  const stream = values.stream === undefined ? undefined : await readStreamStatus({ client, stream: values.stream, groups: values.group });
  if (values.json === true) process.stdout.write(`${JSON.stringify({ fleet, stream }, null, 2)}\n`);
  else process.stdout.write(fleetStatusText(fleet) + (stream === undefined ? '' : streamStatusText(stream)));
}
try {
  await Promise.race([run(), deadline]);
} catch (error) {
  // The URL may carry a password: only the error's own message, which node-redis writes without it.
  const message = describeThrown(error);
  const code: FailureCode = error instanceof Deadline ? 'timeout' : isCommunityChatError(error, 'ValidationError') ? 'invalid-argument' : 'redis-failed';
  report(code, message);
  process.exitCode = 1;
} finally {
  clearTimeout(timer);
  // destroy, not close: close waits for every pending reply, which a stalled Redis never sends.
  if (client?.isOpen === true) client.destroy();
}
