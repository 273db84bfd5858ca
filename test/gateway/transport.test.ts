import { describe, expect, it } from 'vitest';
import { GATEWAY_USER_AGENT, acceptResumeUrl, checkGatewayUrl, upgradeHeaders } from '../../src/gateway/transport.js';
import { InsecureTransportError, SDK_VERSION, ValidationError } from '../../src/index.js';

describe('checkGatewayUrl', () => {
  it('accepts wss:// anywhere and ws:// to loopback; refuses plain ws:// elsewhere unless allowed', () => {
    expect(checkGatewayUrl('wss://gw.example/x', false).host).toBe('gw.example');
    expect(checkGatewayUrl('ws://127.0.0.1:1/x', false).port).toBe('1');
    expect(checkGatewayUrl('ws://[::1]:1/x', false).hostname).toBe('[::1]');
    expect(() => checkGatewayUrl('ws://gw.example/x', false)).toThrow(InsecureTransportError);
    expect(checkGatewayUrl('ws://gw.example/x', true).host).toBe('gw.example');
    expect(() => checkGatewayUrl('https://gw.example/x', false)).toThrow(ValidationError);
    expect(() => checkGatewayUrl('not a url', false)).toThrow(ValidationError);
  });
});

describe('acceptResumeUrl', () => {
  it('applies the same rule, and borrows the configured query when it has none', () => {
    expect(acceptResumeUrl(undefined, 'wss://gw.example/?v=10', false)).toBeUndefined();
    expect(acceptResumeUrl('wss://resume.example', 'wss://gw.example/?v=10&encoding=json', false)).toBe('wss://resume.example/?v=10&encoding=json');
    expect(acceptResumeUrl('wss://resume.example/?v=9', 'wss://gw.example/?v=10', false)).toBe('wss://resume.example/?v=9');
    expect(() => acceptResumeUrl('ws://resume.example', 'wss://gw.example', false)).toThrow(InsecureTransportError);
    expect(() => acceptResumeUrl(42, 'wss://gw.example', false)).toThrow(ValidationError);
  });
});

describe('upgradeHeaders', () => {
  it('always sends the SDK product token as User-Agent, with a caller User-Agent after it', () => {
    expect(GATEWAY_USER_AGENT).toBe(`community-chat-sdk/${SDK_VERSION}`);
    expect(upgradeHeaders({})).toEqual({ 'User-Agent': GATEWAY_USER_AGENT });
    expect(upgradeHeaders({ 'user-agent': ' my-bot/2.0 ', 'X-Trace': 'a' })).toEqual({ 'X-Trace': 'a', 'User-Agent': `${GATEWAY_USER_AGENT} my-bot/2.0` });
  });

  it('refuses handshake headers and line breaks', () => {
    for (const name of ['Host', 'connection', 'Upgrade', 'Sec-WebSocket-Protocol']) expect(() => upgradeHeaders({ [name]: 'x' })).toThrow(ValidationError);
    expect(() => upgradeHeaders({ 'X-Evil': 'a\r\nInjected: 1' })).toThrow(ValidationError);
  });
});
