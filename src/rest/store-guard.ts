/**
 * The one place where a rate-limit store's failure becomes the SDK's: a store
 * given by the caller is wrapped once, when the client is created, so that
 * whatever its `bucketKey`, `tryAcquire`, `acquire`, `tryWebhookTurn` or
 * `webhookTurn` throws on the way to a send reaches the caller as a
 * {@link RateLimitStoreError}, never as the store's raw error; and what its
 * `release`, `learn`, `pause` or `webhookDone` throws once the request was
 * sent is reported, never put in place of the call's outcome (nor in the way
 * of the places given back after it).
 *
 * @module
 */

import { RateLimitStoreError, isCommunityChatError } from '../errors/index.js';
import { inspectSymbol } from '../core/redact.js';
import type { RateLimitStore } from './rate-limit-store.js';

/** A class name worth naming in a message: a plain identifier (a `name` made of anything else may carry what the message must not). */
const PLAIN_NAME = /^[A-Za-z_$][\w$]{0,63}$/;

/**
 * What a store member threw, in words: the member and what was thrown (`an Error`, `a TypeError`, `a string`), never
 * the thrown message, which may hold what the store connects with (a password in a URL) and which the SDK cannot scrub,
 * not knowing it.
 */
function threw(method: string, thrown: unknown): string {
  const name = thrown instanceof Error ? thrown.name : undefined;
  const kind = name === undefined ? (thrown === null ? 'null' : typeof thrown) : PLAIN_NAME.test(name) ? name : 'Error';
  return `its ${method} threw ${/^[aeiou]/i.test(kind) ? 'an' : 'a'} ${kind}, not quoted: it may hold the store's connection secrets`;
}

/** `error`, whose `cause` (what the store threw, kept for the caller's own debugging) `util.inspect`, and so `console.log`, does not print. */
function causeNotPrinted<E extends Error>(error: E): E {
  Object.defineProperty(error, inspectSymbol, { value: () => error.stack ?? `${error.name}: ${error.message}`, enumerable: false });
  return error;
}

/** The `RateLimitStoreError` of a member that threw `thrown` before the send (see {@link threw}). */
function storeFailure(method: string, thrown: unknown): RateLimitStoreError {
  return causeNotPrinted(new RateLimitStoreError(threw(method, thrown), { cause: thrown }));
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
 * `store`, with every member the pipeline calls before a send made to fail with the SDK's errors (see
 * {@link storeFailure}), and every member it calls after one made to hand what it throws to `report` (as an `Error`
 * that names it, its cause not printed) and return. The in-memory store, the SDK's own, is not wrapped. One wrapper per
 * client: no allocation per request where the store answers at once.
 */
export function guardStore(store: RateLimitStore, report: (error: Error) => void): RateLimitStore {
  const acquireFailed = (error: unknown) => Promise.reject(mapped('acquire', error));
  const turnFailed = (error: unknown) => Promise.reject(mapped('webhookTurn', error));
  const finished = (method: string, thrown: unknown) =>
    report(causeNotPrinted(new Error(`The rate-limit store failed after the request was sent (${threw(method, thrown)})`, { cause: thrown })));
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
    release(key, signal) {
      try {
        store.release(key, signal);
      } catch (error) {
        finished('release', error);
      }
    },
    learn(routeKey, major, headers) {
      try {
        store.learn(routeKey, major, headers);
      } catch (error) {
        finished('learn', error);
      }
    },
    pause(key, ms, global) {
      try {
        store.pause(key, ms, global);
      } catch (error) {
        finished('pause', error);
      }
    },
    webhookTurn(webhookId, signal, guard) {
      try {
        return store.webhookTurn(webhookId, signal, guard).then(undefined, turnFailed);
      } catch (error) {
        return turnFailed(error);
      }
    },
    webhookDone(webhookId, signal) {
      try {
        store.webhookDone(webhookId, signal);
      } catch (error) {
        finished('webhookDone', error);
      }
    },
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
