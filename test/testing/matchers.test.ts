import { describe, expect, it } from 'vitest';
import { emulatorMatchers, type EmulatedMessage } from '../../src/testing/index.js';

const message = (content: string, via: 'webhook' | 'interaction'): EmulatedMessage => ({
  id: content,
  channelId: 'c1',
  content,
  author: { kind: via === 'webhook' ? 'webhook' : 'bot', id: 'a', name: 'a' },
  via,
  createdAt: 0,
  ...(via === 'interaction' ? { interactionId: 'i1' } : {}),
});
const source = (messages: EmulatedMessage[]) => ({ messages: (channelId?: string) => (channelId === 'other' ? [] : messages) });

describe('emulatorMatchers', () => {
  const posted = source([message('from the webhook', 'webhook'), message('Quiz about space', 'interaction')]);

  it('toHaveReplied matches the bot’s answers only: text, pattern or fields', () => {
    expect(emulatorMatchers.toHaveReplied(posted, 'Quiz about space').pass).toBe(true);
    expect(emulatorMatchers.toHaveReplied(posted, /space$/).pass).toBe(true);
    expect(emulatorMatchers.toHaveReplied(posted, { interactionId: 'i1' }).pass).toBe(true);
    expect(emulatorMatchers.toHaveReplied(posted, 'from the webhook').pass).toBe(false);
    expect(emulatorMatchers.toHaveReplied(posted, 'Quiz about space', { channelId: 'other' }).pass).toBe(false);
  });

  it('toHavePosted matches any message; a failure lists the latest ones, a non-emulator is refused', () => {
    expect(emulatorMatchers.toHavePosted(posted, 'from the webhook').pass).toBe(true);
    const missed = emulatorMatchers.toHavePosted(posted, 'nothing like it');
    expect(missed.pass).toBe(false);
    expect(missed.message()).toContain('"Quiz about space"');
    expect(emulatorMatchers.toHavePosted(source([]), 'x').message()).toContain('none was posted');
    expect(emulatorMatchers.toHaveReplied(42, 'x')).toMatchObject({ pass: false });
  });

  it('works through expect.extend, negated too', () => {
    expect.extend(emulatorMatchers);
    type Extended = { toHaveReplied(expected: string): void; not: { toHaveReplied(expected: string): void } };
    const that = () => expect(posted) as unknown as Extended;
    that().toHaveReplied('Quiz about space');
    that().not.toHaveReplied('from the webhook');
    expect(() => that().toHaveReplied('missing')).toThrow(/expected a reply of the bot matching "missing"/);
    expect(() => that().not.toHaveReplied('Quiz about space')).toThrow(/expected no reply of the bot/);
  });
});
