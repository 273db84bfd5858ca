import { MemoryGatewaySessionStore, MemoryReplayStore } from '../../src/stores.js';
import { gatewaySessionStoreContract, replayStoreContract } from './session-and-replay.conformance.js';

let now = 1_000_000;
replayStoreContract(
  'the in-memory replay store',
  () => new MemoryReplayStore({ clock: () => now }),
  async () => void (now += 60_000),
);
gatewaySessionStoreContract('the in-memory Gateway session store', () => new MemoryGatewaySessionStore());
