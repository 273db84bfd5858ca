/**
 * The emulator command line's arguments, read strictly with `node:util`
 * `parseArgs`: an unknown flag, a flag without its value, or a port that is
 * not a plain decimal number is a usage error, never a silent default.
 *
 * @module
 */

import { parseArgs } from 'node:util';

/** What the command line asks for. */
export interface EmulatorCliArgs {
  /** `--help` or `-h`. */
  help: boolean;
  /** `--port`, 0 to 65535 (0: any free port). */
  port: number;
  /** `--host`. */
  host: string;
  /** `--seed`, a whole number; `undefined`: secrets differ on every run. */
  seed: number | undefined;
  /** Not `--no-playground`. */
  playground: boolean;
  /** `--bot`: the module of a bot to run against the emulator (`commands` and a default or `bot` install function). */
  bot: string | undefined;
}

/** A usage error: the message to print, and exit code 2. */
export class CliUsageError extends Error {
  override readonly name = 'CliUsageError';
}

/** Reads the arguments (without `node` and the script), or throws a {@link CliUsageError} saying what is wrong. */
export function readCliArgs(args: readonly string[]): EmulatorCliArgs {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...args],
      strict: true,
      allowPositionals: false,
      options: {
        help: { type: 'boolean', short: 'h' },
        port: { type: 'string' },
        host: { type: 'string' },
        seed: { type: 'string' },
        'no-playground': { type: 'boolean' },
        bot: { type: 'string' },
      },
    }));
  } catch (error) {
    throw new CliUsageError(error instanceof Error ? (error.message.split('\n')[0] ?? String(error)) : String(error));
  }
  const port = whole('--port', values['port'], '8080');
  if (port > 65_535) throw new CliUsageError(`--port must be 0 to 65535 (got ${port})`);
  const host = typeof values['host'] === 'string' ? values['host'] : '127.0.0.1';
  if (host.trim() === '') throw new CliUsageError('--host must not be empty');
  const seed = values['seed'] === undefined ? undefined : whole('--seed', values['seed'], '');
  const bot = typeof values['bot'] === 'string' ? values['bot'] : undefined;
  if (bot?.trim() === '') throw new CliUsageError('--bot must name a module (./src/bot.ts)');
  return { help: values['help'] === true, port, host, seed, playground: values['no-playground'] !== true, bot };
}

/** A plain decimal whole number (no sign, no `0x`, no exponent). */
function whole(flag: string, value: string | boolean | undefined, fallback: string): number {
  const text = typeof value === 'string' ? value : fallback;
  if (!/^\d{1,9}$/.test(text)) throw new CliUsageError(`${flag} must be a whole decimal number (got ${JSON.stringify(text)})`);
  return Number(text);
}
