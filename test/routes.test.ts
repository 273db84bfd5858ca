import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { routes, type CredentialKind, type RouteDefinition } from '../src/routes.js';

const contractDir = join(dirname(fileURLToPath(import.meta.url)), '../../shared/contract');
const contractText = readdirSync(contractDir)
  .filter((name) => name.endsWith('.txt'))
  .map((name) => readFileSync(join(contractDir, name), 'utf8'))
  .join('\n');

interface ContractOperation {
  key: string;
  auth?: CredentialKind[];
  success?: number;
}

const normalize = (method: string, path: string) => `${method} ${path.replace(/\{[^}]+\}/g, '{}')}`;

function authFromColumn(column: string): CredentialKind[] | undefined {
  const text = column.trim().toLowerCase();
  if (text === 'none') return ['none'];
  if (text === 'path token') return ['webhook'];
  if (text === 'refresh cookie') return ['refreshCookie'];
  if (text === 'user') return ['user'];
  if (text === 'bot') return ['bot'];
  if (text === 'user, bot' || text === 'user or bot') return ['bot', 'user'];
  if (text.startsWith('user with manage_webhooks')) return ['user'];
  return undefined;
}

/** Reads every operation from the contract's endpoint tables and inline definitions. */
function contractOperations(): ContractOperation[] {
  const found: ContractOperation[] = [];
  for (const line of contractText.split('\n')) {
    const row = /^\|\s*(GET|POST|PUT|PATCH|DELETE)\s*\|\s*(\/\S+)\s*\|(.*)$/.exec(line);
    if (row) {
      const [, method = '', path = '', rest = ''] = row;
      const columns = rest.split('|').map((column) => column.trim());
      const operation: ContractOperation = { key: normalize(method, path) };
      if (columns.length >= 4) {
        const auth = authFromColumn(columns[0] ?? '');
        if (auth) operation.auth = auth;
        const success = /^(\d{3})\b/.exec(columns[2] ?? '');
        if (success) operation.success = Number(success[1]);
      }
      found.push(operation);
      continue;
    }
    const inline = /^(GET|POST|PUT|PATCH|DELETE) (\/\S+?)\.? Auth: (\w+)\./.exec(line);
    if (inline) {
      const [, method = '', path = '', auth = ''] = inline;
      found.push({ key: normalize(method, path), auth: authFromColumn(auth) ?? [] });
    }
  }
  return found;
}

describe('route table against the contract', () => {
  const contract = contractOperations();
  const table = Object.values(routes as Record<string, RouteDefinition>);

  it('finds the 58 operations the contract lists', () => {
    expect(new Set(contract.map((op) => op.key)).size).toBe(58);
  });

  it('covers every contract operation exactly once', () => {
    const ours = table.map((route) => normalize(route.method, route.path)).sort();
    const theirs = contract.map((op) => op.key).sort();
    expect(ours).toEqual(theirs);
  });

  it('accepts exactly the credentials of the Auth column', () => {
    const byKey = new Map(table.map((route) => [normalize(route.method, route.path), route]));
    const checked = contract.filter((op) => op.auth !== undefined);
    expect(checked.length).toBeGreaterThanOrEqual(55);
    for (const op of checked) {
      expect([...(byKey.get(op.key)?.auth ?? [])].sort(), op.key).toEqual([...(op.auth ?? [])].sort());
    }
  });

  it('records the documented success status', () => {
    const byKey = new Map(table.map((route) => [normalize(route.method, route.path), route]));
    const withStatus = contract.filter((op) => op.success !== undefined);
    expect(withStatus.length).toBe(18);
    expect(table.filter((route) => route.success !== undefined)).toHaveLength(18);
    for (const op of withStatus) expect(byKey.get(op.key)?.success, op.key).toBe(op.success);
  });

  it('marks path tokens as secret parameters', () => {
    for (const route of table) {
      for (const name of route.path.match(/\{([a-z_]+)\}/g) ?? []) {
        const param = name.slice(1, -1);
        if (param.includes('token')) expect(route.secretParameters, route.path).toContain(param);
      }
    }
  });
});
