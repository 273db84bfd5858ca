/**
 * Emulators started by a test file and closed after each test.
 */
import { afterEach } from 'vitest';
import { Client } from '../../src/index.js';
import { createEmulator, type Emulator, type EmulatorOptions } from '../../src/testing/index.js';

/** Returns `start(options)`, which starts an emulator closed after the current test. Call it at the top of a test file. */
export function useEmulators(): (options?: EmulatorOptions) => Promise<Emulator> {
  const running: Emulator[] = [];
  afterEach(async () => {
    for (const emulator of running.splice(0)) await emulator.close();
  });
  return async (options = {}) => {
    const emulator = await createEmulator(options);
    running.push(emulator);
    return emulator;
  };
}

/**
 * Returns `start(options)`, which starts an emulator and an admin `Client`
 * logged in as the seed's user, both closed after the current test. Call it
 * at the top of a test file.
 */
export function useEmulatorWithAdmin(): (options?: EmulatorOptions) => Promise<{ emulator: Emulator; admin: Client }> {
  const running: (Emulator | Client)[] = [];
  afterEach(async () => {
    for (const item of running.splice(0).reverse()) await item.close();
  });
  return async (options = {}) => {
    const emulator = await createEmulator(options);
    running.push(emulator);
    const admin = new Client({ baseUrl: emulator.url });
    running.push(admin);
    await admin.auth.login({ email: emulator.seed.user.email, password: emulator.seed.user.password });
    return { emulator, admin };
  };
}
