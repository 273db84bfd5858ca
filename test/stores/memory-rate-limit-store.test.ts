import { MemoryRateLimitStore } from '../../src/stores.js';
import { rateLimitStoreContract } from './rate-limit-store.conformance.js';

rateLimitStoreContract('the in-memory store', ({ webhookWindow, globalRateLimit }) => {
  const store = new MemoryRateLimitStore();
  store.attach({ now: Date.now, webhookWindow, maxPauseMs: 600_000, globalRateLimit });
  return store;
});
