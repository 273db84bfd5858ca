#!/usr/bin/env node
// npm run screenshot: starts `npm run playground` on a free port, chats with the quiz bot in
// headless Chromium (/watch starts an activity, a webhook post, /quiz with the bot's autocomplete,
// a click on the reply's button, then the bot's choices open again) and saves the main view as
// docs/playground.png.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = fileURLToPath(new URL('..', import.meta.url));
const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
if (!existsSync(executablePath)) {
  console.error(`no Chromium at ${executablePath}: apt-get install -y chromium`);
  process.exit(1);
}
const port = String(18_000 + Math.floor(Math.random() * 2000));
const child = spawn(process.execPath, ['--import', 'tsx', 'examples/playground.ts', '--port', port], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
let out = '';
child.stdout.on('data', (chunk) => (out += chunk));
const started = Date.now();
while (!/Channel webhook[^:]*: (\S+)/.test(out)) {
  if (Date.now() - started > 30_000 || child.exitCode !== null) throw new Error(`the playground did not start: ${out}`);
  await new Promise((resolve) => setTimeout(resolve, 50));
}
const webhookUrl = /Channel webhook[^:]*: (\S+)/.exec(out)[1];
const browser = await chromium.launch({
  executablePath,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'],
});
try {
  const page = await browser.newPage({ viewport: { width: 1440, height: 860 } });
  await page.goto(`http://127.0.0.1:${port}/`);
  await page.locator('body[data-ready=true]').waitFor();
  await fetch(webhookUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ content: 'Deploy 42 finished: all checks green.', username: 'CI' }),
  });
  const input = page.getByRole('combobox', { name: /^Message/ });
  await input.fill('/watch title:Launch stream');
  await input.press('Escape');
  await input.press('Enter');
  await page.getByText('Watching "Launch stream" together').waitFor();
  await input.fill('/quiz topic:sp');
  await page.getByRole('option', { name: 'spices' }).waitFor();
  await input.press('Enter');
  await input.press('Enter');
  await page.getByRole('button', { name: 'Ready' }).first().click();
  await page.getByText('is ready. Question 1').waitFor();
  await input.fill('/quiz topic:');
  await page.getByRole('option', { name: 'history' }).waitFor();
  await page.screenshot({ path: 'docs/playground.png' });
  console.log('saved docs/playground.png');
} finally {
  await browser.close();
  child.kill('SIGTERM');
}
