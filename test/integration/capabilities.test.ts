import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  Client,
  InteractionAlreadyAcknowledgedError,
  NotFoundError,
  PermissionError,
  WebhookClient,
  type Application,
  isCommunityChatError,
} from '../../src/index.js';
import { createEmulator, type Emulator } from '../../src/testing/index.js';
import { until } from '../helpers/until.js';

let emulator: Emulator;
let admin: Client;
let bot: Client;
const appId = () => emulator.seed.applicationId;
beforeAll(async () => {
  emulator = await createEmulator();
  admin = new Client({ baseUrl: emulator.url });
  await admin.auth.login({ email: emulator.seed.user.email, password: emulator.seed.user.password });
  bot = new Client({ baseUrl: emulator.url, auth: { botToken: emulator.seed.botToken } });
});
afterAll(async () => {
  await Promise.all([admin.close(), bot.close()]);
  await emulator.close();
});

describe('1. applications and their bots', () => {
  it('registers, reads, updates and deletes an application, with its public view, logs and metrics', async () => {
    const created: Application = await admin.applications.create({ name: 'Trivia', description: 'Quiz nights', homepage: 'https://trivia.test' });
    const appId = String(created.id);
    expect(created).toMatchObject({ name: 'Trivia', homepage: 'https://trivia.test' });
    expect((await admin.applications.list()).map((app) => app.id)).toContain(appId);
    await admin.applications.update(appId, { description: 'Quiz every night' });
    expect((await admin.applications.get(appId)).description).toBe('Quiz every night');
    const anonymous = new Client({ baseUrl: emulator.url });
    expect(await anonymous.applications.getPublic(appId)).toMatchObject({ id: appId, name: 'Trivia' });
    await anonymous.close();

    const botInfo = await admin.bots.get(appId);
    await admin.bots.update(appId, { username: 'triviabot' });
    expect((await admin.bots.get(appId)).username).toBe('triviabot');
    expect((await admin.bots.getInviteUrl(appId)).url).toContain(`client_id=${appId}`);
    expect(botInfo.id).toBeTruthy();

    const metrics = await admin.applications.getMetrics(appId);
    expect(metrics).toMatchObject({ application_id: appId });
    await admin.applications.delete(appId);
    await expect(admin.applications.get(appId)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('resetting the bot token invalidates the old one', async () => {
    const app = await admin.applications.create({ name: 'Rotating' });
    const appId = String(app.id);
    const first = await admin.bots.resetToken(appId);
    const oldBot = new Client({ baseUrl: emulator.url, auth: { botToken: String(first.token) } });
    expect(await oldBot.users.getMe()).toMatchObject({ bot: true });
    const second = await admin.bots.resetToken(appId);
    expect(second.token).not.toBe(first.token);
    const error = await oldBot.users.getMe().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as AuthenticationError).credential).toBe('bot');
    oldBot.setBotToken(String(second.token));
    expect(await oldBot.users.getMe()).toMatchObject({ bot: true });
    await oldBot.close();
  });

  it('walks the api-logs pages', async () => {
    for (let i = 0; i < 7; i++) await bot.users.getMe();
    const entries = [];
    for await (const entry of admin.applications.listApiLogs(emulator.seed.applicationId, { perPage: 3 })) entries.push(entry);
    expect(entries.length).toBeGreaterThanOrEqual(7);
    const page = await admin.applications.listApiLogs(emulator.seed.applicationId, { page: 1, perPage: 2 });
    expect(page.items).toHaveLength(2);
  });

  it('a bot token cannot manage applications (user credentials only)', async () => {
    await expect(bot.applications.list()).rejects.toThrow(/needs one of these credentials: user/);
  });
});

describe('2. slash commands', () => {
  it('creates, lists, replaces and deletes global commands, with lowercased names and dm_permission defaulting to true', async () => {
    const created = await admin.commands.create(appId(), { name: 'HELP', description: 'Show help' });
    expect(created).toMatchObject({ name: 'help', dm_permission: true });
    expect((await admin.commands.list(appId())).map((c) => c.name)).toContain('help');
    const replaced = await admin.commands.replace(appId(), [
      { name: 'Ping', description: 'Pong', dm_permission: false },
      { name: 'help', description: 'Show help' },
    ]);
    expect(replaced.map((c) => [c.name, c.dm_permission])).toEqual([
      ['ping', false],
      ['help', true],
    ]);
    await admin.commands.delete(appId(), String(replaced[0]?.id));
    expect((await admin.commands.list(appId())).map((c) => c.name)).toEqual(['help']);
  });

  it('manages community commands and syncs only when they differ', async () => {
    const guildId = emulator.seed.guildId;
    const first = await admin.commands.syncForGuild(appId(), guildId, [{ name: 'event', description: 'Plan an event' }]);
    expect(first.changed).toBe(true);
    const second = await admin.commands.syncForGuild(appId(), guildId, [{ name: 'Event', description: 'Plan an event' }]);
    expect(second.changed).toBe(false);
    expect((await bot.commands.listForGuild(appId(), guildId)).map((c) => c.name)).toEqual(['event']);
    expect((await bot.commands.listInGuild(guildId)).map((c) => c.name)).toEqual(expect.arrayContaining(['event', 'help']));
  });
});

describe('3. interactions over the Gateway', () => {
  it('delivers INTERACTION_CREATE to the bot, which answers through the callback; the contract rules hold at the service', async () => {
    await admin.commands.sync(appId(), [
      { name: 'quiz', description: 'Quiz', options: [{ type: 3, name: 'topic', description: 'Topic', autocomplete: true }] },
    ]);
    const listener = new Client({ baseUrl: emulator.url, auth: { botToken: emulator.seed.botToken } });
    const seen: string[] = [];
    const autocompleted: string[] = [];
    listener.gateway.onInteraction('autocomplete', async (interaction) => {
      try {
        await interaction.autocomplete([{ name: 'space', value: 'space' }]);
        await interaction.autocomplete([{ name: 'spices', value: 'spices' }]);
        autocompleted.push('both sent');
      } catch (error) {
        autocompleted.push(`refused: ${error instanceof Error ? error.message : String(error)}`);
      }
    });
    listener.gateway.onCommand('quiz', async (interaction) => {
      seen.push(String(interaction.options['topic']));
      await interaction.reply(`Quiz about ${String(interaction.options['topic'])}`);
      await expect(interaction.defer()).rejects.toBeInstanceOf(InteractionAlreadyAcknowledgedError);
    });
    await listener.gateway.connect();
    try {
      const typing = emulator.invokeCommand({ name: 'quiz', options: { topic: 'sp' }, focused: 'topic' });
      expect(typing.delivered).toBe(1);
      await typing.response;
      // The handler settled once the service answered both results (or refused one).
      await until(() => autocompleted.length > 0, { what: 'the autocomplete handler settling' });
      expect(autocompleted).toEqual(['both sent']);
      expect(typing.callbacks().map((c) => c.interaction_type)).toEqual([8, 8]);

      const run = emulator.invokeCommand({ name: 'quiz', options: { topic: 'space' } });
      expect(await run.response).toMatchObject({ interaction_type: 4, data: { content: 'Quiz about space' } });
      expect(seen).toEqual(['space']);
      expect(emulator.messages().at(-1)).toMatchObject({ via: 'interaction', content: 'Quiz about space' });

      // The service itself refuses a second acknowledgement and an expired interaction.
      await expect(bot.interactions.respond(run.id, { interaction_type: 5 })).rejects.toThrow(/already been acknowledged/);
    } finally {
      await listener.close();
    }
    await until(() => !emulator.isBotConnected(), { what: "the bot's socket closed at the emulator" });
    const orphan = emulator.invokeCommand({ name: 'quiz', options: { topic: 'nobody listening' } });
    expect(orphan.delivered).toBe(0);
    emulator.advanceTime(15 * 60_000 + 1);
    const error = await bot.interactions.respond(orphan.id, { interaction_type: 4, data: { content: 'too late' } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(String(error)).toMatch(/expired after 15 minutes/);
  });
});

describe('4. channel activities', () => {
  it('creates, joins, plays, seeks, updates, snapshots, leaves and ends an activity', async () => {
    const channelId = emulator.seed.channelId;
    const activity = await bot.activities.create(channelId, { kind: 'watch', title: 'Premiere' });
    const id = String(activity.id);
    expect((await bot.activities.list(channelId)).map((a) => a.id)).toContain(id);
    expect((await bot.activities.getActive(channelId)).id).toBe(id);
    await bot.activities.join(id);
    await admin.activities.join(id);
    await bot.activities.playPause(id, { paused: false });
    await bot.activities.seek(id, { position_ms: 42_000 });
    await bot.activities.updateState(id, { state: { scene: 3 } });
    const snapshot = await admin.activities.getSnapshot(id);
    expect(snapshot).toMatchObject({ paused: false, position_ms: 42_000, state: { scene: 3 } });
    expect((snapshot['participants'] as string[]).length).toBe(2);
    await admin.activities.leave(id);
    expect(((await bot.activities.get(id))['participants'] as string[]).length).toBe(1);
    await bot.activities.delete(id);
    await expect(bot.activities.get(id)).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('5. incoming webhooks', () => {
  it('creates a community webhook, publishes through its URL, updates, resets and deletes it', async () => {
    const { guildId, channelId } = emulator.seed;
    const created = await admin.webhooks.create(guildId, { name: 'Deploys', channel_id: channelId });
    const id = String(created.id);
    expect((await admin.webhooks.list(guildId)).map((w) => w.id)).toContain(id);
    const hook = new WebhookClient(String(created['url']));
    await hook.execute({ content: 'Build 7 passed', username: 'CI' });
    expect(emulator.messages(channelId).at(-1)).toMatchObject({ via: 'webhook', content: 'Build 7 passed', author: { name: 'CI' } });
    expect((await hook.update({ name: 'Releases' })).name).toBe('Releases');

    const reset = await admin.webhooks.resetToken(guildId, id);
    const error = await hook.execute({ content: 'old token' }).catch((e: unknown) => e);
    expect(isCommunityChatError(error, 'AuthenticationError')).toBe(true);
    expect(String(error)).not.toContain(String(created.token));
    const fresh = new WebhookClient(String(reset['url']));
    await fresh.execute({ content: 'new token works' });
    await fresh.delete();
    await expect(admin.webhooks.delete(guildId, id)).rejects.toBeInstanceOf(NotFoundError);
    await Promise.all([hook.close(), fresh.close()]);
  });

  it('needs MANAGE_WEBHOOKS or ownership', async () => {
    const member = new Client({ baseUrl: emulator.url });
    await member.auth.login({ email: emulator.seed.member.email, password: emulator.seed.member.password });
    await expect(member.webhooks.list(emulator.seed.guildId)).rejects.toBeInstanceOf(PermissionError);
    await expect(member.webhooks.create(emulator.seed.guildId, { name: 'x', channel_id: emulator.seed.channelId })).rejects.toBeInstanceOf(PermissionError);
    await member.close();
  });
});

describe('6. application webhooks', () => {
  it('creates with a secret, hides it in lists, regenerates it, sends a test delivery and pages the history', async () => {
    const appId = emulator.seed.applicationId;
    const created = await admin.applicationWebhooks.create(appId, { url: 'https://hooks.test/chat', events: ['INTERACTION_CREATE'] });
    const id = String(created.id);
    expect(created.secret).toBeTruthy();
    const listed = await admin.applicationWebhooks.list(appId);
    expect(listed.find((w) => w.id === id)).not.toHaveProperty('secret');
    const regenerated = await admin.applicationWebhooks.regenerateSecret(appId, id);
    expect(regenerated.secret).not.toBe(created.secret);
    await admin.applicationWebhooks.update(appId, id, { active: false });
    for (let i = 0; i < 3; i++) expect(await admin.applicationWebhooks.test(appId, id)).toMatchObject({ status: 'queued' });
    const deliveries = [];
    for await (const delivery of admin.applicationWebhooks.listDeliveries(appId, { perPage: 2 })) deliveries.push(delivery);
    expect(deliveries).toHaveLength(3);
    await admin.applicationWebhooks.delete(appId, id);
    await expect(admin.applicationWebhooks.regenerateSecret(appId, id)).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('7. channels, attachments and drive links', () => {
  it('reads, updates and acknowledges a channel, uploads an attachment, lists and adds drive links', async () => {
    const { channelId } = emulator.seed;
    expect(await bot.channels.get(channelId)).toMatchObject({ id: channelId, name: 'general' });
    expect(await bot.channels.update(channelId, { topic: 'Quiz night is Friday' })).toMatchObject({ topic: 'Quiz night is Friday' });
    await admin.channels.ack(channelId);
    const attachment = await bot.channels.uploadAttachment(channelId, { data: 'a,b\n1,2\n', filename: 'scores.csv', contentType: 'text/csv' });
    expect(attachment).toMatchObject({ filename: 'scores.csv', content_type: 'text/csv', size: 8 });
    const before = await bot.channels.listDriveLinks(channelId);
    await bot.request(
      { method: 'POST', path: '/channels/{channel_id}/drive-links', majorParameter: 'channel_id' },
      { params: { channel_id: channelId }, body: { url: 'https://drive.test/doc', title: 'Rules' } },
    );
    expect(await bot.channels.listDriveLinks(channelId)).toHaveLength(before.length + 1);
  });

  it('deletes a channel', async () => {
    const channelId = emulator.core.createChannel('scratch');
    expect(await bot.channels.get(channelId)).toMatchObject({ name: 'scratch' });
    await expect(bot.channels.delete(channelId)).resolves.toBeUndefined();
    await expect(bot.channels.get(channelId)).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('8. sessions and account flows', () => {
  it('logs in, refreshes (rotating the refresh cookie), survives access-token expiry, and logs out', async () => {
    const user = new Client({ baseUrl: emulator.url });
    await user.auth.login({ email: emulator.seed.user.email, password: emulator.seed.user.password });
    expect(await user.users.getMe()).toMatchObject({ email: emulator.seed.user.email });
    const oldCookies = user.session.export().cookies;
    await user.auth.refresh();
    const stale = new Client({ baseUrl: emulator.url, auth: { session: { cookies: oldCookies } } });
    await expect(stale.auth.refresh()).rejects.toBeInstanceOf(AuthenticationError);

    // The service's clock passes the 15-minute lifetime: the SDK refreshes on the 401 and carries on.
    emulator.advanceTime(16 * 60_000);
    const refreshed: string[] = [];
    user.on('sessionRefreshed', (event) => refreshed.push(event.trigger));
    expect(await user.users.getMe()).toMatchObject({ email: emulator.seed.user.email });
    expect(refreshed).toEqual(['unauthorized']);

    const beforeLogout = user.session.export().cookies;
    await user.auth.logout();
    expect(user.session.canRefresh).toBe(false);
    // The service revoked the refresh token: a copy of the old cookie no longer works.
    const revoked = new Client({ baseUrl: emulator.url, auth: { session: { cookies: beforeLogout } } });
    await expect(revoked.auth.refresh()).rejects.toBeInstanceOf(AuthenticationError);
    await Promise.all([user.close(), stale.close(), revoked.close()]);
  });

  it('resets a password through the mailed token, and verifies an e-mail address', async () => {
    const anonymous = new Client({ baseUrl: emulator.url });
    await anonymous.auth.forgotPassword({ email: emulator.seed.member.email });
    const mail = emulator.core.mailbox(emulator.seed.member.email).find((m) => m.kind === 'reset');
    expect(mail).toBeDefined();
    await anonymous.auth.resetPassword({ token: String(mail?.token), password: 'a-much-better-password' });
    await expect(anonymous.auth.login({ email: emulator.seed.member.email, password: emulator.seed.member.password })).rejects.toBeInstanceOf(
      AuthenticationError,
    );
    await anonymous.auth.login({ email: emulator.seed.member.email, password: 'a-much-better-password' });
    const token = emulator.core.sendVerificationMail(emulator.seed.member.email);
    expect(await anonymous.auth.verifyEmail(token)).toMatchObject({ verified: true });
    await expect(anonymous.auth.verifyEmail(token)).rejects.toThrow(/Invalid or expired verification token/);
    await anonymous.close();
  });
});
