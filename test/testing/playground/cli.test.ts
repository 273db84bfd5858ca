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

describe('community-chat-emulator --bot', () => {
  it('registers the module’s commands, runs its bot, and the playground talks to it', async () => {
    const cli = await startScript('src/testing/cli.ts', { args: ['--port', '0', '--bot', 'test/helpers/cli-bot-module.ts'] });
    try {
      const [, url] = await cli.waitForOutput(/listening on (http:\/\/\S+) /);
      await cli.waitForOutput(/^Bot test\/helpers\/cli-bot-module\.ts: connected, registered \/fruit$/m);
      // The playground's autocomplete runs a real autocomplete interaction: the bot in the CLI's process answers it.
      const answer = await fetch(`${String(url)}/_playground/api/autocomplete`, {
        method: 'POST',
        headers: { origin: String(url), 'x-playground': '1', 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'fruit', options: { kind: 'ap' }, focused: 'kind' }),
      });
      expect(await answer.json()).toEqual({ choices: [{ name: 'Apple from the CLI bot', value: 'apple' }] });
    } finally {
      cli.kill('SIGINT');
      await cli.exited;
    }
  }, 30_000);

  it('a module with no install function is one line and exit 1', async () => {
    const cli = await startScript('src/testing/cli.ts', { args: ['--port', '0', '--bot', 'test/helpers/until.ts'] });
    expect(await cli.exited).toBe(1);
    expect(cli.stderr()).toMatch(/--bot test\/helpers\/until\.ts: .* exports no install function/);
  }, 30_000);
});
