/**
 * The emulator as a server (createEmulator): the seed's webhook URL and
 * typed errors, the clock shared with the SDK, the command's --help, and its
 * lifecycle (waiting for the bot, disposal with await using).
 */
import { connect } from 'node:net';
import { useEmulatorWithAdmin } from '../../helpers/emulators.js';
import { afterEach, describe, expect, it } from 'vitest';
import { Client, InteractionExpiredError, WebhookClient, type CommandInteraction } from '../../../src/index.js';
import { createEmulator, EmulatorError, EmulatorInteractionExpiredError, EmulatorUnknownCommandError, GatewayServer } from '../../../src/testing/index.js';
import { startRawLoopbackServer, startScript } from '../../helpers/index.js';
import { until } from '../../helpers/until.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

const start = useEmulatorWithAdmin();

describe('the emulator kit', () => {
  it('seed.webhookUrl is the incoming webhook’s execution URL under the emulator’s address', async () => {
    const { emulator } = await start();
    const { seed } = emulator;
    expect(seed.webhookUrl).toBe(`${emulator.url}/api/v1/webhooks/${seed.webhook.id}/${seed.webhook.token}`);
    const hook = new WebhookClient(seed.webhookUrl);
    await hook.execute({ content: 'via seed.webhookUrl' });
    await hook.close();
    expect(emulator.messages().at(-1)?.content).toBe('via seed.webhookUrl');
  });

  it('an unknown command is a typed error listing the registered commands', async () => {
    const { emulator, admin } = await start();
    await admin.commands.create(emulator.seed.applicationId, { name: 'quiz', description: 'Quiz' });
    await admin.commands.create(emulator.seed.applicationId, { name: 'score', description: 'Score' });
    let thrown: unknown;
    try {
      emulator.invokeCommand({ name: 'qiuz' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(EmulatorUnknownCommandError);
    expect(thrown).toBeInstanceOf(EmulatorError);
    expect(thrown).toMatchObject({ command: 'qiuz', registered: ['quiz', 'score'] });
    expect(String((thrown as Error).message)).toMatch(/no command "qiuz".*registered: \/quiz, \/score/);
  });

  it('answers 400 to a command named "Bad Name" sent raw, past the SDK’s own check', async () => {
    const { emulator, admin } = await start();
    const sent = await fetch(`${emulator.url}/api/v1/applications/${emulator.seed.applicationId}/commands`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${String(admin.session.accessToken)}` },
      body: JSON.stringify({ name: 'Bad Name', description: 'd' }),
    });
    expect(sent.status).toBe(400);
    expect(await sent.json()).toMatchObject({ errors: { name: expect.any(String) } });
    expect(await admin.commands.list(emulator.seed.applicationId)).toEqual([]);
  });
});

describe('the emulator clock, shared with the SDK', () => {
  it('with clock: emulator.clock, reply() after advanceTime(16 min) fails locally as expired, and invokeCommand().response rejects typed', async () => {
    const { emulator, admin } = await start();
    await admin.commands.create(emulator.seed.applicationId, { name: 'slow', description: 'Slow' });
    const bot = new Client({ baseUrl: emulator.url, auth: { botToken: emulator.seed.botToken }, clock: emulator.clock });
    cleanup.push(() => bot.close());
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    let handlerStarted: () => void = () => undefined;
    const started = new Promise<void>((resolve) => (handlerStarted = resolve));
    const replied = new Promise<unknown>((resolve) => {
      bot.gateway.onCommand('slow', async (interaction: CommandInteraction) => {
        handlerStarted();
        await released;
        resolve(await interaction.reply('too late').catch((error: unknown) => error));
      });
    });
    await bot.gateway.connect();
    const invoked = emulator.invokeCommand({ name: 'slow' });
    await started;
    emulator.advanceTime(16 * 60_000);
    await expect(invoked.response).rejects.toBeInstanceOf(EmulatorInteractionExpiredError);
    await expect(invoked.response).rejects.toMatchObject({ interactionId: invoked.id });
    release();
    const error = await replied;
    expect(error).toBeInstanceOf(InteractionExpiredError);
    expect(String((error as Error).message)).toMatch(/age 16 min/);
    expect(invoked.callbacks()).toEqual([]);
  });

  it('clock: emulator.clock puts the session on the emulator’s time', async () => {
    const { emulator } = await start();
    emulator.advanceTime(24 * 60 * 60_000);
    const viaClock = new Client({ baseUrl: emulator.url, clock: emulator.clock });
    cleanup.push(() => viaClock.close());
    await viaClock.auth.login({ email: emulator.seed.user.email, password: emulator.seed.user.password });
    // The access token's expiry is computed on the client's clock: a day ahead of Date.now.
    const ahead = (viaClock.session.accessTokenExpiresAt ?? 0) - emulator.clock();
    expect(ahead).toBeGreaterThan(0);
    expect(ahead).toBeLessThanOrEqual(60 * 60_000);
  });

  it('with clock: emulator.clock, the session refreshes before expiry on the emulator’s time, with no 401', async () => {
    const { emulator } = await start();
    const user = new Client({ baseUrl: emulator.url, clock: emulator.clock });
    cleanup.push(() => user.close());
    const statuses: number[] = [];
    const triggers: string[] = [];
    user.on('response', (event) => void statuses.push(event.status));
    user.on('sessionRefreshed', (event) => void triggers.push(event.trigger));
    await user.auth.login({ email: emulator.seed.user.email, password: emulator.seed.user.password });
    emulator.advanceTime(15 * 60_000);
    await user.users.getMe();
    expect(triggers).toEqual(['expiry']);
    expect(statuses).not.toContain(401);
  });

  it('an interaction nobody answers and nobody awaits expires without an unhandled rejection', async () => {
    const { emulator, admin } = await start();
    await admin.commands.create(emulator.seed.applicationId, { name: 'ignored', description: 'Nobody answers' });
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    cleanup.push(async () => process.off('unhandledRejection', onUnhandled));
    emulator.invokeCommand({ name: 'ignored' });
    emulator.advanceTime(16 * 60_000);
    // Node reports an unhandled rejection once the microtasks of the turn have run: one full turn later, there was none.
    await new Promise((resolve) => setImmediate(resolve));
    expect(unhandled).toEqual([]);
  });
});

describe('the emulator CLI', () => {
  it('--help says how to stop it and that npx does not forward a SIGINT sent to its own pid', async () => {
    const cli = await startScript('src/testing/cli.ts', { args: ['--help'] });
    expect(await cli.exited).toBe(0);
    expect(cli.stdout()).toMatch(/Usage: community-chat-emulator/);
    expect(cli.stdout()).toMatch(/npx[\s\S]*not forwarded/);
  });
});

describe('lifecycle: waiting for the bot, disposal with await using', () => {
  const refused = (url: string): Promise<boolean> =>
    new Promise((resolve) => {
      const { hostname, port } = new URL(url);
      const socket = connect({ host: hostname, port: Number(port) });
      socket.once('connect', () => {
        socket.destroy();
        resolve(false);
      });
      socket.once('error', () => resolve(true));
    });

  it('waitForBot rejects with a typed EmulatorError when no bot connects in time', async () => {
    const { emulator } = await start();
    const error = await emulator.waitForBot({ timeoutMs: 30 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(EmulatorError);
    expect(String((error as Error).message)).toMatch(/no bot connected .* within 30 ms/);
  });

  it('the emulator and the Gateway test server close at the end of an await using scope (and a second close is harmless)', async () => {
    let emulatorUrl = '';
    let gatewayUrl = '';
    {
      await using emulator = await createEmulator();
      await using gateway = new GatewayServer();
      await gateway.listening();
      emulatorUrl = emulator.url;
      gatewayUrl = gateway.url;
      expect(await refused(emulatorUrl)).toBe(false);
      expect(await refused(gatewayUrl)).toBe(false);
    }
    expect(await refused(emulatorUrl)).toBe(true);
    expect(await refused(gatewayUrl)).toBe(true);
  });
});

describe('waitForIdle()', () => {
  it('rejects a timeoutMs that is not a duration from 1 ms to MAX_TIMER_MS, or an unknown option, with ValidationError', async () => {
    const { emulator } = await start();
    for (const timeoutMs of [Number.POSITIVE_INFINITY, -5, 0, Number.NaN, 2 ** 40])
      await expect(emulator.waitForIdle({ timeoutMs }), `timeoutMs ${timeoutMs}`).rejects.toMatchObject({
        name: 'ValidationError',
        message: expect.stringContaining('waitForIdle'),
      });
    await expect(emulator.waitForIdle({ timeout: 5 } as never)).rejects.toMatchObject({ name: 'ValidationError', message: expect.stringContaining('timeout') });
    await expect(emulator.waitForBot({ timeoutMs: -1 })).rejects.toMatchObject({ name: 'ValidationError', message: expect.stringContaining('waitForBot') });
    await expect(emulator.waitForIdle({ timeoutMs: 1000 })).resolves.toBeUndefined();
  });

  it('resolves once every interaction was answered, every delivery finished and no request is in flight; otherwise says what is pending', async () => {
    const { emulator, admin } = await start();
    await admin.commands.create(emulator.seed.applicationId, { name: 'slow', description: 'Slow' });
    await admin.commands.create(emulator.seed.applicationId, { name: 'never', description: 'Never answered' });
    const bot = new Client({ baseUrl: emulator.url, auth: { botToken: emulator.seed.botToken } });
    cleanup.push(() => bot.close());
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    bot.gateway.onCommand('slow', async (interaction) => {
      await released;
      await interaction.reply('done at last');
    });
    await bot.gateway.connect();

    const slow = emulator.invokeCommand({ name: 'slow' });
    let idle = false;
    const waiting = emulator.waitForIdle().then(() => (idle = true));
    // Not idle while the handler holds its answer: released only now, and idle only once the reply was recorded.
    await new Promise((resolve) => setImmediate(resolve));
    expect(idle).toBe(false);
    release();
    await waiting;
    expect(slow.callbacks()).toMatchObject([{ interaction_type: 4, data: { content: 'done at last' } }]);

    // A webhook delivery whose receiver has not answered yet keeps it busy too.
    let answerDelivery: (() => void) | undefined;
    const receiver = await startRawLoopbackServer((_request, response) => {
      answerDelivery = () => response.writeHead(200).end();
    });
    cleanup.push(() => receiver.close());
    const hook = await admin.applicationWebhooks.create(emulator.seed.applicationId, { url: `${receiver.url}/hook`, events: ['INTERACTION_CREATE'] });
    await admin.applicationWebhooks.test(emulator.seed.applicationId, String(hook.id));
    await expect(emulator.waitForIdle({ timeoutMs: 200 })).rejects.toThrow(/not idle within 200 ms: 1 webhook deliveries not finished/);
    const delivered = emulator.waitForIdle();
    // The receiver says nothing when the delivery arrives: polled.
    const answer = await until(() => answerDelivery, { what: 'the delivery reaching the receiver' });
    answer();
    await delivered;

    const never = emulator.invokeCommand({ name: 'never' });
    // Which interaction, which command, who and since when.
    await expect(emulator.waitForIdle({ timeoutMs: 200 })).rejects.toThrow(
      new RegExp(`not idle within 200 ms: interaction ${never.id} \\(/never by user ${emulator.seed.user.id}, delivered \\d+ ms ago\\) not answered`),
    );
  });
});

describe('emulator.dispatchEvent', () => {
  it('dispatches any Gateway event to the bot (queued for a resumable session), and refuses a name that is not one', async () => {
    const { emulator } = await start();
    const bot = new Client({ baseUrl: emulator.url, auth: { botToken: emulator.seed.botToken } });
    try {
      await bot.gateway.connect();
      const received = new Promise<{ t: string; d: unknown }>((resolve) =>
        bot.gateway.on('dispatch', (event) => event.t === 'MESSAGE_CREATE' && resolve(event)),
      );
      expect(emulator.dispatchEvent('MESSAGE_CREATE', { id: '1', content: 'hello', channel_id: emulator.seed.channelId })).toBe(1);
      expect((await received).d).toMatchObject({ id: '1', content: 'hello' });
      expect(() => emulator.dispatchEvent('message create', {})).toThrow(TypeError);
      expect(emulator.dispatchEvent('MESSAGE_CREATE', {}, { botToken: 'not-a-bot' })).toBe(0);
    } finally {
      await bot.close();
    }
  });
});

describe('the emulator’s Gateway upgrade', () => {
  it('a client that resets right after an upgrade the emulator refuses does not crash the process, and the emulator keeps serving', async () => {
    const { emulator } = await start();
    const { hostname, port } = new URL(emulator.gatewayUrl);
    const uncaught: Error[] = [];
    const onUncaught = (error: Error) => void uncaught.push(error);
    process.prependListener('uncaughtException', onUncaught);
    try {
      // Twenty attempts: each resets at a different point of the refusal (before, while or after the 400 is written).
      for (let attempt = 0; attempt < 20; attempt++) {
        const socket = connect(Number(port), hostname);
        await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
        const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
        socket.on('error', () => undefined);
        socket.write(
          `GET /not-the-gateway HTTP/1.1\r\nHost: ${hostname}:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`,
        );
        if (attempt % 2 === 0) socket.resetAndDestroy();
        else socket.once('data', () => socket.resetAndDestroy());
        await closed;
      }
      const response = await fetch(`${emulator.url}/api/v1/gateway`);
      expect(response.status, 'the emulator answers REST after the resets').toBe(200);
      expect(uncaught.map(String), 'uncaught errors while refused upgrades were reset').toEqual([]);
    } finally {
      process.off('uncaughtException', onUncaught);
    }
  });
});
