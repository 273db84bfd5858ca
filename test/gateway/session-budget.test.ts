/**
 * The session start budget: an Identify is never sent when the starts left
 * today (`session_start_limit` of GET /gateway/bot, the service's count) are
 * down to the reserve; a restart loop stops there instead of running the
 * budget out (which gets a bot's token reset).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Client, SessionBudgetError, isCommunityChatError } from '../../src/index.js';
import { MAX_SESSION_RESET_MS, SessionBudget, defaultReserve, readSessionStartLimit } from '../../src/gateway/session-budget.js';
import { createEmulator, type Emulator } from '../../src/testing/index.js';
import { startLoopbackServer, startScript } from '../helpers/index.js';
import { behaveWell, startWsServer, until } from '../helpers/ws-server.js';

const limit = (remaining: number, total = 1000, resetAfter = 60_000) => ({
  session_start_limit: { total, remaining, reset_after: resetAfter, max_concurrency: 1 },
});

describe('SessionBudget', () => {
  it('reads session_start_limit, and refuses below the reserve with the time until the reset', async () => {
    expect(readSessionStartLimit(limit(7, 10, 500))).toEqual({ total: 10, remaining: 7, resetAfterMs: 500 });
    expect(readSessionStartLimit({ session_start_limit: { total: 10, remaining: 11, reset_after: 0 } })).toBeUndefined();
    expect(readSessionStartLimit({ shards: 1 })).toBeUndefined();
    expect([defaultReserve(1000), defaultReserve(10), defaultReserve(1)]).toEqual([50, 1, 1]);
    let remaining = 5;
    const budget = new SessionBudget(
      async () => limit(remaining, 10, 90_000),
      3,
      () => 1_000,
      () => undefined,
    );
    await expect(budget.take()).resolves.toBeUndefined();
    remaining = 3;
    const refused = await budget.take().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SessionBudgetError);
    expect(refused).toMatchObject({ remaining: 3, total: 10, reserve: 3, resetAfterMs: 90_000 });
    expect((refused as Error).message).toMatch(/3 of 10 session starts are left today, and 3 are kept in reserve .* resets in 90 s/);
  });

  it('clamps a reset_after past a day (3e9 would be a 1 ms timer asking GET /gateway/bot in a loop)', async () => {
    expect(readSessionStartLimit(limit(7, 10, 3e9))?.resetAfterMs).toBe(MAX_SESSION_RESET_MS);
    const service = await startLoopbackServer((_request, response) => {
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ url: 'ws://unused', shards: 1, ...limit(1, 1000, 3e9) }));
    });
    const ws = await startWsServer(behaveWell);
    const client = new Client({ baseUrl: service.url, auth: { botToken: 'budget-bot.Tk1' }, gateway: { url: ws.url } });
    const delays: number[] = [];
    client.gateway.on('reconnecting', (event) => delays.push(event.delayMs));
    try {
      const error = await client.gateway.connect().catch((e: unknown) => e);
      expect(isCommunityChatError(error, 'SessionBudgetError'), String(error)).toBe(true);
      expect((error as SessionBudgetError).resetAfterMs).toBe(MAX_SESSION_RESET_MS);
      await until(() => delays.length > 0);
      expect(delays, 'the retry waits for the (clamped) reset, once').toEqual([MAX_SESSION_RESET_MS]);
      expect(service.requests.filter((request) => request.url.endsWith('/gateway/bot'))).toHaveLength(1);
    } finally {
      await client.close();
      await ws.close();
      await service.close();
    }
  });

  it('when the service cannot be asked, counts down from what it said last; with nothing known, identifies', async () => {
    let now = 0;
    let answer: (() => Promise<unknown>) | undefined = async () => limit(6, 10, 1000);
    const lines: string[] = [];
    const budget = new SessionBudget(
      () => (answer ? answer() : Promise.reject(new Error('down'))),
      3,
      () => now,
      (line) => lines.push(line),
    );
    await budget.take(); // 6 left: one spent, 5 known
    answer = undefined;
    await budget.take(); // 5 known: one spent, 4
    await budget.take(); // 4 known: one spent, 3
    await expect(budget.take()).rejects.toBeInstanceOf(SessionBudgetError);
    now = 1000; // the known count has reset: unknown again
    await expect(budget.take()).resolves.toBeUndefined();
    expect(lines).toEqual(['the session start budget is unknown (GET /gateway/bot did not say): identifying']);
  });
});

describe('a restart loop against the emulator', () => {
  const running: (Emulator | Client)[] = [];
  afterEach(async () => {
    for (const item of running.splice(0).reverse()) await item.close();
  });

  /** Starts a bot process's Client 20 times in a row, each connecting then closing; returns what each connect() did. */
  async function restartLoop(emulator: Emulator, sessionStartReserve: number | false): Promise<string[]> {
    const outcomes: string[] = [];
    for (let run = 0; run < 20; run++) {
      const client = new Client({ baseUrl: emulator.url, auth: { botToken: emulator.seed.botToken }, gateway: { sessionStartReserve } });
      const outcome = await client.gateway.connect().then(
        () => 'ready',
        (error: unknown) =>
          isCommunityChatError(error, 'SessionBudgetError')
            ? 'held back'
            : isCommunityChatError(error, 'GatewayFatalError')
              ? `refused ${error.code}`
              : String(error),
      );
      outcomes.push(outcome);
      await client.close();
    }
    return outcomes;
  }

  it('stops identifying at the reserve with SessionBudgetError: the budget is never run out', async () => {
    const emulator = await createEmulator({ gateway: { sessionStartLimit: 10, identifyIntervalMs: 0 } });
    running.push(emulator);
    const outcomes = await restartLoop(emulator, 3);
    expect(outcomes).toEqual([...Array(7).fill('ready'), ...Array(13).fill('held back')]);
    expect(emulator.gatewayStats.counts.identifies).toBe(7);
    expect(emulator.gatewayStats.sessionStartsRefused).toBe(0);
  });

  it('contrast: with the guard off, the loop runs the budget out and the service refuses the bot (4004)', async () => {
    const emulator = await createEmulator({ gateway: { sessionStartLimit: 10, identifyIntervalMs: 0 } });
    running.push(emulator);
    const outcomes = await restartLoop(emulator, false);
    expect(outcomes.slice(0, 10)).toEqual(Array(10).fill('ready'));
    expect(outcomes.slice(10)).toEqual(Array(10).fill('refused 4004'));
    expect(emulator.gatewayStats.sessionStartsRefused).toBe(10);
  });
});

describe('a restart loop of real processes', () => {
  it('a process crashing on start, restarted 50 times: Identify stops at the reserve, the budget is never run out', async () => {
    const emulator = await createEmulator({ gateway: { sessionStartLimit: 30, identifyIntervalMs: 0 } });
    try {
      const exits: (number | null)[] = [];
      for (let run = 0; run < 50; run++) {
        const bot = await startScript('test/helpers/crash-loop-bot.ts', { env: { BASE_URL: emulator.url, BOT_TOKEN: emulator.seed.botToken } });
        exits.push(await bot.exited);
      }
      // The default reserve is 5% of 30 (2): 28 starts, then every start is held back with SessionBudgetError (exit 2).
      expect(exits).toEqual([...Array(28).fill(1), ...Array(22).fill(2)]);
      expect(emulator.gatewayStats.counts.identifies).toBe(28);
      expect(emulator.gatewayStats.sessionStartsRefused).toBe(0);
    } finally {
      await emulator.close();
    }
  }, 180_000);
});
