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

/** A fresh emulator with the /ping command registered, an owner's client, and the bot's name (as GET /users/@me gives it on Node). */
export async function startEmulatorWithPing() {
  const emulator = await createEmulator();
  const { seed } = emulator;
  const admin = new Client({ baseUrl: emulator.url });
  const bot = new Client({ baseUrl: emulator.url, auth: { botToken: seed.botToken } });
  try {
    await admin.auth.login({ email: seed.user.email, password: seed.user.password });
    await admin.commands.create(seed.applicationId, { name: 'ping', description: 'Answers pong' });
    const botName = (await bot.users.getMe()).username;
    return {
      emulator,
      admin,
      botName,
      async close() {
        await admin.close();
        await emulator.close();
      },
    };
  } finally {
    await bot.close();
  }
}
