#!/usr/bin/env node
/**
 * The contract's operation table as data: method, path, accepted credentials
 * and fixed success status of every operation, read from the contract text.
 *
 *   node scripts/contract-operations.mjs [--contract DIR]          check the fixture against the contract
 *   node scripts/contract-operations.mjs --write [--contract DIR]  regenerate the fixture
 *
 * The tests read only the checked-in fixture (test/fixtures/contract-operations.json),
 * so a clone without the contract beside it still passes `npm test`; CI runs the
 * check when `../shared/contract` exists.
 */
import { readFileSync, readdirSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const fixturePath = join(root, 'test/fixtures/contract-operations.json');

/** Maps the contract's Auth column to credential kinds (sorted), or undefined when the column names none. */
function authFromColumn(column) {
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
export function contractOperations(text) {
  const found = [];
  for (const line of text.split('\n')) {
    const row = /^\|\s*(GET|POST|PUT|PATCH|DELETE)\s*\|\s*(\/\S+)\s*\|(.*)$/.exec(line);
    if (row) {
      const [, method, path, rest] = row;
      const columns = rest.split('|').map((column) => column.trim());
      const operation = { method, path };
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
      const [, method, path, auth] = inline;
      found.push({ method, path, auth: authFromColumn(auth) ?? [] });
    }
  }
  return found.sort((a, b) => `${a.path} ${a.method}`.localeCompare(`${b.path} ${b.method}`));
}

function readContract(dir) {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.txt'))
    .sort()
    .map((name) => readFileSync(join(dir, name), 'utf8'))
    .join('\n');
}

function main(argv) {
  const write = argv.includes('--write');
  const at = argv.indexOf('--contract');
  const dir = at >= 0 ? resolve(argv[at + 1] ?? '') : resolve(root, '../shared/contract');
  if (!existsSync(dir)) {
    console.error(`contract-operations: no contract at ${dir}; pass --contract DIR`);
    return 2;
  }
  const fresh = `${JSON.stringify(contractOperations(readContract(dir)), null, 2)}\n`;
  if (write) {
    writeFileSync(fixturePath, fresh);
    console.log(`contract-operations: wrote ${fixturePath}`);
    return 0;
  }
  const current = existsSync(fixturePath) ? readFileSync(fixturePath, 'utf8') : '';
  if (current !== fresh) {
    console.error(
      'contract-operations: test/fixtures/contract-operations.json no longer matches the contract; run `node scripts/contract-operations.mjs --write`, review the diff and the route table',
    );
    return 1;
  }
  console.log(`contract-operations: the fixture matches the contract (${JSON.parse(fresh).length} operations)`);
  return 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = main(process.argv.slice(2));
