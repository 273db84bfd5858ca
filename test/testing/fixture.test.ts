import { describe, expect, it } from 'vitest';
import { EmulatorError, useEmulator } from '../../src/testing/index.js';

/** Hooks recorded instead of registered, so the test runs them in order itself. */
function recordedHooks() {
  const all: Record<'beforeAll' | 'afterAll' | 'beforeEach', (() => unknown)[]> = { beforeAll: [], afterAll: [], beforeEach: [] };
  return {
    hooks: {
      beforeAll: (fn: () => Promise<void>) => void all.beforeAll.push(fn),
      afterAll: (fn: () => Promise<void>) => void all.afterAll.push(fn),
      beforeEach: (fn: () => void) => void all.beforeEach.push(fn),
    },
    run: async (name: keyof typeof all) => {
      for (const fn of all[name]) await fn();
    },
  };
}

describe('useEmulator', () => {
  it('starts an emulator and a connected bot with its commands, resets before each test, closes after all', async () => {
    const { hooks, run } = recordedHooks();
    const kit = useEmulator(hooks, {
      commands: [{ name: 'ping', description: 'Ping' }],
      bot: (client) => client.gateway.onCommand('ping', (interaction) => interaction.reply('pong')),
    });
    expect(() => kit.emulator).toThrow(EmulatorError);
    await run('beforeAll');
    try {
      const { emulator } = kit;
      expect(emulator.isBotConnected()).toBe(true);
      expect((await emulator.invokeCommand({ name: 'ping' }).response).data).toEqual({ content: 'pong' });
      expect(emulator.messages()).toHaveLength(1);
      await run('beforeEach');
      expect(emulator.messages()).toEqual([]);
      expect((await emulator.invokeCommand({ name: 'ping' }).response).data).toEqual({ content: 'pong' });
    } finally {
      await run('afterAll');
    }
    expect(() => kit.bot).toThrow(/inside a test or a hook/);
  });
});
