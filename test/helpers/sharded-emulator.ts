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
 * DMs), so a test can tell the two apart.
 */
export async function startShardedEmulator(options: EmulatorOptions & { guildNotOnShard0?: boolean } = {}): Promise<Emulator> {
  const { guildNotOnShard0, ...emulatorOptions } = options;
  const count = emulatorOptions.gateway?.shards ?? 1;
  for (let attempt = 0; ; attempt++) {
    const emulator = await createEmulator(emulatorOptions);
    const shard = Number((BigInt(emulator.seed.guildId) >> 22n) % BigInt(count));
    if (guildNotOnShard0 === true && shard === 0 && count > 1 && attempt < 20) {
      await emulator.close();
      // The next community id gets a later timestamp.
      await new Promise((resolve) => setTimeout(resolve, 1 + attempt));
      continue;
    }
    const admin = new Client({ baseUrl: emulator.url });
    await admin.auth.login({ email: emulator.seed.user.email, password: emulator.seed.user.password });
    await admin.commands.replace(emulator.seed.applicationId, [{ name: 'ping', description: 'Ping', dm_permission: true }]);
    await admin.close();
    return emulator;
  }
}
