/**
 * More communities than the seed: chosen or derived snowflakes, channels and
 * members, and each community's events on the shard Discord's rule gives.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Client, shardOfGuild, isCommunityChatError } from '../../../src/index.js';
import { useEmulator } from '../../../src/testing/index.js';

/** The shard each interaction reached the bot on, by interaction id. */
const shardOfInteraction = new Map<string, number>();

describe('communities on chosen shards', () => {
  const kit = useEmulator(
    { beforeAll, afterAll, beforeEach },
    {
      emulator: { gateway: { shards: 2, maxConcurrency: 2 } },
      commands: [{ name: 'where', description: 'where' }],
      connect: false,
    },
  );
  let bot: Client | undefined;
  beforeAll(async () => {
    // A sharded bot: both shards of the emulator's recommendation.
    bot = new Client({ baseUrl: kit.emulator.url, auth: { botToken: kit.emulator.seed.botToken }, gateway: { shards: 'auto' } });
    bot.gateway.on('interactionCreate', (interaction, shardId) => void shardOfInteraction.set(interaction.id, shardId));
    bot.gateway.onCommand('where', (interaction) => interaction.reply(`in ${interaction.guildId}`));
    await bot.gateway.connect();
  });
  afterAll(() => bot?.close());

  it('a community derived onto shard 0 or 1 of 2 gets its interactions on that shard', async () => {
    expect(bot?.gateway.shardCount).toBe(2);
    for (const shard of [0, 1]) {
      const community = kit.emulator.core.createCommunity({ name: `on ${shard}`, shard: { id: shard, count: 2 }, channels: ['general', 'random'] });
      expect(community.shardOf(2)).toBe(shard);
      expect(shardOfGuild(community.guildId, 2)).toBe(shard);
      expect(community.channelIds).toHaveLength(2);
      const run = kit.emulator.invokeCommand({ name: 'where', guildId: community.guildId, channelId: community.channelIds[1] });
      expect((await run.response).data).toEqual({ content: `in ${community.guildId}` });
      expect(shardOfInteraction.get(run.id), `interaction in community ${community.guildId}`).toBe(shard);
      expect(kit.emulator.messages(community.channelIds[1]).map((message) => message.content)).toEqual([`in ${community.guildId}`]);
    }
  });

  it('a chosen snowflake is kept; a member added can run commands there; bad input is refused', async () => {
    const community = kit.emulator.core.createCommunity({ id: '4194304' });
    expect(community.guildId).toBe('4194304');
    expect(community.shardOf(2)).toBe(1);
    const userId = kit.emulator.core.addMember(community.guildId, { username: 'ada' });
    const run = kit.emulator.invokeCommand({ name: 'where', guildId: community.guildId, userId });
    expect(run.payload['member']).toMatchObject({ user: { id: userId, username: 'ada' } });
    await run.response;
    for (const bad of [{ id: '4194304' }, { id: 'abc' }, { shard: { id: 2, count: 2 } }, { shards: 2 }]) {
      let thrown: unknown;
      try {
        kit.emulator.core.createCommunity(bad as never);
      } catch (error) {
        thrown = error;
      }
      expect(isCommunityChatError(thrown, 'ValidationError'), `createCommunity(${JSON.stringify(bad)}) threw ${String(thrown)}`).toBe(true);
    }
  });
});
