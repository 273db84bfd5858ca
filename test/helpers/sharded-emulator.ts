/**
 * An emulator whose Gateway shards (Discord's rules), with a global `ping`
 * command usable in the community and in DMs, and helpers to reason about
 * which shard owns what.
 */
import { Client } from '../../src/index.js';
import { createEmulator, type Emulator, type EmulatorOptions } from '../../src/testing/index.js';

/** A community id owned by `shard` of `count` (its snowflake timestamp is `shard` ms after the epoch, plus whole rounds). */
export function guildIdOnShard(shard: number, count: number, round = 1): string {
  return String((BigInt(round * count + shard) << 22n) | 5n);
}

/**
 * Starts an emulator with `gateway` sharding options and registers the
 * global `ping` command (DM-allowed). With `guildNotOnShard0`, emulators are
 * started until the seeded community is not owned by shard 0 (which owns
 * DMs), so a test can tell the two apart. With `guildOnShard`, emulators are
 * started until the seeded community is owned by that shard (the emulator
 * seeds exactly one community and has no API to add another, so a test
 * that needs communities on several shards starts one emulator per shard).
 */
export async function startShardedEmulator(options: EmulatorOptions & { guildNotOnShard0?: boolean; guildOnShard?: number } = {}): Promise<Emulator> {
  const { guildNotOnShard0, guildOnShard, ...emulatorOptions } = options;
  const count = emulatorOptions.gateway?.shards ?? 1;
  for (let attempt = 0; ; attempt++) {
    const emulator = await createEmulator(emulatorOptions);
    const shard = Number((BigInt(emulator.seed.guildId) >> 22n) % BigInt(count));
    const wrong = guildOnShard !== undefined ? shard !== guildOnShard : guildNotOnShard0 === true && shard === 0 && count > 1;
    if (wrong) {
      await emulator.close();
      if (guildOnShard !== undefined && attempt >= 200)
        throw new Error(`startShardedEmulator: no seeded community on shard ${guildOnShard} of ${count} after ${attempt + 1} emulators`);
      if (guildOnShard === undefined && attempt >= 20) return startShardedEmulator(emulatorOptions);
      // The next community id gets a later timestamp.
      await new Promise((resolve) => setTimeout(resolve, 1 + (attempt % 3)));
      continue;
    }
    const admin = new Client({ baseUrl: emulator.url });
    await admin.auth.login({ email: emulator.seed.user.email, password: emulator.seed.user.password });
    await admin.commands.replace(emulator.seed.applicationId, [{ name: 'ping', description: 'Ping', dm_permission: true }]);
    await admin.close();
    return emulator;
  }
}
