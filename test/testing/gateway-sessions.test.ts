/**
 * Emulator Gateway sessions are its own: a session id from another emulator
 * (a Gateway session store left over) never resumes, and an interaction that
 * reached no session rejects its response at once, typed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { Client } from '../../src/index.js';
import { createEmulator, isEmulatorNotDeliveredError, type Emulator } from '../../src/testing/index.js';

const running: Emulator[] = [];
afterEach(async () => {
  for (const emulator of running.splice(0)) await emulator.close();
});

/** Opens a raw Gateway socket, sends `first` after Hello, and resolves with the first frame answering it. */
function exchange(emulator: Emulator, first: Record<string, unknown>, closeCode?: number): Promise<{ op: number; t?: string; d: unknown }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${emulator.gatewayUrl}/?v=10`);
    socket.on('message', (raw: Buffer) => {
      const frame = JSON.parse(raw.toString()) as { op: number; t?: string; d: unknown };
      if (frame.op === 10) socket.send(JSON.stringify(first));
      else if (frame.op === 9 || frame.op === 0) {
        socket.close(closeCode);
        socket.once('close', () => resolve(frame));
      }
    });
    socket.on('error', reject);
  });
}

describe('emulator Gateway sessions', () => {
  it('ends a session the client closed with 1000 or 1001 (a RESUME gets Invalid Session), and keeps one closed with 4000 resumable', async () => {
    const emulator = await createEmulator();
    running.push(emulator);
    const identify = { op: 2, d: { token: emulator.seed.botToken, intents: 0, properties: {} } };
    const resume = (sessionId: string) => ({ op: 6, d: { token: emulator.seed.botToken, session_id: sessionId, seq: 1 } });
    for (const [code, resumable] of [
      [1000, false],
      [1001, false],
      [4000, true],
    ] as const) {
      const ready = await exchange(emulator, identify, code);
      const answer = await exchange(emulator, resume((ready.d as { session_id: string }).session_id));
      expect([code, answer.op === 0 ? answer.t : `op ${answer.op} ${String(answer.d)}`]).toEqual([code, resumable ? 'RESUMED' : 'op 9 false']);
    }
  });

  it('gives each emulator its own session ids: a RESUME with another emulator’s session id gets Invalid Session', async () => {
    const [a, b] = [await createEmulator({ seed: 3 }), await createEmulator({ seed: 3 })];
    running.push(a, b);
    const identify = (emulator: Emulator) => ({ op: 2, d: { token: emulator.seed.botToken, intents: 0, properties: {} } });
    const readyA = await exchange(a, identify(a));
    const readyB = await exchange(b, identify(b));
    const idA = (readyA.d as { session_id: string }).session_id;
    const idB = (readyB.d as { session_id: string }).session_id;
    expect(idA).not.toBe(idB);
    const stale = await exchange(b, { op: 6, d: { token: b.seed.botToken, session_id: idA, seq: 1 } });
    expect(stale).toMatchObject({ op: 9, d: false });
    const own = await exchange(b, { op: 6, d: { token: b.seed.botToken, session_id: idB, seq: 1 } });
    expect(own).toMatchObject({ op: 0, t: 'RESUMED' });
  });

  it('rejects invokeCommand().response at once, typed, when the interaction reached no session and no webhook', async () => {
    const emulator = await createEmulator();
    running.push(emulator);
    const admin = new Client({ baseUrl: emulator.url });
    await admin.auth.login({ email: emulator.seed.user.email, password: emulator.seed.user.password });
    await admin.commands.create(emulator.seed.applicationId, { name: 'ping', description: 'Ping' });
    await admin.close();
    const invoked = emulator.invokeCommand({ name: 'ping' });
    expect(invoked.delivered).toBe(0);
    const error = await invoked.response.catch((caught: unknown) => caught);
    expect(isEmulatorNotDeliveredError(error)).toBe(true);
    expect(String(error)).toMatch(/reached no session .* connect the bot/);
  });
});
