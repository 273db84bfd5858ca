/**
 * Emulators started by a test file and closed after each test.
 */
import { afterEach } from 'vitest';
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
