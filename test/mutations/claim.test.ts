/**
 * The interaction claim's rules that the mutation measure (`npm run mutate`, area `claim`) found unguarded: each test
 * names the rule, on a real Redis where the rule is the script's.
 */
import { expect, it } from 'vitest';
import { INTERACTION_LIFETIME_MS } from '../../src/core/constants.js';
import { sendCommand } from '../../src/redis/connection.js';
import { acquireClaim, type ClaimScriptRunner, markAnswered } from '../../src/redis/interaction-claim.js';
import { describeWithRedis, useRedis } from '../helpers/redis-server.js';

describeWithRedis('the interaction claim (mutation guards)', () => {
  const redis = useRedis();
  const run: ClaimScriptRunner = (script, keys, args) => script.run(redis.connection, keys, args);
  let n = 0;
  const fresh = () => ({ claim: `{mut-claims-${++n}}:i:1` });
  const pttl = async (key: string) => Number(await sendCommand(redis.connection, key, ['PTTL', key]));

  it("a claim key, and an answered mark, outlive the interaction's 15 minutes (a TTL in milliseconds, not seconds)", async () => {
    const keys = fresh();
    await acquireClaim(run, keys, 'a', 10_000);
    expect(await pttl(keys.claim), 'the claim key lives past the interaction').toBeGreaterThan(INTERACTION_LIFETIME_MS);
    await markAnswered(run, keys);
    expect(await pttl(keys.claim), 'the answered mark lives past the interaction').toBeGreaterThan(INTERACTION_LIFETIME_MS);
  });
});
