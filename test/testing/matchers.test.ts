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

describe('emulatorMatchers compare structurally', () => {
  const answered = (callbacks: { interaction_type: number; data: Record<string, unknown> }[]) => ({ id: 'i9', callbacks: () => callbacks as never });

  it('toHaveReplied with fields: key order does not matter, values do', () => {
    const components = [{ type: 1, components: [{ type: 2, style: 1, label: 'Yes', custom_id: 'yes' }] }];
    const withRow = source([{ ...message('Menu', 'interaction'), components }]);
    const reordered = [{ components: [{ custom_id: 'yes', label: 'Yes', style: 1, type: 2 }], type: 1 }];
    expect(emulatorMatchers.toHaveReplied(withRow, { components: reordered as never }).pass).toBe(true);
    expect(
      emulatorMatchers.toHaveReplied(withRow, { components: [{ type: 1, components: [{ type: 2, style: 1, label: 'No', custom_id: 'yes' }] }] as never }).pass,
    ).toBe(false);
  });

  it('toHaveShownModal and toHaveAutocompleted: key order does not matter', () => {
    const modal = answered([
      { interaction_type: 9, data: { custom_id: 'f', title: 'T', components: [{ type: 1, components: [{ type: 4, custom_id: 'q' }] }] } },
    ]);
    expect(emulatorMatchers.toHaveShownModal(modal, { components: [{ components: [{ custom_id: 'q', type: 4 }], type: 1 }] }).pass).toBe(true);
    expect(emulatorMatchers.toHaveShownModal(modal, { components: [{ components: [{ custom_id: 'z', type: 4 }], type: 1 }] }).pass).toBe(false);
    const suggested = answered([{ interaction_type: 8, data: { choices: [{ name: 'Tea', value: 'tea' }] } }]);
    expect(emulatorMatchers.toHaveAutocompleted(suggested, [{ value: 'tea', name: 'Tea' }]).pass).toBe(true);
    expect(emulatorMatchers.toHaveAutocompleted(suggested, [{ value: 'coffee', name: 'Tea' }]).pass).toBe(false);
  });

  it('toHaveAutocompleted reads the latest choices only: an earlier match does not pass', () => {
    const twice = answered([
      { interaction_type: 8, data: { choices: [{ name: 'Tea', value: 'tea' }] } },
      { interaction_type: 8, data: { choices: [{ name: 'Coffee', value: 'coffee' }] } },
    ]);
    const earlier = emulatorMatchers.toHaveAutocompleted(twice, [{ name: 'Tea', value: 'tea' }]);
    expect(earlier.pass).toBe(false);
    expect(earlier.message()).toContain('Coffee');
    expect(emulatorMatchers.toHaveAutocompleted(twice, [{ name: 'Coffee', value: 'coffee' }]).pass).toBe(true);
  });
});
