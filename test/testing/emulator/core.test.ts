/**
 * The emulator core's shutdown: close() stops the background work and
 * resolves only once the delivery attempts in flight have ended.
 */
import { describe, expect, it } from 'vitest';
import { Client } from '../../../src/index.js';
import { createEmulator, type DeliveryRequest } from '../../../src/testing/index.js';

describe('EmulatorCore.close()', () => {
  it('aborts a delivery attempt in flight and resolves after it has ended, not before', async () => {
    let started: () => void = () => undefined;
    const attempting = new Promise<void>((resolve) => (started = resolve));
    let ended = false;
    const emulator = await createEmulator({
      // A receiver that never answers: the attempt ends only when the emulator aborts it, a turn of the event loop later.
      deliveryTransport: (request: DeliveryRequest) =>
        new Promise((_resolve, reject) => {
          started();
          request.signal.addEventListener('abort', () =>
            setImmediate(() => {
              ended = true;
              reject(new Error('aborted'));
            }),
          );
        }),
    });
    const admin = new Client({ baseUrl: emulator.url });
    try {
      await admin.auth.login({ email: emulator.seed.user.email, password: emulator.seed.user.password });
      await admin.commands.create(emulator.seed.applicationId, { name: 'ping', description: 'Ping' });
      await admin.applicationWebhooks.create(emulator.seed.applicationId, { url: 'http://127.0.0.1:9/hook', events: ['INTERACTION_CREATE'] });
      const invoked = emulator.invokeCommand({ name: 'ping' });
      invoked.response.catch(() => undefined);
      await attempting;
    } finally {
      await admin.close();
      await emulator.close();
    }
    expect(ended).toBe(true);
  });
});
