import { describe, expect, it } from 'vitest';
import { buildPath, buildQuery } from '../../src/core/path.js';

describe('buildPath', () => {
  it('encodes each parameter as one path segment', () => {
    const built = buildPath('/channels/{channel_id}/activities', { channel_id: 'a/b c?#' });
    expect(built).toMatchObject({ path: '/channels/a%2Fb%20c%3F%23/activities', displayPath: '/channels/a%2Fb%20c%3F%23/activities' });
  });

  it('hides secret parameters in the display path and reports their raw values', () => {
    const built = buildPath('/webhooks/{webhook_id}/{webhook_token}', { webhook_id: 'w1', webhook_token: 'tok/en' }, ['webhook_token']);
    expect(built).toMatchObject({ path: '/webhooks/w1/tok%2Fen', displayPath: '/webhooks/w1/:redacted', secrets: ['tok/en'] });
  });

  it('reports every missing or empty parameter as an issue', () => {
    const built = buildPath('/applications/{app_id}/webhooks/{webhook_id}', { app_id: '' });
    expect('issues' in built && built.issues.map((issue) => issue.path).sort()).toEqual(['app_id', 'webhook_id']);
  });
});

describe('buildQuery', () => {
  it('encodes names and values and skips undefined', () => {
    expect(buildQuery({ page: 1, per_page: 50, q: 'a b&c', skip: undefined, flag: true })).toBe('?page=1&per_page=50&q=a%20b%26c&flag=true');
    expect(buildQuery({})).toBe('');
    expect(buildQuery(undefined)).toBe('');
  });
});
