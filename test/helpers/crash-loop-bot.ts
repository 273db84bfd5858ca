/**
 * A bot process that crashes on start, for the restart-loop test: it
 * connects to the emulator at BASE_URL and, once READY, dies (exit 1,
 * nothing closed or saved), as a process with a bad deploy does. When the
 * session start budget guard refuses its Identify it prints
 * `held back <resetAfterMs>` and exits 2, which a supervisor can tell from a
 * crash (back off until the budget resets instead of restarting).
 */
import { Client, isCommunityChatError } from '../../src/index.js';

const client = new Client({ baseUrl: process.env['BASE_URL'], auth: { botToken: process.env['BOT_TOKEN'] } });
try {
  await client.gateway.connect();
  console.log('ready');
  process.exit(1);
} catch (error) {
  if (!isCommunityChatError(error, 'SessionBudgetError')) throw error;
  console.log(`held back ${error.resetAfterMs}`);
  process.exit(2);
}
