/**
 * The playground in a real browser (Debian's Chromium through playwright-core):
 * a person chats with the quiz bot, a real SDK `Client` on the Gateway.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebhookClient } from '../../../src/index.js';
import { startRawLoopbackServer } from '../../helpers/index.js';
import { browserAvailable, composer, messages, openPlayground, startWorld, type World } from './setup.js';

const run = browserAvailable();
const TIMEOUT = 40_000;

describe.skipIf(!run)('the playground in Chromium', () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld();
  }, 30_000);
  afterAll(() => world?.close());

  it(
    'lists /quiz, asks the bot for autocomplete choices (a type-4 interaction answered with 8), sends it and shows the reply; its button and select reach the bot',
    async () => {
      const page = await openPlayground(world);
      const input = composer(page);
      await input.click();
      await input.pressSequentially('/qu');
      const quiz = page.getByRole('option', { name: /\/quiz/ });
      await expect(quiz.textContent()).resolves.toContain('Start a quiz in this channel');
      await quiz.click();
      await expect(input.inputValue()).resolves.toBe('/quiz ');
      await page.getByRole('option', { name: /^topic:/ }).click();
      await page.getByRole('option', { name: 'history' }).waitFor();
      await input.pressSequentially('sp');
      await page.getByRole('option', { name: 'spices' }).waitFor();
      await page.getByRole('option', { name: 'history' }).waitFor({ state: 'detached' });
      expect(await page.getByRole('listbox', { name: 'Choices from the bot' }).getByRole('option').allTextContents()).toEqual(['space', 'spices', 'sports']);
      const typed = world.emulator.core.snapshot().interactions.filter((i) => i['type'] === 4);
      expect(typed.length).toBeGreaterThan(0);
      expect(typed.every((i) => i['acknowledgedWith'] === 8)).toBe(true);
      await page.getByRole('option', { name: 'spices' }).click();
      await expect(input.inputValue()).resolves.toBe('/quiz topic:spices ');
      await page.getByRole('button', { name: 'Send' }).click();
      await messages(page).getByText('Quiz about spices, 3 rounds. Ready?').waitFor();
      await messages(page).getByText('demo used /quiz').waitFor();

      await messages(page).getByRole('button', { name: 'Ready' }).click();
      await messages(page).getByText('demo is ready. Question 1').waitFor();
      await messages(page).getByRole('combobox', { name: 'Difficulty' }).selectOption('hard');
      await messages(page).getByText('demo picked the hard level.').waitFor();
      await page.context().close();
    },
    TIMEOUT,
  );

  it(
    'shows a webhook execution from a script, and application webhooks with their deliveries, without a reload or any polling, and never shows a secret',
    async () => {
      const page = await openPlayground(world);
      const requests: string[] = [];
      page.on('request', (request) => requests.push(request.url()));
      const { seed, url } = world.emulator;
      const hook = new WebhookClient(`${url}/api/v1/webhooks/${seed.webhook.id}/${seed.webhook.token}`);
      await hook.execute({ content: 'Build 7 passed', username: 'CI' });
      const item = messages(page).getByRole('listitem').filter({ hasText: 'Build 7 passed' });
      await item.waitFor();
      await expect(item.textContent()).resolves.toMatch(/^CIWEBHOOK/);
      await page.getByText(/REST POST \/webhooks\/\{webhook_id\}\/\{webhook_token\} 204 \d+ ms bucket webhook-execute/).waitFor();
      // Not subscribed to INTERACTION_CREATE, so later tests' commands still reach the bot over the Gateway;
      // not loopback, so the emulator refuses to deliver and the delivery ends as failed.
      const appHook = await world.admin.applicationWebhooks.create(seed.applicationId, { url: 'https://hooks.example/quiz', events: ['MEMBER_JOINED'] });
      await world.admin.applicationWebhooks.test(seed.applicationId, String(appHook.id));
      await page
        .getByRole('region', { name: 'Deliveries' })
        .getByText(/TEST → failed/)
        .waitFor();
      await page.getByRole('region', { name: 'Webhooks' }).getByText('https://hooks.example/quiz').waitFor();
      await page.waitForTimeout(300);
      expect(requests).toEqual([]);
      const html = await page.content();
      const secrets = world.emulator.core.secrets().filter((secret) => secret.length >= 8);
      expect(secrets.length).toBeGreaterThan(3);
      expect(secrets.filter((secret) => html.includes(secret))).toEqual([]);
      await hook.close();
      await page.context().close();
    },
    TIMEOUT,
  );

  it(
    'shows a deferred answer as "is thinking", then turns it into the follow-up (Discord\'s follow-up route)',
    async () => {
      const { emulator, admin } = world;
      await admin.commands.create(emulator.seed.applicationId, { name: 'slow', description: 'Answers after a while (no SDK handler: the test answers)' });
      const page = await openPlayground(world);
      const run = emulator.invokeCommand({ name: 'slow' });
      const token = String(run.payload['token']);
      const callback = await fetch(`${emulator.url}/api/v1/interactions/${run.id}/${token}/callback`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type: 5 }),
      });
      expect(callback.status).toBe(204);
      const thinking = messages(page).getByRole('listitem').filter({ hasText: 'is thinking…' });
      await thinking.waitFor();
      await expect(thinking.textContent()).resolves.toContain('demo used /slow');
      const followUp = await fetch(`${emulator.url}/api/v1/webhooks/${emulator.seed.applicationId}/${token}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ content: 'Done thinking: 42.' }),
      });
      expect(followUp.status).toBe(200);
      await messages(page).getByText('Done thinking: 42.').waitFor();
      await thinking.waitFor({ state: 'detached' });
      expect(emulator.messages().at(-1)).toMatchObject({ content: 'Done thinking: 42.', interactionId: run.id });
      await page.context().close();
    },
    TIMEOUT,
  );

  it(
    'renders the modal the bot opens as a form; its submission, as the chosen seeded user, reaches the bot, whose answer appears',
    async () => {
      const page = await openPlayground(world);
      await page.getByLabel('Act as').selectOption({ label: 'member' });
      const input = composer(page);
      await input.fill('/feedback');
      await input.press('Enter');
      await input.press('Enter');
      const dialog = page.getByRole('dialog', { name: 'Quiz feedback' });
      await dialog.waitFor();
      await dialog.getByLabel('Your name').fill('Ada');
      await dialog.getByLabel('What did you think?').fill('Great quiz');
      await dialog.getByRole('button', { name: 'Submit' }).click();
      await messages(page).getByText('Thanks Ada! You said: "Great quiz"').waitFor();
      await messages(page).getByText('member submitted feedback').waitFor();
      await expect(dialog.isVisible()).resolves.toBe(false);
      await page.context().close();
    },
    TIMEOUT,
  );

  it(
    'opens the modal the bot asks for even when the picture showing it arrives before the answer to its own command',
    async () => {
      // Record, on the page's own event stream and before the page's listener runs, which interactions each picture shows waiting on a modal.
      const page = await openPlayground(
        world,
        undefined,
        `(() => {
        window.__modals = new Set();
        const Source = window.EventSource;
        window.EventSource = class extends Source {
          constructor(...args) {
            super(...args);
            this.addEventListener('state', (event) => {
              for (const i of JSON.parse(event.data).interactions) if (i.status === 'modal') window.__modals.add(i.id);
            });
          }
        };
      })()`,
      );
      // Hold the answer to /feedback until the browser has received a picture with the bot's modal in it.
      await page.route('**/_playground/api/invoke', async (route) => {
        const response = await route.fetch();
        const { id } = (await response.json()) as { id: string };
        await page.waitForFunction((id) => (globalThis as unknown as { __modals: Set<string> }).__modals.has(id), id);
        await route.fulfill({ response });
      });
      await composer(page).fill('/feedback');
      await page.getByRole('button', { name: 'Send' }).click();
      await page.getByRole('dialog', { name: 'Quiz feedback' }).waitFor();
      await page.context().close();
    },
    TIMEOUT,
  );

  it(
    'shows the bot disconnect and come back when the Gateway is dropped, and a command sent afterwards is answered',
    async () => {
      const page = await openPlayground(world);
      const status = page.getByRole('status');
      await expect(status.textContent()).resolves.toBe('Bot: connected');
      await page.evaluate(`{
        const el = document.getElementById('bot-status');
        window.seen = [];
        new MutationObserver(() => window.seen.push(el.textContent)).observe(el, { childList: true, characterData: true, subtree: true });
      }`);
      await page.getByRole('button', { name: 'Drop the Gateway connections' }).click();
      // (polled from outside: the page's Content-Security-Policy forbids the eval that waitForFunction needs)
      await expect.poll(() => page.evaluate<string[]>('window.seen'), { timeout: 10_000 }).toContain('Bot: disconnected');
      await expect.poll(() => page.evaluate<string>(`document.getElementById('bot-status').textContent`), { timeout: 10_000 }).toBe('Bot: connected');
      await page
        .getByText(/GW connection closed/)
        .first()
        .waitFor();
      const input = composer(page);
      await input.fill('/quiz topic:history rounds:2');
      await input.press('Escape');
      await input.press('Enter');
      await messages(page).getByText('Quiz about history, 2 rounds. Ready?').waitFor();
      await page.context().close();
    },
    TIMEOUT,
  );

  it(
    'works with the keyboard alone: composer and suggestions, a reply button, a modal with its focus trap and Escape, visible focus',
    async () => {
      const page = await openPlayground(world);
      const key = (name: string) => page.keyboard.press(name);
      const focused = () => page.evaluate<string>(`document.activeElement.id || document.activeElement.textContent || ''`);
      await key('Tab');
      await expect(focused()).resolves.toBe('Skip to the composer');
      await key('Enter');
      await expect(focused()).resolves.toBe('composer-input');
      await page.keyboard.type('/q');
      await key('Enter');
      await key('ArrowDown');
      await key('Enter');
      await page.getByRole('option', { name: 'history' }).waitFor();
      await page.keyboard.type('mu');
      await page.getByRole('option', { name: 'music' }).waitFor();
      await key('Enter');
      await expect(composer(page).inputValue()).resolves.toBe('/quiz topic:music ');
      await key('Escape');
      await key('Enter');
      await messages(page).getByText('Quiz about music, 3 rounds. Ready?').waitFor();
      const outline = await page.evaluate<string>('getComputedStyle(document.activeElement).outlineStyle');
      expect(outline).not.toBe('none');

      for (let i = 0; i < 20 && (await focused()) !== 'Ready'; i++) await key('Shift+Tab');
      await expect(focused()).resolves.toBe('Ready');
      await key('Enter');
      await messages(page)
        .getByText(/is ready\. Question 1/)
        .last()
        .waitFor();

      await composer(page).focus();
      await page.keyboard.type('/feedback');
      await key('Enter');
      await key('Enter');
      const dialog = page.getByRole('dialog', { name: 'Quiz feedback' });
      await dialog.waitFor();
      await key('Escape');
      await dialog.waitFor({ state: 'hidden' });
      await expect(focused()).resolves.toBe('composer-input');

      await page.keyboard.type('/feedback');
      await key('Enter');
      await key('Enter');
      await dialog.waitFor();
      await expect(page.evaluate<string>(`document.activeElement.getAttribute('name')`)).resolves.toBe('name');
      await page.keyboard.type('Grace');
      await key('Tab');
      await page.keyboard.type('Fun');
      for (let i = 0; i < 6; i++) {
        await key('Tab');
        await expect(page.evaluate<boolean>(`Boolean(document.activeElement.closest('dialog'))`)).resolves.toBe(true);
      }
      while ((await focused()) !== 'Submit') await key('Tab');
      await key('Enter');
      await messages(page).getByText('Thanks Grace! You said: "Fun"').waitFor();
      await page.context().close();
    },
    TIMEOUT,
  );

  it(
    'labels every control and fits a narrow window, where the channel activity shows its state, position and latest snapshot and plays or pauses',
    async () => {
      const page = await openPlayground(world, { width: 420, height: 800 });
      const unlabelled = await page.evaluate<string[]>(`[...document.querySelectorAll('input, select, textarea, button')]
        .filter((el) => !(el.labels && el.labels.length) && !el.getAttribute('aria-label') && !el.textContent.trim())
        .map((el) => el.outerHTML)`);
      expect(unlabelled).toEqual([]);
      const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
      expect(overflow).toBeLessThanOrEqual(0);
      await composer(page).fill('/watch title:Launch');
      await composer(page).press('Enter');
      const activity = page.getByRole('region', { name: 'Channel activity' });
      await expect
        .poll(() => activity.textContent(), { timeout: 10_000 })
        .toMatch(/Launch.*playing.*position 90\.0 s.*liftoff.*participants: demo-app-bot.*latest snapshot .* playing at 90\.0 s/);
      await activity.getByRole('button', { name: 'Pause' }).click();
      await activity.getByRole('button', { name: 'Play' }).waitFor();
      await expect(activity.textContent()).resolves.toMatch(/paused/);
      await page.context().close();
    },
    TIMEOUT,
  );

  it(
    'applies latency, error rate and a global limit from the Faults form, and advances the clock 15 minutes',
    async () => {
      const page = await openPlayground(world);
      try {
        await page.getByLabel('Latency (ms)').fill('150');
        await page.getByLabel('Error rate (%)').fill('20');
        await page.getByLabel('Global limit (req/s)').fill('40');
        await page.getByRole('button', { name: 'Apply the faults' }).click();
        await expect.poll(() => world.emulator.faults.toJSON()).toEqual({ latencyMs: 150, errorRate: 0.2 });
        expect(world.emulator.core.globalRateLimit).toEqual({ limit: 40, windowMs: 1000 });

        await page.getByLabel('Latency (ms)').fill('0');
        await page.getByLabel('Error rate (%)').fill('0');
        await page.getByLabel('Global limit (req/s)').fill('');
        await page.getByRole('button', { name: 'Apply the faults' }).click();
        await expect.poll(() => world.emulator.faults.toJSON()).toEqual({ latencyMs: 0, errorRate: 0 });
        expect(world.emulator.core.globalRateLimit).toBeUndefined();

        // The next calls of one operation: a 429 on the next two channel reads, in the service's wording.
        await page.getByLabel('Operation', { exact: true }).fill('channels.get');
        await page.getByLabel('Answer', { exact: true }).selectOption('429');
        await page.getByLabel('Next calls', { exact: true }).fill('2');
        await page.getByRole('button', { name: 'Fault the next calls' }).click();
        await expect.poll(() => world.emulator.faults.pending).toEqual([{ input: { operation: 'channels.get', times: 2, status: 429 }, remaining: 2 }]);
        world.emulator.faults.clear();

        const before = world.emulator.clock();
        const shown = await page.locator('#clock').textContent();
        await page.getByRole('button', { name: 'Advance the clock 15 min' }).click();
        await expect.poll(() => world.emulator.clock() - before).toBeGreaterThanOrEqual(15 * 60_000);
        await page.getByText('Clock advanced by 15 minutes').waitFor();
        await expect.poll(() => page.locator('#clock').textContent(), { timeout: 10_000 }).not.toBe(shown);
      } finally {
        await page.context().close();
      }
    },
    TIMEOUT,
  );

  it('refuses a request to its API from a page of another origin (preflighted, no-cors and EventSource attempts alike)', async () => {
    const foreign = await startRawLoopbackServer((_request, response) =>
      response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>elsewhere</title>'),
    );
    const context = await world.browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${foreign.url}/`);
      const target = JSON.stringify(world.emulator.url);
      const outcome = await page.evaluate<string[]>(`(async (target) => {
        const results = [];
        const body = JSON.stringify({ latencyMs: 4000, errorRate: 1 });
        await fetch(target + '/_playground/api/faults', { method: 'POST', headers: { 'content-type': 'application/json', 'x-playground': '1' }, body }).then(
          (r) => results.push('cors ' + r.status),
          () => results.push('cors blocked'),
        );
        await fetch(target + '/_playground/api/faults', { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body }).then(
          () => results.push('no-cors sent'),
          () => results.push('no-cors blocked'),
        );
        await fetch(target + '/_playground/api/drop', { method: 'POST', mode: 'no-cors', body: '{}' }).then(
          () => results.push('drop sent'),
          () => results.push('drop blocked'),
        );
        results.push(
          await new Promise((resolve) => {
            const source = new EventSource(target + '/_playground/events');
            source.addEventListener('state', () => resolve('events open'));
            source.onerror = () => {
              source.close();
              resolve('events refused');
            };
          }),
        );
        return results;
      })(${target})`);
      expect(outcome).toContain('cors blocked');
      expect(outcome).toContain('events refused');
      expect(world.emulator.faults.toJSON()).toEqual({ latencyMs: 0, errorRate: 0 });
    } finally {
      await context.close();
      await foreign.close();
    }
  }, 30_000);
});
