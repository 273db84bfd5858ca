/**
 * Redaction rules that the mutation measure (`npm run mutate`, area `redaction`) found unguarded: which keys and values
 * are secrets, how short secrets are matched, and which bot tokens the Gateway's book keeps.
 */
import { expect, it } from 'vitest';
import { REDACTED, isSecretKey, redactValue, scrubText } from '../../src/core/redact.js';
import { SecretBook } from '../../src/gateway/secrets.js';

it('the book keeps the current bot token and the one before it (a reconnect may still send the old one), and forgets older ones', () => {
  const book = new SecretBook(() => 0);
  book.rememberBotToken('bot-token-one');
  book.rememberBotToken('bot-token-two');
  expect(book.list(undefined), 'both the current and the previous bot token').toEqual(expect.arrayContaining(['bot-token-one', 'bot-token-two']));
  book.rememberBotToken('bot-token-three');
  const secrets = book.list(undefined);
  expect(secrets, 'the previous bot token forgotten after a rotation').toContain('bot-token-two');
  expect(secrets).toContain('bot-token-three');
  expect(secrets).not.toContain('bot-token-one');
  expect(book.scrubText('sent bot-token-two then bot-token-three', undefined)).toBe(`sent ${REDACTED} then ${REDACTED}`);
});

it('a secret of 4 characters or more is scrubbed wherever it stands; one of 3 only as a whole word', () => {
  expect(scrubText('xxabcdyy', ['abcd']), 'a 4-character secret inside a word').toBe(`xx${REDACTED}yy`);
  expect(scrubText('xxabcyy and abc', ['abc']), 'a 3-character secret').toBe(`xxabcyy and ${REDACTED}`);
});

it('a field named after a cookie is a secret, and anything under a secret key is redacted: a string, a number, an object', () => {
  expect(isSecretKey('cookie')).toBe(true);
  expect(isSecretKey('session_cookie')).toBe(true);
  expect(redactValue({ cookie: 'sid=1', id: '7' })).toEqual({ cookie: REDACTED, id: '7' });
  expect(redactValue({ password: 123456, token: { value: 'inner', expires: 3 }, secret: ['a', 'b'] })).toEqual({
    password: REDACTED,
    token: REDACTED,
    secret: REDACTED,
  });
  // Empty and absent values say nothing and stay as they are.
  expect(redactValue({ token: '', password: null })).toEqual({ token: '', password: null });
});

it('the list of secrets takes in a token remembered after it was last built', () => {
  const book = new SecretBook(() => 0);
  book.rememberBotToken('bot-token-one');
  expect(book.list(undefined)).toEqual(['bot-token-one']);
  book.remember('interaction-token-after');
  expect(book.list(undefined), 'the list built before the token was remembered').toContain('interaction-token-after');
});
