/**
 * `npx community-chat-emulator` serves the playground at its root URL on
 * loopback by default, and not with `--no-playground`; `npm run playground`
 * (examples/playground.ts) starts it with the quiz bot connected.
 */
import { describe, expect, it } from 'vitest';
import { startScript } from '../../helpers/index.js';

describe('the emulator CLI and its playground', () => {
  it('prints the playground URL and serves the page on 127.0.0.1', async () => {
    const cli = await startScript('src/testing/cli.ts', { args: ['--port', '0'] });
    try {
      const [, url] = await cli.waitForOutput(/Playground: open (http:\/\/127\.0\.0\.1:\d+\/)/);
      const page = await fetch(String(url));
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<title>Community Chat playground</title>');
    } finally {
      cli.kill('SIGINT');
      await cli.exited;
    }
  }, 30_000);

  it('leaves it out with --no-playground', async () => {
    const cli = await startScript('src/testing/cli.ts', { args: ['--port', '0', '--no-playground'] });
    try {
      const [, url] = await cli.waitForOutput(/listening on (http:\/\/\S+) /);
      expect(cli.stdout()).not.toContain('Playground');
      expect((await fetch(`${String(url)}/`)).status).toBe(404);
    } finally {
      cli.kill('SIGINT');
      await cli.exited;
    }
  }, 30_000);

  it('npm run playground starts the emulator with the quiz bot connected and prints the URL', async () => {
    const script = await startScript('examples/playground.ts', { args: ['--port', '0'] });
    try {
      const [, url] = await script.waitForOutput(/Community Chat playground: (http:\/\/127\.0\.0\.1:\d+\/)/);
      await script.waitForOutput(/quiz bot is connected/);
      expect((await fetch(String(url))).status).toBe(200);
    } finally {
      script.kill('SIGINT');
      await script.exited;
    }
  }, 30_000);
});
