import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { routes, type CredentialKind, type RouteDefinition } from '../../src/core/routes.js';

/**
 * The contract's operation table, checked in as data (method, path, auth,
 * success status) so that the suite runs in any clone. `.ci/run` checks that
 * it still matches the contract text when the contract is beside the repo
 * (`node scripts/contract-operations.mjs`).
 */
const fixture = JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), '../fixtures/contract-operations.json'), 'utf8')) as {
  method: string;
  path: string;
  auth?: CredentialKind[];
  success?: number;
}[];

interface ContractOperation {
  key: string;
  auth?: CredentialKind[];
  success?: number;
}

const normalize = (method: string, path: string) => `${method} ${path.replace(/\{[^}]+\}/g, '{}')}`;

function contractOperations(): ContractOperation[] {
  return fixture.map((op) => ({
    key: normalize(op.method, op.path),
    ...(op.auth ? { auth: op.auth } : {}),
    ...(op.success !== undefined ? { success: op.success } : {}),
  }));
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
