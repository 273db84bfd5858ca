/**
 * More communities, channels and members than the seed: for tests of
 * sharding and of per-community order, each community's snowflake can be
 * chosen, or derived so that it lands on a chosen shard (Discord's rule:
 * `(guild_id >> 22) % shard_count`).
 *
 * @module
 */

import { refuseUnknownOptions, checkCount } from '../../core/bounds.js';
import { shardOfGuild } from '../../gateway/protocol.js';
import { ValidationError } from '../../errors/local.js';
import { EmulatorNotFoundError } from '../errors.js';
import { guildCreate } from './gateway-info.js';
import type { EmulatorState, Guild } from './state.js';

/** The most shards a community may be placed for (the emulator's Gateway bound). */
const MAX_SHARD_COUNT = 4096;
/** A snowflake: a decimal string of at most 20 digits. */
const SNOWFLAKE = /^\d{1,20}$/;

/** What to create with `emulator.createCommunity`. */
export interface CommunityInput {
  /** Its name. @default "Community <n>" */
  name?: string | undefined;
  /** Its snowflake, chosen. @default one derived from the clock (on `shard` when given) */
  id?: string | undefined;
  /** Derive the snowflake so that the community lands on shard `id` of `count` (ignored with `id`). @default undefined */
  shard?:
    | {
        /** The shard, 0 to `count - 1`. */
        readonly id: number;
        /** The shard count, 1 to 4096. */
        readonly count: number;
      }
    | undefined;
  /** Its text channels' names; the first is returned as `channelId`. @default ["general"] */
  channels?: readonly string[] | undefined;
  /** Whether the seeded application's bot is in it (it then gets GUILD_CREATE on its sessions). @default true */
  withBot?: boolean | undefined;
}

/** A community created by `emulator.createCommunity`. */
export interface CreatedCommunity {
  /** Its snowflake. */
  guildId: string;
  /** Its first channel's id. */
  channelId: string;
  /** Every channel's id, in the order of `channels`. */
  channelIds: string[];
  /** The shard it lands on among `count` shards: `(guild_id >> 22) % count`. */
  shardOf(count: number): number;
}

/** A fresh snowflake moved (in its timestamp part) onto shard `shard.id` of `shard.count`. */
function onShard(fresh: string, shard: { id: number; count: number }): string {
  const id = BigInt(fresh);
  const count = BigInt(shard.count);
  const stamp = id >> 22n;
  let moved = stamp - (stamp % count) + BigInt(shard.id);
  if (moved < stamp) moved += count;
  return ((moved << 22n) | (id & ((1n << 22n) - 1n))).toString();
}

/** Creates a community (see {@link CommunityInput}); the bot's connected sessions of its shard get GUILD_CREATE. */
export function createCommunity(state: EmulatorState, input: CommunityInput): CreatedCommunity {
  refuseUnknownOptions('emulator.createCommunity', input, ['name', 'id', 'shard', 'channels', 'withBot']);
  const { shard } = input;
  if (shard !== undefined) {
    checkCount('emulator.createCommunity', 'shard.count', shard.count, { min: 1, max: MAX_SHARD_COUNT });
    checkCount('emulator.createCommunity', 'shard.id', shard.id, { max: shard.count - 1 });
  }
  if (input.id !== undefined && (!SNOWFLAKE.test(input.id) || BigInt(input.id) >= 2n ** 64n)) {
    throw new ValidationError('emulator.createCommunity', [
      { path: 'id', message: `must be a snowflake, a decimal string below 2^64 (got ${JSON.stringify(input.id)})` },
    ]);
  }
  const guildId = input.id ?? (shard === undefined ? state.id() : onShard(state.id(), shard));
  if (state.guilds.has(guildId)) throw new ValidationError('emulator.createCommunity', [{ path: 'id', message: `community ${guildId} already exists` }]);
  const owner = state.seed.user.id;
  const app = state.apps.get(state.seed.applicationId);
  const guild: Guild = {
    id: guildId,
    name: input.name ?? `Community ${state.guilds.size + 1}`,
    ownerId: owner,
    members: new Map([[owner, { manageWebhooks: true }]]),
    botApplications: new Set(input.withBot === false || app === undefined ? [] : [app.id]),
  };
  state.guilds.set(guildId, guild);
  const names = input.channels ?? ['general'];
  if (names.length === 0) throw new ValidationError('emulator.createCommunity', [{ path: 'channels', message: 'needs at least one channel name' }]);
  const channelIds = names.map((name) => state.addChannel(guildId, name).id);
  if (app !== undefined && guild.botApplications.has(app.id)) state.gateway?.dispatchToToken(app.bot.token, 'GUILD_CREATE', guildCreate(state, guild, app));
  state.notify({ kind: 'change' });
  return { guildId, channelId: channelIds[0] as string, channelIds, shardOf: (count) => shardOfGuild(guildId, count) };
}

/** Adds a member to a community: an existing user, or a new one named `username` (act as it with `userId`); returns the user's id. */
export function addMember(state: EmulatorState, guildId: string, input: { userId?: string | undefined; username?: string | undefined } = {}): string {
  refuseUnknownOptions('emulator.addMember', input, ['userId', 'username']);
  const guild = state.guilds.get(guildId);
  if (!guild) throw new EmulatorNotFoundError(`unknown community ${guildId}`);
  let userId = input.userId;
  if (userId !== undefined && !state.users.has(userId)) throw new EmulatorNotFoundError(`unknown user ${userId}`);
  if (userId === undefined) {
    const username = input.username ?? `user${state.users.size + 1}`;
    userId = state.addUser(`${username}@example.test`, state.token(), username).id;
  }
  guild.members.set(userId, { manageWebhooks: false });
  state.notify({ kind: 'change' });
  return userId;
}
