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
      commands: [
        { name: 'ping', description: 'Ping' },
        { name: 'boom', description: 'Fails' },
      ],
      bot: (client) => {
        client.gateway.onCommand('ping', (interaction) => interaction.reply('pong'));
        client.gateway.onCommand('boom', () => {
          throw new Error('no quiz today');
        });
      },
    });
    expect(() => kit.emulator).toThrow(EmulatorError);
    await run('beforeAll');
    try {
      const { emulator } = kit;
      expect(emulator.isBotConnected()).toBe(true);
      expect((await emulator.invokeCommand({ name: 'ping' }).response).data).toEqual({ content: 'pong' });
      expect(emulator.messages()).toHaveLength(1);
      // A handler that throws is recorded for the test; the next test starts with none.
      const thrown = kit.waitForInteractionError();
      emulator.invokeCommand({ name: 'boom' }).response.catch(() => undefined);
      expect(String((await thrown).error)).toContain('no quiz today');
      expect(kit.interactionErrors).toHaveLength(1);
      await run('beforeEach');
      expect(kit.interactionErrors).toEqual([]);
      await expect(kit.waitForInteractionError({ timeoutMs: 50 })).rejects.toThrow(EmulatorError);
      expect(emulator.messages()).toEqual([]);
      expect((await emulator.invokeCommand({ name: 'ping' }).response).data).toEqual({ content: 'pong' });
    } finally {
      await run('afterAll');
    }
    expect(() => kit.bot).toThrow(/inside a test or a hook/);
  });
});
