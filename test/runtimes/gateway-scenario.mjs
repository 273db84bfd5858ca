// The Gateway scenario, for Node, Bun and Deno: the bot (test/runtimes/bot.mjs) runs in the runtime
// under test against an emulator in this Node process; it makes a REST call, answers /ping over the
// Gateway, and on "close" closes its client and must then exit by itself, with code 0.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expectEqual, startEmulatorWithPing, step, withCleanup } from './scenario.mjs';

const BOT = fileURLToPath(new URL('./bot.mjs', import.meta.url));

/** Runs the scenario with `command args... bot.mjs`; resolves with a one-line account, rejects naming the failed step. */
export async function gatewayScenario(runtime, command, args) {
  const started = performance.now();
  const { emulator, botName, close } = await startEmulatorWithPing(runtime);
  const child = spawn(command, [...args, BOT], {
    // Deno: no update check over the network, no permission prompt waiting for a terminal.
    env: { ...process.env, CHAT_BASE_URL: emulator.url, CHAT_BOT_TOKEN: emulator.seed.botToken, DENO_NO_UPDATE_CHECK: '1', DENO_NO_PROMPT: '1' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  // Writing "close" to a bot that already exited is EPIPE: kept for the report, never an unhandled 'error' that ends this runner.
  let stdinError;
  child.stdin.on('error', (error) => {
    stdinError = error;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const lines = [];
  const waiters = [];
  let buffered = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => {
    buffered += chunk;
    let newline = buffered.indexOf('\n');
    while (newline !== -1) {
      const text = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      newline = buffered.indexOf('\n');
      let line;
      try {
        line = JSON.parse(text);
      } catch {
        continue; // not one of the bot's lines
      }
      lines.push(line);
      for (const waiter of waiters.splice(0)) waiter();
    }
  });
  /** The bot's line for `name`, once it printed it; rejects if the bot exits first. */
  const lineFor = (name) =>
    new Promise((resolve, reject) => {
      const check = () => {
        const found = lines.find((line) => line.step === name);
        if (found) resolve(found);
        else waiters.push(check);
      };
      check();
      void exited.then(({ code, signal }) =>
        reject(
          new Error(
            `the bot exited (code ${code}, signal ${signal}) before "${name}"${stdinError ? ` (writing to its stdin: ${stdinError.code ?? stdinError.message})` : ''}; its stderr:\n${stderr}`,
          ),
        ),
      );
    });
  const scenario = async () => {
    const ready = await step(runtime, 'REST call and Gateway connect', lineFor('ready'));
    expectEqual(runtime, 'the bot name its REST call (GET /users/@me) read', ready.username, botName);
    const interaction = emulator.invokeCommand({ name: 'ping' });
    expectEqual(runtime, '/ping went out over the Gateway', interaction.via, 'gateway');
    expectEqual(runtime, 'Gateway sessions that received /ping', interaction.delivered, 1);
    const answer = await step(runtime, 'answer /ping', interaction.response);
    expectEqual(runtime, "the bot's answer to /ping", answer.data?.content, `pong from ${botName}`);
    const closing = performance.now();
    child.stdin.end('close\n');
    await step(runtime, 'client.close()', lineFor('closed'));
    // No process.exit in the bot: it exits only once close() left no socket, timer or pool open.
    const { code, signal } = await step(runtime, 'exit on its own after close()', exited, 10_000);
    expectEqual(runtime, `the bot's exit (signal ${signal}; stderr: ${stderr.trim() || 'empty'})`, code, 0);
    const errors = lines.filter((line) => line.step === 'error');
    if (errors.length > 0) throw new Error(`${runtime}: the Gateway reported errors: ${JSON.stringify(errors)}`);
    return `REST call, /ping answered over the Gateway, closed and exited by itself ${Math.round(performance.now() - closing)} ms after close (${Math.round(performance.now() - started)} ms in all)`;
  };
  // Whatever happened: the bot is killed if still running, and the emulator closed, each within its deadline.
  return withCleanup(runtime, scenario, () => [
    ...(child.exitCode === null && child.signalCode === null
      ? [
          [
            'kill the bot',
            () => {
              child.kill('SIGKILL');
              return exited;
            },
          ],
        ]
      : []),
    ['close the emulator', close],
  ]);
}
