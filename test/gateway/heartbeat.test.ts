import { afterEach, describe, expect, it, vi } from 'vitest';
import { Heartbeat, TimerSet } from '../../src/gateway/heartbeat.js';
import { Client } from '../../src/index.js';
import { SECRETS } from '../helpers/index.js';
import { frames, startWsServer, until } from '../helpers/ws-server.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('Heartbeat (fake timers)', () => {
  it('jitters the first beat within the interval, then beats each interval while ACKs arrive', () => {
    vi.useFakeTimers();
    const heartbeat = new Heartbeat(Date.now, () => 0.25);
    let beats = 0;
    const zombie = vi.fn();
    heartbeat.start(1000, () => beats++, zombie);
    vi.advanceTimersByTime(249);
    expect(beats).toBe(0);
    vi.advanceTimersByTime(1);
    expect(beats).toBe(1);
    vi.advanceTimersByTime(20);
    heartbeat.ack();
    expect(heartbeat.latency).toBe(20);
    vi.advanceTimersByTime(980);
    expect(beats).toBe(2);
    expect(zombie).not.toHaveBeenCalled();
  });

  it('calls onZombie and stops when a beat is due and the previous one has no ACK', () => {
    vi.useFakeTimers();
    const heartbeat = new Heartbeat(Date.now, () => 0);
    let beats = 0;
    const zombie = vi.fn();
    heartbeat.start(100, () => beats++, zombie);
    vi.advanceTimersByTime(0);
    expect(beats).toBe(1);
    vi.advanceTimersByTime(100);
    expect(zombie).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1000);
    expect(beats).toBe(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('stop() also cancels a first beat not yet sent (no stray interval after a reconnect)', () => {
    vi.useFakeTimers();
    const heartbeat = new Heartbeat(Date.now, () => 0.9);
    let beats = 0;
    heartbeat.start(
      1000,
      () => beats++,
      () => undefined,
    );
    heartbeat.stop();
    vi.advanceTimersByTime(10_000);
    expect(beats).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('TimerSet', () => {
  it('clears one timer or all of them', () => {
    vi.useFakeTimers();
    const timers = new TimerSet();
    const fired: string[] = [];
    const a = timers.set(() => fired.push('a'), 10);
    timers.set(() => fired.push('b'), 20);
    timers.set(() => fired.push('c'), 30);
    timers.clear(a);
    vi.advanceTimersByTime(20);
    timers.clearAll();
    vi.advanceTimersByTime(100);
    expect(fired).toEqual(['b']);
  });
});

describe('heartbeats over a real socket (fake timers)', () => {
  // Moved from gateway.test.ts, where it measured wall-clock time.
  it('jitters the first heartbeat within the interval: half of it with random 0.5, not zero and not a whole one', async () => {
    const ws = await startWsServer((peer) => {
      peer.send(frames.hello(400));
      peer.socket.on('message', (data) => {
        if ((JSON.parse(data.toString()) as { op: number }).op === 2) peer.send(frames.ready(1));
      });
    });
    const client = new Client({
      baseUrl: 'http://127.0.0.1:9',
      auth: { botToken: SECRETS.botToken },
      gateway: { url: ws.url, random: () => 0.5, minHeartbeatIntervalMs: 100 },
    });
    try {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
      const ready = client.gateway.connect();
      const peer = await ws.peer(0);
      await until(() => peer.received.length >= 1, { what: 'the Identify at the server' });
      await ready;
      const beats = () => peer.received.filter((frame) => (frame as { op?: number }).op === 1).length;
      await vi.advanceTimersByTimeAsync(199);
      for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
      expect(beats()).toBe(0);
      await vi.advanceTimersByTimeAsync(1);
      await until(() => beats() === 1, { what: 'the first heartbeat at the server' });
      expect(beats()).toBe(1);
    } finally {
      vi.useRealTimers();
      await client.close();
      await ws.close();
    }
  });
});
