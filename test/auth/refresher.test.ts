/**
 * The session refresher's bounds on the session store (on the one abortable
 * wait): a store call that hangs during a shared refresh fails the refresh
 * after 5 s with a readable error naming the call, so a hung store cannot
 * wedge the session; a lock held elsewhere is polled until the other
 * process saves a new session.
 */
import { afterEach, expect, it, vi } from 'vitest';
import { SessionRefresher } from '../../src/auth/refresher.js';
import { UserSession } from '../../src/auth/session.js';
import { UnexpectedResponseError } from '../../src/errors/index.js';
import type { UserSessionStore } from '../../src/stores.js';

afterEach(() => {
  vi.useRealTimers();
});

function refresherWith(store: UserSessionStore, performRefresh = vi.fn(async () => ({ access_token: 'fresh', expires_in: 900 }))) {
  const session = new UserSession();
  const refresher = new SessionRefresher({
    session,
    performRefresh,
    readAccessToken: (body) => ({ accessToken: (body as { access_token: string }).access_token, expiresInMs: 900_000 }),
    refreshMarginMs: 60_000,
    store,
    now: Date.now,
    onRefreshed: () => undefined,
    onExpired: () => undefined,
    onStoreError: () => undefined,
  });
  return { refresher, session, performRefresh };
}

it('a lock call that hangs fails the refresh after 5 s, naming the call; nothing is sent', async () => {
  vi.useFakeTimers();
  const { refresher, performRefresh } = refresherWith({ lockRefresh: () => new Promise<boolean>(() => undefined), load: () => undefined });
  let settled = false;
  const refreshing = refresher.refresh('manual').then(
    () => undefined,
    (caught: unknown) => {
      settled = true;
      return caught;
    },
  );
  await vi.advanceTimersByTimeAsync(4_999);
  expect(settled, 'given up before 5 s').toBe(false);
  await vi.advanceTimersByTimeAsync(1);
  expect(settled, 'given up at 5 s').toBe(true);
  const error = await refreshing;
  expect(error).toBeInstanceOf(UnexpectedResponseError);
  expect((error as Error).message).toContain('the session store did not answer lockRefresh within 5000 ms');
  expect(performRefresh).not.toHaveBeenCalled();
  expect(vi.getTimerCount(), 'timers left after the refresh failed').toBe(0);
});

it('while another process holds the lock, polls every 50 ms and takes the session it saved', async () => {
  vi.useFakeTimers();
  let saved: { accessToken: string; accessTokenExpiresAt: number; cookies: [] } | undefined;
  const load = vi.fn(() => saved);
  const { refresher, session, performRefresh } = refresherWith({ lockRefresh: () => false, load });
  const refreshing = refresher.refresh('manual');
  await vi.advanceTimersByTimeAsync(0);
  const loadsBefore = load.mock.calls.length;
  await vi.advanceTimersByTimeAsync(49);
  expect(load.mock.calls.length, 'store reads before the poll interval passed').toBe(loadsBefore);
  await vi.advanceTimersByTimeAsync(1);
  expect(load.mock.calls.length, 'store reads once the poll interval passed').toBe(loadsBefore + 1);
  saved = { accessToken: 'from-the-other-process', accessTokenExpiresAt: Date.now() + 900_000, cookies: [] };
  await vi.advanceTimersByTimeAsync(50);
  await refreshing;
  expect(session.accessToken).toBe('from-the-other-process');
  expect(performRefresh).not.toHaveBeenCalled();
});
