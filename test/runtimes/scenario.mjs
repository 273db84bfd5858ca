// What every runtimes scenario shares: an emulator with a /ping command, steps with deadlines that
// say which step of which runtime failed, and the bot's name as the emulator knows it.
import { Client } from '../../dist/index.js';
import { createEmulator } from '../../dist/testing/index.js';

/** How long one step may take before the scenario fails naming it. */
export const STEP_MS = 20_000;

/** Runs `promise` as `step` of `runtime`'s scenario: rejects naming both when it takes longer than `ms`. */
export async function step(runtime, name, promise, ms = STEP_MS) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${runtime}: "${name}" did not finish within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } catch (error) {
    throw error instanceof Error && error.message.startsWith(`${runtime}:`) ? error : new Error(`${runtime}: "${name}" failed: ${error?.stack ?? error}`);
  } finally {
    clearTimeout(timer);
  }
}

/** Throws naming the runtime and what was expected when `actual` is not `expected`. */
export function expectEqual(runtime, what, actual, expected) {
  if (actual !== expected) throw new Error(`${runtime}: ${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
}

/** How long one cleanup step (disposing a Worker, closing the emulator) may take. */
export const CLEANUP_MS = 10_000;

/**
 * Runs `body`, then each of `cleanups()` (`[name, run]` pairs) with a deadline of its own, whatever `body` did.
 * A cleanup that fails or hangs fails the scenario naming it; when `body` failed too, its error is kept and the
 * cleanup's is added to its message.
 */
export async function withCleanup(runtime, body, cleanups) {
  let outcome;
  try {
    outcome = { value: await body() };
  } catch (error) {
    outcome = { error };
  }
  const problems = [];
  for (const [name, run] of cleanups()) {
    try {
      await step(runtime, name, Promise.resolve().then(run), CLEANUP_MS);
    } catch (error) {
      problems.push(error.message);
    }
  }
  if ('error' in outcome) {
    if (problems.length > 0 && outcome.error instanceof Error) outcome.error.message += ` (and in cleanup: ${problems.join('; ')})`;
    throw outcome.error;
  }
  if (problems.length > 0) throw new Error(problems.join('; '));
  return outcome.value;
}

/** A fresh emulator with the /ping command registered, an owner's client, and the bot's name (as GET /users/@me gives it on Node); each step named under `runtime`. */
export async function startEmulatorWithPing(runtime) {
  const emulator = await step(runtime, 'start the emulator', createEmulator());
  const { seed } = emulator;
  const admin = new Client({ baseUrl: emulator.url });
  const bot = new Client({ baseUrl: emulator.url, auth: { botToken: seed.botToken } });
  const close = async () => {
    await admin.close();
    await emulator.close();
  };
  try {
    await step(runtime, "log in as the emulator's owner", admin.auth.login({ email: seed.user.email, password: seed.user.password }));
    await step(runtime, 'register /ping', admin.commands.create(seed.applicationId, { name: 'ping', description: 'Answers pong' }));
    const botName = (await step(runtime, "read the bot's name (GET /users/@me on Node)", bot.users.getMe())).username;
    return { emulator, admin, botName, close };
  } catch (error) {
    await step(runtime, 'close the emulator after a failed start', close(), CLEANUP_MS).catch(() => {});
    throw error;
  } finally {
    await step(runtime, "close the Node client that read the bot's name", bot.close(), CLEANUP_MS);
  }
}
