import { describe, expect, it } from 'vitest';
import { closeCodeRule, closeCodes } from '../../src/index.js';

describe('close-code table', () => {
  it('maps each code to resume, reidentify or fatal; unlisted codes resume', () => {
    expect(closeCodeRule(4000).action).toBe('resume');
    expect(closeCodeRule(4004)).toMatchObject({ action: 'fatal', hint: expect.stringMatching(/token/) });
    expect(closeCodeRule(4007).action).toBe('reidentify');
    expect(closeCodeRule(4009).action).toBe('reidentify');
    expect(closeCodeRule(1000)).toMatchObject({ action: 'resume', name: 'closed by the server' });
    expect(closeCodeRule(1006)).toMatchObject({ action: 'resume', name: 'connection lost' });
    for (const rule of Object.values(closeCodes)) if (rule.action === 'fatal') expect(rule.hint).toBeTruthy();
  });
});
