/**
 * What the playground's browser tests share: an emulator with its playground,
 * the quiz bot of examples/playground-bot.ts as a real SDK `Client` on the
 * Gateway, and headless Chromium driven by playwright-core.
 */
import { existsSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { Client } from '../../../src/index.js';
import { createEmulator, type Emulator } from '../../../src/testing/index.js';
import { installPlaygroundBot, playgroundCommands } from '../../../examples/playground-bot.js';

/** Debian's Chromium; nothing is downloaded. */
export const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
];

/** Whether the browser tests can run here; outside CI a missing browser skips them with one loud line, in CI it fails the run. */
export function browserAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env['CI'] === 'true') return true; // launch() then fails, loudly, as it should in CI.
  console.warn(`\n!!! playground browser tests SKIPPED: no Chromium at ${CHROMIUM}. Install it: apt-get install -y chromium\n`);
  return false;
}

export interface World {
  emulator: Emulator;
  bot: Client;
  admin: Client;
  browser: Browser;
  close(): Promise<void>;
}

export async function startWorld(): Promise<World> {
  const { chromium } = await import('playwright-core');
  const emulator = await createEmulator({ playground: true });
  const { seed } = emulator;
  const admin = new Client({ baseUrl: emulator.url });
  await admin.auth.login({ email: seed.user.email, password: seed.user.password });
  await admin.commands.replace(seed.applicationId, playgroundCommands);
  const bot = new Client({ baseUrl: emulator.url, auth: { botToken: seed.botToken }, gateway: { reconnectBaseDelayMs: 200 } });
  installPlaygroundBot(bot);
  await bot.gateway.connect();
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  return {
    emulator,
    bot,
    admin,
    browser,
    async close() {
      await browser.close();
      await Promise.allSettled([bot.close(), admin.close()]);
      await emulator.close();
    },
  };
}

/** Opens the playground in a fresh browser context and waits for its first picture; `init` runs in the page before its own scripts. */
export async function openPlayground(world: World, viewport = { width: 1280, height: 800 }, init?: string): Promise<Page> {
  const context = await world.browser.newContext({ viewport });
  const page = await context.newPage();
  if (init) await page.addInitScript(init);
  page.setDefaultTimeout(10_000);
  await page.goto(world.emulator.playgroundUrl ?? '');
  await page.locator('body[data-ready=true]').waitFor();
  return page;
}

/** The composer. */
export const composer = (page: Page) => page.getByRole('combobox', { name: /^Message/ });

/** The message list. */
export const messages = (page: Page) => page.getByRole('log', { name: 'Messages' });
