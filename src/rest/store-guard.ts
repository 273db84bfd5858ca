/**
 * The one place where a rate-limit store's failure on the way to a send
 * becomes the SDK's error: a store given by the caller is wrapped once, when
 * the client is created, so that whatever its `bucketKey`, `tryAcquire`,
 * `acquire`, `tryWebhookTurn` or `webhookTurn` throws reaches the caller as a
 * {@link RateLimitStoreError}, never as the store's raw error.
 *
 * @module
 */

import { RateLimitStoreError, isCommunityChatError } from '../errors/index.js';
import { inspectSymbol } from '../core/redact.js';
import type { RateLimitStore } from './rate-limit-store.js';

/** A class name worth naming in a message: a plain identifier (a `name` made of anything else may carry what the message must not). */
const PLAIN_NAME = /^[A-Za-z_$][\w$]{0,63}$/;

/**
 * The `RateLimitStoreError` of a store method that threw `thrown`: its message names the method and what was thrown
 * (`Error`, `TypeError`, `a string`), never the thrown message, which may hold what the store connects with (a
 * password in a URL) and which the SDK cannot scrub, not knowing it. The thrown value is kept as `cause`, for the
 * caller's own debugging, but `util.inspect` (and so `console.log`) does not print it.
 */
function storeFailure(method: string, thrown: unknown): RateLimitStoreError {
  const name = thrown instanceof Error ? thrown.name : undefined;
  const kind = name === undefined ? (thrown === null ? 'null' : typeof thrown) : PLAIN_NAME.test(name) ? name : 'Error';
  const what = `${/^[aeiou]/i.test(kind) ? 'an' : 'a'} ${kind}`;
  const error = new RateLimitStoreError(`its ${method} threw ${what}, not quoted: it may hold the store's connection secrets`, { cause: thrown });
  Object.defineProperty(error, inspectSymbol, { value: () => error.stack ?? `${error.name}: ${error.message}`, enumerable: false });
  return error;
}

/**
 * What a store's rejection or throw becomes: the SDK's own errors (a wait the guard refused) pass; anything else is a
 * store failure. (A wait ended by the call's deadline or signal reaches the caller through the call's own race, never
 * through the store.)
 */
function mapped(method: string, error: unknown): unknown {
  return isCommunityChatError(error) ? error : storeFailure(method, error);
}

/**
 * `store`, with every method the pipeline calls before a send made to fail with the SDK's errors (see
 * {@link storeFailure}); the others are passed through. The in-memory store, the SDK's own, is not wrapped. One
 * wrapper per client: no allocation per request where the store answers at once.
 */
export function guardStore(store: RateLimitStore): RateLimitStore {
  const acquireFailed = (error: unknown) => Promise.reject(mapped('acquire', error));
  const turnFailed = (error: unknown) => Promise.reject(mapped('webhookTurn', error));
  const guarded: RateLimitStore = {
    attach: (settings) => store.attach(settings),
    bucketKey(routeKey, major) {
      try {
        return store.bucketKey(routeKey, major);
      } catch (error) {
        throw mapped('bucketKey', error);
      }
    },
    acquire(key, lane, signal, guard) {
      try {
        return store.acquire(key, lane, signal, guard).then(undefined, acquireFailed);
      } catch (error) {
        return acquireFailed(error);
      }
    },
    release: (key) => store.release(key),
    learn: (routeKey, major, headers) => store.learn(routeKey, major, headers),
    pause: (key, ms, global) => store.pause(key, ms, global),
    webhookTurn(webhookId, signal, guard) {
      try {
        return store.webhookTurn(webhookId, signal, guard).then(undefined, turnFailed);
      } catch (error) {
        return turnFailed(error);
      }
    },
    webhookDone: (webhookId, signal) => store.webhookDone(webhookId, signal),
  };
  // The synchronous tries stay absent when the store has none: the pipeline then goes straight to the wait.
  if (store.tryAcquire !== undefined)
    guarded.tryAcquire = (key, lane) => {
      try {
        return store.tryAcquire?.(key, lane) === true;
      } catch (error) {
        throw mapped('tryAcquire', error);
      }
    };
  if (store.tryWebhookTurn !== undefined)
    guarded.tryWebhookTurn = (webhookId) => {
      try {
        return store.tryWebhookTurn?.(webhookId) === true;
      } catch (error) {
        throw mapped('tryWebhookTurn', error);
      }
    };
  return guarded;
}
