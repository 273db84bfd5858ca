import { describe, expect, it } from 'vitest';
import { startScript } from '../helpers/index.js';

describe("UndiciTransport loads only undici's Pool and its helpers", () => {
  it("a request loads the Pool's modules and not the package's index (its fetch, WebSocket, caches, mocks), and they are the index's own", async () => {
    const probe = await startScript('test/helpers/undici-load-probe.ts');
    expect(await probe.exited, probe.stderr()).toBe(0);
    const seen = JSON.parse(probe.stdout().trim()) as { status: number; body: string; loaded: string[]; samePool: boolean; sameUtil: boolean };
    expect(seen, 'the request through the transport').toMatchObject({ status: 200, body: '{}' });
    expect(seen.loaded, 'undici modules the request loaded').toContain('lib/dispatcher/pool.js');
    expect(
      seen.loaded.filter((path) => /^index\.js$|^lib\/web\/|^lib\/mock\//.test(path)),
      'the index, fetch or mocks loaded by a request',
    ).toEqual([]);
    expect(seen.samePool && seen.sameUtil, "the transport's Pool and parseHeaders are the ones the package's index exports").toBe(true);
  }, 30_000);
});
