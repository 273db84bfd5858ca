/**
 * One install function for both test set-ups: `useEmulator({ bot })` passes
 * a Client, `createTestGateway({ bot })` a test gateway; both have the
 * `gateway` the function registers on.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isCommunityChatError } from '../../src/index.js';
import { type BotHost, createTestGateway, useEmulator } from '../../src/testing/index.js';

/** A bot's install function, written once. */
function installBot(bot: BotHost): void {
  bot.gateway.onCommand('hello', (interaction) => interaction.reply(`hello from ${interaction.commandName}`));
}

describe('one install function', () => {
  const kit = useEmulator({ beforeAll, afterAll, beforeEach }, { commands: [{ name: 'hello', description: 'hello' }], bot: installBot });

  it('serves useEmulator (a Client) and createTestGateway (a test gateway) alike', async () => {
    expect((await kit.emulator.invokeCommand({ name: 'hello' }).response).data).toEqual({ content: 'hello from hello' });
    const test = createTestGateway({ bot: installBot });
    const { responses, errors } = await test.invoke({ name: 'hello' });
    expect(errors).toEqual([]);
    expect(responses).toEqual([{ interaction_type: 4, data: { content: 'hello from hello' } }]);
  });

  it('kit.emulator.invokeCommand takes the names of the commands the kit registered: a misspelt one does not compile', () => {
    // @ts-expect-error 'helo' is not a command the kit registered (tsc checks this line)
    const misspelt = () => kit.emulator.invokeCommand({ name: 'helo' });
    expect(misspelt).toThrow(/no command "helo" is registered/);
  });

  it('createTestGateway refuses an unknown option', () => {
    let thrown: unknown;
    try {
      createTestGateway({ bots: installBot } as never);
    } catch (error) {
      thrown = error;
    }
    expect(isCommunityChatError(thrown, 'ValidationError')).toBe(true);
    expect(String(thrown)).toMatch(/bots.*not an option of createTestGateway/);
  });
});
